/**
 * One consistent online copy of one database while its owner keeps writing
 * (docs/sqlite-wal.md, backup and pinning): a read-only connection (ReadOnlyStore: preflight first), one
 * read transaction, the backup API inside it (its steps reuse the open read transaction, so the
 * copy is one snapshot and never restarts), the row counts read in the same snapshot, COMMIT.
 * Then the COPY is checked in a fresh connection (integrity_check + counts), off the live file.
 *
 * better-sqlite3's default backup() alone livelocks under a live writer; never call it outside
 * the pinned transaction. The pin lasts only for the copy (reported as pinnedMs: a long pin keeps
 * the owner from checkpointing, docs/sqlite-wal.md, pinning).
 *
 * A stopped store (WAL mode, neither -wal nor -shm) or a crashed one (-wal and -shm that no process holds) is copied
 * from where it lies, opened as readStore opens one (immutable-read.ts, openInPlace: an immutable file, or its -shm
 * read-only), its identity checked before and after the copy and the copy taken again when the store changed under it.
 * Before, such a store was first copied whole (and its -wal) into a private folder in the staging folder, then copied
 * again into the archive: twice the store's size written, the first copy thrown away. node:sqlite, not better-sqlite3,
 * reads it (better-sqlite3 cannot open the URI filenames immutable=1 and readonly_shm=1 need), so its backup() copies
 * it: the same SQLite backup API, in the same pinned read transaction. strace of `hfx backup --home` on a stopped
 * and on a crashed store (2026-12-02): before, `.hfx-stage…/hfx-read-PID-…/state.db` (and `state.db-wal`) written in
 * full, then its own -wal and -shm; now the store's files are only opened (a crashed store's -shm O_RDONLY, its -wal
 * as SQLite opens every -wal, never written), nothing beside the staging copy is written, nothing in TMPDIR.
 * Measured on a stopped copy of the bench store (2,219 MB), one round each, before then after interleaved, the
 * machine shared (load 11 to 16 on 2 cores), 2026-12-02: `hfx backup --home` wrote 4,438 MB before (the private
 * copy, then the staging copy; the archive 2,116 MB besides) and 2,219 MB now, TMPDIR 0 MB both, the output
 * folder's peak 4,232 MB both (the private copy was gone before the archive was written); 410 s before, 381 s now.
 * The two drivers' backup API, the same file, BEGIN and a first read, 1,024 pages a step, 2 interleaved rounds:
 * node:sqlite 33.8 s and 36.5 s, better-sqlite3 32.4 s and 28.3 s (within this machine's noise; no second copy).
 */
import fs from 'node:fs';
import path from 'node:path';
import {FailClosed, errorCode} from '../../ground/errors.js';
import {testPause} from '../../ground/test-pause.js';
import {IMMUTABLE_ATTEMPTS, openInPlace} from '../../store/open/immutable-read.js';
import {ReadOnlyStore, describeOpenError} from '../../store/open/open.js';
import {preflight as runPreflight} from '../../store/open/preflight.js';
import {type DbCheck, compareCounts, quoteIdent} from '../check/db-check.js';
import {checkDatabaseFile} from '../check/db-check-run.js';
import {writeFailure} from './write-failure.js';
import {EarlyWriteback} from './early-writeback.js';

export type CopyProgress = {file: string; done: number; total: number};

export type DbCopy = {
	source: string;
	dest: string;
	bytes: number;
	pageSize: number;
	pageCount: number;
	/** Row counts read inside the same read transaction as the copy. */
	snapshotCounts: Record<string, number>;
	schemaVersion: number | null;
	journalMode: 'wal' | 'delete';
	/** Size of the source's -wal when the copy started (its committed frames are in the copy). */
	walBytes: number | null;
	/**
	 * 'private-copy' when the file was read from a private copy: only where readStore makes one too (no node:sqlite, a
	 * crashed store's -wal SQLite cannot read through a read-only -shm, a store that changed at each read in place).
	 */
	openMode: 'in-place' | 'private-copy';
	steps: number;
	/** Times the backup API started over because the source changed: always 0 with the pinned transaction. */
	restarts: number;
	ms: number;
	/** How long the read transaction pinned the owner's WAL (docs/sqlite-wal.md, pinning). */
	pinnedMs: number;
	/** Early fdatasyncs of the copy while it was written (early-writeback.ts). */
	writebacks: number;
	readerSqliteVersion: string;
};

