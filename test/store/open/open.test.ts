import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterAll, describe, expect, it, vi} from 'vitest';
import {FailClosed} from '../../../source/ground/errors.js';
import {ForbiddenStatement, ReadOnlyStore, checkStatementText} from '../../../source/store/open/open.js';
import {preflight} from '../../../source/store/open/preflight.js';
import {detectSchema} from '../../../source/store/open/schema.js';
import {StoreWriter} from '../../../source/simulator/store-writer.js';
import {SCENARIOS, buildScenario} from '../../fixtures/scenarios.js';
import {ROOT, WriterProcess} from '../../helpers/writer.js';

const dirs: string[] = [];
afterAll(() => {
	for (const d of dirs) {
		fs.rmSync(d, {recursive: true, force: true});
	}
});

function liveStore() {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-open-'));
	dirs.push(dir);
	const db = path.join(dir, 'state.db');
	const w = new StoreWriter(db, {shape: 'v30'});
	SCENARIOS[0]!.build(w);
	// The writer stays open: -wal and -shm exist, as with a running agent.
	return {dir, db, w};
}

describe('the read-only statement guard', () => {
	it('refuses statements SQLite reports as not read-only', () => {
		const {db, w} = liveStore();
		const store = ReadOnlyStore.open(db);
		try {
			expect(store.db.readonly).toBe(true);
			expect(() => store.prepare('DELETE FROM sessions')).toThrow(ForbiddenStatement);
			expect(() => store.prepare("UPDATE sessions SET title = 'x'")).toThrow(ForbiddenStatement);
			expect(() => store.prepare('CREATE TABLE t(x)')).toThrow(ForbiddenStatement);
			expect(store.prepare('SELECT count(*) FROM sessions').pluck().get()).toBe(2);
		} finally {
			store.close();
			w.close();
		}
	});

	it('refuses checkpoints, maintenance pragmas, ATTACH and VACUUM before they reach SQLite', () => {
		for (const sql of [
			'PRAGMA wal_checkpoint(TRUNCATE)',
			'pragma main.wal_checkpoint',
			'PRAGMA journal_mode=DELETE',
			'PRAGMA integrity_check',
			'PRAGMA optimize',
			"ATTACH '/tmp/x' AS x",
			"VACUUM INTO '/tmp/y'",
			'  -- c\n  vacuum',
			'PRAGMA user_version = 5',
		]) {
			expect(() => checkStatementText(sql), sql).toThrow(ForbiddenStatement);
		}

		for (const sql of ['PRAGMA data_version', 'SELECT 1', 'PRAGMA page_count']) {
			expect(() => checkStatementText(sql), sql).not.toThrow();
		}
	});
});

describe('no raw reads while this process holds a connection (docs/sqlite-wal.md, posix-locks)', () => {
	it(
		'preflight never re-reads the header of a file this process has open (it ' +
			'reuses the first read), and reads it again after close',
		async () => {
			const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-open-'));
			dirs.push(dir);
			const db = path.join(dir, 'state.db');
			// The owner lives in another process, so -wal/-shm exist and the open is in place.
			const owner = new WriterProcess(db);
			await owner.started();
			await owner.create({source: 'telegram', startedAt: 1_786_060_800});
			const store = ReadOnlyStore.open(db);
			expect(store.isPrivateCopy).toBe(false);
			try {
				// Damage the magic on disk: a raw read now would refuse the file as not SQLite.
				const fd = fs.openSync(db, 'r+');
				const original = Buffer.alloc(16);
				fs.readSync(fd, original, 0, 16, 0);
				fs.writeSync(fd, Buffer.from('NOT SQLITE AT ALL'), 0, 16, 0);
				fs.closeSync(fd);
				try {
					expect(preflight(db).header.pageSize).toBe(store.preflight.header.pageSize);
				} finally {
					store.close();
				}

				expect(() => preflight(db)).toThrow(/not a SQLite database/);
				const fix = fs.openSync(db, 'r+');
				fs.writeSync(fix, original, 0, 16, 0);
				fs.closeSync(fix);
			} finally {
				store.close();
			}

			expect(preflight(db).journalMode).toBe('wal');
			await owner.kill();
		},
	);

	it("keeps SQLite's POSIX locks: /proc/locks still shows ours after a full read", () => {
		const {db, w} = liveStore();
		const store = ReadOnlyStore.open(db);
		try {
			store.read(() => store.prepare('SELECT * FROM sessions').all());
			const shmIno = fs.statSync(`${db}-shm`).ino;
			const locks = fs
				.readFileSync('/proc/locks', 'utf8')
				.split('\n')
				.filter(l => l.includes(`:${shmIno} `) && l.includes(` ${process.pid} `));
			expect(locks.length).toBeGreaterThan(0);
		} finally {
			store.close();
			w.close();
		}
	});
});

