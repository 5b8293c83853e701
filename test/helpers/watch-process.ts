/**
 * A running `hfx watch` (the real bundled bin): its stdout lines as they come, a bounded wait for
 * one of them, and a stop by signal that reports the exit code.
 */
import {type ChildProcess, spawn} from 'node:child_process';
import path from 'node:path';
import {isDeepStrictEqual} from 'node:util';
import readline from 'node:readline';
import {ROOT} from './writer.js';

export class WatchProcess {
	readonly child: ChildProcess;
	readonly lines: string[] = [];
	stderr = '';
	private readonly exited: Promise<{code: number | null; signal: NodeJS.Signals | null}>;

	/** `entry`: the bundled bin by default; dist/cli/main.js runs the unbundled modules. */
	constructor(args: string[], options: {nodeArgs?: string[]; env?: NodeJS.ProcessEnv; entry?: string} = {}) {
		this.child = spawn(
			process.execPath,
			[...(options.nodeArgs ?? []), options.entry ?? path.join(ROOT, 'dist/hfx.js'), 'watch', ...args],
			{stdio: ['ignore', 'pipe', 'pipe'], env: {...process.env, NO_COLOR: '1', ...options.env}},
		);
		readline.createInterface({input: this.child.stdout!}).on('line', line => this.lines.push(line));
		this.child.stderr!.on('data', (d: Buffer) => {
			this.stderr += d.toString();
		});
		this.exited = new Promise(resolve => this.child.once('exit', (code, signal) => resolve({code, signal})));
	}

	/** The JSON events printed so far (with --json-lines). */
	events(): Array<Record<string, any>> {
		return this.lines.map(l => JSON.parse(l) as Record<string, any>);
	}

	/** Waits until `predicate` holds on the events, at most `ms`; throws with what was seen. */
	async waitFor(predicate: (events: Array<Record<string, any>>) => boolean, ms: number, what: string): Promise<void> {
		const until = Date.now() + ms;
		while (!predicate(this.events())) {
			if (Date.now() > until || this.child.exitCode !== null) {
				throw new Error(
					`hfx watch: no ${what} within ${ms} ms (exit ${this.child.exitCode}); ` +
						`events: ${this.lines.join('\n').slice(-2000)}; ` +
						`stderr: ${this.stderr.slice(-500)}`,
				);
			}

			await new Promise(resolve => setTimeout(resolve, 50));
		}
	}

	/**
	 * Waits until each of `wanted` (the fields an event must have, each compared whole) is among the events, at most
	 * `ms`; returns the first match of each, in the order asked (two alike partials are met by one event: count with
	 * `events().filter` after the wait). How a test asserts that events came: a reading writes
	 * its events a line at a time, and the next reading may bring the rest (CI saw an event of the same reading missing
	 * one line after the one waited for; a load run, an event of the next commit's reading), so what was not waited for
	 * may not be there yet (test/build/watch-events-awaited.test.ts holds every test to it).
	 */
	async waitForEach(wanted: Array<Record<string, unknown>>, ms: number): Promise<Array<Record<string, any>>> {
		const matchOf = (want: Record<string, unknown>) =>
			this.events().find(e => Object.entries(want).every(([k, v]) => isDeepStrictEqual(e[k], v)));
		const names = wanted.map(w => JSON.stringify(w)).join(', ');
		await this.waitFor(() => wanted.every(w => matchOf(w) !== undefined), ms, `events matching ${names}`);
		return wanted.map(w => matchOf(w)!);
	}

	/** Sends `signal` and waits (at most 10 s, then SIGKILL) for the exit. */
	async stop(
		signal: NodeJS.Signals = 'SIGTERM',
	): Promise<{code: number | null; signal: NodeJS.Signals | null; ms: number}> {
		const started = Date.now();
		if (this.child.exitCode === null && this.child.signalCode === null) {
			this.child.kill(signal);
		}

		const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
		const result = await this.exited;
		clearTimeout(timer);
		return {...result, ms: Date.now() - started};
	}
}
