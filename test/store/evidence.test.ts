/**
 * The observed database is evidence: read-only commands change no byte of state.db or its -wal and
 * create no file beside it; bad input is refused in one line, with exit 2 and nothing written.
 * Real SQLite files, written by a real second process.
 */
import {spawnSync} from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterAll, afterEach, describe, expect, it} from 'vitest';
import {evidenceState, hfx, hfxJson} from '../helpers/cli.js';
import {ROOT, WriterProcess} from '../helpers/writer.js';
import {StoreWriter} from '../../source/simulator/store-writer.js';
import {SCENARIOS, T0, buildScenario} from '../fixtures/scenarios.js';

const dirs: string[] = [];
const writers: WriterProcess[] = [];
function tempDir(tag: string): string {
	const d = fs.mkdtempSync(path.join(os.tmpdir(), `hfx-ev-${tag}-`));
	dirs.push(d);
	return d;
}

afterEach(async () => {
	for (const w of writers.splice(0)) {
		await w.kill();
	}
});
afterAll(() => {
	for (const d of dirs) {
		fs.chmodSync(d, 0o755);
		fs.rmSync(d, {recursive: true, force: true});
	}
});

const READ_ONLY_COMMANDS = [
	['scan'],
	['scan', '--json'],
	['sessions', '--all', '--limit', '0'],
	['sessions', '--json'],
	['routing'],
	['routing', '--json'],
];

/** The R1 incident, written by a real second process that is then killed with SIGKILL (W3). */
async function killedWriterStore(tag: string, shape: 'v21' | 'v30') {
	const dir = tempDir(tag);
	const db = path.join(dir, 'state.db');
	const w = new WriterProcess(db, {shape});
	writers.push(w);
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
	for (let i = 0; i < 40; i++) {
		await w.send({op: 'conversation', id: orphan, count: 20, from: T0 + 700 + i * 1000, to: T0 + 1600 + i * 1000});
	}

	await w.kill();
	return {dir, db, zombie, orphan};
}

describe('W3: a writer killed with SIGKILL after commits', () => {
	it.each(['v21', 'v30'] as const)(
		'leaves -wal and -shm; hfx reads all committed data and changes nothing (%s)',
		async shape => {
			const {dir, db, zombie, orphan} = await killedWriterStore(`w3-${shape}`, shape);
			expect(fs.existsSync(`${db}-wal`)).toBe(true);
			expect(fs.statSync(`${db}-wal`).size).toBeGreaterThan(0);
			expect(fs.existsSync(`${db}-shm`)).toBe(true);
			const before = evidenceState(dir);
			expect(before.shm).not.toBeNull();
			const {code, json} = hfxJson(['scan', '--db', db]);
			expect(code).toBe(1);
			// No process holds the -shm: an ordinary open in place would make SQLite recover the WAL index and rewrite it;
			// hfx opens it with the -shm read-only (the WAL index rebuilt in its own memory), copying nothing.
			expect(json.database.openMode).toBe('in-place');
			expect(json.database.openModeReason).toContain('-wal and -shm that no process holds');
			expect(json.database.openModeReason).toContain('readonly_shm=1');
			expect(json.orphans).toHaveLength(1);
			expect(json.orphans[0]).toMatchObject({
				orphanId: orphan,
				messageCount: 800,
				verdict: 'adoptable',
				donorId: zombie,
				evidence: 'contiguity',
			});
			expect(json.routing[0]).toMatchObject({restartResolvesTo: zombie, newestActivityIn: orphan, rollbackRisk: true});
			expect(evidenceState(dir)).toEqual(before);
			for (const args of READ_ONLY_COMMANDS) {
				hfx([...args, '--db', db]);
				expect(evidenceState(dir), args.join(' ')).toEqual(before);
			}
		},
	);

	it(
		'leaves every byte of state.db, -wal and -shm as the crash left them, ' +
			'whatever reads it (lineage, files, the repair dry run, backups)',
		async () => {
			const {dir, db, orphan} = await killedWriterStore('w3-all', 'v30');
			const bytes = () => {
				const {db: d, wal, shm} = evidenceState(dir);
				return {d, wal, shm};
			};

			const before = bytes();
			const out = tempDir('w3-out');
			for (const args of [
				['lineage', orphan],
				['files'],
				['repair'],
				['repair', '--json'],
				['backup', '--quick'],
				['backup', '-o', path.join(out, 'a.zip')],
			]) {
				const r = hfx([...args, '--db', db, ...(args[0] === 'backup' && args[1] === '-o' ? ['--home', dir] : [])]);
				expect(r.stderr, args.join(' ')).not.toMatch(/internal error|at .*\.js:\d+/);
				expect(bytes(), args.join(' ')).toEqual(before);
			}
		},
	);
});

