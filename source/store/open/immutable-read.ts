/**
 * A stopped store read in place: WAL mode, neither -wal nor -shm beside it (the agent closed it
 * cleanly). Any ordinary SQLite open, even read-only, would create -wal and -shm beside the
 * evidence, so hfx used to copy the whole main file to a private temp folder before every read.
 * Here SQLite opens it as an immutable file instead (`file:…?mode=ro&immutable=1`): no lock, no
 * -wal, -shm or -journal looked for or created, nothing copied.
 *
 * Why a second SQLite driver: better-sqlite3 cannot open URI filenames, so `immutable=1` is out of
 * its reach; Node's own node:sqlite can (Node 22.16+, 24). better-sqlite3 stays the driver of every
 * other read and of every write. Measured by `npm run bench -- --only scan` (the closed-store row:
 * the temp disk is the peak of hfx's own TMPDIR, sampled every 10 ms), idle machine, 2026-12-02, on
 * the bench's v3 store (1,050,000 messages, 2,219 MB): the closed store read in place in 1,124 ms,
 * 0.97× the live scan (1,155 ms) of the same file held open by an owner, 0.0 MB of temp disk; before,
 * the same read first copied all 2,219 MB to a private folder.
 *
 * A crashed store (its agent killed: -wal and -shm left, no process holding the -shm) is read in place too, with its
 * -shm opened read-only (`file:…?mode=ro&readonly_shm=1`): an ordinary open would find no live connection and make
 * SQLite recover the WAL index into the -shm, rewriting it, so hfx used to copy the main file and the -wal. Finding the
 * -shm read-only and unheld, SQLite builds the index in its own memory from the -wal's committed frames; no byte of the
 * three files is written (strace: the -shm opened O_RDONLY; the -wal opened O_RDWR as SQLite always opens one, never
 * written; as root SQLite fchowns both to the store's owner, which moves their ctime and nothing else). Checked around
 * the read like a stopped store, the -wal's and -shm's identity with it, and the -shm still held by nobody.
 *
 * `immutable=1` is only sound while nothing writes the file. So the file's identity (device,
 * inode, size, mtime and ctime to the nanosecond) and its header's file change counter (bytes
 * 24..27) are taken before the open and again after the connection is closed (never with plain
 * I/O while SQLite holds it: docs/sqlite-wal.md, posix-locks), and the sidecars looked for. If
 * anything changed or a -wal/-shm appeared (the agent started), what the read saw is thrown away
 * and the store read again, as it then is (in place, or from a private copy); after
 * IMMUTABLE_ATTEMPTS changed reads, from a private copy, with a note saying why.
 */
import fs from 'node:fs';
import path from 'node:path';
import {throwFileError} from '../../ground/errors.js';
import {openForeign} from '../foreign-file.js';
import {WAL_HEADER_BYTES} from '../wal/wal-format.js';
import {parseWalHeader} from '../wal/wal-header.js';
import {assertNoLiveHandle} from './live-handles.js';
import {nodeSqlite} from './node-sqlite.js';
import {type OpenOptions, ReadOnlyStore} from './open.js';
import {shmHeld} from '../files/shm-owner.js';
import {type Preflight, preflight as runPreflight, statSidecars} from './preflight.js';
import {testPause} from '../../ground/test-pause.js';

export const IMMUTABLE_ATTEMPTS = 3;

type Identity = {
	dev: bigint;
	ino: bigint;
	size: bigint;
	mtimeNs: bigint;
	ctimeNs: bigint;
	changeCounter: number;
	/** A crashed store's -wal and -shm, each as device:inode:size:mtime (stat only, never opened): '' otherwise. */
	sidecars: string;
};

/** Which store is read in place here: one whose agent stopped cleanly, or one a killed agent left its -wal/-shm. */
type InPlaceKind = 'stopped' | 'crashed';

/**
 * A sidecar's identity by lstat alone (no open: SQLite's locks on -shm are never disturbed): device, inode, size and
 * modification time. Not its ctime: SQLite running as root fchowns every -wal and -shm it opens to the database's
 * owner (unixOpen, unixOpenSharedMemory), which moves the ctime of both on our own read; a writer moves the mtime.
 */
