/**
 * A node:sqlite connection (DatabaseSync) behind the ReadConnection shape the rest of hfx reads
 * through (read-connection.ts), so a stopped store read in place (immutable-read.ts) answers every
 * query exactly as better-sqlite3 does: rows as plain objects, raw() arrays, pluck() first columns,
 * better-sqlite3's parameters (positional values, arrays of them, one object of @named ones), blobs
 * as Buffer, integers as numbers (read as BigInt, then made numbers as better-sqlite3 makes them:
 * node:sqlite would throw on one past 2^53, a Discord id cast to INTEGER), and SQLite's errors
 * with better-sqlite3's codes (SQLITE_CORRUPT, SQLITE_NOTADB...) so the one refusal mapping
 * (open.ts describeOpenError) words them.
 */
import {pathToFileURL} from 'node:url';
import type {DatabaseSync, StatementSync} from 'node:sqlite';
import type {NodeSqliteModule} from './node-sqlite.js';
import type {ReadConnection, ReadStatement} from './read-connection.js';

/**
 * SQLite's result codes by number (https://www.sqlite.org/rescode.html): the primary ones, and the extended ones hfx
 * words apart.
 */
const CODE_NAMES: Record<number, string> = {
	1: 'SQLITE_ERROR',
	2: 'SQLITE_INTERNAL',
	3: 'SQLITE_PERM',
	4: 'SQLITE_ABORT',
	5: 'SQLITE_BUSY',
	6: 'SQLITE_LOCKED',
	7: 'SQLITE_NOMEM',
	8: 'SQLITE_READONLY',
	9: 'SQLITE_INTERRUPT',
	10: 'SQLITE_IOERR',
	11: 'SQLITE_CORRUPT',
	13: 'SQLITE_FULL',
	14: 'SQLITE_CANTOPEN',
	15: 'SQLITE_PROTOCOL',
	17: 'SQLITE_SCHEMA',
	18: 'SQLITE_TOOBIG',
	19: 'SQLITE_CONSTRAINT',
	20: 'SQLITE_MISMATCH',
	21: 'SQLITE_MISUSE',
	22: 'SQLITE_NOLFS',
	23: 'SQLITE_AUTH',
	25: 'SQLITE_RANGE',
	26: 'SQLITE_NOTADB',
	266: 'SQLITE_IOERR_READ',
	522: 'SQLITE_IOERR_SHORT_READ',
	// The write side's extended codes (a backup's copy written through node:sqlite: ulimit -f gives 778, the
	// IOERR_WRITE better-sqlite3 names and write-failure.ts reads as EFBIG under a file size limit).
	778: 'SQLITE_IOERR_WRITE',
	1034: 'SQLITE_IOERR_FSYNC',
	1290: 'SQLITE_IOERR_DIR_FSYNC',
	1546: 'SQLITE_IOERR_TRUNCATE',
	1802: 'SQLITE_IOERR_FSTAT',
	2570: 'SQLITE_IOERR_DELETE',
	4106: 'SQLITE_IOERR_CLOSE',
	4362: 'SQLITE_IOERR_DIR_CLOSE',
};

/** A node:sqlite error as better-sqlite3 would throw it: `code` is SQLite's name for it. */
export class NodeSqliteError extends Error {
	readonly code: string;

	constructor(cause: unknown) {
		const errcode = (cause as {errcode?: unknown}).errcode;
		const message = (cause as {errstr?: unknown}).errstr ?? (cause instanceof Error ? cause.message : String(cause));
		super(String(message), {cause});
		this.name = 'SqliteError';
		this.code =
			typeof errcode === 'number'
				? (CODE_NAMES[errcode] ?? CODE_NAMES[errcode & 0xff] ?? `SQLITE_${errcode}`)
				: ((cause as {code?: string}).code ?? 'SQLITE_ERROR');
	}
}

function sqliteCall<T>(call: () => T): T {
	try {
		return call();
	} catch (error) {
		throw (error as {code?: unknown}).code === 'ERR_SQLITE_ERROR' ? new NodeSqliteError(error) : error;
	}
}

function asBetterSqlite(v: unknown): unknown {
	if (typeof v === 'bigint') {
		return Number(v);
	}

	return v instanceof Uint8Array ? Buffer.from(v.buffer, v.byteOffset, v.byteLength) : v;
}

function isNamed(p: unknown): p is Record<string, unknown> {
	return typeof p === 'object' && p !== null && !Array.isArray(p) && !(p instanceof Uint8Array);
}

/**
 * better-sqlite3's arguments as node:sqlite takes them: the named parameters' object first, then the positional values.
 */
function bindArgs(params: unknown[]): unknown[] {
	let named: Record<string, unknown> | undefined;
	const positional: unknown[] = [];
	for (const p of params) {
		if (Array.isArray(p)) {
			positional.push(...(p as unknown[]));
		} else if (isNamed(p)) {
			named = {...named, ...p};
		} else {
			positional.push(p);
		}
	}

	return named ? [named, ...positional] : positional;
}

type Shape = 'object' | 'raw' | 'pluck';