describe('a live writer keeps committing while hfx reads', () => {
	it('reads a consistent snapshot and never touches the main file or the WAL bytes it did not write', async () => {
		const dir = tempDir('live');
		const db = path.join(dir, 'state.db');
		const w = new WriterProcess(db);
		writers.push(w);
		await w.started();
		const id = await w.create({
			source: 'discord',
			userId: 'u',
			sessionKey: 'agent:main:discord:dm:5',
			chatId: '5',
			chatType: 'dm',
			startedAt: T0,
		});
		await w.send({op: 'conversation', id, count: 10, from: T0 + 1, to: T0 + 100});
		const walBefore = fs.readFileSync(`${db}-wal`);
		const first = hfxJson(['scan', '--db', db]);
		expect(first.code).toBe(0);
		expect(first.json.database.openMode).toBe('in-place');
		// The bytes the writer already wrote are unchanged (hfx never writes the WAL).
		expect(fs.readFileSync(`${db}-wal`).subarray(0, walBefore.length).equals(walBefore)).toBe(true);
		await w.send({op: 'conversation', id, count: 5, from: T0 + 200, to: T0 + 300});
		const second = hfxJson(['sessions', '--db', db]);
		expect(second.json.sessions[0].messageCount).toBe(15);
	});
});

describe('fail closed on bad input (W6, W9), exit 2, nothing written', () => {
	it('W6: refuses a 0-byte main file beside a -wal and leaves the WAL alone', async () => {
		const {dir, db} = await killedWriterStore('w6', 'v30');
		fs.truncateSync(db, 0);
		const before = evidenceState(dir);
		expect(before.wal).not.toBeNull();
		for (const args of [['scan'], ['scan', '--json'], ['sessions'], ['routing']]) {
			const r = hfx([...args, '--db', db]);
			expect(r.code).toBe(2);
			expect(r.stderr.trim().split('\n')).toHaveLength(1);
			expect(r.stderr).toContain(db);
			expect(r.stderr).toContain('0 bytes');
			expect(r.stderr).toMatch(/Next: .*copy/);
			expect(evidenceState(dir)).toEqual(before);
		}
	});

	it('W9: refuses a file that is not SQLite', () => {
		const dir = tempDir('w9a');
		const db = path.join(dir, 'state.db');
		fs.writeFileSync(db, 'this is a text file, not a database\n'.repeat(10));
		const before = evidenceState(dir);
		const r = hfx(['scan', '--db', db]);
		expect(r.code).toBe(2);
		expect(r.stderr).toMatch(/^hfx: .*state\.db: not a SQLite database .*Next: /);
		expect(r.stderr.trim().split('\n')).toHaveLength(1);
		expect(evidenceState(dir)).toEqual(before);
	});

	it('W9: refuses a SQLite file whose header was damaged', () => {
		const {dir, dbPath} = buildScenario(SCENARIOS[0]!, 'v30', {dir: tempDir('w9b')});
		const fd = fs.openSync(dbPath, 'r+');
		fs.writeSync(fd, Buffer.from('SQLite formaX 3\u0000', 'latin1'), 0, 16, 0);
		fs.closeSync(fd);
		const before = evidenceState(dir);
		const r = hfx(['scan', '--db', dbPath, '--json']);
		expect(r.code).toBe(2);
		expect(JSON.parse(r.stdout).error).toMatchObject({
			kind: 'not-sqlite',
			file: expect.any(String),
			reason: expect.any(String),
			next: expect.any(String),
		});
		expect(evidenceState(dir)).toEqual(before);
	});

	it('W9: refuses permission denied with the file and the next step', () => {
		const {dir, dbPath} = buildScenario(SCENARIOS[0]!, 'v30', {dir: tempDir('w9c')});
		const asRoot = process.getuid?.() === 0;
		fs.chmodSync(dbPath, 0o600);
		fs.chmodSync(dir, 0o755);
		const before = evidenceState(dir);
		// As root, permissions do not apply to us: run the binary as nobody instead.
		if (!asRoot) {
			fs.chmodSync(dbPath, 0o000);
		}

		const r = asRoot
			? (() => {
					const env = {...process.env, NO_COLOR: '1'};
					const out = spawnSync(process.execPath, [path.join(ROOT, 'dist/hfx.js'), 'scan', '--db', dbPath], {
						encoding: 'utf8',
						uid: 65_534,
						gid: 65_534,
						env,
					});
					return {code: out.status, stderr: out.stderr};
				})()
			: hfx(['scan', '--db', dbPath]);
		expect(r.code).toBe(2);
		expect(r.stderr).toContain(dbPath);
		expect(r.stderr).toContain('permission denied');
		expect(r.stderr).toMatch(/Next: run hfx as the user that owns the store/);
		fs.chmodSync(dbPath, 0o644);
		expect(evidenceState(dir)).toEqual(before);
	});

	it('refuses a missing file, a directory, an empty file and a SQLite file that is not a Hermes store', () => {
		const dir = tempDir('misc');
		const cases: Array<[string, RegExp]> = [];
		cases.push([path.join(dir, 'nope.db'), /no such file/]);
		cases.push([dir, /is a directory/]);
		fs.writeFileSync(path.join(dir, 'empty.db'), '');
		cases.push([path.join(dir, 'empty.db'), /empty \(0 bytes\)/]);
		const other = new StoreWriter(path.join(dir, 'other.db'), {shape: 'v30', journalMode: 'delete'});
		other.exec('DROP TABLE messages');
		other.close();
		cases.push([path.join(dir, 'other.db'), /not a Hermes session store/]);
		for (const [p, reason] of cases) {
			const before = fs.readdirSync(dir).sort();
			const r = hfx(['scan', '--db', p]);
			expect(r.code, p).toBe(2);
			expect(r.stderr, p).toMatch(reason);
			expect(r.stderr.trim().split('\n'), p).toHaveLength(1);
			expect(fs.readdirSync(dir).sort(), p).toEqual(before);
		}
	});
});

