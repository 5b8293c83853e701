/**
 * A stopped store read in place (store/open/immutable-read.ts): WAL mode, neither -wal nor -shm, its
 * writer (a real second process) closed cleanly. The real binary reads it through node:sqlite as an
 * immutable file: the same analysis as the private copy gave, `openMode` in-place, every file of
 * the folder the same bytes, no file created, nothing in the temp folder. A writer that starts
 * while hfx reads makes hfx throw that read away and read again, never report it.
 */
import {type ChildProcess, spawn, spawnSync} from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterAll, afterEach, describe, expect, it} from 'vitest';
import {hfxJson} from '../../helpers/cli.js';
import {ROOT, WriterProcess} from '../../helpers/writer.js';
import {T0} from '../../fixtures/scenarios.js';

const dirs: string[] = [];
const writers: WriterProcess[] = [];
afterEach(async () => {
	for (const w of writers.splice(0)) {
		await w.kill();
	}
});
afterAll(() => {
	for (const d of dirs) {
		fs.rmSync(d, {recursive: true, force: true});
	}
});

function tempDir(tag: string, parent = os.tmpdir()): string {
	const d = fs.mkdtempSync(path.join(parent, `hfx-inplace-${tag}-`));
	dirs.push(d);
	return d;
}

function writer(db: string): WriterProcess {
	const w = new WriterProcess(db, {shape: 'v30'});
	writers.push(w);
	return w;
}

/**
 * The incident (a chat's row gone quiet, its messages continued in an orphan), written by a second process that then
 * closes the store cleanly.
 */
async function stoppedStore(dir: string): Promise<string> {
	const db = path.join(dir, 'state.db');
	const w = writer(db);
	await w.started();
	const zombie = await w.create({
		source: 'telegram',
		userId: 'u1',
		sessionKey: 'agent:main:telegram:dm:1',
		chatId: '1',
		chatType: 'dm',
		startedAt: T0,
	});
	await w.send({op: 'conversation', id: zombie, count: 30, from: T0 + 5, to: T0 + 600});
	const orphan = await w.create({source: 'telegram', startedAt: T0 + 660});
	await w.send({op: 'conversation', id: orphan, count: 40, from: T0 + 700, to: T0 + 4000});
	await w.send({op: 'close'}).catch(() => undefined);
	await new Promise(resolve => {
		w.child.exitCode === null ? w.child.once('exit', resolve) : resolve(undefined);
	});
	expect(fs.readdirSync(dir)).toEqual(['state.db']);
	return db;
}

/** sha256 of every file in the folder, by name (the listing is its keys). */
function folderState(dir: string): Record<string, string> {
	return Object.fromEntries(
		fs
			.readdirSync(dir)
			.sort()
			.map(name => [
				name,
				crypto
					.createHash('sha256')
					.update(fs.readFileSync(path.join(dir, name)))
					.digest('hex'),
			]),
	);
}

/**
 * `hfx scan --db DB --json` (or the command `args` name) in the background, every name seen in its own TMPDIR while it
 * ran.
 */
async function scanWatchingTmp(
	db: string,
	tmp: string,
	args = ['scan', '--db', db, '--json'],
): Promise<{code: number | null; json: any; stderr: string; seenInTmp: string[]}> {
	const child = spawn(process.execPath, [path.join(ROOT, 'dist/hfx.js'), ...args], {
		env: {...process.env, NO_COLOR: '1', TMPDIR: tmp},
	});
	let stdout = '';
	let stderr = '';
	child.stdout.on('data', (d: Buffer) => {
		stdout += d.toString();
	});
	child.stderr.on('data', (d: Buffer) => {
		stderr += d.toString();
	});
	const seen = new Set<string>();
	const exit = new Promise<number | null>(resolve => child.once('close', resolve));
	let done = false;
	void exit.then(() => {
		done = true;
	});
	while (!done) {
		for (const name of fs.readdirSync(tmp)) {
			seen.add(name);
		}

		await new Promise(resolve => setTimeout(resolve, 2));
	}

	return {code: await exit, json: JSON.parse(stdout), stderr, seenInTmp: [...seen]};
}