export type CopyOptions = {
	onProgress?: (p: CopyProgress) => void;
	/** Pages per backup step; the event loop turns between steps. */
	pagesPerStep?: number;
	/**
	 * Where the reader's private copy goes when one is made (copyDatabase: the rare store not read in place). Default
	 * the OS temp folder; the backup passes its staging folder,
	 * so the copy lands on the output's filesystem and is swept with the rest after a kill -9.
	 */
	privateTmp?: string;
	/** Bytes between early fdatasyncs of the copy (default WRITEBACK_EVERY, 64 MiB). */
	writebackEvery?: number;
};

/** ReadOnlyStore.open, its private read copy (if one is needed) in `dir` when given. */
function openReader(source: string, dir: string | undefined): ReadOnlyStore {
	return ReadOnlyStore.open(source, dir ? {privateTmp: dir} : {});
}

/** Write-side SQLite codes: the destination failed, not the source. */
function isDestinationError(error: unknown): boolean {
	const code = errorCode(error) ?? '';
	return (
		code === 'SQLITE_FULL' ||
		code === 'ENOSPC' ||
		code === 'EFBIG' ||
		code === 'EACCES' ||
		code === 'EROFS' ||
		/^SQLITE_IOERR_(WRITE|FSYNC|TRUNCATE|DIR_FSYNC|FSTAT|DELETE|DIR_CLOSE|CLOSE)$/.test(code) ||
		code === 'SQLITE_IOERR' ||
		code === 'SQLITE_CANTOPEN' ||
		code === 'SQLITE_READONLY'
	);
}

export function removeDbDebris(dest: string): void {
	for (const suffix of ['', '-journal', '-wal', '-shm']) {
		fs.rmSync(`${dest}${suffix}`, {force: true});
	}
}

/** The reader on `source`; a failure writing the private read copy is a write failure, like ours. */
function openSource(source: string, dest: string, options: CopyOptions): ReadOnlyStore {
	try {
		return openReader(source, options.privateTmp);
	} catch (error) {
		// The private read copy of a stopped store is written where we write: its failures are ours.
		// Its up-front refusal (too little room for the copy) names no errno: it is the same full disk.
		if (error instanceof FailClosed && error.kind === 'no-space' && error.cause === undefined) {
			throw new FailClosed({
				file: options.privateTmp ?? path.dirname(dest),
				kind: 'no-space',
				reason:
					`no space left on the device while making a private read copy ` +
					`of ${source} (its owner is stopped): ${error.reason}; the partial ` +
					`output was removed`,
				next: 'free space there or write elsewhere with -o DIR (df -h shows free space)',
			});
		}

		const cause = error instanceof FailClosed && error.kind === 'no-space' ? error.cause : error;
		const code = errorCode(cause);
		if (code === 'ENOSPC' || code === 'EFBIG' || code === 'EDQUOT' || code === 'EIO' || code === 'EROFS') {
			throw writeFailure(
				options.privateTmp ?? path.dirname(dest),
				cause,
				`making a private read copy of ${source} (its owner is stopped)`,
			);
		}

		throw error;
	}
}

type PinnedCopy = Pick<
	DbCopy,
	'pageSize' | 'pageCount' | 'snapshotCounts' | 'schemaVersion' | 'steps' | 'restarts' | 'pinnedMs'
> & {writebacks: number};

