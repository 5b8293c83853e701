/**
 * The node:sqlite adapter (store/open/node-sqlite-connection.ts) answers as better-sqlite3 does: the same
 * queries on the same stopped store, one ReadOnlyStore through a private copy (better-sqlite3),
 * one in place as an immutable file (node:sqlite), give equal rows in every shape; the allow-list
 * and read-only-ness hold on both; loading node:sqlite leaves process.emitWarning as it was.
 */
import {spawnSync} from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterAll, afterEach, describe, expect, it} from 'vitest';
import {ForbiddenStatement, ReadOnlyStore} from '../../../source/store/open/open.js';
import {preflight} from '../../../source/store/open/preflight.js';
import {isSqliteExperimentalWarning, nodeSqlite} from '../../../source/store/open/node-sqlite.js';
import {immutableUri} from '../../../source/store/open/node-sqlite-connection.js';

const dirs: string[] = [];
const open: ReadOnlyStore[] = [];
afterEach(() => {
	for (const s of open.splice(0)) {
		s.close();
	}
});
afterAll(() => {
	for (const d of dirs) {
		fs.rmSync(d, {recursive: true, force: true});
	}
});

/**
 * A stopped WAL store written by a second process (the sqlite3 CLI): a blob, an integer past 2^53, a REAL, a NULL,
 * text.
 */
function stoppedStore(): string {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-nodesqlite-'));
	dirs.push(dir);
	const db = path.join(dir, 'state.db');
	const r = spawnSync(
		'sqlite3',
		[
			db,
			`PRAGMA journal_mode=wal;
		CREATE TABLE t(id TEXT PRIMARY KEY, n INTEGER, big INTEGER, r REAL, b BLOB, z);
		INSERT INTO t VALUES ('a', 1, 9007199254740993, 1.5, x'00ff10', NULL), ('b', 2, -5, 0.25, x'', ` +
				`'x'), ('c', 3, 1700000000123, NULL, NULL, 'y');`,
		],
		{encoding: 'utf8'},
	);
	expect(r.status).toBe(0);
	expect(fs.readdirSync(dir)).toEqual(['state.db']);
	return db;
}

function both(db: string): [ReadOnlyStore, ReadOnlyStore] {
	const sqlite = nodeSqlite();
	if (!sqlite.ok) {
		throw new Error(sqlite.reason);
	}

	const better = ReadOnlyStore.open(db);
	const immutable = ReadOnlyStore.openImmutable(preflight(db), sqlite.sqlite);
	open.push(better, immutable);
	expect([better.isImmutable, immutable.isImmutable]).toEqual([false, true]);
	return [better, immutable];
}

