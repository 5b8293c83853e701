/**
 * The only way this project opens an observed database: read-only, no statement that is not
 * read-only, short bounded read transactions (docs/sqlite-wal.md, opening). better-sqlite3 opens it
 * (no URIs), except a stopped store read in place as an immutable file through node:sqlite
 * (immutable-read.ts, node-sqlite-connection.ts): the same ReadOnlyStore either way.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import {
	FailClosed,
	descriptorsExhausted,
	errnoWords,
	errorCode,
	errorMessage,
	throwFileError,
} from '../../ground/errors.js';
import type {RefusalKind} from '../../ground/refusal-kinds.js';
import {copyForeign} from '../foreign-file.js';
import type {NodeSqliteModule} from './node-sqlite.js';
import {type BackupProgress, NodeSqliteConnection} from './node-sqlite-connection.js';
import type {ReadConnection, ReadStatement} from './read-connection.js';
import {registerLiveHandle, assertNoLiveHandle} from './live-handles.js';
import {type Preflight, preflight as runPreflight, statSidecars} from './preflight.js';
import {freeBytes, ownTempDir, removeTemp} from '../../ground/temps.js';
import {testPause} from '../../ground/test-pause.js';

/**
 * PRAGMAs a read-only observer may run. Everything else (wal_checkpoint, optimize, journal_mode, integrity_check on the
 * live file...) is refused.
 */
const ALLOWED_PRAGMAS = new Set([
	'data_version',
	'page_size',
	'page_count',
	'freelist_count',
	'schema_version',
	'user_version',
	'application_id',
	'encoding',
	'mmap_size',
]);

export class ForbiddenStatement extends Error {
	constructor(sql: string, why: string) {
		super(`refused statement (${why}): ${sql.trim().slice(0, 120)}`);
		this.name = 'ForbiddenStatement';
	}
}

export function checkStatementText(sql: string): void {
	const head = sql.trim().replace(/^(--[^\n]*\n|\s)+/, '');
	if (/^(attach|detach|vacuum|reindex|analyze)\b/i.test(head)) {
		throw new ForbiddenStatement(sql, 'not allowed on an observed database');
	}

	const pragma = /^pragma\s+(?:\w+\.)?(\w+)/i.exec(head);
	if (pragma && !ALLOWED_PRAGMAS.has(pragma[1]!.toLowerCase())) {
		throw new ForbiddenStatement(sql, `PRAGMA ${pragma[1]} is not on the read-only allow-list`);
	}

	if (pragma && /=/.test(head)) {
		throw new ForbiddenStatement(sql, 'PRAGMA assignment');
	}
}

export type OpenOptions = {
	/** SQLite busy timeout for this connection, ms. */
	busyTimeoutMs?: number;
	/** Where a private read copy goes (default os.tmpdir()): a backup puts it on its output's filesystem. */
	privateTmp?: string;
	/**
	 * The store's preflight taken just now by the caller (live-connection.ts: the one a reading in place declined), not
	 * taken again: a preflight reads /proc/locks and stats every file of the store, and the live view opens a connection
	 * per refresh (up to 20 a second: two preflights were ~1 ms of each ~7 ms refresh).
	 */
	preflight?: Preflight;
};

/** Maps a SQLite/OS error on open or first read to a one-line refusal. */
export function describeOpenError(file: string, error: unknown): FailClosed {
	const code = errorCode(error) ?? '';
	const message = errorMessage(error);
	const words = stateRefusal(code, message) ?? accessRefusal(code, message) ?? unknownRefusal(code, message);
	return new FailClosed({file, ...words, cause: error});
}

/** A refusal's words: what kind, why, and the next safe step. */
type OpenRefusal = {kind: RefusalKind; reason: string; next: string};

/** Anything else SQLite or the system said: worded as it came, for a report. */
function unknownRefusal(code: string, message: string): OpenRefusal {
	return {
		kind: 'open-failed',
		reason: `could not read the database (${code || 'error'}: ${message})`,
		next: 'report this with the output of `hfx files --json`',
	};
}

