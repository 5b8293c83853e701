/**
 * Preflight: everything we must know about the files before SQLite is allowed near them.
 *
 * All raw reads of `state.db` happen here, strictly before this process opens a SQLite connection
 * to it (an open()+close() then would drop its POSIX locks: docs/sqlite-wal.md, posix-locks).
 * Refusals are FailClosed errors: one line naming the file, the cause and the next safe step.
 */
import fs from 'node:fs';
import path from 'node:path';
import {FailClosed, errorCode, throwFileError} from '../../ground/errors.js';
import {shmHeld} from '../files/shm-owner.js';
import {fileTypeName, linkText, openForeign} from '../foreign-file.js';
import {type StoreLink, realStorePath} from '../locate.js';
import {type DbHeader, headerProblem, parseDbHeader} from '../db-header.js';
import {assertNoLiveHandle, liveHeader} from './live-handles.js';
import type {FileLook, StoreLook} from './live-signature.js';
import {testMark} from '../../ground/test-pause.js';

export type FileFacts = {
	path: string;
	size: number;
	dev: number;
	ino: number;
	uid: number;
	mode: number;
	mtimeMs: number;
};

export type Sidecars = {
	wal: FileFacts | null;
	shm: FileFacts | null;
	journal: FileFacts | null;
};

/**
 * in-place: open state.db itself read-only (its -wal and -shm already exist, or it is not in WAL mode).
 * private-copy: a WAL-mode file without its -wal or -shm. SQLite would create the missing sidecars
 *   beside the evidence even on a read-only open, so we read a private copy instead.
 */
export type OpenMode = 'in-place' | 'private-copy';

export type Preflight = {
	/** The store's real path (a symbolic link resolved once, here): the file and the sidecars every read uses. */
	path: string;
	/** Set when the path given was a symbolic link: the link and its target (= path). */
	link: StoreLink | null;
	dir: string;
	main: FileFacts;
	header: DbHeader;
	journalMode: 'wal' | 'delete';
	sidecars: Sidecars;
	openMode: OpenMode;
	openModeReason: string;
	notes: string[];
	/**
	 * The -wal's first 32 bytes (its header) as the look this preflight was made from read them, with the -wal's size
	 * in `sidecars` (live reads: live-signature.ts); absent, load.ts walHeaderNote reads them itself.
	 */
	walHeader?: Buffer;
};

function facts(p: string, st: fs.Stats): FileFacts {
	return {path: p, size: st.size, dev: st.dev, ino: st.ino, uid: st.uid, mode: st.mode, mtimeMs: st.mtimeMs};
}

/** Milliseconds from nanoseconds as Node's own Stats computes mtimeMs (seconds × 1000 + nanoseconds / 1e6). */
function msOf(ns: bigint): number {
	return Number(ns / 1_000_000_000n) * 1000 + Number(ns % 1_000_000_000n) / 1e6;
}

/** A regular file's facts from a look's lstat; null for anything else (none, a link, not a regular file). */
function factsOfLook(file: FileLook): FileFacts | null {
	const {st} = file;
	if (!st?.isFile()) {
		return null;
	}

	const n = Number;
	return {
		path: file.path,
		size: n(st.size),
		dev: n(st.dev),
		ino: n(st.ino),
		uid: n(st.uid),
		mode: n(st.mode),
		mtimeMs: msOf(st.mtimeNs),
	};
}

/** What a preflight needs of the files, from one look (live-signature.ts). */
type Seen = {path: string; link: StoreLink | null; main: FileFacts; sidecars: Sidecars; header: Buffer};

/**
 * A look's files as a preflight would find them, when it saw a regular, non-empty main file with its header read and
 * each sidecar absent or a regular file; null for anything else: then the preflight looks itself and refuses as it
 * always did (the look keeps no refusal's words).
 */
