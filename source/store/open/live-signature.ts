/**
 * Did the owner commit since the last read? Asked while this process holds no connection to the
 * store, so nothing of SQLite's is needed: the identity, size and modification time of `state.db`
 * and its sidecars (lstat), the database header (its file change counter moves with every commit in
 * rollback mode), the `-wal` header (salts and checkpoint sequence: a reset) and the first copy of
 * the wal-index header in `-shm` (iChange, mxFrame and the running frame checksum move with every
 * WAL commit, as `PRAGMA data_version` does for a connection that stays open). The same answer
 * across reopens, which `PRAGMA data_version` is not. Raw reads of `state.db` and `-shm` are legal
 * only while no connection of this process is open on them (docs/sqlite-wal.md, posix-locks): with
 * one open, the answer is "unknown" (null) and the caller reads.
 */
import fs from 'node:fs';
import {errorCode} from '../../ground/errors.js';
import {readForeign} from '../foreign-file.js';
import type {StoreLink} from '../locate.js';
import {hasLiveHandle} from './live-handles.js';

/**
 * Each file of the store, how many of its first bytes are part of the signature, and whether its
 * modification time is: not the -shm's, which every reader writes (its read marks), hfx's own included.
 */
const PARTS: ReadonlyArray<readonly [suffix: string, head: number, times: boolean]> = [
	['', 100, true],
	['-wal', 32, true],
	['-shm', 48, false],
	['-journal', 0, true],
];

/** One file of the store as a look saw it: its lstat, or the errno of none, and its first bytes when read. */
export type FileLook = {
	path: string;
	/** Its lstat (never through a link); null: none (`code` says why: ENOENT, no such file). */
	st: fs.BigIntStats | null;
	code: string | null;
	/** Its first bytes (a regular file of some bytes with a head in the signature); null: not read. */
	head: Buffer | null;
	/** Why its head could not be read (null: it was, or it was not asked). */
	headCode: string | null;
};

/**
 * One look at the store's files, taken while this process holds no connection to it: each file's lstat and first
 * bytes, what the commit signature is made of and what a preflight needs before SQLite opens the store
 * (preflight.ts `preflight(path, look)`: the header, the files' identities and sizes). A refresh looked twice before
 * (its signature, then its preflight), each time the store's path resolved, four lstats, the header read: ~0.2 ms of
 * its ~2.2 ms fixed cost following 200 commits/s on the bench store (a 25 s --cpu-prof of the TUI, 2026-12-03).
 */
export type StoreLook = {
	/** The store's real path (where its sidecars are), and its link when the path given was one. */
	path: string;
	link: StoreLink | null;
	db: FileLook;
	wal: FileLook;
	shm: FileLook;
	journal: FileLook;
	/** The commit signature (storeSignature's). */
	signature: string;
};

function lookAtFile(file: string, head: number): FileLook {
	let st: fs.BigIntStats | undefined;
	try {
		// Absent is the usual answer for the -journal: no exception built for it.
		st = fs.lstatSync(file, {bigint: true, throwIfNoEntry: false});
	} catch (error) {
		return {path: file, st: null, code: errorCode(error) ?? 'unreadable', head: null, headCode: null};
	}

	if (!st) {
		return {path: file, st: null, code: 'ENOENT', head: null, headCode: null};
	}

	if (head === 0 || !st.isFile() || st.size === 0n) {
		return {path: file, st, code: null, head: null, headCode: null};
	}

	try {
		// A regular file only, never through a link (a FIFO swapped in cannot block the read).
		return {
			path: file,
			st,
			code: null,
			head: readForeign(file, {noFollow: true, maxBytes: head}).bytes,
			headCode: null,
		};
	} catch (error) {
		return {path: file, st, code: null, head: null, headCode: errorCode(error) ?? 'unreadable'};
	}
}