describe('W8: a rollback-journal (DELETE mode) store', () => {
	it('is read normally and reported as not in WAL mode', () => {
		const dir = tempDir('w8');
		const db = path.join(dir, 'state.db');
		const w = new StoreWriter(db, {shape: 'v21', journalMode: 'delete'});
		SCENARIOS[0]!.build(w);
		w.close();
		const before = evidenceState(dir);
		const {code, json} = hfxJson(['scan', '--db', db]);
		expect(code).toBe(1);
		expect(json.database.journalMode).toBe('delete');
		expect(json.database.openMode).toBe('in-place');
		expect(json.orphans[0].verdict).toBe('adoptable');
		expect(hfx(['scan', '--db', db]).stdout).toContain('rollback journal');
		expect(evidenceState(dir)).toEqual(before);
	});
});

describe('locating stores under a Hermes root', () => {
	it('scans the root store and every profile, derives owners from paths, and exits with the worst status', () => {
		const root = tempDir('root');
		buildScenario(SCENARIOS.find(s => s.id === 'R9')!, 'v30', {dir: root});
		fs.mkdirSync(path.join(root, 'profiles', 'work'), {recursive: true});
		buildScenario(SCENARIOS[0]!, 'v30', {dir: path.join(root, 'profiles', 'work')});
		const {code, json} = hfxJson(['scan', '--home', root]);
		expect(code).toBe(1);
		expect(json.database.owner).toBe('default');
		expect(json.summary.healthy).toBe(true);
		expect(json.profiles).toHaveLength(1);
		expect(json.profiles[0].database.owner).toBe('work');
		expect(json.profiles[0].summary.rollbackRisks).toBe(1);
		const only = hfxJson(['scan', '--home', root, '--profile', 'default']);
		expect(only.code).toBe(0);
		expect(only.json.profiles).toBeUndefined();
		const viaEnv = hfxJson(['scan', '--profile', 'work'], {env: {HERMES_HOME: root}});
		expect(viaEnv.code).toBe(1);
		expect(viaEnv.json.database.path).toBe(path.join(root, 'profiles', 'work', 'state.db'));
	});

	it('says where it looked when there is no Hermes home', () => {
		const home = tempDir('nohome');
		const r = hfx(['scan'], {env: {HOME: home, HERMES_HOME: ''}});
		expect(r.code).toBe(2);
		expect(r.stderr).toContain(path.join(home, '.hermes'));
		expect(r.stderr).toContain('no Hermes home');
	});
});

describe('usage errors', () => {
	it('rejects unknown commands, unknown flags and a bad --max-gap-seconds with exit 2', () => {
		expect(hfx(['frobnicate']).code).toBe(2);
		expect(hfx(['scan', '--frob']).code).toBe(2);
		const r = hfx(['scan', '--max-gap-seconds', 'soon']);
		expect(r.code).toBe(2);
		expect(r.stderr).toContain('--max-gap-seconds');
	});
});