/** What the store is in: not a database, damaged, locked, or needing a writer's recovery; null when none of those. */
function stateRefusal(code: string, message: string): OpenRefusal | null {
	if (code === 'SQLITE_NOTADB') {
		return {
			kind: 'not-sqlite',
			reason: `SQLite says this is not a database (${message})`,
			next: 'check the file; look for a backup (hfx backups)',
		};
	}

	if (code.startsWith('SQLITE_CORRUPT')) {
		return {
			kind: 'corrupt',
			reason: `the database is damaged (${code}: ${message})`,
			next:
				'stop the agent, copy state.db, -wal and -shm aside with cp, then run ' +
				'`hermes sessions recover --source <copy> --inspect-only`',
		};
	}

	if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') {
		return {
			kind: 'busy',
			reason: `the database stayed locked (${code}); its owner may use exclusive locking mode or be recovering the WAL`,
			next: 'retry in a few seconds; if it persists, see which process holds it (hfx files / lsof)',
		};
	}

	if (
		code === 'SQLITE_READONLY_RECOVERY' ||
		code === 'SQLITE_READONLY_CANTINIT' ||
		code === 'SQLITE_READONLY_ROLLBACK'
	) {
		return {
			kind: 'needs-recovery',
			reason:
				`a read-only reader cannot read it now (${code}: the WAL index or a hot ` +
				`journal needs a writer to recover it)`,
			next: 'let the agent open it once, or copy all three files to a scratch folder and inspect the copy',
		};
	}

	return null;
}

/** Why this process cannot reach the store: no descriptors left, permissions, an I/O error; null when none of those. */
function accessRefusal(code: string, message: string): OpenRefusal | null {
	const exhausted = code === 'SQLITE_CANTOPEN' ? descriptorsExhausted() : null;
	if (exhausted) {
		const words = errnoWords(exhausted);
		return {
			kind: `errno-${exhausted.toLowerCase()}`,
			reason: `${words.cause} (${exhausted}) while SQLite opened it read-only (${code})`,
			next: words.next,
		};
	}

	if (
		code === 'SQLITE_CANTOPEN' ||
		code === 'EACCES' ||
		code === 'SQLITE_READONLY_DIRECTORY' ||
		code === 'SQLITE_PERM' ||
		code === 'SQLITE_AUTH'
	) {
		return {
			kind: 'cannot-open',
			reason:
				`SQLite cannot open it read-only (${code}: ${message}); usually ` +
				`permissions on the file, its -wal/-shm or its folder`,
			next: "run hfx as the user that owns the store (sudo -u <owner> hfx …); do not chmod the agent's files",
		};
	}

	if (code.startsWith('SQLITE_IOERR')) {
		return {
			kind: 'io-error',
			reason: `I/O error while reading (${code}: ${message})`,
			next: 'check the disk (dmesg) and copy the three files elsewhere before anything else',
		};
	}

	return null;
}

/**
 * What SQLite says of the store itself while reading it (a malformed page, not a database, a read
 * that failed), as the store's refusal; anything else as it is: a backup's SQLITE_FULL inside the
 * read transaction is the destination's, and its writer words it (backup/create/write-failure.ts).
 */
/** The SQLite better-sqlite3 carries: the one every write of hfx goes through (an audit entry names it). */
export function writerSqliteVersion(): string {
	const db = new Database(':memory:');
	try {
		return db.prepare('SELECT sqlite_version()').pluck().get() as string;
	} finally {
		db.close();
	}
}

export function sqliteFailure(file: string, error: unknown): unknown {
	const code = errorCode(error) ?? '';
	const ofTheStore =
		code.startsWith('SQLITE_CORRUPT') ||
		code === 'SQLITE_NOTADB' ||
		code === 'SQLITE_IOERR_READ' ||
		code === 'SQLITE_IOERR_SHORT_READ';
	return ofTheStore ? describeOpenError(file, error) : error;
}

/** The two SQLite libraries a store is read through (open.ts header). */
type Driver = 'better-sqlite3' | 'node:sqlite';

/** The drivers whose first connection in this process was seen with memory-mapped reads off (`firstRead`). */
const mmapOff = new Set<Driver>();