function sidecarIdentity(file: string): string {
	const st = fs.lstatSync(file, {bigint: true, throwIfNoEntry: false});
	return st ? `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}` : 'absent';
}

/** The main file's identity and change counter, read raw: only while this process holds no SQLite connection to it. */
function identityOf(file: string, kind: InPlaceKind = 'stopped'): Identity {
	assertNoLiveHandle(file, 'a read of the file change counter');
	const {fd} = openForeign(file, {noFollow: true, what: 'it as a database'});
	try {
		const st = fs.fstatSync(fd, {bigint: true});
		const counter = Buffer.alloc(4);
		const n = fs.readSync(fd, counter, 0, 4, 24);
		return {
			dev: st.dev,
			ino: st.ino,
			size: st.size,
			mtimeNs: st.mtimeNs,
			ctimeNs: st.ctimeNs,
			changeCounter: n === 4 ? counter.readUInt32BE(0) : -1,
			sidecars: kind === 'crashed' ? `${sidecarIdentity(`${file}-wal`)} ${sidecarIdentity(`${file}-shm`)}` : '',
		};
	} finally {
		fs.closeSync(fd);
	}
}

/** What differs between two identities of the file, in words; null when nothing does. */
function difference(before: Identity, after: Identity): string | null {
	if (before.dev !== after.dev || before.ino !== after.ino) {
		return 'the file was replaced (another inode)';
	}

	if (before.size !== after.size) {
		return `its size went from ${before.size} to ${after.size} bytes`;
	}

	if (before.changeCounter !== after.changeCounter) {
		return `its file change counter went from ${before.changeCounter} to ${after.changeCounter}`;
	}

	if (before.sidecars !== after.sidecars) {
		return 'its -wal or -shm changed (its agent started again)';
	}

	return before.mtimeNs !== after.mtimeNs || before.ctimeNs !== after.ctimeNs
		? 'it was written (its modification time changed)'
		: null;
}

/** Why the read of `pre` (taken with `before`) cannot stand, or null when nothing wrote the store around it. */
function changeSince(pre: Preflight, before: Identity, kind: InPlaceKind): string | null {
	const sidecars = statSidecars(pre.path);
	if (kind === 'crashed') {
		if (sidecars.shm && shmHeld(sidecars.shm) !== false) {
			return 'a process holds its -shm now (its agent started again)';
		}

		return difference(before, identityOf(pre.path, kind));
	}

	if (sidecars.wal || sidecars.shm) {
		return (
			`${[sidecars.wal && '-wal', sidecars.shm && '-shm'].filter(Boolean).join(' and ')} ` +
			`appeared beside it (the agent started)`
		);
	}

	return difference(before, identityOf(pre.path));
}

/** The preflight's own facts of the file against the identity taken just before the open. */
function changedSincePreflight(pre: Preflight, before: Identity): string | null {
	const same =
		Number(before.ino) === pre.main.ino &&
		Number(before.size) === pre.main.size &&
		Math.abs(Number(before.mtimeNs) / 1e6 - pre.main.mtimeMs) < 0.01;
	return same ? null : 'it changed between its first look and the open';
}

/**
 * Whether `pre` is read in place here: a WAL store with neither -wal nor -shm (its agent stopped), or with both that
 * no process holds (a crash or a kill left them: preflight found the -shm unheld); null for any other.
 */
function inPlaceKind(pre: Preflight): InPlaceKind | null {
	if (pre.journalMode !== 'wal') {
		return null;
	}

	if (!pre.sidecars.wal && !pre.sidecars.shm) {
		return 'stopped';
	}

	const crashed = pre.sidecars.wal && pre.sidecars.shm && pre.openMode === 'private-copy';
	return crashed && walHeaderUsable(pre.sidecars.wal!.path) ? 'crashed' : null;
}

/**
 * Whether SQLite can read a crashed store's -wal without a WAL index it may write: empty, or a header SQLite would use.
 * Behind a header it rejects, SQLite with a read-only -shm answers SQLITE_PROTOCOL where its recovery (on a private
 * copy) reads the WAL as empty and says so (load.ts, walHeaderNote). The 32 header bytes are read with plain I/O:
 * SQLite takes no POSIX lock on a -wal (docs/sqlite-wal.md), and this process holds no connection to it here.
 */
