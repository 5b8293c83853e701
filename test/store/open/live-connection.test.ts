/**
 * LiveConnection on a stopped store (WAL mode, no -wal/-shm): each reading in place, closed after, stands only if the
 * file was the same around it. A second process (the sqlite3 CLI) writes the store during the first reading: that
 * reading is thrown away and read again from the start, told why, and what the second one read is what stands.
 */
import {execFileSync} from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterAll, describe, expect, it, vi} from 'vitest';
import {LiveConnection, type Reopen} from '../../../source/store/open/live-connection.js';
import {ReadOnlyStore} from '../../../source/store/open/open.js';
import {WriterProcess} from '../../helpers/writer.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-live-connection-'));
afterAll(() => fs.rmSync(dir, {recursive: true, force: true}));

describe('LiveConnection on a stopped store', () => {
	it('throws away a reading in place the store changed under and reads it again from the start', () => {
		const fixture = path.join(import.meta.dirname, '../../fixtures/hermes-v21-incident/state.db');
		const db = path.join(dir, 'state.db');
		fs.copyFileSync(fixture, db);
		execFileSync('sqlite3', [db, 'PRAGMA journal_mode=WAL;']);
		expect(fs.readdirSync(dir)).toEqual(['state.db']);
		const connection = new LiveConnection(db);
		const count = (store: Parameters<Parameters<LiveConnection['read']>[0]>[0]['store']) =>
			store.prepare("SELECT count(*) FROM sessions WHERE id = 'written-meanwhile'").pluck().get();
		expect(connection.read(({store}) => count(store))).toBe(0);
		expect(connection.preflight.openModeReason).toMatch(/immutable=1/);

		const seen: Array<{reopened: Reopen | null; found: unknown}> = [];
		const found = connection.read(({store, reopened}) => {
			if (seen.length === 0) {
				// Another process writes the store during this reading (its agent, a restore...).
				execFileSync('sqlite3', [
					db,
					"INSERT INTO sessions (id, source, started_at) VALUES ('written-meanwhile', 'cli', 1)",
				]);
			}

			const n = count(store);
			seen.push({reopened, found: n});
			return n;
		});
		expect(seen).toHaveLength(2);
		expect(seen[0]!.reopened).toBeNull();
		expect(seen[1]!.reopened?.why).toMatch(
			/^the store changed while it was read in place \(.+\): read again from the start$/,
		);
		// A writer committed to the same file: not another file behind the path.
		expect(seen[1]!.reopened?.sameFile).toBe(true);
		expect(found).toBe(1);
		expect(connection.isPrivateCopy).toBe(false);
		expect(fs.readdirSync(dir)).toEqual(['state.db']);
		connection.close();
	});
});

describe('LiveConnection: why it reads afresh', () => {
	it('names another file put behind the path during a reading in place, not the change it saw', () => {
		const fixture = path.join(import.meta.dirname, '../../fixtures/hermes-v21-incident/state.db');
		const folder = fs.mkdtempSync(path.join(dir, 'swap-'));
		const db = path.join(folder, 'state.db');
		fs.copyFileSync(fixture, db);
		execFileSync('sqlite3', [db, 'PRAGMA journal_mode=WAL;']);
		fs.copyFileSync(db, path.join(folder, 'other.db'));
		execFileSync('sqlite3', [
			path.join(folder, 'other.db'),
			"INSERT INTO sessions (id, source, started_at) VALUES ('x', 'cli', 1)",
		]);
		const connection = new LiveConnection(db);
		connection.read(() => null);
		const seen: Array<Reopen | null> = [];
		connection.read(({reopened}) => {
			if (seen.length === 0) {
				// A restore moves another file over the stopped store while it is read in place.
				fs.renameSync(path.join(folder, 'other.db'), db);
			}

			seen.push(reopened);
		});
		expect(seen).toHaveLength(2);
		expect(seen[1]).toEqual({why: expect.stringMatching(/was replaced on disk \(a new inode/), sameFile: false});
		connection.close();
	});
});

describe('LiveConnection on a live store', () => {
	it('looks at the store once per read: the preflight a reading in place declined is the one opened with', async () => {
		const db = path.join(dir, 'live.db');
		const w = new WriterProcess(db);
		await w.started();
		const mark = process.env.HFX_TEST_MARK;
		process.env.HFX_TEST_MARK = 'preflight';
		const write = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
		const connection = new LiveConnection(db);
		try {
			for (let i = 0; i < 3; i++) {
				connection.read(({store}) => store.prepare('SELECT count(*) FROM sessions').pluck().get());
			}

			const preflights = write.mock.calls.filter(([text]) => String(text).includes('hfx-test: at preflight'));
			expect(connection.preflight.openMode).toBe('in-place');
			expect(preflights).toHaveLength(3);
		} finally {
			write.mockRestore();
			process.env.HFX_TEST_MARK = mark;
			if (mark === undefined) {
				delete process.env.HFX_TEST_MARK;
			}

			connection.close();
			await w.kill();
		}
	});

	it('asks what the schema was read under (its cookie, its schema_version row) in one statement per read', async () => {
		const db = path.join(dir, 'key.db');
		const w = new WriterProcess(db);
		await w.started();
		const connection = new LiveConnection(db);
		const count = () => connection.read(({store}) => store.prepare('SELECT count(*) FROM sessions').pluck().get());
		count();
		const prepare = vi.spyOn(ReadOnlyStore.prototype, 'prepare');
		try {
			expect(connection.schema.version).not.toBeNull();
			for (let i = 0; i < 3; i++) {
				expect(count()).toBe(0);
			}

			// Before: PRAGMA schema_version, then SELECT max(version) FROM schema_version, on every read.
			const key = prepare.mock.calls.map(([sql]) => sql).filter(sql => /schema_version/.test(sql));
			expect(key).toEqual(Array(3).fill(key[0]));
			expect(key[0]).toMatch(/pragma_schema_version.*max\(version\) FROM schema_version/);
		} finally {
			prepare.mockRestore();
			connection.close();
			await w.kill();
		}
	});

	it('reads the schema again only when it changed (its cookie moved), not on every read', async () => {
		const db = path.join(dir, 'schema.db');
		const w = new WriterProcess(db);
		await w.started();
		const prepare = vi.spyOn(ReadOnlyStore.prototype, 'prepare');
		const connection = new LiveConnection(db);
		const tableLists = () =>
			prepare.mock.calls.filter(([sql]) => sql.includes('FROM sqlite_master WHERE type IN')).length;
		const columns = (): unknown =>
			connection.read(({schema}) => [...schema.sessionColumns].filter(c => c === 'hfx_test_added').length);
		try {
			for (let i = 0; i < 3; i++) {
				expect(columns()).toBe(0);
			}

			expect(tableLists()).toBe(1);
			await w.send({op: 'exec', sql: 'ALTER TABLE sessions ADD COLUMN hfx_test_added TEXT'});
			expect(columns()).toBe(1);
			expect(tableLists()).toBe(2);
		} finally {
			prepare.mockRestore();
			connection.close();
			await w.kill();
		}
	});
});
