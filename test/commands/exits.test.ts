/**
 * Truthful exits and one clear line (issue #17, class 7), on the real binary with real files: a
 * file error of the OS (ELOOP, ENAMETOOLONG, ENOTDIR, an unreadable or directory -wal, EFBIG under
 * ulimit -f) is one line naming the file and its true cause, never a stack; a 50-byte file is too
 * short, not a bad magic; a home that is a file is refused; a sessions table without the routing
 * identity is refused instead of read as orphans. Every case: its exit code, exactly one line on
 * stderr, no stack frame, and the sha256 of every file in the folder unchanged.
 */
import {spawnSync} from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterAll, afterEach, describe, expect, it} from 'vitest';
import {StoreWriter} from '../../source/simulator/store-writer.js';
import {type CliRun, hfx} from '../helpers/cli.js';
import {folderDigest} from '../helpers/folder-digest.js';
import {ROOT, WriterProcess} from '../helpers/writer.js';
import {SCENARIOS, T0} from '../fixtures/scenarios.js';

const CLI = path.join(ROOT, 'dist/hfx.js');
const base = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-exits-'));
fs.chmodSync(base, 0o755);
const writers: WriterProcess[] = [];
afterEach(async () => {
	for (const w of writers.splice(0)) {
		await w.kill();
	}
});
afterAll(() => fs.rmSync(base, {recursive: true, force: true}));

function folder(tag: string): string {
	const d = fs.mkdtempSync(path.join(base, `${tag}-`));
	fs.chmodSync(d, 0o755);
	return d;
}

/** A store whose owner was killed: its -wal (with `commits` transactions) and -shm left, no process holding them. */
async function crashedStore(tag: string, commits = 5): Promise<{dir: string; db: string}> {
	const dir = folder(tag);
	const db = path.join(dir, 'state.db');
	const w = new WriterProcess(db);
	writers.push(w);
	await w.started();
	const id = await w.create({
		source: 'telegram',
		userId: 'u',
		sessionKey: 'agent:main:telegram:dm:9',
		chatId: '9',
		chatType: 'dm',
		startedAt: T0,
	});
	for (let i = 1; i < commits; i++) {
		await w.send({op: 'conversation', id, count: 5, from: T0 + i * 100, to: T0 + i * 100 + 50});
	}

	await w.kill();
	return {dir, db};
}

/** Exactly one line on stderr, naming a file, with no stack frame and no "internal error". */
function expectOneLine(r: CliRun, pattern: RegExp): void {
	expect(r.stderr.trim().split('\n'), r.stderr).toHaveLength(1);
	expect(r.stderr).not.toMatch(/^\s+at /m);
	expect(r.stderr).not.toContain('internal error');
	expect(r.stderr).toMatch(/^hfx: \/\S.*: .*\. Next: /);
	expect(r.stderr).toMatch(pattern);
}

/** Runs each command on the folder's store and checks the exit, the one line and the folder's bytes. */
function expectRefused(dir: string, commands: string[][], code: number, pattern: RegExp): void {
	const before = folderDigest(dir);
	for (const args of commands) {
		const r = hfx(args);
		expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(code);
		expectOneLine(r, pattern);
	}

	expect(folderDigest(dir)).toEqual(before);
}

const READERS = ['scan', 'sessions', 'routing', 'files', 'repair'];