/**
 * What the analysis said, without how the file was opened (mode, reason, notes, timings, the connection's data_version,
 * the sidecars' sizes).
 */
function analysisOf(json: any): unknown {
	const {openMode, openModeReason, notes, readMs, dataVersion, readerSqliteVersion, sizes, ...database} = json.database;
	return {...json, database, stores: undefined};
}

/** A stopped store made crashed: a reader (the sqlite3 CLI) opens it, which creates -wal and -shm, and is SIGKILLed. */
async function crashBeside(db: string): Promise<void> {
	const child: ChildProcess = spawn('sqlite3', [db], {stdio: ['pipe', 'ignore', 'ignore']});
	child.stdin!.write('SELECT count(*) FROM sqlite_master;\n');
	while (!fs.existsSync(`${db}-shm`)) {
		await new Promise(resolve => setTimeout(resolve, 10));
	}

	await new Promise(resolve => setTimeout(resolve, 100));
	const gone = new Promise(resolve => child.once('exit', resolve));
	child.kill('SIGKILL');
	await gone;
}

describe('a stopped store is read in place, as an immutable file', () => {
	it(
		'the same analysis as the private copy gave; openMode in-place; every ' +
			'byte and name of the folder unchanged; nothing in the temp folder',
		async () => {
			const dir = tempDir('same');
			const db = await stoppedStore(dir);
			const before = folderState(dir);
			const tmp = tempDir('tmp');
			const inPlace = await scanWatchingTmp(db, tmp);
			expect(inPlace.code).toBe(1);
			expect(inPlace.stderr).toBe('');
			expect(inPlace.json.database.openMode).toBe('in-place');
			expect(inPlace.json.database.openModeReason).toContain('immutable');
			expect(inPlace.json.database.consistentSnapshot).toBe(true);
			expect(inPlace.seenInTmp).toEqual([]);
			expect(folderState(dir)).toEqual(before);

			// The private copy's answer on the same bytes: made crashed, its -shm then removed (a -wal alone, no holder),
			// which still reads a private copy.
			await crashBeside(db);
			fs.rmSync(`${db}-shm`);
			const copied = hfxJson(['scan', '--db', db]);
			expect(copied.json.database.openMode).toBe('private-copy');
			expect(inPlace.json.summary.sessions).toBe(2);
			expect(analysisOf(inPlace.json)).toEqual(analysisOf(copied.json));
		},
	);

	it(
		"hfx search: a hit in the orphan named as its chat's, nothing in the " +
			'temp folder, every byte and name of the folder unchanged',
		async () => {
			const dir = tempDir('search');
			const db = await stoppedStore(dir);
			// A phrase of the orphan's newest message, read as an immutable file (nothing created beside it).
			const sql =
				'SELECT content FROM messages WHERE session_id = (SELECT id FROM ' +
				'sessions WHERE session_key IS NULL) ORDER BY id DESC LIMIT 1';
			const content = spawnSync('sqlite3', [`file:${db}?immutable=1`, sql], {encoding: 'utf8'}).stdout.trim();
			const before = folderState(dir);
			const tmp = tempDir('tmp');
			const found = await scanWatchingTmp(db, tmp, [
				'search',
				`"${content.split(/\W+/).filter(Boolean).slice(0, 4).join(' ')}"`,
				'--db',
				db,
				'--json',
			]);
			expect(found.stderr).toBe('');
			expect(found.code).toBe(0);
			expect(found.json.stores[0].hits[0].chat.label).toBe('keyless: orphan of agent:main:telegram:dm:1');
			// Before: a private copy of the whole file, every search (hfx-read-… in the temp folder).
			expect(found.seenInTmp).toEqual([]);
			expect(folderState(dir)).toEqual(before);
		},
	);

	it(
		'hfx repair, its dry run and --apply: nothing in the temp folder (the ' +
			'plan and the re-read after the write read the stopped store in place)',
		async () => {
			const dir = tempDir('repair');
			const db = await stoppedStore(dir);
			const before = folderState(dir);
			const tmp = tempDir('tmp');
			const dry = await scanWatchingTmp(db, tmp, ['repair', '--db', db, '--json']);
			expect(dry.stderr).toBe('');
			expect(dry.json.adoptions.map((a: {sessionKey: string}) => a.sessionKey)).toEqual(['agent:main:telegram:dm:1']);
			// Before: a private copy of the whole file for the plan, and another for the re-read after the write.
			expect(dry.seenInTmp).toEqual([]);
			expect(folderState(dir)).toEqual(before);
			const applied = await scanWatchingTmp(db, tmp, ['repair', '--db', db, '--apply', '--yes', '--json']);
			expect(applied.stderr).toBe('');
			expect(applied.code).toBe(0);
			expect(applied.seenInTmp).toEqual([]);
		},
	);

	it('a path with a space, ?, # and % in it', async () => {
		const parent = tempDir('odd');
		const dir = path.join(parent, 'we ird?#%20x');
		fs.mkdirSync(dir);
		const db = await stoppedStore(dir);
		const before = folderState(dir);
		const r = hfxJson(['scan', '--db', db]);
		expect(r.stderr).toBe('');
		expect(r.json.database.openMode).toBe('in-place');
		expect(r.json.summary.sessions).toBe(2);
		expect(folderState(dir)).toEqual(before);
		expect(fs.readdirSync(parent)).toEqual(['we ird?#%20x']);
	});
});

