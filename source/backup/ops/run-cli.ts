/**
 * The TUI's way to run a backup command: `hfx <args> --json` in a child process with
 * HFX_PROGRESS=json, its progress events streamed back to the caller, its exit code and JSON
 * returned, so a large backup does its CPU and disk work off the caller's event loop.
 */
import {spawn} from 'node:child_process';
import readline from 'node:readline';
import {type ProgressFn, parseProgressLine} from '../progress.js';
import {distFile} from '../../ground/paths.js';

function cliPath(): string {
	return distFile('hfx.js');
}

export type CliRun = {code: number; json: unknown; stderr: string[]};

/**
 * A backup child that reports no progress and prints nothing for this long is stopped (its cleanup is the next run's
 * sweep).
 */
export const CHILD_IDLE_MS = 300_000;

/**
 * Runs `hfx <args> --json` in a child process with HFX_PROGRESS=json, calling onProgress for
 * each progress event; resolves with the exit code and the parsed JSON. For the TUI:
 *   runCli(['backup', '--quick', '--home', root, '--label', 'tui'], {onProgress})
 *   runCli(['backup', '--home', root], {onProgress})
 */
export async function runCli(
	args: string[],
	options: {onProgress?: ProgressFn; env?: NodeJS.ProcessEnv; signal?: AbortSignal; idleMs?: number} = {},
): Promise<CliRun> {
	const child = spawn(process.execPath, [cliPath(), ...args, '--json'], {
		stdio: ['ignore', 'pipe', 'pipe'],
		env: {...process.env, ...options.env, HFX_PROGRESS: 'json', NO_COLOR: '1'},
		signal: options.signal,
	});
	// Bounded: every byte it prints (progress included) restarts the clock; silence for idleMs stops it.
	const idleMs = options.idleMs ?? CHILD_IDLE_MS;
	const stderr: string[] = [];
	let idle: NodeJS.Timeout | undefined;
	const alive = (): void => {
		clearTimeout(idle);
		idle = setTimeout(() => {
			stderr.push(
				`hfx: ${args.join(' ')}: the child process printed nothing ` +
					`for ${Math.round(idleMs / 1000)} s and was stopped (SIGKILL). Next: run ` +
					`the command by hand to see where it waits`,
			);
			child.kill('SIGKILL');
		}, idleMs);
	};

	alive();
	let stdout = '';
	child.stdout.on('data', (d: Buffer) => {
		alive();
		stdout += d.toString();
	});
	readline.createInterface({input: child.stderr}).on('line', line => {
		alive();
		const e = parseProgressLine(line);
		if (e) {
			options.onProgress?.(e);
		} else if (line.trim()) {
			stderr.push(line);
		}
	});
	const code = await new Promise<number>((resolve, reject) => {
		child.once('error', reject);
		child.once('close', c => resolve(c ?? 2));
	}).finally(() => clearTimeout(idle));
	let json: unknown = null;
	try {
		json = stdout.trim() ? JSON.parse(stdout) : null;
	} catch {
		json = null;
	}

	return {code, json, stderr};
}
