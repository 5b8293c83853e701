/**
 * migrateToCurrent brings an older store to the v30 shape as current Hermes does on a writable
 * open: every v30 table and column exists afterwards, schema_version is 30, and no row changes.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import {afterAll, describe, expect, it} from 'vitest';
import {type SchemaShape, schemaSql} from '../../source/simulator/hermes-schema.js';
import {migrateToCurrent} from '../../source/simulator/migrate.js';
import {StoreWriter} from '../../source/simulator/store-writer.js';
import {ROOT} from '../helpers/writer.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-migrate-'));
afterAll(() => fs.rmSync(dir, {recursive: true, force: true}));

/** 2026-09-01 08:00:00 UTC */
const T = 1_788_249_600;

type Shape = Record<string, string[]>;

function tablesOf(db: Database.Database): string[] {
	return db
		.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
		.pluck()
		.all() as string[];
}

function columnsOf(db: Database.Database, table: string): string[] {
	return db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all(table) as string[];
}

function shapeOf(db: Database.Database): Shape {
	return Object.fromEntries(tablesOf(db).map(t => [t, columnsOf(db, t)]));
}

/** The v30 shape as its DDL declares it, built independently of the file under test. */
function v30Shape(): Shape {
	const ref = new Database(':memory:');
	try {
		ref.exec(schemaSql('v30'));
		return shapeOf(ref);
	} finally {
		ref.close();
	}
}

let stores = 0;

/** A small store of this shape with keyed, keyless, ended and routed rows. */
function buildStore(shape: SchemaShape, journalMode: 'wal' | 'delete'): string {
	const db = path.join(dir, `store-${shape}-${journalMode}-${stores++}.db`);
	const w = new StoreWriter(db, {shape, journalMode});
	const zombie = w.createSession({
		source: 'telegram',
		userId: '777001',
		sessionKey: 'agent:main:telegram:dm:777001',
		chatId: '777001',
		chatType: 'dm',
		startedAt: T,
		profileName: 'work',
		title: 'the zombie',
	});
	w.addConversation(zombie, 6, T + 10, T + 600);
	const orphan = w.createSession({
		source: 'telegram',
		userId: '777001',
		startedAt: T + 660,
		modelConfig: {provider: 'x'},
	});
	w.addConversation(orphan, 40, T + 670, T + 4000);
	const ended = w.createSession({
		source: 'discord',
		sessionKey: 'agent:main:discord:dm:9',
		startedAt: T + 100,
		endReason: 'session_reset',
		endedAt: T + 900,
		handoffState: 'completed',
	});
	w.addMessages(ended, [
		{timestamp: T + 120, role: 'user', content: 'hi'},
		{timestamp: T + 130, role: 'tool', toolName: 'search', content: '{"ok":true}'},
	]);
	w.createSession({source: 'cli', startedAt: T + 5000, parentSessionId: zombie});
	w.setRouting('agent:main:telegram:dm:777001', zombie, T + 600);
	w.close();
	return db;
}

/** Every row of every table but schema_version, reading only the columns the file had before the migration. */
function dumpRows(file: string, shape: Shape): Record<string, unknown[]> {
	const db = new Database(file, {readonly: true, fileMustExist: true});
	try {
		return Object.fromEntries(
			Object.entries(shape)
				.filter(([table]) => table !== 'schema_version')
				.map(([table, columns]) => [
					table,
					db
						.prepare(
							`SELECT ${columns.map(c => `"${c}"`).join(', ')} FROM "${table}" ORDER ` +
								`BY ${columns.map(c => `"${c}"`).join(', ')}`,
						)
						.raw()
						.all(),
				]),
		);
	} finally {
		db.close();
	}
}

function inspect(file: string): {
	shape: Shape;
	versions: number[];
	journal: string;
	integrity: string;
	foreignKeys: unknown[];
} {
	const db = new Database(file, {readonly: true, fileMustExist: true});
	try {
		return {
			shape: shapeOf(db),
			versions: db.prepare('SELECT version FROM schema_version').pluck().all() as number[],
			journal: db.pragma('journal_mode', {simple: true}) as string,
			integrity: db.pragma('integrity_check', {simple: true}) as string,
			foreignKeys: db.pragma('foreign_key_check') as unknown[],
		};
	} finally {
		db.close();
	}
}

function expectCurrentShape(shape: Shape): void {
	const want = v30Shape();
	for (const [table, columns] of Object.entries(want)) {
		expect(shape[table], `table ${table}`).toBeDefined();
		for (const column of columns) {
			expect(shape[table], `${table}.${column}`).toContain(column);
		}
	}
}

