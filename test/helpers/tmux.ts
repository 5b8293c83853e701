/**
 * tmux for the end-to-end tests: a server of this test process's own (its own socket, no user
 * config), kept alive between sessions (exit-empty off). On the shared default server a test file
 * that killed its last session made the server exit while the next `new-session` (of the same
 * file or of another file running beside it) was connecting to it: "server exited unexpectedly",
 * 2 runs in 6 of the colour test.
 */
import {execFileSync, spawnSync} from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterAll, afterEach, beforeAll} from 'vitest';
import {ROOT} from './writer.js';

const SOCKET = `hfx-test-${process.pid}`;
const BASE = ['-L', SOCKET, '-f', '/dev/null'];
let started = false;

/** Runs one tmux command on this process's server (started on first use); its stdout. */
export function tmux(...args: string[]): string {
	if (!started) {
		if (spawnSync('tmux', ['-V']).status !== 0) {
			throw new Error('tmux is required for the end-to-end tests (apt-get install tmux; .ci/run installs it)');
		}

		execFileSync('tmux', [...BASE, 'start-server', ';', 'set-option', '-g', 'exit-empty', 'off']);
		started = true;
		process.once('exit', stopTmux);
	}

	return execFileSync('tmux', [...BASE, ...args], {encoding: 'utf8'});
}

/** Ends one session if it exists (after a test, whatever it left). */
export function killSession(session: string): void {
	if (started) {
		spawnSync('tmux', [...BASE, 'kill-session', '-t', session]);
	}
}

/** Ends this process's tmux server and every session on it. */
export function stopTmux(): void {
	if (started) {
		const socket = spawnSync('tmux', [...BASE, 'display-message', '-p', '#{socket_path}'], {
			encoding: 'utf8',
		}).stdout.trim();
		spawnSync('tmux', [...BASE, 'kill-server']);
		// tmux 3.3 leaves its socket file behind when the server is killed.
		if (socket.endsWith(SOCKET)) {
			fs.rmSync(socket, {force: true});
		}

		started = false;
	}
}

/** What the session's pane shows: lines joined where they wrapped, or (joined false) row by row. */
export function screenOf(session: string, joined = true): string {
	return tmux('capture-pane', '-p', ...(joined ? ['-J'] : []), '-t', session);
}

/**
 * A frame taken twice: `pattern` matched, and the next capture (`confirmMs` later) matches too; that second capture is
 * the one returned. tmux can be asked for the pane while it is still parsing a frame (Ink writes one frame as one
 * stream; the pty hands it over in pieces, and tmux 3.3 does not hold the pane for synchronized output), so a capture
 * may show the top of the new frame over the bottom of the old one; the one after it shows the frame whole. (Waiting
 * for two identical captures instead made a test whose writer commits every 20 ms wait a second per screen.) Pure
 * over `capture` and `sleep`.
 */
export async function settledMatch(
	capture: () => string,
	pattern: RegExp,
	sleep: (ms: number) => Promise<unknown>,
	{timeoutMs = 15_000, pollMs = 100, confirmMs = 30, now = Date.now} = {},
): Promise<{screen: string; matched: boolean}> {
	const end = now() + timeoutMs;
	let last = '';
	while (now() < end) {
		last = capture();
		if (pattern.test(last)) {
			await sleep(confirmMs);
			const next = capture();
			if (pattern.test(next)) {
				return {screen: next, matched: true};
			}

			last = next;
		}

		await sleep(pollMs);
	}

	return {screen: last, matched: false};
}

/**
 * Polls the screen every 100 ms until `pattern` matches on two captures in a row (`settledMatch`); throws with the last
 * screen after `timeoutMs`.
 */
export async function waitForScreenOf(
	session: string,
	pattern: RegExp,
	timeoutMs = 15_000,
	joined = true,
): Promise<string> {
	const {screen, matched} = await settledMatch(
		() => screenOf(session, joined),
		pattern,
		ms => new Promise(resolve => setTimeout(resolve, ms)),
		{timeoutMs},
	);
	if (!matched) {
		throw new Error(`screen never matched ${pattern}; last screen:\n${screen}`);
	}

	return screen;
}

/**
 * What every tmux test file sets up: its session's name and a temp folder, with the hooks that
 * end the session after each test (then run `afterEachTest`, say to kill a writer) and remove
 * this process's server and the folder at the end. Call it once, at the file's top level.
 */
export type TmuxTestFile = {
	session: string;
	readonly dir: string;
	/**
	 * Starts the real bin (dist/hfx.js ARGS, on the Node running the tests: CI's Node 22 tier too) in the session at
	 * columns x rows, CI=false and `env`
	 * set (default: no colour), and Node's `nodeFlags` before the bin; the shell then prints EXIT=code and waits 60 s to
	 * be read.
	 */
	start: (columns: number, rows: number, args: string, env?: Record<string, string>, nodeFlags?: string) => void;
};

export function tmuxTestFile(name: string, afterEachTest?: () => unknown): TmuxTestFile {
	const session = `hfx-e2e-${name}-${process.pid}-${Date.now()}`;
	let dir = '';
	beforeAll(() => {
		dir = fs.mkdtempSync(path.join(os.tmpdir(), `hfx-e2e-${name}-`));
	});
	afterEach(async () => {
		killSession(session);
		await afterEachTest?.();
	});
	afterAll(() => {
		stopTmux();
		fs.rmSync(dir, {recursive: true, force: true});
	});
	return {
		session,
		get dir() {
			return dir;
		},
		start(columns, rows, args, env = {NO_COLOR: '1', FORCE_COLOR: '0'}, nodeFlags = '') {
			const vars = Object.entries({CI: 'false', ...env}).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
			tmux(
				'new-session',
				'-d',
				'-s',
				session,
				'-x',
				String(columns),
				'-y',
				String(rows),
				...vars,
				`'${process.execPath}' ${nodeFlags} ${path.join(ROOT, 'dist/hfx.js')} ${args}; echo EXIT=$?; sleep 60`,
			);
		},
	};
}