/** BEGIN, the first read (the snapshot), page size and count, row counts, the backup API in steps, COMMIT. */
async function pinnedCopy(
	store: ReadOnlyStore,
	source: string,
	dest: string,
	options: CopyOptions,
): Promise<PinnedCopy> {
	const db = store.connection;
	let pinnedMs = 0;
	let steps = 0;
	let restarts = 0;
	let lastRemaining = Number.POSITIVE_INFINITY;
	db.exec('BEGIN');
	const pinnedAt = performance.now();
	let pageSize = 0;
	let pageCount = 0;
	let counts: Record<string, number> = {};
	let schemaVersion: number | null = null;
	// The staging copy's writeback started as it is written: SQLite's own fsync when the backup
	// commits (0.6 s of the 1.4 s copy of the 785 MB bench store) then finds little left.
	const writeback = new EarlyWriteback(dest, options.writebackEvery);
	try {
		// The first read takes the snapshot that the backup steps below reuse.
		store.prepare('SELECT count(*) FROM sqlite_master').get();
		pageSize = store.prepare('PRAGMA page_size').pluck().get() as number;
		pageCount = store.prepare('PRAGMA page_count').pluck().get() as number;
		counts = snapshotCounts(store);
		schemaVersion = snapshotSchemaVersion(store);
		const file = path.basename(source);
		options.onProgress?.({file, done: 0, total: pageCount * pageSize});
		await store.backupTo(dest, options.pagesPerStep ?? 1024, ({totalPages, remainingPages}) => {
			steps++;
			if (remainingPages > lastRemaining) {
				restarts++;
			}

			lastRemaining = remainingPages;
			writeback.progress((totalPages - remainingPages) * pageSize);
			options.onProgress?.({file, done: (totalPages - remainingPages) * pageSize, total: totalPages * pageSize});
		});
	} catch (error) {
		writeback.dispose();
		throw error;
	} finally {
		if (db.inTransaction) {
			db.exec('COMMIT');
		}

		pinnedMs = performance.now() - pinnedAt;
	}

	// The backup's own connection to `dest` is closed by now (either driver closes it on the last step).
	try {
		await writeback.close();
	} catch (error) {
		throw writeFailure(path.dirname(dest), error, `copying ${source}`);
	}

	return {
		pageSize,
		pageCount,
		snapshotCounts: counts,
		schemaVersion,
		steps,
		restarts,
		pinnedMs,
		writebacks: writeback.started,
	};
}

/** The copy's facts, from the store it was read from (still open) and what its pinned read gave. */
function describeCopy(store: ReadOnlyStore, dest: string, pinned: PinnedCopy, started: number): DbCopy {
	const pre = store.preflight;
	return {
		source: pre.path,
		dest,
		bytes: fs.statSync(dest).size,
		pageSize: pinned.pageSize,
		pageCount: pinned.pageCount,
		snapshotCounts: pinned.snapshotCounts,
		schemaVersion: pinned.schemaVersion,
		journalMode: pre.journalMode,
		walBytes: pre.sidecars.wal?.size ?? null,
		openMode: store.isPrivateCopy ? 'private-copy' : 'in-place',
		steps: pinned.steps,
		restarts: pinned.restarts,
		ms: performance.now() - started,
		pinnedMs: pinned.pinnedMs,
		writebacks: pinned.writebacks,
		readerSqliteVersion: store.sqliteVersion(),
	};
}

/** A failed copy's one refusal: the destination's write failure, or the source's open error, in words. */
function copyFailure(source: string, dest: string, error: unknown): unknown {
	if (error instanceof FailClosed) {
		return error;
	}

	return isDestinationError(error)
		? writeFailure(path.dirname(dest), error, `copying ${source}`)
		: describeOpenError(source, error);
}

/** The pinned copy from an open store, closed after it: the copy's facts, or what failed. */
async function copyFrom(
	store: ReadOnlyStore,
	source: string,
	dest: string,
	options: CopyOptions,
	started: number,
): Promise<{copy: DbCopy} | {error: unknown}> {
	try {
		return {copy: describeCopy(store, dest, await pinnedCopy(store, source, dest, options), started)};
	} catch (error) {
		return {error};
	} finally {
		store.close();
	}
}

/**
 * The copy of a stopped or crashed store read in place, as readStore reads one (immutable-read.ts: a stopped store as
 * an immutable file, a crashed one with its -shm read-only), so no private copy of it is made: null when it is not
 * read in place here (a live store, node:sqlite missing, a -wal SQLite cannot read through a read-only -shm). The
 * store's identity is checked around the copy: a copy taken while it changed (its agent started) is removed and taken
 * again, IMMUTABLE_ATTEMPTS times at most; `changes` says why each was thrown away.
 */
