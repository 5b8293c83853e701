/**
 * inWriteTransaction (source/repair/write/write-transaction.ts), the repair's one write path, on a real
 * SQLite file: the body runs inside BEGIN IMMEDIATE with foreign keys on and commits; a Stop rolls
 * back and becomes the outcome; a body that throws, or a COMMIT that fails (a deferred foreign key),
 * is rolled back and handed to `failed`; the connection is always closed; no store is created.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import {afterEach, describe, expect, it} from 'vitest';
import {inWriteTransaction} from '../../../source/repair/write/write-transaction.js';

const dirs: string[] = [];

function store(): string {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-write-tx-'));
	dirs.push(dir);
	const db = path.join(dir, 'state.db');
	const w = new Database(db);
	w.exec(`CREATE TABLE sessions (id TEXT PRIMARY KEY, session_key TEXT);
		CREATE TABLE messages (id INTEGER PRIMARY KEY, session_id TEXT
			REFERENCES sessions(id) DEFERRABLE INITIALLY DEFERRED);
		INSERT INTO sessions VALUES ('s1', NULL);`);
	w.close();
	return db;
}

/** Whether another connection can write now (the transaction's lock is gone); its write is undone at once. */
function writable(db: string): boolean {
	const w = new Database(db, {timeout: 0});
	try {
		w.exec('BEGIN IMMEDIATE; ROLLBACK');
		return true;
	} catch {
		return false;
	} finally {
		w.close();
	}
}

function keyOf(db: string): unknown {
	const r = new Database(db, {readonly: true});
	try {
		return r.prepare("SELECT session_key FROM sessions WHERE id = 's1'").pluck().get();
	} finally {
		r.close();
	}
}

afterEach(() => {
	for (const d of dirs.splice(0)) {
		fs.rmSync(d, {recursive: true, force: true});
	}
});

describe('inWriteTransaction', () => {
	it('commits the body inside BEGIN IMMEDIATE with foreign keys on, and closes the connection', async () => {
		const db = store();
		let seen: Database.Database | undefined;
		let other: string | undefined;
		const result = await inWriteTransaction(
			db,
			d => {
				seen = d;
				expect(d.inTransaction).toBe(true);
				expect(d.pragma('foreign_keys', {simple: true})).toBe(1);
				// IMMEDIATE: the write lock is taken at BEGIN, so another writer is refused at once.
				const w = new Database(db, {timeout: 0});
				try {
					w.exec("UPDATE sessions SET session_key = 'x'");
				} catch (error) {
					other = (error as {code?: string}).code;
				} finally {
					w.close();
				}

				d.prepare("UPDATE sessions SET session_key = 'agent:main:telegram:dm:1' WHERE id = 's1'").run();
				return null;
			},
			() => 'failed',
		);
		expect(result).toBeNull();
		expect(other).toBe('SQLITE_BUSY');
		expect(seen!.open).toBe(false);
		expect(keyOf(db)).toBe('agent:main:telegram:dm:1');
	});

	it('a Stop rolls back first, then becomes the outcome', async () => {
		const db = store();
		const result = await inWriteTransaction(
			db,
			async d => {
				d.prepare("UPDATE sessions SET session_key = 'k' WHERE id = 's1'").run();
				return () => (writable(db) ? 'stopped: a re-check failed' : 'stopped while the write lock was held');
			},
			() => 'failed',
		);
		expect(result).toBe('stopped: a re-check failed');
		expect(keyOf(db)).toBeNull();
	});

	it('a body that throws is rolled back and handed to failed', async () => {
		const db = store();
		let seen: Database.Database | undefined;
		const result = await inWriteTransaction(
			db,
			d => {
				seen = d;
				d.prepare("UPDATE sessions SET session_key = 'k' WHERE id = 's1'").run();
				throw new Error('disk I/O error');
			},
			error => `failed: ${(error as Error).message}${writable(db) ? '' : ' (the write lock still held)'}`,
		);
		expect(result).toBe('failed: disk I/O error');
		expect(seen!.open).toBe(false);
		expect(keyOf(db)).toBeNull();
	});

	it('a COMMIT that fails (a deferred foreign key) is rolled back and handed to failed', async () => {
		const db = store();
		const result = await inWriteTransaction(
			db,
			d => {
				d.prepare("UPDATE sessions SET session_key = 'k' WHERE id = 's1'").run();
				d.prepare("INSERT INTO messages (session_id) VALUES ('no-such-session')").run();
				return null;
			},
			error => `failed: ${(error as {code?: string}).code}`,
		);
		expect(result).toBe('failed: SQLITE_CONSTRAINT_FOREIGNKEY');
		expect(keyOf(db)).toBeNull();
	});

	it('a store that is not there is not created', async () => {
		const db = path.join(path.dirname(store()), 'gone.db');
		await expect(
			inWriteTransaction(
				db,
				() => null,
				() => 'failed',
			),
		).rejects.toThrow();
		expect(fs.existsSync(db)).toBe(false);
	});
});
