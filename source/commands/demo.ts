/**
 * `hfx demo`: a temporary Hermes home written live by a simulated gateway (a child process), so a
 * newcomer watches the rollback risk appear about a minute in. Removed on exit unless --keep.
 */
import {type ChildProcess, spawn} from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import {FailClosed, type ExitCode} from '../ground/errors.js';
import {type GlobalFlags, type Io, guarded} from './context.js';
import {distFile} from '../ground/paths.js';

/** How long the simulated gateway may take to have its store ready, and to stop after SIGTERM. */
const READY_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 5000;

export type DemoFlags = GlobalFlags & {speed: number; keep: boolean; seconds: number | undefined};

export type RunningDemo = {home: string; db: string; child: ChildProcess; stop: () => Promise<void>};

/**
 * Starts the simulated gateway and resolves once its store exists. `restartAt` moves the gateway's
 * restart after the incident (seconds at speed 1 from the start) or leaves it out ('never').
 */
export async function startDemoGateway(options: {
	speed: number;
	home?: string;
	restartAt?: number | 'never';
}): Promise<RunningDemo> {
	const home = options.home ?? fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-demo-'));
	const script = distFile('simulator/gateway.js');
	const restart = options.restartAt === undefined ? [] : ['--restart-at', String(options.restartAt)];
	const child = spawn(process.execPath, [script, '--home', home, '--speed', String(options.speed), ...restart], {
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	let stderr = '';
	child.stderr!.on('data', (d: Buffer) => {
		stderr += d.toString();
	});
	const db = await new Promise<string>((resolve, reject) => {
		// Bounded: a gateway that never gets its store ready is stopped, and the demo refused in one line.
		const timer = setTimeout(() => {
			child.kill('SIGKILL');
			reject(
				new FailClosed({
					file: home,
					kind: 'demo-failed',
					reason:
						`the simulated gateway did not have its store ready ` +
						`within ${READY_TIMEOUT_MS / 1000} s and was stopped`,
					next: 'run npm install again (the build may be incomplete), or try again on a less loaded machine',
				}),
			);
		}, READY_TIMEOUT_MS);
		timer.unref();
		child.once('exit', () => clearTimeout(timer));
		const lines = readline.createInterface({input: child.stdout!});
		lines.on('line', line => {
			try {
				const event = JSON.parse(line) as {event: string; db?: string};
				if (event.event === 'ready' && event.db) {
					clearTimeout(timer);
					resolve(event.db);
				}
			} catch {
				// not an event line
			}
		});
		child.once('exit', code =>
			reject(
				new FailClosed({
					file: home,
					kind: 'demo-failed',
					reason: `the simulated gateway exited (${code}) before its store was ready: ${stderr.trim().slice(0, 200)}`,
					next: 'run npm install again (the build may be incomplete)',
				}),
			),
		);
	});
	const stop = async () => {
		if (child.exitCode === null && child.signalCode === null) {
			const gone = new Promise(resolve => child.once('exit', resolve));
			child.kill('SIGTERM');
			// Bounded: a gateway that ignores SIGTERM is killed.
			const hard = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
			await gone;
			clearTimeout(hard);
		}
	};

	return {home, db, child, stop};
}

/**
 * Runs `body` on a fresh demo home (the simulated gateway writing it), then stops the gateway and
 * removes the home unless --keep. The interactive TUI (cli/live.ts) and the headless report share it.
 */
export async function withDemo(
	flags: DemoFlags,
	io: Io,
	body: (demo: RunningDemo) => Promise<ExitCode>,
): Promise<ExitCode> {
	return guarded(io, flags, async () => {
		const demo = await startDemoGateway({speed: flags.speed});
		try {
			return await body(demo);
		} finally {
			await demo.stop();
			if (flags.keep) {
				io.err(`hfx demo: kept the demo home at ${demo.home}`);
			} else {
				fs.rmSync(demo.home, {recursive: true, force: true});
			}
		}
	});
}
