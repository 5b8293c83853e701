/**
 * The database check run on a COPY (never on the live file: a long read of it pins the owner's WAL, docs/sqlite-wal.md,
 * pinning): a fresh read-only connection,
 * `PRAGMA integrity_check`, the row count of every ordinary table and the schema version.
 *
 * Plain reads and SQLite's default page cache (2 MiB), no memory map: a map of the copy is
 * resident while the check reads it, so a backup of a 785 MB store peaked at ~870 MB RSS (795 MB
 * of it the mapped copy), and the map bought ~10 % CPU on the check (2.8 s against 3.1 s of CPU
 * on that store), which runs beside the archive stream anyway. A larger cache only costs memory:
 * integrity_check reads each page about once.
 */
import Database from 'better-sqlite3';
import {errorCode, errorMessage} from '../../ground/errors.js';
import {testPause} from '../../ground/test-pause.js';
import {plural} from '../../text/format.js';

export type DbCheck = {
	/** True when integrity_check said "ok" and every count could be read. */
	ok: boolean;
	/** integrity_check's rows (["ok"] when sound) or the error that stopped the check. */
	integrity: string[];
	counts: Record<string, number>;
	schemaVersion: number | null;
	pageSize: number | null;
	pageCount: number | null;
	freelistCount: number | null;
	ms: number;
};

export function quoteIdent(name: string): string {
	return `"${name.replaceAll('"', '""')}"`;
}

/** Ordinary tables (no virtual tables, no sqlite_ internals), by name. */
export function countableTables(db: Database.Database): string[] {
	const rows = db
		.prepare(
			"SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT " +
				"LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name",
		)
		.all() as Array<{name: string; sql: string | null}>;
	return rows.filter(r => !/^\s*create\s+virtual\s+table/i.test(r.sql ?? '')).map(r => r.name);
}

export function readCounts(db: Database.Database): Record<string, number> {
	const counts: Record<string, number> = {};
	for (const name of countableTables(db)) {
		counts[name] = db
			.prepare(`SELECT count(*) FROM ${quoteIdent(name)}`)
			.pluck()
			.get() as number;
	}

	return counts;
}

export function readSchemaVersion(db: Database.Database): number | null {
	try {
		const has = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'").get();
		if (!has) {
			return null;
		}

		const v = db.prepare('SELECT max(version) FROM schema_version').pluck().get();
		return typeof v === 'number' && Number.isInteger(v) ? v : null;
	} catch {
		return null;
	}
}

/** CHECK_CACHE_KIB: the page cache of the check connection, SQLite's own default, set explicitly. */
export const CHECK_CACHE_KIB = 2000;

/**
 * Loads better-sqlite3's native addon now (it loads on the first connection): the check worker does it first thing,
 * before anything may stop it (db-check-run.ts, why).
 */
export function loadDriver(): void {
	new Database(':memory:').close();
}

/** The check's connection to a private copy: read-only, no memory map, a bounded page cache. */
export function openCheckConnection(file: string): Database.Database {
	const db = new Database(file, {readonly: true, fileMustExist: true, timeout: 5000});
	db.pragma('mmap_size = 0');
	db.pragma(`cache_size = -${CHECK_CACHE_KIB}`);
	return db;
}

/** Synchronous check of a private copy. Never throws: a failure is an `ok: false` result. */
export function checkDatabaseFileSync(file: string, onReading?: () => void): DbCheck {
	const started = performance.now();
	let db: Database.Database | undefined;
	try {
		testPause('check-open');
		db = openCheckConnection(file);
		// The first read makes the copy's -wal and -shm when it is in WAL mode; nothing the check does after makes a file.
		db.prepare('SELECT count(*) FROM sqlite_schema').pluck().get();
		onReading?.();
		testPause('check-reading');
		const rows = db.prepare('PRAGMA integrity_check(100)').pluck().all() as string[];
		const counts = readCounts(db);
		const schemaVersion = readSchemaVersion(db);
		const pageSize = db.pragma('page_size', {simple: true}) as number;
		const pageCount = db.pragma('page_count', {simple: true}) as number;
		const freelistCount = db.pragma('freelist_count', {simple: true}) as number;
		return {
			ok: rows.length === 1 && rows[0] === 'ok',
			integrity: rows,
			counts,
			schemaVersion,
			pageSize,
			pageCount,
			freelistCount,
			ms: performance.now() - started,
		};
	} catch (error) {
		return {
			ok: false,
			integrity: [`${errorCode(error) ?? 'error'}: ${errorMessage(error)}`],
			counts: {},
			schemaVersion: null,
			pageSize: null,
			pageCount: null,
			freelistCount: null,
			ms: performance.now() - started,
		};
	} finally {
		db?.close();
	}
}

/** Differences between expected and found counts, as plain sentences. */
export function compareCounts(expected: Record<string, number>, found: Record<string, number>): string[] {
	const out: string[] = [];
	for (const [table, n] of Object.entries(expected)) {
		if (!(table in found)) {
			out.push(`table ${table} is missing (expected ${plural(n, 'row')})`);
		} else if (found[table] !== n) {
			out.push(`table ${table} has ${plural(found[table]!, 'row')}, expected ${n}`);
		}
	}

	for (const table of Object.keys(found)) {
		if (!(table in expected)) {
			out.push(`unexpected table ${table} (${plural(found[table]!, 'row')})`);
		}
	}

	return out;
}