function walHeaderUsable(wal: string): boolean {
	let fd: number | undefined;
	try {
		fd = openForeign(wal, {noFollow: true, what: "it as the store's -wal"}).fd;
		const buf = Buffer.alloc(WAL_HEADER_BYTES);
		const {state} = parseWalHeader(buf.subarray(0, fs.readSync(fd, buf, 0, WAL_HEADER_BYTES, 0)));
		return state === 'ok' || state === 'empty';
	} catch {
		// Unreadable: the private copy's read names the -wal and why.
		return false;
	} finally {
		if (fd !== undefined) {
			fs.closeSync(fd);
		}
	}
}

/** SQLite could not read a crashed store through its read-only -shm (a WAL index it would have to write). */
function isProtocolError(error: unknown): boolean {
	for (let e: unknown = error; e instanceof Error; e = e.cause) {
		if ((e as {code?: unknown}).code === 'SQLITE_PROTOCOL') {
			return true;
		}
	}

	return false;
}

const IN_PLACE_REASONS: Record<InPlaceKind, string> = {
	stopped:
		'WAL mode with neither -wal nor -shm (no live connection: the agent is ' +
		'stopped): read in place as an immutable file (node:sqlite, ' +
		'immutable=1), so nothing is created beside it and nothing is copied; ' +
		'its identity and change counter were the same before and after the read',
	crashed:
		'WAL mode with -wal and -shm that no process holds (a crash or a kill left ' +
		'them): read in place with its -shm opened read-only (node:sqlite, ' +
		'readonly_shm=1: SQLite rebuilds the WAL index in its own memory, not in ' +
		'the -shm), so no byte of the three files is written and nothing is copied; ' +
		'their identities were the same before and after the read',
};

function inPlace(pre: Preflight, kind: InPlaceKind): Preflight {
	return {...pre, notes: [...pre.notes], openMode: 'in-place', openModeReason: IN_PLACE_REASONS[kind]};
}

function readAndClose<T>(store: ReadOnlyStore, read: (store: ReadOnlyStore) => T, notes: string[]): T {
	store.preflight.notes.push(...notes);
	try {
		return read(store);
	} finally {
		store.close();
	}
}

/**
 * A crashed store's -wal and -shm must be readable to be read in place: checked with access(2), which opens neither, so
 * an unreadable one is named itself (as a private copy of it would have been), not SQLite's "cannot open" of the store.
 */
function assertSidecarsReadable(pre: Preflight): void {
	for (const sidecar of ['-wal', '-shm']) {
		try {
			fs.accessSync(`${pre.path}${sidecar}`, fs.constants.R_OK);
		} catch (error) {
			throwFileError(error);
		}
	}
}

/** One read in place of a stopped or crashed store: its result, or why it must be thrown away. */
function readImmutable<T>(
	pre: Preflight,
	kind: InPlaceKind,
	sqlite: Parameters<typeof ReadOnlyStore.openImmutable>[1],
	read: (store: ReadOnlyStore) => T,
	notes: string[],
): {ok: true; value: T} | {ok: false; change: string} | {ok: false; fallback: string} {
	if (kind === 'crashed') {
		assertSidecarsReadable(pre);
	}

	const before = identityOf(pre.path, kind);
	const early = changedSincePreflight(pre, before);
	if (early) {
		return {ok: false, change: early};
	}

	let outcome: {value: T} | {error: unknown};
	let store: ReadOnlyStore | undefined;
	try {
		store = ReadOnlyStore.openImmutable(inPlace(pre, kind), sqlite, kind === 'crashed');
		testPause('immutable-read');
		outcome = {value: readAndClose(store, read, notes)};
	} catch (error) {
		outcome = {error};
	} finally {
		store?.close();
	}

	// A torn read can fail (a page SQLite finds malformed) as well as succeed: either way it stands only if nothing
	// changed.
	const change = changeSince(pre, before, kind);
	if (change) {
		return {ok: false, change};
	}

	if ('error' in outcome && kind === 'crashed' && isProtocolError(outcome.error)) {
		return {ok: false, fallback: 'SQLite could not read its -wal through the read-only -shm (SQLITE_PROTOCOL)'};
	}

	if ('error' in outcome) {
		throw outcome.error;
	}

	return {ok: true, value: outcome.value};
}