function seenIn(look: StoreLook): Seen | null {
	const main = factsOfLook(look.db);
	if (!main || main.size === 0 || !look.db.head) {
		return null;
	}

	const sidecar = (file: FileLook): FileFacts | null | undefined =>
		file.code === 'ENOENT' ? null : (factsOfLook(file) ?? undefined);
	const [wal, shm, journal] = [sidecar(look.wal), sidecar(look.shm), sidecar(look.journal)];
	if (wal === undefined || shm === undefined || journal === undefined) {
		return null;
	}

	return {path: look.path, link: look.link, main, sidecars: {wal, shm, journal}, header: look.db.head};
}

/** The refusal of a sidecar that is a symbolic link: SQLite will not open one, and hfx does not follow it. */
function sidecarLink(p: string): FailClosed {
	const target = linkText(p);
	const role = path.basename(p).replace(/^.*-/, '-');
	return new FailClosed({
		file: p,
		kind: 'sidecar-symlink',
		reason:
			`a symbolic link (to ${target}), not a regular file: SQLite refuses to ` +
			`open a ${role} through a link (it opens sidecars with O_NOFOLLOW) and ` +
			`hfx does not follow it either, so the store cannot be read as it lies; ` +
			`nothing was read or written`,
		next:
			`copy the store and the file the link names (as state.db${role}) to a ` +
			`scratch folder with cp and pass --db <copy>; do not move or replace the ` +
			`link while the agent runs`,
	});
}

/**
 * A sidecar's facts, or null when there is none. One that exists but is not a regular file (a
 * FIFO, a device, a directory, a symbolic link: lstat, never followed) is refused: reading it, or
 * letting SQLite open it, could hang or read what is not this store's WAL.
 */
export function statSidecar(p: string): FileFacts | null {
	try {
		const st = fs.lstatSync(p);
		if (st.isSymbolicLink()) {
			throw sidecarLink(p);
		}

		if (!st.isFile()) {
			throw new FailClosed({
				file: p,
				kind: 'sidecar-not-a-file',
				reason:
					`${fileTypeName(st)}, not a regular file: neither SQLite nor hfx can ` +
					`read it as the store's ${path.basename(p).replace(/^.*-/, '-')}`,
				next: 'move it aside (it holds no committed data), then run hfx again',
			});
		}

		return facts(p, st);
	} catch (error) {
		if (error instanceof FailClosed) {
			throw error;
		}

		if (errorCode(error) === 'ENOENT') {
			return null;
		}

		unreadable(p, 'looking up the file', error);
	}
}

/**
 * A stat or open that failed for a reason other than absence: the one errno mapping's line (permissions with whose
 * store it is).
 */
function unreadable(file: string, what: string, error: unknown): never {
	const code = errorCode(error);
	if (code === 'EACCES' || code === 'EPERM') {
		throw permissionDenied(file, what, error);
	}

	throwFileError(error, {file, doing: what});
}

export function statSidecars(dbPath: string): Sidecars {
	return {
		wal: statSidecar(`${dbPath}-wal`),
		shm: statSidecar(`${dbPath}-shm`),
		journal: statSidecar(`${dbPath}-journal`),
	};
}

function permissionDenied(file: string, what: string, cause: unknown): FailClosed {
	const owner = (() => {
		try {
			return fs.statSync(file).uid;
		} catch {
			return undefined;
		}
	})();
	return new FailClosed({
		file,
		kind: 'permission-denied',
		reason: `permission denied while ${what}`,
		next:
			`run hfx as the user that owns the ` +
			`store${owner === undefined ? '' : ` (uid ${owner})`}, e.g. sudo -u ` +
			`<that user> hfx …; do not chmod the agent's files`,
		cause,
	});
}

/** Reads the first 100 bytes. Only legal while this process holds no SQLite connection to the file. */
function readHeaderBytes(file: string): Buffer {
	assertNoLiveHandle(file, 'a raw header read');
	// Non-blocking, and the type checked on the descriptor: a FIFO swapped in since the stat cannot block us.
	const {fd} = openForeign(file, {noFollow: true, what: 'it as a database'});
	try {
		const buf = Buffer.alloc(100);
		const n = fs.readSync(fd, buf, 0, 100, 0);
		return buf.subarray(0, n);
	} finally {
		fs.closeSync(fd);
	}
}

