/**
 * A Hermes store's sessions by id with their message count and highest message id
 * (source/backup/inventory.ts), on real SQLite files: of a private copy (null when the copy is no
 * Hermes store, an error for a file that is no database) and of a live store through the read-only
 * open (nothing created beside it, an error in words for a missing one).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import {afterAll, describe, expect, it} from 'vitest';
import {inventoryOfCopy, inventoryOfLive} from '../../source/backup/inventory.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-inventory-'));
afterAll(() => {
	fs.rmSync(dir, {recursive: true, force: true});
});

/** Three sessions: two messages (ids 1 and 5), one message (id 7), none. Rollback journal: no sidecar stays. */
function hermesStore(name: string): string {
	const file = path.join(dir, name);
	const w = new Database(file);
	w.exec(`CREATE TABLE sessions (id TEXT PRIMARY KEY, source TEXT);
		CREATE TABLE messages (id INTEGER PRIMARY KEY, session_id TEXT, content TEXT);
		INSERT INTO sessions VALUES ('s-a', 'telegram'), ('s-b', 'cli'), ('s-empty', 'cli');
		INSERT INTO messages VALUES (1, 's-a', 'hi'), (5, 's-a', 'there'), (7, 's-b', 'x');`);
	w.close();
	return file;
}

const EXPECTED = {
	sessions: {
		's-a': {messages: 2, maxId: 5},
		's-b': {messages: 1, maxId: 7},
		's-empty': {messages: 0, maxId: null},
	},
};

describe('inventoryOfCopy', () => {
	it('counts each session’s messages and its highest message id', () => {
		expect(inventoryOfCopy(hermesStore('copy.db'))).toEqual(EXPECTED);
	});

	it('null for a database that is no Hermes store', () => {
		const file = path.join(dir, 'other.db');
		const w = new Database(file);
		w.exec('CREATE TABLE sessions (id TEXT)');
		w.close();
		expect(inventoryOfCopy(file)).toBeNull();
	});

	it('an error for a file that is no database, and for a missing one', () => {
		const junk = path.join(dir, 'junk.db');
		fs.writeFileSync(junk, 'x'.repeat(4096));
		expect(inventoryOfCopy(junk)).toEqual({error: expect.stringMatching(/not a database/)});
		expect(inventoryOfCopy(path.join(dir, 'none.db'))).toHaveProperty('error');
	});
});

describe('inventoryOfLive', () => {
	it('the same inventory through the read-only open, nothing created beside the store', () => {
		const live = path.join(fs.mkdtempSync(path.join(dir, 'live-')), 'state.db');
		fs.copyFileSync(hermesStore('source.db'), live);
		const before = fs.readdirSync(path.dirname(live));
		expect(inventoryOfLive(live)).toEqual(EXPECTED);
		expect(fs.readdirSync(path.dirname(live))).toEqual(before);
	});

	it('an error in words for a store that is not there', () => {
		const missing = path.join(dir, 'nowhere', 'state.db');
		const inv = inventoryOfLive(missing);
		expect(inv).toEqual({error: expect.stringContaining('nowhere')});
		expect(fs.existsSync(path.dirname(missing))).toBe(false);
	});
});
