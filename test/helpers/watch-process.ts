/**
 * A running `hfx watch` (the real bundled bin): its stdout lines as they come, a bounded wait for
 * one of them, and a stop by signal that reports the exit code.
 */
import {type ChildProcess, spawn} from 'node:child_process';
import path from 'node:path';
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