/** Stats the main file; refuses a missing, unreadable or non-regular one. */
function statMain(absolute: string): fs.Stats {
	let st: fs.Stats;
	try {
		st = fs.lstatSync(absolute);
	} catch (error) {
		const code = errorCode(error);
		if (code === 'ENOENT') {
			throw new FailClosed({
				file: absolute,
				kind: 'not-found',
				reason: 'no such file',
				next: 'check the path (--db PATH, --home DIR or HERMES_HOME); hfx never creates a database',
				cause: error,
			});
		}

		if (code === 'EACCES' || code === 'EPERM') {
			throw permissionDenied(absolute, 'looking up the file', error);
		}

		throwFileError(error, {file: absolute});
	}

	if (!st.isFile()) {
		throw new FailClosed({
			file: absolute,
			kind: 'not-a-file',
			reason: st.isDirectory() ? 'is a directory, not a database file' : `is ${fileTypeName(st)}, not a regular file`,
			next: st.isDirectory()
				? `pass the database inside it (--db ${path.join(absolute, 'state.db')}) or use --home ${absolute}`
				: 'pass the path of the state.db file itself',
		});
	}

	return st;
}

/**
 * Refuses a 0-byte main file (beside a -wal, any SQLite open would delete that WAL: docs/sqlite-wal.md, empty-main).
 */
function refuseEmpty(absolute: string, sidecars: Sidecars): never {
	if (sidecars.wal && sidecars.wal.size > 0) {
		throw new FailClosed({
			file: absolute,
			kind: 'zero-byte-main-file',
			reason:
				`main file is 0 bytes beside ` +
				`a ${sidecars.wal.size}-byte ${path.basename(absolute)}-wal; any SQLite ` +
				`open (even read-only) would delete that WAL and everything in it`,
			next:
				`stop every process using it, ` +
				`copy ${path.basename(absolute)}, ${path.basename(absolute)}-wal ` +
				`and ${path.basename(absolute)}-shm to a safe folder with cp, and do not ` +
				`open the original with any SQLite tool`,
		});
	}

	throw new FailClosed({
		file: absolute,
		kind: 'empty-file',
		reason: 'file is empty (0 bytes), not a database',
		next: 'look for a backup (hfx backups) or a quick snapshot under state-snapshots/',
	});
}

/**
 * The 100-byte database header, read raw unless a live connection's first preflight already did, or a look just
 * taken with nothing open (`seen`) did.
 */
function readHeader(absolute: string, seen?: Buffer): DbHeader {
	// While this process holds a connection to the file, its header is not read again
	// (docs/sqlite-wal.md, posix-locks): the first preflight's header stands (magic, journal mode and
	// page size cannot change under a live connection); sizes above come from stat, which opens
	// nothing.
	let header = seen ? undefined : liveHeader(absolute);
	if (!header) {
		let headerBytes: Buffer;
		try {
			headerBytes = seen ?? readHeaderBytes(absolute);
		} catch (error) {
			if (error instanceof FailClosed) {
				throw error;
			}

			unreadable(absolute, 'reading the database header', error);
		}

		const problem = headerProblem(headerBytes);
		if (problem) {
			throw new FailClosed({
				file: absolute,
				kind: problem.kind,
				reason: problem.reason,
				next:
					'check that this is the right file; if state.db itself was overwritten, ' +
					'look for a backup (hfx backups) and do not let the agent start on it',
			});
		}

		header = parseDbHeader(headerBytes);
	}

	return header;
}