function partOf(look: FileLook, times: boolean): string {
	const {st} = look;
	if (!st) {
		return look.code ?? 'unreadable';
	}

	// Never the change time: SQLite running as root fchowns the -wal it opens to the store's owner (hfx's reads too).
	const stat = `${st.dev}:${st.ino}:${st.mode}:${st.size}${times ? `:${st.mtimeNs}` : ''}`;
	if (look.head) {
		return `${stat}:${look.head.toString('hex')}`;
	}

	return look.headCode ? `${stat}:${look.headCode}` : stat;
}

/**
 * One look at the store whose real path is `dbPath` (`link`: the link it was reached through), or null when this
 * process holds a connection to it (its raw reads would drop SQLite's locks: then nothing is looked at).
 */
export function lookAtStore(dbPath: string, link: StoreLink | null = null): StoreLook | null {
	if (hasLiveHandle(dbPath)) {
		return null;
	}

	const [db, wal, shm, journal] = PARTS.map(([suffix, head]) => lookAtFile(`${dbPath}${suffix}`, head)) as [
		FileLook,
		FileLook,
		FileLook,
		FileLook,
	];
	const signature = [db, wal, shm, journal].map((file, i) => partOf(file, PARTS[i]![2])).join('|');
	return {path: dbPath, link, db, wal, shm, journal, signature};
}

/** The store's commit signature now, or null when this process holds a connection to it (then it cannot tell). */
export function storeSignature(dbPath: string): string | null {
	return lookAtStore(dbPath)?.signature ?? null;
}

/**
 * Did only a checkpoint happen between two signatures (`storeSignature`, each after the store's real path and `|`)? In
 * WAL mode every commit moves the -wal or the -shm part (iChange and mxFrame in the wal-index header, the WAL's salts
 * on a restart, the -wal gone when the mode changes); a checkpoint copies frames into `state.db` and moves only its
 * part. True when the parts of -wal, -shm and -journal are equal, the -wal is there, and `state.db`'s file is the same
 * (device, inode, mode): then the rows need not be compared whole (a writer at 200 commits/s checkpoints every ~5 s,
 * and each checkpoint alone made a refresh compare every row: ~120 ms of CPU on the 21,516-session bench store).
 */
export function onlyCheckpointed(before: string | null, after: string | null): boolean {
	if (before === null || after === null || before === after) {
		return false;
	}

	const [a, b] = [before.split('|'), after.split('|')];
	if (a.length !== b.length || a.length < 5 || a.slice(0, -4).join('|') !== b.slice(0, -4).join('|')) {
		return false;
	}

	const [dbA, walA, shmA, journalA] = a.slice(-4) as [string, string, string, string];
	const [dbB, walB, shmB, journalB] = b.slice(-4) as [string, string, string, string];
	const fileOf = (part: string) => part.split(':').slice(0, 3).join(':');
	const walSame = walCommitted(walA) === walCommitted(walB);
	return walSame && shmA === shmB && journalA === journalB && walA.includes(':') && fileOf(dbA) === fileOf(dbB);
}

/**
 * A -wal's part without its size and modification time: the frames of a transaction are written to the -wal before
 * its commit, and a commit is only visible once the wal-index header in the -shm says so (its iChange and mxFrame
 * move). Frames written but not committed yet move the -wal's size and time, and nothing a reader sees.
 */
function walCommitted(part: string): string {
	const fields = part.split(':');
	return fields.length >= 6 ? [...fields.slice(0, 3), ...fields.slice(5)].join(':') : part;
}

/**
 * Nothing was committed between two signatures (`storeSignature`, each after the store's real path and `|`): they
 * differ only in the -wal's size and time (a transaction's frames written, its commit not yet in the -shm). A read
 * would see exactly what it saw at `before`. Following 200 commits/s on the bench store, 5 in 7 refreshes that
 * compared every row (~100 ms of CPU each) were of this kind: the read found nothing new.
 */
export function nothingCommitted(before: string | null, after: string | null): boolean {
	if (before === null || after === null || before === after) {
		return before !== null && before === after;
	}

	const [a, b] = [before.split('|'), after.split('|')];
	if (a.length !== b.length || a.length < 5) {
		return false;
	}

	const wal = a.length - 3;
	return a.every((part, i) => (i === wal ? walCommitted(part) === walCommitted(b[i]!) : part === b[i]));
}