async function copyInPlace(
	source: string,
	dest: string,
	options: CopyOptions,
	started: number,
	changes: string[],
): Promise<DbCopy | null> {
	for (let attempt = 0; attempt < IMMUTABLE_ATTEMPTS; attempt++) {
		const reading = openInPlace(runPreflight(source));
		if (reading === null) {
			return null;
		}

		if ('change' in reading) {
			changes.push(reading.change);
			continue;
		}

		testPause('backup-in-place');
		const outcome = await copyFrom(reading.store, source, dest, options, started);
		const change = reading.settle();
		if (change) {
			removeDbDebris(dest);
			changes.push(change);
			continue;
		}

		if ('error' in outcome) {
			throw outcome.error;
		}

		return outcome.copy;
	}

	return null;
}

/**
 * Copies `source` to `dest` (which must not exist) as one consistent snapshot: a stopped or crashed store read in
 * place (copyInPlace), any other through ReadOnlyStore.open (in place beside its running agent; a private copy only
 * where readStore makes one too). On any failure the destination and its -journal are removed and a FailClosed is
 * thrown.
 */
export async function copyDatabase(source: string, dest: string, options: CopyOptions = {}): Promise<DbCopy> {
	if (fs.existsSync(dest)) {
		throw new Error(`internal: backup destination ${dest} exists`);
	}

	const started = performance.now();
	const changes: string[] = [];
	try {
		const copy = await copyInPlace(source, dest, options, started, changes);
		if (copy) {
			return copy;
		}
	} catch (error) {
		removeDbDebris(dest);
		throw copyFailure(source, dest, error);
	}

	const outcome = await copyFrom(openSource(source, dest, options), source, dest, options, started);
	if ('error' in outcome) {
		removeDbDebris(dest);
		throw copyFailure(source, dest, outcome.error);
	}

	return outcome.copy;
}

function snapshotCounts(store: ReadOnlyStore): Record<string, number> {
	const rows = store
		.prepare(
			"SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT " +
				"LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name",
		)
		.all() as Array<{name: string; sql: string | null}>;
	const counts: Record<string, number> = {};
	for (const r of rows) {
		if (/^\s*create\s+virtual\s+table/i.test(r.sql ?? '')) {
			continue;
		}

		counts[r.name] = store
			.prepare(`SELECT count(*) FROM ${quoteIdent(r.name)}`)
			.pluck()
			.get() as number;
	}

	return counts;
}

function snapshotSchemaVersion(store: ReadOnlyStore): number | null {
	const has = store.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'").get();
	if (!has) {
		return null;
	}

	try {
		const v = store.prepare('SELECT max(version) FROM schema_version').pluck().get();
		return typeof v === 'number' && Number.isInteger(v) ? v : null;
	} catch {
		return null;
	}
}

export type VerifiedCopy = {copy: DbCopy; check: DbCheck; ok: boolean; problems: string[]};

/** The copy's check against the snapshot it was taken from: integrity ok and identical counts. */
export function judgeCopy(copy: DbCopy, check: DbCheck): VerifiedCopy {
	const problems: string[] = [];
	if (!check.ok) {
		problems.push(`integrity_check on the copy: ${check.integrity.slice(0, 3).join('; ')}`);
	}

	problems.push(...compareCounts(copy.snapshotCounts, check.counts).map(p => `copy vs snapshot: ${p}`));
	if (check.schemaVersion !== copy.schemaVersion) {
		problems.push(`schema version of the copy is ${check.schemaVersion}, the snapshot said ${copy.schemaVersion}`);
	}

	return {copy, check, ok: problems.length === 0, problems};
}

/** Copy + check in sequence (the quick snapshot and the repair feature's pre-write snapshot). */
export async function copyAndVerify(source: string, dest: string, options: CopyOptions = {}): Promise<VerifiedCopy> {
	const copy = await copyDatabase(source, dest, options);
	return judgeCopy(copy, await checkDatabaseFile(dest));
}
