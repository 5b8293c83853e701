import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import {afterAll, describe, expect, it, vi} from 'vitest';
import {ReadOnlyStore} from '../../../source/store/open/open.js';
import {detectSchema} from '../../../source/store/open/schema.js';
import {
	PAGE_ROWS,
	readSnapshot,
	readSnapshotSteps,
	rowMapper,
	sessionsSql,
	signatureMatcher,
	signatureSql,
} from '../../../source/store/read/read-snapshot.js';
import {RestartProbeReader} from '../../../source/store/read/restart-probes.js';
import {RollbackPairIndex} from '../../../source/forensics/rollbacks/pair-index.js';
import {StoreWriter} from '../../../source/simulator/store-writer.js';
import {T0} from '../../fixtures/scenarios.js';

/** The default profile, no routing scope (every entry counts), no sessions.json. */
const CONTEXT = {owner: 'default', routingScope: null, legacyRouting: []};

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-snap-'));
afterAll(() => fs.rmSync(dir, {recursive: true, force: true}));

let files = 0;
function manySessions(n: number): string {
	const db = path.join(dir, `many-${n}-${files++}.db`);
	const w = new StoreWriter(db, {shape: 'v30', journalMode: 'delete'});
	w.db.transaction(() => {
		for (let i = 0; i < n; i++) {
			w.createSession({source: 'cli', startedAt: T0 + i});
		}
	})();
	w.close();
	return db;
}

function collectGarbage(): void {
	v8.setFlagsFromString('--expose-gc');
	(vm.runInNewContext('gc') as () => void)();
}

/**
 * A raw row of sessionsSql(schema, {columns: 'full'}) as SQLite hands it over (every cell a fresh string): rowid, id,
 * source, the 22 columns, markers, has_rows, the newest message. `same` gives the repeated cells as one instance each.
 */
function rawRow(i: number, same: boolean): unknown[] {
	const fresh = (s: string) => (same ? s : [...s].join(''));
	const chat = i % 50;
	const keys = same ? SHARED_KEYS[chat]! : [`u${chat}`, `agent:main:telegram:dm:${chat}`, `${chat}`, `Person ${chat}`];
	return [
		i + 1,
		`20260801_000000_${i.toString(16).padStart(8, '0')}`,
		fresh('telegram'),
		keys[0],
		keys[1],
		keys[2],
		fresh('dm'),
		null,
		null,
		T0 + i,
		T0 + i + 60,
		fresh('agent_close'),
		4,
		T0 + i + 60,
		fresh('main'),
		null,
		keys[3],
		null,
		fresh('hermes-3-large'),
		10,
		20,
		0,
		0,
		0,
		0,
		null,
		1,
		T0 + i + 50,
	];
}

const SHARED_KEYS = Array.from({length: 50}, (_, c) => [`u${c}`, `agent:main:telegram:dm:${c}`, `${c}`, `Person ${c}`]);

/** Heap kept by `n` records mapped from raw rows (after a full collection on each side). */
function heldByRecords(n: number, same: boolean): number {
	const map = rowMapper('full');
	collectGarbage();
	const before = v8.getHeapStatistics().used_heap_size;
	const kept = [];
	for (let i = 0; i < n; i++) {
		kept.push(map(rawRow(i, same)));
	}

	collectGarbage();
	const held = v8.getHeapStatistics().used_heap_size - before;
	expect(kept[n - 1]!.model).toBe('hermes-3-large');
	return held;
}

/** A stepped read of a store of `rows` sessions: how many steps it took and how many sessions it read. */
function readInSteps(rows: number): {yields: number; sessions: number} {
	const store = ReadOnlyStore.open(manySessions(rows));
	try {
		const steps = readSnapshotSteps(store, detectSchema(store), CONTEXT);
		let yields = 0;
		let step = steps.next();
		for (; !step.done; step = steps.next()) {
			yields++;
		}

		return {yields, sessions: step.value.snapshot.sessions.length};
	} finally {
		store.close();
	}
}

describe('session records', () => {
	it('keep one instance of each repeated cell (source, chat, model, end reason…), however many rows repeat it', () => {
		// Issue #26: 21,516 records of the bench store held 21,517 copies of 4 models, 19,569 of 11 end reasons….
		const n = 20_000;
		heldByRecords(n, true);
		const shared = heldByRecords(n, true);
		const fresh = heldByRecords(n, false);
		// Ten repeated cells a row: as copies they would cost ~20 bytes and more each, 4 MB and more in all.
		expect(fresh - shared).toBeLessThan(n * 16);
	});
});