describe('node:sqlite behind ReadOnlyStore answers as better-sqlite3 does', () => {
	it('rows, raw(), pluck(), iterate(), @named and positional parameters, blobs as Buffer, integers as numbers', () => {
		const db = stoppedStore();
		const answers = both(db).map(store =>
			store.read(() => ({
				objects: store.prepare('SELECT * FROM t ORDER BY id').all(),
				one: store.prepare('SELECT id, n, b FROM t WHERE id = @id').get({id: 'a'}),
				none: store.prepare('SELECT id FROM t WHERE id = ?').get('zz'),
				raw: store.prepare('SELECT id, big, b FROM t WHERE n >= ? ORDER BY id').raw(true).all(2),
				pluck: store.prepare('SELECT big FROM t ORDER BY id').pluck().all(),
				mixed: store.prepare('SELECT count(*) FROM t WHERE n > ? AND id <> @id').pluck().get(0, {id: 'b'}),
				array: store.prepare('SELECT id FROM t WHERE n IN (?, ?) ORDER BY id').pluck().all([1, 3]),
				iterated: [...store.prepare('SELECT id, r FROM t ORDER BY id').iterate()],
				rawOff: store.prepare('SELECT id, n FROM t WHERE id = ?').raw(true).raw(false).get('c'),
				sameNames: store.prepare('SELECT 1 AS x, 2 AS x').get(),
			})),
		);
		expect(answers[1]).toEqual(answers[0]);
		const blob = (answers[1]!.one as {b: unknown}).b;
		expect(Buffer.isBuffer(blob)).toBe(true);
		expect(answers[1]!.pluck).toEqual([9007199254740992, -5, 1700000000123]);
		expect(Object.getPrototypeOf(answers[1]!.objects[0])).toBe(Object.prototype);
	});

	it('refuses what is not read-only: the allow-list first, SQLite after it', () => {
		const db = stoppedStore();
		for (const store of both(db)) {
			for (const sql of [
				'PRAGMA wal_checkpoint(TRUNCATE)',
				'PRAGMA journal_mode = delete',
				`ATTACH '${db}.x' AS x`,
				'VACUUM',
			]) {
				expect(() => store.prepare(sql)).toThrow(ForbiddenStatement);
			}

			expect(() => {
				store.prepare('DELETE FROM t');
				store.connection.exec('DELETE FROM t');
			}).toThrow();
			expect(store.prepare('SELECT count(*) FROM t').pluck().get()).toBe(3);
		}

		expect(fs.readdirSync(path.dirname(db))).toEqual(['state.db']);
	});

	it(
		'a malformed store says SQLITE_CORRUPT or SQLITE_NOTADB, as ' +
			'better-sqlite3 would (one refusal mapping for both)',
		() => {
			const db = stoppedStore();
			const bytes = fs.readFileSync(db);
			bytes.fill(0x41, 100, 4096);
			fs.writeFileSync(db, bytes);
			const sqlite = nodeSqlite();
			expect(sqlite.ok).toBe(true);
			let caught: unknown;
			try {
				ReadOnlyStore.openImmutable(preflight(db), (sqlite as unknown as {sqlite: never}).sqlite);
			} catch (error) {
				caught = error;
			}

			expect((caught as {kind?: string}).kind).toMatch(/^(corrupt|not-sqlite)$/);
			expect(fs.readdirSync(path.dirname(db))).toEqual(['state.db']);
		},
	);
});

describe('backupTo: the online backup API from either driver, inside one read transaction', () => {
	it('both copies hold every row, in steps of the pages asked for; a source folder unchanged', async () => {
		const db = stoppedStore();
		const out = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-nodesqlite-backup-'));
		dirs.push(out);
		const copies: Array<{rows: unknown; steps: number}> = [];
		for (const [i, store] of both(db).entries()) {
			const dest = path.join(out, `copy-${i}.db`);
			let steps = 0;
			store.connection.exec('BEGIN');
			store.prepare('SELECT count(*) FROM sqlite_master').get();
			await store.backupTo(dest, 1, () => {
				steps++;
			});
			expect(store.connection.inTransaction).toBe(true);
			store.connection.exec('COMMIT');
			const copy = ReadOnlyStore.open(dest);
			open.push(copy);
			copies.push({rows: copy.prepare('SELECT * FROM t ORDER BY id').all(), steps});
		}

		expect(copies[1]!.rows).toEqual(copies[0]!.rows);
		expect((copies[1]!.rows as unknown[]).length).toBe(3);
		expect(copies[1]!.steps).toBeGreaterThan(1);
		expect(fs.readdirSync(path.dirname(db))).toEqual(['state.db']);
	});
});

describe('the immutable URI and the warning filter', () => {
	it('percent-encodes a space, ?, #, % in the path (SQLite would read them as URI syntax)', () => {
		expect(immutableUri('/tmp/we ird?#%x/state.db')).toBe(
			'file:///tmp/we%20ird%3F%23%25x/state.db?mode=ro&immutable=1',
		);
	});

	it("drops only Node 22's SQLite ExperimentalWarning; process.emitWarning is as it was after loading", () => {
		const emit = process.emitWarning;
		expect(nodeSqlite().ok).toBe(true);
		expect(process.emitWarning).toBe(emit);
		expect(
			isSqliteExperimentalWarning('SQLite is an experimental feature and might change at any time', [
				'ExperimentalWarning',
			]),
		).toBe(true);
		expect(
			isSqliteExperimentalWarning('SQLite is an experimental feature and might change at any time', [
				{type: 'ExperimentalWarning'},
			]),
		).toBe(true);
		expect(
			isSqliteExperimentalWarning('WASI is an experimental feature and might change at any time', [
				'ExperimentalWarning',
			]),
		).toBe(false);
		expect(isSqliteExperimentalWarning('SQLite is an experimental feature', ['DeprecationWarning'])).toBe(false);
		expect(isSqliteExperimentalWarning(new Error('something else'), [])).toBe(false);
	});
});