/** What a linked store means for its sidecars: the live ones beside the target, any beside the link stale. */
function linkNotes(link: StoreLink): string[] {
	const notes = [
		`${link.path} is a symbolic link to ${link.target}: its -wal and -shm ` +
			`are read beside the target (where SQLite keeps them)`,
	];
	const stale = ['-wal', '-shm', '-journal'].filter(s => {
		try {
			fs.lstatSync(`${link.path}${s}`);
			return true;
		} catch {
			return false;
		}
	});
	if (stale.length > 0) {
		notes.push(
			`${stale.map(s => `${path.basename(link.path)}${s}`).join(', ')} beside ` +
				`the link ${stale.length === 1 ? 'is' : 'are'} not this store's (SQLite ` +
				`never uses sidecars beside a link): stale, left as they are`,
		);
	}

	return notes;
}

/**
 * `look`: one look at the store taken just now with nothing open (live-signature.ts lookAtStore: a live refresh's
 * signature), serving as this preflight's lstats and header read instead of taking them again; its raw reads were
 * made before the SQLite open that follows, as the preflight's own would be. Only the shm's holder is asked again.
 */
export function preflight(inputPath: string, look?: StoreLook | null): Preflight {
	testMark('preflight');
	const seen = look ? seenIn(look) : null;
	// The one place a store's path is resolved: everything below (and every open after) uses it.
	const {path: absolute, link} = seen ?? realStorePath(inputPath);
	const main = seen?.main ?? facts(absolute, statMain(absolute));
	const sidecars = seen?.sidecars ?? statSidecars(absolute);
	if (main.size === 0) {
		refuseEmpty(absolute, sidecars);
	}

	const header = readHeader(absolute, seen?.header);
	const notes: string[] = [];
	if (header.journalMode === 'unknown') {
		notes.push(`header journal bytes are ${header.writeVersion}/${header.readVersion} (expected 1/1 or 2/2)`);
	}

	const journalMode = header.journalMode === 'wal' ? 'wal' : 'delete';
	let openMode: OpenMode = 'in-place';
	let openModeReason = journalMode === 'wal' ? 'WAL mode with -wal and -shm present' : 'rollback-journal mode';
	if (journalMode === 'wal' && (!sidecars.wal || !sidecars.shm)) {
		openMode = 'private-copy';
		const missing = [sidecars.wal ? undefined : '-wal', sidecars.shm ? undefined : '-shm']
			.filter(Boolean)
			.join(' and ');
		openModeReason =
			`WAL mode but ${missing} absent (no live connection); opening in place ` +
			`would create ${missing} beside the evidence, so a private copy is read instead`;
	} else if (journalMode === 'wal' && sidecars.shm && shmHeld(sidecars.shm) === false) {
		// Asked at every preflight, a live view's every read included: nothing cheaper tells a holder is still there. A
		// killed agent, or a last read-only connection closing (it cannot checkpoint and remove them), leaves the -wal
		// and -shm exactly as they were (identity, size, bytes), and an ordinary open would then truncate the -shm
		// (SQLite's unixLockSharedMemory). Skipping it while the -shm's identity and size stayed as at the last read
		// fails live.test.ts's crashed-store case (the killed agent's store opened as a live one).
		openMode = 'private-copy';
		openModeReason =
			'WAL mode with -wal and -shm, but no process holds the -shm (its owner ' +
			'is gone: a crash or a kill left them); opening in place would make ' +
			'SQLite recover the WAL index and rewrite -shm, so a private copy of the ' +
			'main file and -wal is read instead';
	}

	if (journalMode === 'delete' && sidecars.journal && sidecars.journal.size > 0) {
		notes.push(
			`${path.basename(absolute)}-journal (${sidecars.journal.size} bytes) is ` +
				`present: a write was in progress or interrupted`,
		);
	}

	if (journalMode === 'wal' && sidecars.journal) {
		notes.push(`stray ${path.basename(absolute)}-journal in WAL mode (${sidecars.journal.size} bytes)`);
	}

	if (link) {
		notes.push(...linkNotes(link));
	}

	return {
		path: absolute,
		link,
		dir: path.dirname(absolute),
		main,
		header,
		journalMode,
		sidecars,
		openMode,
		openModeReason,
		notes,
		...(seen && look?.wal.head ? {walHeader: look.wal.head} : {}),
	};
}