describe('a file error of the OS is one line with its true cause', () => {
	it('ELOOP: a state.db that is a symbolic link loop', () => {
		const dir = folder('eloop');
		fs.symlinkSync('b.db', path.join(dir, 'a.db'));
		fs.symlinkSync('a.db', path.join(dir, 'b.db'));
		expectRefused(
			dir,
			READERS.map(c => [c, '--db', path.join(dir, 'a.db')]),
			2,
			/a\.db: a loop of symbolic links\. Next: pass the database file itself/,
		);
		// A home that is a link loop: the true cause, not "no Hermes root here".
		expectRefused(
			dir,
			[
				['backup', '--home', path.join(dir, 'a.db')],
				['doctor', '--home', path.join(dir, 'a.db')],
			],
			2,
			/a\.db: too many levels of symbolic links .*\(ELOOP\) while looking up the Hermes root/,
		);
	});

	it('ENAMETOOLONG: a path with a 300-byte name', () => {
		const dir = folder('toolong');
		expectRefused(
			dir,
			READERS.map(c => [c, '--db', path.join(dir, 'x'.repeat(300))]),
			2,
			/the path is too long .*\(ENAMETOOLONG\)/,
		);
	});

	it('ENOTDIR: a path that goes through a file', () => {
		const dir = folder('enotdir');
		fs.writeFileSync(path.join(dir, 'file'), 'x');
		expectRefused(
			dir,
			READERS.map(c => [c, '--db', path.join(dir, 'file', 'state.db')]),
			2,
			/file\/state\.db: a part of the path is a file, not a folder \(ENOTDIR\)/,
		);
	});

	it('a -wal that is a symbolic link loop: ELOOP, named as the -wal, not permissions', async () => {
		const {dir, db} = await crashedStore('wal-loop');
		fs.rmSync(`${db}-wal`);
		fs.symlinkSync('state.db-wal', `${db}-wal`);
		expectRefused(
			dir,
			READERS.map(c => [c, '--db', db]),
			2,
			/state\.db-wal: a symbolic link \(to .*\), not a regular file: SQLite refuses to open a -wal through a link/,
		);
	});

	it('a -wal that is a directory: one line, exit 2', async () => {
		const {dir, db} = await crashedStore('wal-dir');
		fs.rmSync(`${db}-wal`);
		fs.mkdirSync(`${db}-wal`);
		expectRefused(
			dir,
			READERS.map(c => [c, '--db', db]),
			2,
			/state\.db-wal: a directory, not a regular file/,
		);
	});

	const asNobody = process.getuid?.() === 0 && spawnSync('setpriv', ['--version']).status === 0;
	it.skipIf(!asNobody)('an unreadable -wal (as another user): permission denied, naming the -wal', async () => {
		const {dir, db} = await crashedStore('wal-eacces');
		fs.chmodSync(db, 0o644);
		fs.chmodSync(`${db}-shm`, 0o644);
		fs.chmodSync(`${db}-wal`, 0o600);
		const before = folderDigest(dir);
		for (const command of ['scan', 'files', 'sessions']) {
			const r = spawnSync(
				'setpriv',
				['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, CLI, command, '--db', db],
				{encoding: 'utf8', env: {...process.env, NO_COLOR: '1'}, timeout: 60_000},
			);
			expect(r.status, r.stderr).toBe(2);
			expectOneLine(
				{code: r.status, stdout: r.stdout, stderr: r.stderr},
				/state\.db-wal: permission denied \(EACCES\)/,
			);
		}

		expect(folderDigest(dir)).toEqual(before);
	});

	it('ulimit -f below the private copy of a crashed store: "file size limit reached", not an I/O error', async () => {
		const {dir, db} = await crashedStore('ulimit', 30);
		// Its -shm gone too (a -wal alone): read from a private copy (with both, a crashed store is read in place).
		fs.rmSync(`${db}-shm`);
		const before = folderDigest(dir);
		const r = spawnSync('bash', ['-c', `ulimit -f 64; exec "${process.execPath}" "${CLI}" scan --db "${db}"`], {
			encoding: 'utf8',
			env: {...process.env, NO_COLOR: '1'},
			timeout: 60_000,
		});
		expect(r.status).toBe(2);
		expectOneLine(
			{code: r.status, stdout: r.stdout, stderr: r.stderr},
			/file size limit reached \(ulimit -f allows 65,536 bytes per file\) \(EFBIG\) while writing it \(a copy of .*state\.db-wal\)/,
		);
		expect(r.stderr).not.toMatch(/I\/O error/);
		expect(folderDigest(dir)).toEqual(before);
	});
});

describe('misleading causes', () => {
	it('verify under ulimit -f: the file size limit, not a full disk', async () => {
		const {dir, db} = await crashedStore('verify-ulimit', 10);
		const out = folder('verify-ulimit-out');
		expect(hfx(['backup', '--db', db, '--home', dir, '-o', out]).code).toBe(0);
		const archive = path.join(out, fs.readdirSync(out).find(n => n.endsWith('.zip'))!);
		const before = folderDigest(out);
		const r = spawnSync('bash', ['-c', `ulimit -f 16; exec "${process.execPath}" "${CLI}" verify "${archive}"`], {
			encoding: 'utf8',
			env: {...process.env, NO_COLOR: '1'},
			timeout: 60_000,
		});
		expect(r.status).toBe(2);
		expectOneLine(
			{code: r.status, stdout: r.stdout, stderr: r.stderr},
			/cannot write the temp extraction for the database checks \(EFBIG: file size limit reached \(ulimit -f allows 16,384 bytes per file\)\); the archive was not judged\. Next: raise the limit/,
		);
		expect(r.stderr).not.toMatch(/free space/);
		expect(folderDigest(out)).toEqual(before);
	});

	it('a 50-byte file is too short to be a database, not a bad magic', () => {
		const dir = folder('short');
		const db = path.join(dir, 'state.db');
		fs.writeFileSync(db, Buffer.alloc(50, 0x41));
		expectRefused(
			dir,
			READERS.map(c => [c, '--db', db]),
			2,
			/state\.db: too short to be an SQLite database: 50 bytes, a header needs 100\./,
		);
		const cut = path.join(dir, 'cut.db');
		fs.writeFileSync(cut, Buffer.concat([Buffer.from('SQLite format 3\u0000', 'latin1'), Buffer.alloc(34)]));
		expectRefused(
			dir,
			[['scan', '--db', cut]],
			2,
			/cut\.db: too short to be an SQLite database: 50 bytes, a header needs 100 \(it starts like one/,
		);
	});

	it('doctor --home FILE: a home must be a directory', () => {
		const dir = folder('home-file');
		const file = path.join(dir, 'state.db');
		fs.writeFileSync(file, 'not a folder');
		expectRefused(
			dir,
			[['doctor', '--home', file]],
			2,
			/state\.db: a Hermes home must be a directory, and this is a file\./,
		);
		expectRefused(dir, [['doctor', '--home', path.join(dir, 'missing')]], 2, /missing: no Hermes root here\./);
	});

	it('--profile ../../etc and --limit -5 are refused as usage, exit 2', () => {
		const dir = folder('usage');
		const before = folderDigest(dir);
		for (const args of [
			['scan', '--home', dir, '--profile', '../../etc'],
			['sessions', '--home', dir, '--limit', '-5'],
		]) {
			const r = hfx(args);
			expect(r.code).toBe(2);
			expect(r.stderr.trim().split('\n')).toHaveLength(1);
			expect(r.stderr).toMatch(/^hfx: --(profile takes a profile name|limit takes a whole number)/);
		}

		expect(folderDigest(dir)).toEqual(before);
	});
});

describe('a sessions table without the routing identity', () => {
	/** The incident's store with session_key dropped (by the sqlite3 CLI, a second process). */
	function keyless(): {dir: string; db: string} {
		const dir = folder('keyless');
		const db = path.join(dir, 'state.db');
		const w = new StoreWriter(db, {shape: 'v30', journalMode: 'delete'});
		SCENARIOS[0]!.build(w);
		w.close();
		const r = spawnSync(
			'sqlite3',
			[db, 'DROP INDEX IF EXISTS idx_sessions_session_key; ALTER TABLE sessions DROP COLUMN session_key;'],
			{encoding: 'utf8'},
		);
		expect(r.status, r.stderr).toBe(0);
		return {dir, db};
	}

	it.skipIf(spawnSync('sqlite3', ['-version']).status !== 0)(
		'is refused in one line (exit 2), never read as false orphans',
		() => {
			const {dir, db} = keyless();
			expectRefused(
				dir,
				['scan', 'sessions', 'routing', 'repair'].map(c => [c, '--db', db]),
				2,
				/state\.db: not a Hermes store hfx knows: sessions lacks session_key/,
			);
			const r = hfx(['scan', '--db', db, '--json']);
			const json = JSON.parse(r.stdout) as {error: {kind: string}; orphans?: unknown};
			expect(json.error.kind).toBe('schema-unknown');
			expect(json.orphans).toBeUndefined();
		},
	);
});