describe('bounded read transactions', () => {
	it('reads every session in one transaction when within budget', () => {
		const store = ReadOnlyStore.open(manySessions(PAGE_ROWS * 2 + 5));
		try {
			const {snapshot, meta} = readSnapshot(store, detectSchema(store), CONTEXT);
			expect(snapshot.sessions).toHaveLength(PAGE_ROWS * 2 + 5);
			expect(new Set(snapshot.sessions.map(s => s.id)).size).toBe(PAGE_ROWS * 2 + 5);
			expect(meta.transactions).toBe(1);
			expect(meta.consistentSnapshot).toBe(true);
			expect(store.db.inTransaction).toBe(false);
		} finally {
			store.close();
		}
	});

	it('steps after each full page, after the last page, after the message-row settling, routing and the probes', () => {
		const {yields, sessions} = readInSteps(PAGE_ROWS * 2 + 5);
		// Two full pages, the last (5 rows), the settling (the keyless rows' message count), routing, probes.
		expect(yields).toBe(6);
		expect(sessions).toBe(PAGE_ROWS * 2 + 5);
	});

	it('holds the event loop for at most 1,000 rows a step: 2,500 rows are read in three page steps', () => {
		// A 4,000-row page held the loop 100-240 ms on the bench store under load (issue #26: a key answered meanwhile).
		const {yields, sessions} = readInSteps(2500);
		// After each of the two full pages, after the last (500 rows), the settling, routing, probes.
		expect(yields).toBe(6);
		expect(sessions).toBe(2500);
	});

	it('ends the transaction between pages once over budget, and says the read was not one snapshot', () => {
		const store = ReadOnlyStore.open(manySessions(PAGE_ROWS * 2 + 5));
		try {
			const {snapshot, meta} = readSnapshot(store, detectSchema(store), CONTEXT, {transactionBudgetMs: 0});
			expect(snapshot.sessions).toHaveLength(PAGE_ROWS * 2 + 5);
			expect(new Set(snapshot.sessions.map(s => s.id)).size).toBe(PAGE_ROWS * 2 + 5);
			expect(meta.transactions).toBe(3);
			expect(meta.consistentSnapshot).toBe(false);
			expect(store.db.inTransaction).toBe(false);
		} finally {
			store.close();
		}
	});

	it("reads a scope of more than two pages page by page: exactly the scope's rows, as the whole read has them", () => {
		// Telegram rows (keyed, keyless, with messages) between cli rows: the scope of 'telegram' outgrows two pages.
		const db = path.join(dir, `scope-pages-${files++}.db`);
		const w = new StoreWriter(db, {shape: 'v30', journalMode: 'delete'});
		w.db.transaction(() => {
			for (let i = 0; i < PAGE_ROWS * 2 + 5; i++) {
				w.createSession({source: 'cli', startedAt: T0 + i});
				const id = w.createSession({
					source: 'telegram',
					startedAt: T0 + i,
					sessionKey: i % 3 === 0 ? null : `k${i % 7}`,
				});
				if (i % 5 === 0) {
					w.addMessages(id, [{timestamp: T0 + i + 1}]);
				}
			}
		})();
		w.close();
		const store = ReadOnlyStore.open(db);
		try {
			const schema = detectSchema(store);
			const whole = readSnapshot(store, schema, CONTEXT, {columns: 'lean'}).snapshot.sessions;
			const expected = whole.filter(s => s.source === 'telegram');
			for (const transactionBudgetMs of [undefined, 0]) {
				const chatsOfSources = new Set(['telegram']);
				const {snapshot, meta} = readSnapshot(store, schema, CONTEXT, {
					columns: 'lean',
					chatsOfSources,
					transactionBudgetMs,
				});
				expect(snapshot.sessions).toEqual(expected);
				expect(meta.transactions).toBe(transactionBudgetMs === 0 ? 3 : 1);
			}
		} finally {
			store.close();
		}
	});

	it('adapts the SQL to absent columns instead of failing', () => {
		const db = path.join(dir, 'old.db');
		const w = new StoreWriter(db, {shape: 'v21', journalMode: 'delete'});
		w.exec('ALTER TABLE sessions DROP COLUMN display_name');
		w.exec('ALTER TABLE sessions DROP COLUMN model_config');
		w.close();
		const store = ReadOnlyStore.open(db);
		try {
			const schema = detectSchema(store);
			const sql = sessionsSql(schema);
			expect(sql).toContain('NULL AS display_name');
			expect(sql).toContain('NULL AS last_activity_at');
			expect(sql).not.toContain('model_config');
			expect(() => readSnapshot(store, schema, CONTEXT)).not.toThrow();
		} finally {
			store.close();
		}
	});

	for (const shape of ['v21', 'v30'] as const) {
		it(`compares each row's in-place columns with its record: only changed rows differ (${shape})`, () => {
			const db = path.join(dir, `sig-${shape}.db`);
			const w = new StoreWriter(db, {shape, journalMode: 'delete'});
			const a = w.createSession({source: 'telegram', startedAt: T0});
			const b = w.createSession({source: 'cli', startedAt: T0 + 1});
			const c = w.createSession({source: 'cli', startedAt: T0 + 2});
			w.addMessages(a, [{timestamp: T0 + 2}, {timestamp: T0 + 3}]);
			const store = ReadOnlyStore.open(db);
			try {
				const schema = detectSchema(store);
				const {snapshot} = readSnapshot(store, schema, CONTEXT);
				const records = new Map(snapshot.sessions.map(s => [s.id, s]));
				const matches = signatureMatcher(schema);
				const unchanged = () =>
					(store.prepare(signatureSql(schema)).raw(true).all() as unknown[][])
						.filter(row => matches(records.get(String(row[0]))!, row))
						.map(row => String(row[0]))
						.sort();
				expect(unchanged()).toEqual([a, b, c].sort());
				w.endSession(b, T0 + 4, 'compression');
				w.exec(`UPDATE sessions SET session_key = '' WHERE id = '${c}'`);
				expect(unchanged()).toEqual([a]);
				w.exec(`UPDATE sessions SET title = 'renamed' WHERE id = '${a}'`);
				expect(unchanged()).toEqual([]);
			} finally {
				store.close();
				w.close();
			}
		});
	}

	it('re-reads into the earlier records: unchanged sessions are the same objects, the rest are read afresh', () => {
		const db = path.join(dir, 'reuse.db');
		const w = new StoreWriter(db, {shape: 'v30', journalMode: 'delete'});
		const keyed = {source: 'telegram', userId: 'u1', chatId: '1', chatType: 'dm'};
		const still = w.createSession({...keyed, sessionKey: 'agent:main:telegram:dm:1', startedAt: T0});
		const renamed = w.createSession({...keyed, sessionKey: 'agent:main:telegram:dm:2', chatId: '2', startedAt: T0 + 1});
		const emptied = w.createSession({...keyed, sessionKey: 'agent:main:telegram:dm:3', chatId: '3', startedAt: T0 + 2});
		const empty = w.createSession({source: 'cli', startedAt: T0 + 3});
		const orphan = w.createSession({source: 'telegram', startedAt: T0 + 4});
		for (const id of [still, renamed, emptied, orphan]) {
			w.addMessages(id, [{timestamp: T0 + 10}, {timestamp: T0 + 11}]);
		}

		const store = ReadOnlyStore.open(db);
		try {
			const schema = detectSchema(store);
			const first = new Map(readSnapshot(store, schema, CONTEXT).snapshot.sessions.map(r => [r.id, r]));
			const before = structuredClone([...first.values()]);
			expect(first.get(orphan)?.messageRows).toBe(2);

			const again = new Map(readSnapshot(store, schema, CONTEXT, {reuse: first}).snapshot.sessions.map(r => [r.id, r]));
			// Nothing changed: every settled record comes back; the empty one and the orphan candidate
			// (settled after the rows) are read afresh, with the same values.
			expect([still, renamed, emptied].every(id => again.get(id) === first.get(id))).toBe(true);
			expect(again.get(empty)).not.toBe(first.get(empty));
			expect(again.get(orphan)).not.toBe(first.get(orphan));
			expect([...again.values()]).toEqual([...first.values()]);

			w.exec(`UPDATE sessions SET title = 'renamed' WHERE id = '${renamed}'`);
			w.exec(`DELETE FROM messages WHERE session_id = '${emptied}'`);
			w.addMessages(orphan, [{timestamp: T0 + 12}]);
			const after = new Map(readSnapshot(store, schema, CONTEXT, {reuse: first}).snapshot.sessions.map(r => [r.id, r]));
			expect(after.get(still)).toBe(first.get(still));
			expect(after.get(renamed)).not.toBe(first.get(renamed));
			expect(after.get(renamed)?.title).toBe('renamed');
			expect([after.get(emptied)?.hasMessageRows, after.get(emptied)?.newestMessageAt]).toEqual([false, null]);
			expect([after.get(orphan)?.messageRows, after.get(orphan)?.newestMessageAt]).toEqual([3, T0 + 12]);
			expect(after.get(empty)?.hasMessageRows).toBe(false);
			// The earlier records were never written to.
			expect([...first.values()]).toEqual(before);
		} finally {
			store.close();
			w.close();
		}
	});

	/** A store with keyless rows of each kind; its sessions' ids by name. */
	function keylessRows(dropTimeIndex: boolean): {db: string; ids: Record<string, string>} {
		const db = path.join(dir, `keyless-${files++}.db`);
		const w = new StoreWriter(db, {shape: 'v30', journalMode: 'delete'});
		const ids = {
			gateway: w.createSession({source: 'telegram', startedAt: T0}),
			textStamps: w.createSession({source: 'discord', startedAt: T0 + 1}),
			local: w.createSession({source: 'cli', startedAt: T0 + 2}),
			tool: w.createSession({source: 'tool', startedAt: T0 + 3}),
			keyed: w.createSession({source: 'telegram', startedAt: T0 + 4, sessionKey: 'agent:main:telegram:dm:1'}),
			empty: w.createSession({source: 'telegram', startedAt: T0 + 5}),
		};
		w.addMessages(ids.gateway, [{timestamp: T0 + 5}, {timestamp: T0 + 6}, {timestamp: T0 + 7}]);
		w.addMessages(ids.textStamps, [{timestamp: T0 + 5}, {timestamp: T0 + 6}]);
		w.addMessages(ids.local, [{timestamp: T0 + 5}]);
		w.addMessages(ids.tool, [{timestamp: T0 + 5}, {timestamp: T0 + 6}]);
		w.addMessages(ids.keyed, [{timestamp: T0 + 5}, {timestamp: T0 + 6}]);
		w.exec(`UPDATE messages SET timestamp = 'yesterday' WHERE session_id = '${ids.textStamps}'`);
		if (dropTimeIndex) {
			w.exec('DROP INDEX idx_messages_session');
		}

		w.close();
		return {db, ids};
	}

	for (const dropTimeIndex of [false, true]) {
		it(
			"counts each keyless row's messages in the pages' own statement, no grouped query " +
				`(${dropTimeIndex ? 'without' : 'with'} the (session_id, timestamp) index)`,
			() => {
				const {db, ids} = keylessRows(dropTimeIndex);
				const store = ReadOnlyStore.open(db);
				try {
					const schema = detectSchema(store);
					expect(schema.messageTimeIndex).toBe(dropTimeIndex ? null : 'idx_messages_session');
					const prepared: string[] = [];
					const prepare = store.prepare.bind(store);
					store.prepare = (sql: string) => {
						prepared.push(sql);
						return prepare(sql);
					};
					const by = new Map(readSnapshot(store, schema, CONTEXT).snapshot.sessions.map(s => [s.id, s]));
					// The pages ran every statement that walks messages rows: no GROUP BY over them after.
					expect(prepared.filter(sql => /group by/i.test(sql))).toEqual([]);
					// repair-routing's COUNT(*) for every row it lists (text timestamps too); nothing for the rest.
					expect(Object.fromEntries(Object.entries(ids).map(([k, id]) => [k, by.get(id)?.messageRows]))).toEqual({
						gateway: 3,
						textStamps: 2,
						local: 1,
						tool: null,
						keyed: null,
						empty: null,
					});
					const page = prepared.find(sql => sql.includes('keyless_rows'))!;
					const plan = (store.prepare(`EXPLAIN QUERY PLAN ${page}`).all(0) as Array<{detail: string}>).map(
						r => r.detail,
					);
					// The count walks the index the newest-message seek of the same row walked (its pages already read).
					expect(plan.filter(d => /^SEARCH m /.test(d))).toEqual(
						dropTimeIndex
							? [expect.stringContaining('(session_id=?)'), expect.stringContaining('(session_id=?)')]
							: [
									'SEARCH m USING COVERING INDEX idx_messages_session (session_id=?)',
									'SEARCH m USING COVERING INDEX idx_messages_session (session_id=?)',
								],
					);
				} finally {
					store.close();
				}
			},
		);
	}

	it("reads a one-shot snapshot's restart probes without the live view's pair index, the same probes in order", () => {
		const db = path.join(dir, `probes-${files++}.db`);
		const w = new StoreWriter(db, {shape: 'v30', journalMode: 'delete'});
		const keyed = (source: string, key: string, at: number) =>
			w.createSession({source, userId: 'u1', chatId: key, chatType: 'dm', sessionKey: key, startedAt: at});
		// Keyed rows of two platforms written after two keyless rows of each fell silent, and a passed-over sibling.
		const rows = [
			keyed('telegram', 'agent:main:telegram:dm:1', T0),
			keyed('telegram', 'agent:main:telegram:dm:2', T0 + 1),
			keyed('discord', 'agent:main:discord:dm:3', T0 + 2),
			w.createSession({source: 'telegram', userId: 'u1', startedAt: T0 + 10}),
			w.createSession({source: 'telegram', startedAt: T0 + 11}),
			w.createSession({source: 'discord', userId: 'u1', startedAt: T0 + 12}),
			keyed('telegram', 'agent:main:telegram:dm:1', T0 + 13),
		];
		for (const [i, id] of rows.entries()) {
			w.addMessages(id, [{timestamp: T0 + 20 + i}, {timestamp: i < 3 ? T0 + 100 + i : T0 + 30 + i}]);
		}

		w.close();
		const store = ReadOnlyStore.open(db);
		const reset = vi.spyOn(RollbackPairIndex.prototype, 'resetSteps');
		try {
			const schema = detectSchema(store);
			const once = readSnapshot(store, schema, CONTEXT).snapshot.restartProbes;
			expect(reset).not.toHaveBeenCalled();
			const live = readSnapshot(store, schema, CONTEXT, {probes: new RestartProbeReader()}).snapshot.restartProbes;
			expect(reset).toHaveBeenCalledTimes(1);
			expect(once?.length).toBeGreaterThanOrEqual(6);
			expect(once).toEqual(live);
		} finally {
			reset.mockRestore();
			store.close();
		}
	});

	it('tells sessions with only unusable timestamps from empty ones (one seek for most, EXISTS for the rest)', () => {
		const db = path.join(dir, 'stamps.db');
		const w = new StoreWriter(db, {shape: 'v21', journalMode: 'delete'});
		const normal = w.createSession({source: 'telegram', startedAt: T0});
		const textStamps = w.createSession({source: 'telegram', startedAt: T0 + 1});
		const farFuture = w.createSession({source: 'telegram', startedAt: T0 + 2});
		const empty = w.createSession({source: 'telegram', startedAt: T0 + 3});
		w.addMessages(normal, [{timestamp: T0 + 5}, {timestamp: T0 + 9}]);
		w.addMessages(textStamps, [{timestamp: T0 + 5}]);
		w.addMessages(farFuture, [{timestamp: T0 + 5}]);
		w.exec(`UPDATE messages SET timestamp = 'yesterday' WHERE session_id = '${textStamps}'`);
		w.exec(`UPDATE messages SET timestamp = 9e12 WHERE session_id = '${farFuture}'`);
		w.close();
		const store = ReadOnlyStore.open(db);
		try {
			const {snapshot} = readSnapshot(store, detectSchema(store), CONTEXT);
			const by = new Map(snapshot.sessions.map(s => [s.id, s]));
			expect([by.get(normal)?.hasMessageRows, by.get(normal)?.newestMessageAt]).toEqual([true, T0 + 9]);
			expect([by.get(textStamps)?.hasMessageRows, by.get(textStamps)?.newestMessageAt]).toEqual([true, null]);
			expect([by.get(farFuture)?.hasMessageRows, by.get(farFuture)?.newestMessageAt]).toEqual([true, null]);
			expect([by.get(empty)?.hasMessageRows, by.get(empty)?.newestMessageAt]).toEqual([false, null]);
		} finally {
			store.close();
		}
	});
});