class NodeSqliteStatement implements ReadStatement {
	private shape: Shape = 'object';
	private names: string[] | undefined;

	constructor(private readonly statement: StatementSync) {
		statement.setReturnArrays(true);
		statement.setReadBigInts(true);
	}

	pluck(toggle = true): ReadStatement {
		this.shape = toggle ? 'pluck' : this.shape === 'pluck' ? 'object' : this.shape;
		return this;
	}

	raw(toggle = true): ReadStatement {
		this.shape = toggle ? 'raw' : this.shape === 'raw' ? 'object' : this.shape;
		return this;
	}

	get(...params: unknown[]): unknown {
		const row = sqliteCall(() => (this.statement.get as (...a: unknown[]) => unknown)(...bindArgs(params)));
		return row === undefined ? undefined : this.row(row as unknown[]);
	}

	all(...params: unknown[]): unknown[] {
		const rows = sqliteCall(() => (this.statement.all as (...a: unknown[]) => unknown[])(...bindArgs(params)));
		return rows.map(r => this.row(r as unknown[]));
	}

	*iterate(...params: unknown[]): IterableIterator<unknown> {
		const rows = sqliteCall(() =>
			(this.statement.iterate as (...a: unknown[]) => Iterator<unknown>)(...bindArgs(params)),
		);
		for (;;) {
			const next = sqliteCall(() => rows.next());
			if (next.done) {
				return;
			}

			yield this.row(next.value as unknown[]);
		}
	}

	private row(values: unknown[]): unknown {
		if (this.shape === 'pluck') {
			return asBetterSqlite(values[0]);
		}

		if (this.shape === 'raw') {
			for (let i = 0; i < values.length; i++) {
				values[i] = asBetterSqlite(values[i]);
			}

			return values;
		}

		this.names ??= this.statement.columns().map(c => c.name);
		const row: Record<string, unknown> = {};
		for (let i = 0; i < values.length; i++) {
			row[this.names[i]!] = asBetterSqlite(values[i]);
		}

		return row;
	}
}

/**
 * `file:` URI of an absolute path: every character SQLite's URI parser would take for syntax (?, #, %, spaces...)
 * percent-encoded.
 */
export function immutableUri(file: string): string {
	return `${pathToFileURL(file).href}?mode=ro&immutable=1`;
}

/**
 * `file:` URI that reads a crashed agent's store in place: read-only, its -shm opened read-only (`readonly_shm=1`), so
 * SQLite, finding no live connection, rebuilds the WAL index in its own memory instead of in the -shm.
 */
export function readonlyShmUri(file: string): string {
	return `${pathToFileURL(file).href}?mode=ro&readonly_shm=1`;
}

/** One step of an online backup: how many pages of how many are still to copy. */
export type BackupProgress = {totalPages: number; remainingPages: number};

export class NodeSqliteConnection implements ReadConnection {
	private constructor(
		private readonly db: DatabaseSync,
		private readonly sqlite: NodeSqliteModule,
	) {}

	/**
	 * Opens `file` read-only as an immutable file: SQLite takes no lock and never looks for, creates
	 * or reads a -wal, -shm or -journal (https://www.sqlite.org/uri.html#uriimmutable). Sound only
	 * while nothing writes it: immutable-read.ts checks that around the read. `crashed`: the store a
	 * killed agent left with its -wal and -shm, opened with its -shm read-only instead (readonlyShmUri):
	 * the -wal's committed frames are read, no byte of the three files is written.
	 */
	static openImmutable(sqlite: NodeSqliteModule, file: string, crashed = false): NodeSqliteConnection {
		const uri = crashed ? readonlyShmUri(file) : immutableUri(file);
		const db = sqliteCall(() => new sqlite.DatabaseSync(uri, {readOnly: true}));
		try {
			// A guard of our own connection (no file is touched): any statement that would write fails.
			sqliteCall(() => db.exec('PRAGMA query_only = 1'));
		} catch (error) {
			db.close();
			throw error;
		}

		return new NodeSqliteConnection(db, sqlite);
	}

	/**
	 * node:sqlite's online backup of this connection's main database to `dest` (created; its own connection, closed
	 * when the promise settles), `rate` pages a step. Inside a read transaction of this connection every step reuses it
	 * (sqlite3_backup_step begins none of its own then): the copy is that one snapshot. SQLite's errors (the
	 * destination's SQLITE_FULL...) come with better-sqlite3's codes.
	 */
	async backup(dest: string, rate: number, progress: (p: BackupProgress) => void): Promise<void> {
		try {
			await this.sqlite.backup(this.db, dest, {rate, progress});
		} catch (error) {
			throw (error as {code?: unknown}).code === 'ERR_SQLITE_ERROR' ? new NodeSqliteError(error) : error;
		}
	}

	prepare(sql: string): ReadStatement {
		return new NodeSqliteStatement(sqliteCall(() => this.db.prepare(sql)));
	}

	exec(sql: string): void {
		sqliteCall(() => this.db.exec(sql));
	}

	get inTransaction(): boolean {
		return this.db.isTransaction;
	}

	close(): void {
		this.db.close();
	}
}