/** Each driver's SQLite version, asked once (`sqliteVersion`: each refresh's facts name it). */
const sqliteVersions = new Map<Driver, string>();

export class ReadOnlyStore {
	readonly preflight: Preflight;
	/** The file SQLite actually has open: the evidence itself, or our private copy of it. */
	readonly openedPath: string;
	/** The connection every read goes through (better-sqlite3's, or node:sqlite's for an immutable read). */
	readonly connection: ReadConnection;
	private readonly better: Database.Database | undefined;
	private readonly statements = new Map<string, ReadStatement>();
	private readonly release: () => void;
	private readonly privateDir: string | undefined;
	private closed = false;

	private constructor(
		pre: Preflight,
		openedPath: string,
		connection: ReadConnection,
		better: Database.Database | undefined,
		privateDir: string | undefined,
	) {
		this.preflight = pre;
		this.openedPath = openedPath;
		this.connection = connection;
		this.better = better;
		this.privateDir = privateDir;
		this.release = registerLiveHandle(openedPath, pre.header);
	}

	static open(inputPath: string, options: OpenOptions = {}): ReadOnlyStore {
		let pre = options.preflight ?? runPreflight(inputPath);
		let privateDir: string | undefined;
		let target = pre.path;
		if (pre.openMode === 'private-copy') {
			const copied = copyForPrivateRead(pre, options.privateTmp ?? os.tmpdir());
			pre = copied.preflight;
			privateDir = copied.dir;
			target = copied.target ?? pre.path;
			if (!copied.target) {
				privateDir = undefined;
			}
		}

		let db: Database.Database;
		try {
			db = new Database(target, {readonly: true, fileMustExist: true, timeout: options.busyTimeoutMs ?? 5000});
		} catch (error) {
			cleanupDir(privateDir);
			throw describeOpenError(pre.path, error);
		}

		if (!db.readonly) {
			db.close();
			cleanupDir(privateDir);
			throw new Error('internal: better-sqlite3 opened the observed database writable');
		}

		return new ReadOnlyStore(pre, target, db, db, privateDir).firstRead();
	}

	/**
	 * A stopped store (`pre`: WAL mode, neither -wal nor -shm) opened in place as an immutable file
	 * through node:sqlite: nothing created beside it, nothing copied. Only immutable-read.ts calls
	 * it, and checks that nothing wrote the file around the read.
	 */
	static openImmutable(pre: Preflight, sqlite: NodeSqliteModule, crashed = false): ReadOnlyStore {
		let connection: NodeSqliteConnection;
		try {
			connection = NodeSqliteConnection.openImmutable(sqlite, pre.path, crashed);
		} catch (error) {
			throw describeOpenError(pre.path, error);
		}

		return new ReadOnlyStore(pre, pre.path, connection, undefined, undefined).firstRead();
	}

	/**
	 * First real read: surfaces NOTADB/CORRUPT/BUSY here, not deep inside a query; memory-mapped reads refused. A new
	 * connection's mmap_size is its library's default (compiled in, or set process-wide by sqlite3_config before any
	 * connection): no database file can set it, and hfx never assigns it. So the first connection of each driver in
	 * the process answers for every later one, and only it is asked (the live view opens one per refresh, up to 20 a
	 * second).
	 */
	private firstRead(): this {
		try {
			this.prepare('SELECT count(*) FROM sqlite_master').get();
			const driver = this.driver;
			if (!mmapOff.has(driver)) {
				const mmap = this.prepare('PRAGMA mmap_size').pluck().get();
				if (typeof mmap === 'number' && mmap !== 0) {
					throw new Error(
						`internal: mmap_size is ${mmap}; memory-mapped reads of a live file are refused (docs/sqlite-wal.md, mmap)`,
					);
				}

				mmapOff.add(driver);
			}
		} catch (error) {
			this.close();
			if (error instanceof FailClosed) {
				throw error;
			}

			throw describeOpenError(this.preflight.path, error);
		}

		return this;
	}

