/**
 * The TUI's way to run a backup command: `hfx <args> --json` in a child process with
 * HFX_PROGRESS=json, its progress events streamed back to the caller, its exit code and JSON
 * returned, so a large backup does its CPU and disk work off the caller's event loop.
 */
import {spawn} from 'node:child_process';
import readline from 'node:readline';
import {type ProgressFn, parseProgressLine} from './progress.js';
import {distFile} from '../paths.js';

function cliPath(): string {
	return distFile('hfx.js');
}

export type CliRun = {code: number; json: unknown; stderr: string[]};

/**
 * Runs `hfx <args> --json` in a child process with HFX_PROGRESS=json, calling onProgress for
 * each progress event; resolves with the exit code and the parsed JSON. For the TUI:
 *   runCli(['backup', '--quick', '--home', root, '--label', 'tui'], {onProgress})
 *   runCli(['backup', '--home', root], {onProgress})
 */
export async function runCli(args: string[], options: {onProgress?: ProgressFn; env?: NodeJS.ProcessEnv; signal?: AbortSignal} = {}): Promise<CliRun> {
	const child = spawn(process.execPath, [cliPath(), ...args, '--json'], {
		stdio: ['ignore', 'pipe', 'pipe'],
		env: {...process.env, ...options.env, HFX_PROGRESS: 'json', NO_COLOR: '1'},
		signal: options.signal,
	});
	let stdout = '';
	child.stdout.on('data', (d: Buffer) => {
		stdout += d.toString();
	});
	const stderr: string[] = [];
	readline.createInterface({input: child.stderr}).on('line', line => {
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
	});
	let json: unknown = null;
	try {
		json = stdout.trim() ? JSON.parse(stdout) : null;
	} catch {
		json = null;
	}

	return {code, json, stderr};
}