describe('migrateToCurrent', () => {
	it.each([
		['v21', 'wal'],
		['v21', 'delete'],
		['v25', 'wal'],
		['v25', 'delete'],
	] as const)(
		'a %s store (%s journal) gets every v30 table and column, schema_version 30, the same rows',
		(shape, journalMode) => {
			const file = buildStore(shape, journalMode);
			const before = inspect(file);
			expect(before.versions).toEqual([shape === 'v21' ? 21 : 25]);
			const missing = Object.entries(v30Shape()).flatMap(([t, cols]) =>
				before.shape[t] ? cols.filter(c => !before.shape[t]!.includes(c)).map(c => `${t}.${c}`) : [t],
			);
			expect(missing.length).toBeGreaterThan(0);
			const rowsBefore = dumpRows(file, before.shape);

			migrateToCurrent(file);

			const after = inspect(file);
			expectCurrentShape(after.shape);
			expect(after.versions).toEqual([30]);
			expect(after.journal).toBe(before.journal);
			expect(after.integrity).toBe('ok');
			expect(after.foreignKeys).toEqual([]);
			// The old columns keep their order and content; new columns come after them.
			for (const [table, columns] of Object.entries(before.shape)) {
				expect(after.shape[table]!.slice(0, columns.length), table).toEqual(columns);
			}

			expect(dumpRows(file, before.shape)).toEqual(rowsBefore);
			expect(rowsBefore.sessions!.length).toBe(4);
			expect(rowsBefore.messages!.length).toBe(48);
		},
	);

	it("adds columns without a backfill: existing rows read NULL, or the column's declared default", () => {
		const file = buildStore('v21', 'delete');
		migrateToCurrent(file);
		const db = new Database(file, {readonly: true});
		try {
			const rows = db
				.prepare(
					'SELECT created_source, profile_name, last_activity_at, ' +
						'transport_profile, tool_names, hidden, pinned, git_metadata_generation ' +
						'FROM sessions',
				)
				.all() as Array<Record<string, unknown>>;
			expect(rows).toHaveLength(4);
			for (const r of rows) {
				expect(r).toEqual({
					created_source: null,
					profile_name: null,
					last_activity_at: null,
					transport_profile: null,
					tool_names: null,
					hidden: 0,
					pinned: 0,
					git_metadata_generation: 0,
				});
			}

			const messages = db
				.prepare('SELECT DISTINCT api_content, display_order, _compressed_summary FROM messages')
				.all();
			expect(messages).toEqual([{api_content: null, display_order: null, _compressed_summary: 0}]);
		} finally {
			db.close();
		}
	});

	it('keeps what a v25 store already had in the columns v30 shares with it', () => {
		const file = buildStore('v25', 'delete');
		const read = () => {
			const db = new Database(file, {readonly: true});
			try {
				return db.prepare('SELECT id, profile_name, last_activity_at FROM sessions ORDER BY id').all() as Array<{
					id: string;
					profile_name: string | null;
					last_activity_at: number | null;
				}>;
			} finally {
				db.close();
			}
		};

		const before = read();
		// The v25 writer stamps profile_name and last_activity_at (the v21 one cannot).
		expect(before.some(r => r.profile_name === 'work')).toBe(true);
		expect(before.filter(r => r.last_activity_at !== null)).toHaveLength(3);
		migrateToCurrent(file);
		expect(read()).toEqual(before);
	});

	it('is idempotent: a second run, or a run on a v30 store, changes nothing', () => {
		const file = buildStore('v25', 'delete');
		migrateToCurrent(file);
		const once = {...inspect(file), rows: dumpRows(file, inspect(file).shape)};
		migrateToCurrent(file);
		expect({...inspect(file), rows: dumpRows(file, inspect(file).shape)}).toEqual(once);

		const current = buildStore('v30', 'delete');
		const before = {...inspect(current), rows: dumpRows(current, inspect(current).shape)};
		migrateToCurrent(current);
		expect({...inspect(current), rows: dumpRows(current, inspect(current).shape)}).toEqual(before);
	});

	it('writes schema_version 30 into an empty or missing schema_version table', () => {
		const empty = buildStore('v21', 'delete');
		const missing = buildStore('v25', 'delete');
		const db1 = new Database(empty);
		db1.exec('DELETE FROM schema_version');
		db1.close();
		const db2 = new Database(missing);
		db2.exec('DROP TABLE schema_version');
		db2.close();
		migrateToCurrent(empty);
		migrateToCurrent(missing);
		expect(inspect(empty).versions).toEqual([30]);
		expect(inspect(missing).versions).toEqual([30]);
		expectCurrentShape(inspect(missing).shape);
	});

	it('migrates a store the real v25 Hermes wrote (a copy of the hermes-generations fixture)', () => {
		const file = path.join(dir, 'real-v25.db');
		fs.copyFileSync(path.join(ROOT, 'test/fixtures/hermes-generations/root/profiles/ops/state.db'), file);
		const before = inspect(file);
		expect(before.versions).toEqual([25]);
		const rowsBefore = dumpRows(file, {sessions: before.shape.sessions!, messages: before.shape.messages!});
		migrateToCurrent(file);
		const after = inspect(file);
		expectCurrentShape(after.shape);
		expect(after.versions).toEqual([30]);
		expect(after.journal).toBe('delete');
		expect(after.integrity).toBe('ok');
		// Tables the v30 DDL of hermes-schema.ts does not declare (FTS, async_delegations) stay.
		for (const table of Object.keys(before.shape)) {
			expect(after.shape[table], table).toBeDefined();
		}

		expect(dumpRows(file, {sessions: before.shape.sessions!, messages: before.shape.messages!})).toEqual(rowsBefore);
	});

	it('refuses a path that is not there instead of creating a store', () => {
		const file = path.join(dir, 'absent.db');
		expect(() => migrateToCurrent(file)).toThrow();
		expect(fs.existsSync(file)).toBe(false);
	});
});
