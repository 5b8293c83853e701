/**
 * Hangs (issue 17, class 3). A FIFO blocks its reader until a writer comes, forever: every file hfx
 * did not create is type-checked before it is read (on the open descriptor, opened non-blocking),
 * every foreign read is bounded, and every child process has a bound. A FIFO named -wal that
 * appears under a running TUI froze it (the open blocked the event loop: q and Ctrl-C were never
 * read); now the Files pane says what it is and q and Ctrl-C still end it. Real binary, real
 * FIFOs, bounded waits; every fault proves every byte of the folder unchanged.
 */
import {execFileSync} from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterAll, afterEach, describe, expect, it} from 'vitest';
import {runCli} from '../../source/backup/ops/run-cli.js';
import {hfx, hfxJson} from '../helpers/cli.js';
import {folderHashes, oneLine} from '../helpers/folder-hashes.js';
import {killSession, stopTmux, tmux, waitForScreenOf} from '../helpers/tmux.js';
import {ROOT} from '../helpers/writer.js';

const dirs: string[] = [];
afterAll(() => {
	for (const d of dirs) {
		fs.rmSync(d, {recursive: true, force: true});
	}
});

function tempDir(tag: string): string {
	const d = fs.mkdtempSync(path.join(os.tmpdir(), `hfx-hang-${tag}-`));
	dirs.push(d);
	return d;
}

/** A stopped store (the v21 incident, no sidecars) in a fresh folder. */
function store(tag: string): {dir: string; db: string} {
	const dir = tempDir(tag);
	const db = path.join(dir, 'state.db');
	fs.copyFileSync(path.join(ROOT, 'test/fixtures/hermes-v21-incident/state.db'), db);
	return {dir, db};
}

function mkfifo(p: string): void {
	fs.mkdirSync(path.dirname(p), {recursive: true});
	execFileSync('mkfifo', [p]);
}

/** Runs hfx and proves it ended on its own well before the harness's own 60 s kill. */
function bounded(args: string[]): ReturnType<typeof hfx> {
	const started = Date.now();
	const r = hfx(args);
	expect(r.code, `${args.join(' ')} did not end by itself`).not.toBeNull();
	expect(Date.now() - started, args.join(' ')).toBeLessThan(20_000);
	return r;
}

