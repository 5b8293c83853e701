/**
 * Runs the real compiled binary (dist/hfx.js) and captures its output and exit code.
 */
import {spawnSync} from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import {ROOT} from './writer.js';

export type CliRun = {code: number | null; stdout: string; stderr: string};

export function hfx(args: string[], options: {env?: NodeJS.ProcessEnv; input?: string; cwd?: string} = {}): CliRun {
	const r = spawnSync(process.execPath, [path.join(ROOT, 'dist/hfx.js'), ...args], {
		encoding: 'utf8',
		env: {...process.env, NO_COLOR: '1', HOME: process.env.HOME, ...options.env},
		input: options.input ?? '',
		cwd: options.cwd,
		timeout: 60_000,
		// A --json document of thousands of listed rows is megabytes (Node's default is 1 MB, then the child is killed).
		maxBuffer: 256 * 1024 * 1024,
	});
	return {code: r.status, stdout: r.stdout, stderr: r.stderr};
}

/** The binary on a pseudo-terminal (script(1)), so it asks the typed confirmation; `answer` is typed into it. */
export function hfxOnTerminal(args: string[], answer: string): {code: number | null; out: string} {
	const command = [process.execPath, path.join(ROOT, 'dist/hfx.js'), ...args]
		.map(a => `'${a.replaceAll("'", "'\\''")}'`)
		.join(' ');
	const r = spawnSync('script', ['-qec', command, '/dev/null'], {
		input: `${answer}\n`,
		encoding: 'utf8',
		env: {...process.env, NO_COLOR: '1'},
		timeout: 60_000,
	});
	return {code: r.status, out: r.stdout};
}

export function hfxJson<T = any>(
	args: string[],
	options: Parameters<typeof hfx>[1] = {},
): {code: number | null; json: T; stderr: string} {
	const r = hfx([...args, '--json'], options);
	try {
		return {code: r.code, json: JSON.parse(r.stdout) as T, stderr: r.stderr};
	} catch {
		throw new Error(`not JSON (exit ${r.code}): ${r.stdout.slice(0, 300)}\nstderr: ${r.stderr}`);
	}
}

function sha256(file: string): string | null {
	try {
		return crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');
	} catch {
		return null;
	}
}

/**
 * The evidence a read-only command must not change: the bytes of state.db, its -wal and its -shm
 * (whose header `hfx files` reports: a recovery of the WAL index would rewrite it), and the folder
 * listing (names, no new files). Read by this test process, which holds no SQLite connection.
 */
export function evidenceState(dir: string, name = 'state.db') {
	return {
		db: sha256(path.join(dir, name)),
		wal: sha256(path.join(dir, `${name}-wal`)),
		shm: sha256(path.join(dir, `${name}-shm`)),
		listing: fs.readdirSync(dir).sort(),
	};
}
