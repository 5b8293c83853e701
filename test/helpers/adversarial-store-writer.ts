/**
 * Writes a generated adversarial store (adversarial-stores.ts) as a real SQLite file in the exact
 * schema of a store the real v25 SessionDB wrote: the DDL is read from that store's sqlite_master
 * (test/fixtures/hermes-agree-edges/listed/state.db) and replayed, FTS tables and triggers included.
 * Journal mode DELETE, no -wal/-shm, as the fixture the real code judged. Given the DDL of an older
 * generation's store (hermes-v21-incident: no last_activity_at, no profile_name), the cells of the
 * columns that generation lacks are left out.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import type {GenSession, GenStore} from './adversarial-stores.js';

const COLUMNS = [
	'id',
	'source',
	'session_key',
	'user_id',
	'chat_id',
	'chat_type',
	'profile_name',
	'parent_session_id',
	'started_at',
	'ended_at',
	'end_reason',
	'last_activity_at',
	'message_count',
	'model_config',
	'handoff_state',
] as const;

type Ddl = {sql: string[]; schemaVersion: number; columns: Set<string>};

/**
 * The schema objects of a real store, in the order SQLite made them, without FTS shadow tables.
 * Read from a private copy: a WAL-mode fixture opened in place would get a -wal and -shm beside it.
 */
export function ddlOf(realStore: string): Ddl {
	const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-ddl-'));
	const copy = path.join(scratch, 'state.db');
	fs.copyFileSync(realStore, copy);
	const conn = new Database(copy, {readonly: true});
	try {
		const objects = conn
			.prepare('SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY rowid')
			.all() as Array<{type: string; name: string; sql: string}>;
		const virtual = objects.filter(o => /^CREATE VIRTUAL TABLE/i.test(o.sql)).map(o => o.name);
		const shadow = (name: string) =>
			virtual.some(v => name.startsWith(`${v}_`) && /_(data|idx|docsize|config|content)$/.test(name));
		const sql = objects.filter(o => o.name !== 'sqlite_sequence' && !shadow(o.name)).map(o => o.sql);
		const {version} = conn.prepare('SELECT version FROM schema_version').get() as {version: number};
		const columns = new Set(
			(conn.prepare('PRAGMA table_info(sessions)').all() as Array<{name: string}>).map(c => c.name),
		);
		return {sql, schemaVersion: version, columns};
	} finally {
		conn.close();
		fs.rmSync(scratch, {recursive: true, force: true});
	}
}

function insertSession(conn: Database.Database, s: GenSession, columns: Set<string>): void {
	const present = COLUMNS.filter(c => columns.has(c));
	conn
		.prepare(`INSERT INTO sessions (${present.join(', ')}) VALUES (${present.map(() => '?').join(', ')})`)
		.run(...present.map(c => s[c]));
	const message = conn.prepare('INSERT INTO messages (session_id, role, content, timestamp) VALUES (?, ?, ?, ?)');
	for (const [i, at] of s.messages.entries()) {
		message.run(s.id, i % 2 === 0 ? 'user' : 'assistant', `${s.id} m${i}`, at);
	}
}

/** Writes the store under `folder` at its own path (a profile's store under profiles/NAME). Returns the file. */
export function writeStore(folder: string, store: GenStore, ddl: Ddl): string {
	const file = path.join(folder, store.path);
	fs.mkdirSync(path.dirname(file), {recursive: true});
	const conn = new Database(file);
	try {
		conn.pragma('journal_mode = DELETE');
		conn.transaction(() => {
			for (const sql of ddl.sql) {
				conn.exec(sql);
			}

			conn.prepare('INSERT INTO schema_version (version) VALUES (?)').run(ddl.schemaVersion);
			for (const s of store.sessions) {
				insertSession(conn, s, ddl.columns);
			}
		})();
	} finally {
		conn.close();
	}

	return file;
}