describe('a FIFO where hfx reads a file it did not create', () => {
	it('state.db-journal as a FIFO: refused in one line, exit 2, for every store command', () => {
		const {dir, db} = store('journal');
		mkfifo(`${db}-journal`);
		const before = folderHashes(dir);
		for (const command of ['scan', 'files', 'sessions', 'routing', 'repair']) {
			const r = bounded([command, '--db', db]);
			expect(r.code, command).toBe(2);
			expect(oneLine(r.stderr), command).toContain('state.db-journal: a FIFO, not a regular file');
		}

		expect(folderHashes(dir)).toEqual(before);
	});

	it('state.db itself as a FIFO, directly or through a link: refused in one line, exit 2', () => {
		const dir = tempDir('main');
		mkfifo(path.join(dir, 'data', 'state.db'));
		fs.symlinkSync('data/state.db', path.join(dir, 'state.db'));
		const before = folderHashes(dir);
		for (const db of [path.join(dir, 'data', 'state.db'), path.join(dir, 'state.db')]) {
			const r = bounded(['scan', '--db', db]);
			expect(r.code).toBe(2);
			expect(oneLine(r.stderr)).toContain('a FIFO, not a regular file');
		}

		expect(folderHashes(dir)).toEqual(before);
	});

	it('sessions/sessions.json as a FIFO: the scan ends, and says the mirror is not a regular file', () => {
		const {dir, db} = store('mirror');
		mkfifo(path.join(dir, 'sessions', 'sessions.json'));
		const before = folderHashes(dir);
		const started = Date.now();
		const r = hfxJson(['scan', '--db', db]);
		expect(Date.now() - started).toBeLessThan(20_000);
		expect(r.code).not.toBe(2);
		expect(r.json.database.legacyMirror.problem).toMatch(/a FIFO, not a regular file/);
		expect(folderHashes(dir)).toEqual(before);
	});

	it('config.yaml as a FIFO: doctor ends and reports the file as unreadable', () => {
		const {dir} = store('doctor');
		mkfifo(path.join(dir, 'config.yaml'));
		const before = folderHashes(dir);
		const started = Date.now();
		const r = hfxJson(['doctor', '--home', dir]);
		expect(Date.now() - started).toBeLessThan(20_000);
		expect(r.json.config.error).toMatch(/a FIFO, not a regular file/);
		expect(folderHashes(dir)).toEqual(before);
	});

	it('a FIFO named like an archive in the backup folder: the listing ends', () => {
		const {dir} = store('listing');
		mkfifo(path.join(dir, 'backups', 'hfx-backup-20260101-000000.zip'));
		const before = folderHashes(dir);
		const r = bounded(['backups', '--home', dir]);
		expect(r.stderr).not.toMatch(/\n\s+at /);
		expect(folderHashes(dir)).toEqual(before);
	});

	it('a FIFO as the records file: verify and backup end, refused in one line', () => {
		const {dir} = store('records');
		const out = path.join(dir, 'backups');
		expect(bounded(['backup', '--home', dir]).code).toBe(0);
		const archive = path.join(out, fs.readdirSync(out).find(n => n.endsWith('.zip'))!);
		fs.rmSync(path.join(out, 'hfx-records.jsonl'));
		mkfifo(path.join(out, 'hfx-records.jsonl'));
		const before = folderHashes(dir);
		for (const args of [
			['verify', archive],
			['backup', '--home', dir],
		]) {
			const r = bounded(args);
			expect(r.code, args[0]).toBe(2);
			expect(oneLine(r.stderr), args[0]).toContain('hfx-records.jsonl: a FIFO, not a regular file');
		}

		expect(folderHashes(dir)).toEqual(before);
	});
});

describe('every child process has a bound', () => {
	it('a backup child that prints nothing is stopped after its idle bound, with one line saying so', async () => {
		const {dir, db} = store('child');
		// A child that hangs before it prints anything: its node sleeps in a preloaded module.
		const sleeper = path.join(dir, 'sleep.cjs');
		fs.writeFileSync(sleeper, 'Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 30000);\n');
		const started = Date.now();
		const r = await runCli(['scan', '--db', db], {idleMs: 500, env: {NODE_OPTIONS: `--require ${sleeper}`}});
		expect(Date.now() - started).toBeLessThan(10_000);
		expect(r.code).toBe(2);
		expect(r.stderr.join('\n')).toMatch(/printed nothing for 1 s and was stopped/);
	});
});

describe('q and Ctrl-C always end the TUI', () => {
	const session = `hfx-hang-${process.pid}-${Date.now()}`;
	const waitFor = async (pattern: RegExp, timeoutMs: number): Promise<string> =>
		waitForScreenOf(session, pattern, timeoutMs);

	afterEach(() => {
		killSession(session);
	});
	afterAll(stopTmux);

	it.each([
		['q', 'q'],
		['Ctrl-C', 'C-c'],
	])(
		'a FIFO named state.db-wal appearing under a running TUI: the Files pane names it, and %s still ends it',
		async (_name, key) => {
			const {dir, db} = store(`tui-${key}`);
			tmux(
				'new-session',
				'-d',
				'-s',
				session,
				'-x',
				'120',
				'-y',
				'36',
				'-e',
				'CI=false',
				'-e',
				'NO_COLOR=1',
				'-e',
				'FORCE_COLOR=0',
				`node ${path.join(ROOT, 'dist/hfx.js')} --db ${db}; echo EXIT=$?; sleep 60`,
			);
			await waitFor(/\[1 Sessions]/, 15_000);
			mkfifo(`${db}-wal`);
			const before = folderHashes(dir);
			tmux('send-keys', '-t', session, '6');
			await waitFor(/a FIFO, not a regular file/, 10_000);
			tmux('send-keys', '-t', session, key);
			await waitFor(/EXIT=\d+/, 5000);
			expect(folderHashes(dir)).toEqual(before);
		},
	);
});