/** One reading in place its caller runs and closes: `settle`, asked once the store is closed, says what changed. */
export type InPlaceReading = {store: ReadOnlyStore; settle: () => string | null};

/**
 * Opens `pre` in place for one reading as readStore does (a stopped store as an immutable file, a crashed one with its
 * -shm read-only), for a caller that closes it itself and then asks `settle` whether the reading stands (the live
 * view, which follows a store reading after reading and holds nothing between them). `{change}`: it changed since its
 * preflight, or during a failed open; null: it is not read in place here (another kind of store, node:sqlite missing,
 * or a -wal SQLite cannot read through a read-only -shm): the caller opens it through ReadOnlyStore.open as before.
 */
export function openInPlace(pre: Preflight): InPlaceReading | {change: string} | null {
	const kind = inPlaceKind(pre);
	const sqlite = kind === null ? null : nodeSqlite();
	if (kind === null || !sqlite?.ok) {
		return null;
	}

	if (kind === 'crashed') {
		assertSidecarsReadable(pre);
	}

	const before = identityOf(pre.path, kind);
	const early = changedSincePreflight(pre, before);
	if (early) {
		return {change: early};
	}

	let store: ReadOnlyStore;
	try {
		store = ReadOnlyStore.openImmutable(inPlace(pre, kind), sqlite.sqlite, kind === 'crashed');
	} catch (error) {
		const change = changeSince(pre, before, kind);
		if (change) {
			return {change};
		}

		if (kind === 'crashed' && isProtocolError(error)) {
			return null;
		}

		throw error;
	}

	return {store, settle: () => changeSince(pre, before, kind)};
}

/**
 * Opens the store at `inputPath` read-only the cheapest sound way, runs `read` on it and closes it:
 * a stopped store in place as an immutable file, a crashed one in place with its -shm read-only (each checked
 * unchanged around the read, read again when it was not), any other through ReadOnlyStore.open (in place beside its
 * running agent, or a private copy of a WAL store lacking one of its sidecars). `read` may run more than once: it must
 * only return what it read.
 *
 * `options.preflight`: the caller's own preflight of the store, taken earlier (hfx repair's, passed down): the first
 * attempt uses it instead of looking again. Sound however old it is: an immutable read checks the file against it
 * just before the open and looks again after; any other open takes its own look right before opening.
 */
export function readStore<T>(
	inputPath: string,
	read: (store: ReadOnlyStore) => T,
	options: OpenOptions & {preflight?: Preflight} = {},
): T {
	const {preflight: given, ...open} = options;
	const changes: string[] = [];
	for (let attempt = 0; attempt < IMMUTABLE_ATTEMPTS; attempt++) {
		const pre = attempt === 0 && given ? given : runPreflight(inputPath);
		const again =
			changes.length > 0
				? [
						`the store changed while it was read in place (${changes.join('; ')}): ` +
							`what that read saw was thrown away and it was read again`,
					]
				: [];
		const kind = inPlaceKind(pre);
		if (kind === null) {
			return readAndClose(ReadOnlyStore.open(inputPath, open), read, again);
		}

		const sqlite = nodeSqlite();
		if (!sqlite.ok) {
			return readAndClose(ReadOnlyStore.open(inputPath, open), read, [
				...again,
				`${path.basename(pre.path)} was read from a private copy, not in place: ${sqlite.reason}`,
			]);
		}

		const outcome = readImmutable(pre, kind, sqlite.sqlite, read, again);
		if (outcome.ok) {
			return outcome.value;
		}

		if ('fallback' in outcome) {
			return readAndClose(ReadOnlyStore.open(inputPath, open), read, [
				...again,
				`${path.basename(pre.path)} was read from a private copy, not in place: ${outcome.fallback}`,
			]);
		}

		changes.push(outcome.change);
	}

	const store = ReadOnlyStore.open(inputPath, open);
	const how = store.isPrivateCopy ? 'from a private copy' : 'in place, its agent now running';
	return readAndClose(store, read, [
		`the store changed during each of ${IMMUTABLE_ATTEMPTS} reads in place ` +
			`(${changes.join('; ')}): what they saw was thrown away and it was ` +
			`read ${how}`,
	]);
}