	/** better-sqlite3's own handle (its backup API): never there for an immutable read. */
	get db(): Database.Database {
		if (!this.better) {
			throw new Error(
				"internal: this store is read through node:sqlite (an immutable read); better-sqlite3's handle is not there",
			);
		}

		return this.better;
	}

	/**
	 * Read through node:sqlite as an immutable file (a stopped store, checked unchanged around the read): no WAL to pin.
	 */
	get isImmutable(): boolean {
		return this.better === undefined;
	}

	/** Which SQLite library reads: better-sqlite3's, or Node's own (node:sqlite) for a store read in place. */
	private get driver(): Driver {
		return this.better ? 'better-sqlite3' : 'node:sqlite';
	}

	get isPrivateCopy(): boolean {
		return this.privateDir !== undefined;
	}

	/**
	 * SQLite's online backup of the store to `dest` (a new file), `pagesPerStep` pages a step, `progress` after each:
	 * better-sqlite3's backup API, or node:sqlite's for a store read in place (immutable-read.ts). Called inside a read
	 * transaction (read(), or BEGIN and a first read) every step reuses it: the copy is that one snapshot.
	 */
	async backupTo(dest: string, pagesPerStep: number, progress: (p: BackupProgress) => void): Promise<void> {
		if (this.better) {
			await this.better.backup(dest, {
				progress(p) {
					progress(p);
					return pagesPerStep;
				},
			});
			return;
		}

		if (!(this.connection instanceof NodeSqliteConnection)) {
			throw new Error('internal: this store has no connection with a backup API');
		}

		await this.connection.backup(dest, pagesPerStep, progress);
	}

	/** Prepares (and caches) a statement, refusing anything that is not read-only. */
	prepare(sql: string): ReadStatement {
		const cached = this.statements.get(sql);
		if (cached) {
			return cached;
		}

		checkStatementText(sql);
		let stmt: ReadStatement;
		if (this.better) {
			const prepared = this.better.prepare(sql);
			if (!prepared.readonly) {
				throw new ForbiddenStatement(sql, 'SQLite reports it is not read-only');
			}

			stmt = prepared;
		} else {
			// node:sqlite has no sqlite3_stmt_readonly: its connection is opened read-only, immutable and query_only, so
			// SQLite refuses any write.
			stmt = this.connection.prepare(sql);
		}

		this.statements.set(sql, stmt);
		return stmt;
	}

	/**
	 * Runs `fn` inside one read transaction (one consistent snapshot) and always ends it, so the
	 * WAL is pinned only for the duration of `fn` (docs/sqlite-wal.md, pinning).
	 */
	read<T>(fn: () => T): T {
		if (this.connection.inTransaction) {
			return fn();
		}

		try {
			this.connection.exec('BEGIN');
			try {
				return fn();
			} finally {
				if (this.connection.inTransaction) {
					this.connection.exec('COMMIT');
				}
			}
		} catch (error) {
			// A page SQLite finds malformed (or an I/O error) mid-read: the store's one line, never a trace.
			throw sqliteFailure(this.preflight.path, error);
		}
	}

	/**
	 * Caps this connection's page cache (KiB). A memory setting of our own connection, not a
	 * write: the only PRAGMA assignment an observer makes.
	 */
	setCacheSizeKib(kib: number): void {
		this.connection.exec(`PRAGMA cache_size = ${-Math.max(64, Math.floor(kib))}`);
	}

	/** Changes whenever another connection commits (https://www.sqlite.org/pragma.html#pragma_data_version). */
	dataVersion(): number {
		return this.prepare('PRAGMA data_version').pluck().get() as number;
	}

	/** The version of the SQLite library reading: asked once per driver in the process (it cannot change). */
	sqliteVersion(): string {
		const driver = this.driver;
		let version = sqliteVersions.get(driver);
		if (version === undefined) {
			version = this.prepare('SELECT sqlite_version()').pluck().get() as string;
			sqliteVersions.set(driver, version);
		}

		return version;
	}

	close(): void {
		if (this.closed) {
			return;
		}

		this.closed = true;
		this.statements.clear();
		try {
			this.connection.close();
		} finally {
			this.release();
			cleanupDir(this.privateDir);
		}
	}
}

