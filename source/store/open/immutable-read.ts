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
import {openForeign} from '../foreign-file.js';
import {assertNoLiveHandle} from './live-handles.js';
import {nodeSqlite} from './node-sqlite.js';
import {type OpenOptions, ReadOnlyStore} from './open.js';
import {type Preflight, preflight as runPreflight, statSidecars} from './preflight.js';
import {testPause} from '../../test-pause.js';

export const IMMUTABLE_ATTEMPTS = 3;

type Identity = {dev: bigint; ino: bigint; size: bigint; mtimeNs: bigint; ctimeNs: bigint; changeCounter: number};

/** The main file's identity and change counter, read raw: only while this process holds no SQLite connection to it. */
function identityOf(file: string): Identity {
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

	return before.mtimeNs !== after.mtimeNs || before.ctimeNs !== after.ctimeNs
		? 'it was written (its modification time changed)'
		: null;
}

/** Why the read of `pre` (taken with `before`) cannot stand, or null when nothing wrote the store around it. */
function changeSince(pre: Preflight, before: Identity): string | null {
	const sidecars = statSidecars(pre.path);
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

function isStopped(pre: Preflight): boolean {
	return pre.journalMode === 'wal' && !pre.sidecars.wal && !pre.sidecars.shm;
}

function inPlace(pre: Preflight): Preflight {
	return {
		...pre,
		notes: [...pre.notes],
		openMode: 'in-place',
		openModeReason:
			'WAL mode with neither -wal nor -shm (no live connection: the agent is ' +
			'stopped): read in place as an immutable file (node:sqlite, ' +
			'immutable=1), so nothing is created beside it and nothing is copied; ' +
			'its identity and change counter were the same before and after the read',
	};
}

function readAndClose<T>(store: ReadOnlyStore, read: (store: ReadOnlyStore) => T, notes: string[]): T {
	store.preflight.notes.push(...notes);
	try {
		return read(store);
	} finally {
		store.close();
	}
}

/** One immutable read of a stopped store: its result, or why it must be thrown away. */
function readImmutable<T>(
	pre: Preflight,
	sqlite: Parameters<typeof ReadOnlyStore.openImmutable>[1],
	read: (store: ReadOnlyStore) => T,
	notes: string[],
): {ok: true; value: T} | {ok: false; change: string} {
	const before = identityOf(pre.path);
	const early = changedSincePreflight(pre, before);
	if (early) {
		return {ok: false, change: early};
	}

	let outcome: {value: T} | {error: unknown};
	const store = ReadOnlyStore.openImmutable(inPlace(pre), sqlite);
	try {
		testPause('immutable-read');
		outcome = {value: readAndClose(store, read, notes)};
	} catch (error) {
		outcome = {error};
	} finally {
		store.close();
	}

	// A torn read can fail (a page SQLite finds malformed) as well as succeed: either way it stands only if nothing
	// changed.
	const change = changeSince(pre, before);
	if (change) {
		return {ok: false, change};
	}

	if ('error' in outcome) {
		throw outcome.error;
	}

	return {ok: true, value: outcome.value};
}

/**
 * Opens the store at `inputPath` read-only the cheapest sound way, runs `read` on it and closes it:
 * a stopped store in place as an immutable file (checked unchanged around the read, read again
 * when it was not), any other through ReadOnlyStore.open (in place, or a private copy of a
 * crashed agent's store). `read` may run more than once: it must only return what it read.
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
		if (!isStopped(pre)) {
			return readAndClose(ReadOnlyStore.open(inputPath, open), read, again);
		}

		const sqlite = nodeSqlite();
		if (!sqlite.ok) {
			return readAndClose(ReadOnlyStore.open(inputPath, open), read, [
				...again,
				`${path.basename(pre.path)} was read from a private copy, not in place: ${sqlite.reason}`,
			]);
		}

		const outcome = readImmutable(pre, sqlite.sqlite, read, again);
		if (outcome.ok) {
			return outcome.value;
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