/** The incident written by a second process that is then SIGKILLed: its last commits only in the -wal it leaves. */
async function crashedStore(dir: string): Promise<string> {
	const db = path.join(dir, 'state.db');
	const w = writer(db);
	await w.started();
	const zombie = await w.create({
		source: 'telegram',
		userId: 'u1',
		sessionKey: 'agent:main:telegram:dm:1',
		chatId: '1',
		chatType: 'dm',
		startedAt: T0,
	});
	await w.send({op: 'conversation', id: zombie, count: 30, from: T0 + 5, to: T0 + 600});
	const orphan = await w.create({source: 'telegram', startedAt: T0 + 660});
	await w.send({op: 'conversation', id: orphan, count: 40, from: T0 + 700, to: T0 + 4000});
	await w.kill();
	expect(fs.readdirSync(dir).sort()).toEqual(['state.db', 'state.db-shm', 'state.db-wal']);
	expect(fs.statSync(`${db}-wal`).size).toBeGreaterThan(0);
	return db;
}

describe('a crashed store (-wal and -shm that no process holds) is read in place, its -shm read-only', () => {
	it(
		"the -wal's commits seen, openMode in-place, every byte and name of the folder unchanged, nothing in the " +
			'temp folder; the same analysis as the private copy of its -wal gives',
		async () => {
			const dir = tempDir('crashed');
			const db = await crashedStore(dir);
			const before = folderState(dir);
			const tmp = tempDir('tmp');
			const inPlace = await scanWatchingTmp(db, tmp);
			expect(inPlace.stderr).toBe('');
			expect(inPlace.code).toBe(1);
			expect(inPlace.json.database.openMode).toBe('in-place');
			expect(inPlace.json.database.openModeReason).toContain('readonly_shm=1');
			expect(inPlace.json.database.notes).toEqual([]);
			expect(inPlace.json.orphans.map((o: {messageCount: number}) => o.messageCount)).toEqual([40]);
			// Before: the main file and the -wal copied to hfx-read-… in the temp folder on every read.
			expect(inPlace.seenInTmp).toEqual([]);
			expect(folderState(dir)).toEqual(before);

			// The private copy's answer on the same bytes: the -shm removed (a -wal alone is still read from a copy).
			fs.rmSync(`${db}-shm`);
			const copied = hfxJson(['scan', '--db', db]);
			expect(copied.json.database.openMode).toBe('private-copy');
			expect(analysisOf(inPlace.json)).toEqual(analysisOf(copied.json));
		},
	);

	it(
		'another reader with the -shm read-only (a second hfx) holds only a read mark: this one still reads in place ' +
			'and the -shm keeps every byte',
		async () => {
			const dir = tempDir('crashed-two');
			const db = await crashedStore(dir);
			const before = folderState(dir);
			// What a concurrent hfx reading in place holds: a node:sqlite connection with its -shm read-only, inside a
			// read transaction (its read mark, byte 123 of the -shm; never the dead-man switch, byte 128).
			const reader = spawn(
				process.execPath,
				[
					'-e',
					"const {DatabaseSync} = require('node:sqlite');" +
						`const db = new DatabaseSync(${JSON.stringify(`file:${db}?mode=ro&readonly_shm=1`)}, {readOnly: true});` +
						"db.exec('BEGIN'); db.prepare('SELECT count(*) FROM sessions').get(); console.log('reading');" +
						"setTimeout(() => { db.exec('COMMIT'); db.close(); }, 60000);",
				],
				{stdio: ['ignore', 'pipe', 'inherit']},
			);
			try {
				await new Promise<void>(resolve => reader.stdout!.once('data', () => resolve()));
				const r = hfxJson(['scan', '--db', db]);
				expect(r.stderr).toBe('');
				expect(r.json.database.openMode).toBe('in-place');
				expect(r.json.database.openModeReason).toContain('readonly_shm=1');
				// Before: the read mark counted as a live connection, hfx opened the store as its first one and SQLite
				// rewrote the -shm.
				expect(folderState(dir)).toEqual(before);
			} finally {
				reader.kill('SIGKILL');
			}
		},
	);

	it('its agent starting while hfx reads: that read is thrown away and the store read beside its writer', async () => {
		const dir = tempDir('crashed-restart');
		const db = await crashedStore(dir);
		const run = await pausedScan(db);
		const w = writer(db);
		await w.started();
		await w.create({source: 'cli', startedAt: T0 + 9000});
		const result = await run.exit;
		expect(result.code).toBe(1);
		expect(result.json.summary.sessions).toBe(3);
		expect(result.json.database.openModeReason).toBe('WAL mode with -wal and -shm present');
		expect(result.json.database.notes.join('\n')).toMatch(
			/changed while it was read in place \((a process holds its -shm now|its -wal or -shm changed)/,
		);
		await w.send({op: 'close'}).catch(() => undefined);
	});
});

/**
 * `hfx scan --json` paused right after each immutable open (4 s at each attempt: time for a writer
 * process to start); `paused(n)` resolves once it has said so n times, `exit` with its end.
 */
function pausingScan(db: string): {
	pid: number;
	paused: (n: number) => Promise<void>;
	exit: Promise<{code: number | null; json: any; stderr: string}>;
} {
	const child = spawn(process.execPath, [path.join(ROOT, 'dist/hfx.js'), 'scan', '--db', db, '--json'], {
		env: {...process.env, NO_COLOR: '1', HFX_TEST_PAUSE_AT: 'immutable-read', HFX_TEST_PAUSE_MS: '4000'},
	});
	let stdout = '';
	let stderr = '';
	child.stdout.on('data', (d: Buffer) => {
		stdout += d.toString();
	});
	child.stderr.on('data', (d: Buffer) => {
		stderr += d.toString();
	});
	const exit = new Promise<{code: number | null; json: any; stderr: string}>(resolve =>
		child.once('close', code => resolve({code, json: JSON.parse(stdout || 'null'), stderr})),
	);
	const paused = async (n: number) => {
		const deadline = Date.now() + 30_000;
		while (stderr.split('paused at immutable-read').length - 1 < n) {
			if (Date.now() > deadline || child.exitCode !== null) {
				throw new Error(`never paused ${n} times at immutable-read: ${stderr}`);
			}

			await new Promise(resolve => setTimeout(resolve, 10));
		}
	};

	return {pid: child.pid!, paused, exit};
}

/**
 * A second process opens the store, adds a session and closes it (the checkpoint writes the main file; -wal and -shm
 * go).
 */
async function writeAndClose(db: string, at: number): Promise<void> {
	const w = writer(db);
	await w.started();
	await w.create({source: 'cli', startedAt: at});
	await w.send({op: 'close'}).catch(() => undefined);
}

async function pausedScan(db: string): Promise<{exit: ReturnType<typeof pausingScan>['exit']}> {
	const scan = pausingScan(db);
	await scan.paused(1);
	return scan;
}

describe('a writer that starts while hfx reads a stopped store in place', () => {
	it(
		'writes and closes (the main file changes): that read is thrown away and ' +
			'the store read again, with the new session',
		async () => {
			const dir = tempDir('close');
			const db = await stoppedStore(dir);
			const run = await pausedScan(db);
			await writeAndClose(db, T0 + 9000);
			const result = await run.exit;
			expect(result.code).toBe(1);
			expect(result.json.summary.sessions).toBe(3);
			expect(result.json.database.openMode).toBe('in-place');
			expect(result.json.database.notes.join('\n')).toMatch(
				/changed while it was read in place \((it was written|its size went|its file change counter)/,
			);
			expect(result.stderr.split('\n').filter(l => l && !l.startsWith('hfx-test: paused'))).toEqual([]);
		},
	);

	it(
		'stays open (-wal and -shm appear): that read is thrown away and the ' +
			'store read in place beside its running writer',
		async () => {
			const dir = tempDir('open');
			const db = await stoppedStore(dir);
			const run = await pausedScan(db);
			const w = writer(db);
			await w.started();
			await w.create({source: 'cli', startedAt: T0 + 9000});
			const result = await run.exit;
			expect(result.code).toBe(1);
			expect(result.json.summary.sessions).toBe(3);
			expect(result.json.database.openMode).toBe('in-place');
			expect(result.json.database.openModeReason).toBe('WAL mode with -wal and -shm present');
			expect(result.json.database.notes.join('\n')).toContain('-wal and -shm appeared beside it (the agent started)');
			await w.send({op: 'close'}).catch(() => undefined);
			expect(spawnSync('ls', [dir]).stdout.toString().trim()).toBe('state.db');
		},
	);

	it('changes it during each of 3 reads: read from a private copy at last, a note saying why', async () => {
		const dir = tempDir('thrice');
		const db = await stoppedStore(dir);
		const scan = pausingScan(db);
		for (let n = 1; n <= 3; n++) {
			await scan.paused(n);
			await writeAndClose(db, T0 + 9000 + n);
		}

		const result = await scan.exit;
		expect(result.code).toBe(1);
		expect(result.json.summary.sessions).toBe(5);
		expect(result.json.database.openMode).toBe('private-copy');
		expect(result.json.database.notes.join('\n')).toMatch(
			/the store changed during each of 3 reads in place \(.*\): what they saw was thrown away and it was read from a private copy/,
		);
		expect(fs.readdirSync(dir)).toEqual(['state.db']);
	});

	it(
		'while hfx is inside its read in place it has the file open and holds no ' +
			'lock on it (/proc/locks), so no writer waits on it',
		async () => {
			const dir = tempDir('locks');
			const db = await stoppedStore(dir);
			const ino = fs.statSync(db).ino;
			const scan = pausingScan(db);
			await scan.paused(1);
			const open = fs
				.readdirSync(`/proc/${scan.pid}/fd`)
				.filter(fd => fs.readlinkSync(`/proc/${scan.pid}/fd/${fd}`) === fs.realpathSync(db));
			const locks = fs
				.readFileSync('/proc/locks', 'utf8')
				.split('\n')
				.filter(l => new RegExp(`:${ino} `).test(l));
			expect(open).toHaveLength(1);
			const w = writer(db);
			await w.started();
			await w.create({source: 'cli', startedAt: T0 + 9000});
			await w.send({op: 'close'}).catch(() => undefined);
			expect(locks).toEqual([]);
			expect((await scan.exit).json.summary.sessions).toBe(3);
		},
	);
});