/**
 * Our private copy's folder: registered with the one clean-up policy (source/ground/temps.ts), removed on close, exit
 * and
 * signals.
 */
function cleanupDir(dir: string | undefined): void {
	if (dir) {
		removeTemp(dir);
	}
}

/** Refuses before copying when the temp folder cannot hold the copy (a 5 GB store must not fill it). */
function assertRoomForCopy(pre: Preflight, tmp: string): void {
	const needed = pre.main.size + (pre.sidecars.wal?.size ?? 0);
	const free = freeBytes(tmp);
	if (free !== null && free < needed + 1_048_576) {
		const mib = (n: number) => `${Math.ceil(n / 1_048_576)} MiB`;
		throw new FailClosed({
			file: pre.path,
			kind: 'no-space',
			reason:
				`a private read copy needs ${mib(needed)} (${needed} bytes) in ${tmp}, ` +
				`which has ${Math.floor(free / 1_048_576)} MiB (${free} bytes) free; ` +
				`nothing was copied`,
			next: 'point TMPDIR at a folder with that much free space, then run again',
		});
	}
}

/**
 * A WAL-mode file with no -wal or no -shm has no live connection. SQLite would create the missing
 * sidecars beside it even on a read-only open, so we copy the main file (and the -wal if present)
 * into a private folder and read that. If the sidecars appear while we copy, an owner started:
 * then the in-place read-only open is the right one.
 */
function copyForPrivateRead(
	pre: Preflight,
	tmp: string,
): {preflight: Preflight; dir: string; target: string | undefined} {
	for (let attempt = 0; attempt < 3; attempt++) {
		assertNoLiveHandle(pre.path, 'a private copy');
		assertRoomForCopy(pre, tmp);
		const dir = ownTempDir('read', tmp);
		const target = path.join(dir, path.basename(pre.path));
		try {
			// Opened as foreign files: a regular file only (never a FIFO swapped in since preflight), no link followed.
			copyForeign(pre.path, target, {noFollow: true, what: 'it as the store'});
			if (pre.sidecars.wal) {
				copyForeign(pre.sidecars.wal.path, `${target}-wal`, {noFollow: true, what: "it as the store's -wal"});
			}
		} catch (error) {
			cleanupDir(dir);
			if (error instanceof FailClosed) {
				throw error;
			}

			const code = errorCode(error);
			if (code === 'ENOSPC') {
				throw new FailClosed({
					file: pre.path,
					kind: 'no-space',
					reason: `no space in ${tmp} for a private read copy (${pre.main.size} bytes)`,
					next: 'free space or point TMPDIR at a larger folder',
					cause: error,
				});
			}

			if (code === 'ELOOP' || code === 'ENOENT') {
				throw new FailClosed({
					file: pre.path,
					kind: 'unstable',
					reason:
						code === 'ELOOP'
							? 'it (or its -wal) became a symbolic link while a private read copy was taken'
							: 'it (or its -wal) vanished while a private read copy was taken',
					next: 'retry; if the files keep changing, copy the store aside with cp and pass --db <copy>',
					cause: error,
				});
			}

			// The file that failed, in the one errno mapping's words (an unreadable -wal is the -wal; EFBIG names the copy).
			throwFileError(error);
		}

		const st = fs.statSync(pre.path);
		const after = statSidecars(pre.path);
		const unchanged =
			st.size === pre.main.size &&
			st.mtimeMs === pre.main.mtimeMs &&
			(after.wal?.size ?? -1) === (pre.sidecars.wal?.size ?? -1) &&
			Boolean(after.shm) === Boolean(pre.sidecars.shm);
		if (unchanged) {
			testPause('private-copy');
			return {preflight: pre, dir, target};
		}

		cleanupDir(dir);
		pre = runPreflight(pre.path);
		if (pre.openMode === 'in-place') {
			return {preflight: pre, dir: '', target: undefined};
		}
	}

	throw new FailClosed({
		file: pre.path,
		kind: 'unstable',
		reason: 'the file kept changing while a private read copy was taken',
		next: 'retry; if the agent is starting up, wait until it is running',
	});
}