describe('opening without creating files beside the evidence', () => {
	it('reads a private copy of a WAL-mode file that has no -wal/-shm, and removes the copy on close', () => {
		const {dir, dbPath} = buildScenario(SCENARIOS[0]!, 'v21');
		dirs.push(dir);
		const listing = fs.readdirSync(dir).sort();
		const store = ReadOnlyStore.open(dbPath);
		expect(store.isPrivateCopy).toBe(true);
		expect(store.openedPath).not.toBe(dbPath);
		const copyDir = path.dirname(store.openedPath);
		expect(fs.existsSync(copyDir)).toBe(true);
		expect(store.prepare('SELECT count(*) FROM sessions').pluck().get()).toBe(2);
		store.close();
		expect(fs.existsSync(copyDir)).toBe(false);
		expect(fs.readdirSync(dir).sort()).toEqual(listing);
	});

	it('opens in place when the agent is running (-wal and -shm present)', () => {
		const {db, w} = liveStore();
		const store = ReadOnlyStore.open(db);
		expect(store.isPrivateCopy).toBe(false);
		expect(store.openedPath).toBe(db);
		store.close();
		w.close();
	});

	it('asks mmap_size and the SQLite version of the first connection of a driver only, not at every open', () => {
		const {db, w} = liveStore();
		const first = ReadOnlyStore.open(db);
		const version = first.sqliteVersion();
		first.close();
		const prepare = vi.spyOn(ReadOnlyStore.prototype, 'prepare');
		try {
			for (let i = 0; i < 3; i++) {
				const store = ReadOnlyStore.open(db);
				expect(store.sqliteVersion()).toBe(version);
				store.close();
			}

			// Before: both asked on every open (the live view opens one per refresh, up to 20 a second).
			const asked = prepare.mock.calls.map(([sql]) => sql);
			expect(asked.filter(sql => sql === 'SELECT count(*) FROM sqlite_master')).toHaveLength(3);
			expect(asked.filter(sql => sql === 'PRAGMA mmap_size' || sql === 'SELECT sqlite_version()')).toEqual([]);
		} finally {
			prepare.mockRestore();
			w.close();
		}
	});
});

describe('schema generation detection', () => {
	it('detects v21 (no last_activity_at, no profile_name) and v30 columns, and picks the matching rule set', () => {
		const v21 = ReadOnlyStore.open(path.resolve(ROOT, 'test/fixtures/hermes-v21-incident/state.db'));
		try {
			const s = detectSchema(v21);
			expect(s.version).toBe(21);
			expect(s.sessionColumns.has('last_activity_at')).toBe(false);
			expect(s.sessionColumns.has('profile_name')).toBe(false);
			expect(s.ruleSet).toBe('legacy-v21');
		} finally {
			v21.close();
		}

		const {db, w} = liveStore();
		const v30 = ReadOnlyStore.open(db);
		try {
			const s = detectSchema(v30);
			expect(s.version).toBe(30);
			expect(s.sessionColumns.has('last_activity_at')).toBe(true);
			expect(s.ruleSet).toBe('v30');
		} finally {
			v30.close();
			w.close();
		}
	});

	it('refuses a SQLite database without a sessions table as not a Hermes store', () => {
		const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-open-'));
		dirs.push(dir);
		const db = path.join(dir, 'x.db');
		const w = new StoreWriter(db, {shape: 'v30', journalMode: 'delete'});
		w.exec('DROP TABLE sessions');
		w.close();
		const store = ReadOnlyStore.open(db);
		try {
			expect(() => detectSchema(store)).toThrow(FailClosed);
		} finally {
			store.close();
		}
	});
});
