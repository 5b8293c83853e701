import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {ReadOnlyStore} from '../../source/store/open.js';
import {detectSchema} from '../../source/store/schema.js';
import {PAGE_ROWS, readSnapshot, sessionsSql, signatureSql} from '../../source/store/snapshot.js';
import {StoreWriter} from '../../source/simulator/store-writer.js';
import {T0} from '../fixtures/scenarios.js';

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

describe('bounded read transactions', () => {
	it('reads every session in one transaction when within budget', () => {
		const store = ReadOnlyStore.open(manySessions(PAGE_ROWS * 2 + 5));
		try {
			const {snapshot, meta} = readSnapshot(store, detectSchema(store), null);
			expect(snapshot.sessions).toHaveLength(PAGE_ROWS * 2 + 5);
			expect(new Set(snapshot.sessions.map(s => s.id)).size).toBe(PAGE_ROWS * 2 + 5);
			expect(meta.transactions).toBe(1);
			expect(meta.consistentSnapshot).toBe(true);
			expect(store.db.inTransaction).toBe(false);
		} finally {
			store.close();
		}
	});

	it('ends the transaction between pages once over budget, and says the read was not one snapshot', () => {
		const store = ReadOnlyStore.open(manySessions(PAGE_ROWS * 2 + 5));
		try {
			const {snapshot, meta} = readSnapshot(store, detectSchema(store), null, {transactionBudgetMs: 0});
			expect(snapshot.sessions).toHaveLength(PAGE_ROWS * 2 + 5);
			expect(new Set(snapshot.sessions.map(s => s.id)).size).toBe(PAGE_ROWS * 2 + 5);
			expect(meta.transactions).toBe(3);
			expect(meta.consistentSnapshot).toBe(false);
			expect(store.db.inTransaction).toBe(false);
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
			expect(() => readSnapshot(store, schema, null)).not.toThrow();
		} finally {
			store.close();
		}
	});

	for (const shape of ['v21', 'v30'] as const) {
		it(`reads each row's change signature with the rows, equal to the standalone query (${shape})`, () => {
			const db = path.join(dir, `sig-${shape}.db`);
			const w = new StoreWriter(db, {shape, journalMode: 'delete'});
			const a = w.createSession({source: 'telegram', startedAt: T0});
			const b = w.createSession({source: 'cli', startedAt: T0 + 1});
			w.addMessages(a, [{timestamp: T0 + 2}, {timestamp: T0 + 3}]);
			w.endSession(b, T0 + 4, 'compression');
			w.close();
			const store = ReadOnlyStore.open(db);
			try {
				const schema = detectSchema(store);
				const {snapshot, meta} = readSnapshot(store, schema, null, {signatures: true});
				const standalone = new Map(store.prepare(signatureSql(schema)).raw(true).all() as Array<[string, string]>);
				expect(meta.signatures).toEqual(standalone);
				expect(meta.signatures?.get(a)).not.toBe(meta.signatures?.get(b));
				// The extra column must not shift the mapped fields.
				expect(snapshot.sessions.find(s => s.id === b)?.endReason).toBe('compression');
				expect(readSnapshot(store, schema, null).meta.signatures).toBeUndefined();
			} finally {
				store.close();
			}
		});
	}
});
