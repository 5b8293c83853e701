/**
 * Which database files this process currently holds a SQLite connection to.
 *
 * POSIX advisory locks belong to the process: an `fs.open()`+`close()` of `state.db` or its `-shm`
 * anywhere in this process silently drops the locks SQLite holds on it (docs/sqlite-wal.md,
 * posix-locks). Every raw read of those files goes through `assertNoLiveHandle` first, so a raw
 * read while a connection is open fails loudly instead of corrupting the owner's view.
 */
import fs from 'node:fs';
import type {DbHeader} from '../db-header.js';

const live = new Map<string, number>();
/** The header read by the preflight that preceded the first connection (reused while one is open). */
const headers = new Map<string, DbHeader>();

function identity(path: string): string | undefined {
	try {
		const st = fs.statSync(path);
		return `${st.dev}:${st.ino}`;
	} catch {
		return undefined;
	}
}

export function registerLiveHandle(path: string, header?: DbHeader): () => void {
	const id = identity(path);
	if (!id) {
		return () => {};
	}

	live.set(id, (live.get(id) ?? 0) + 1);
	if (header && !headers.has(id)) {
		headers.set(id, header);
	}

	let released = false;
	return () => {
		if (released) {
			return;
		}

		released = true;
		const n = (live.get(id) ?? 1) - 1;
		if (n <= 0) {
			live.delete(id);
			headers.delete(id);
		} else {
			live.set(id, n);
		}
	};
}

/** The header of a file this process holds a connection to, as its preflight read it. */
export function liveHeader(path: string): DbHeader | undefined {
	// No connection open (the live view between reads): nothing to stat the file for.
	if (live.size === 0) {
		return undefined;
	}

	const id = identity(path);
	return id && live.has(id) ? headers.get(id) : undefined;
}

/** Whether this process holds a connection to the file at `path`: stat'ed only when it holds any connection at all. */
export function hasLiveHandle(path: string): boolean {
	if (live.size === 0) {
		return false;
	}

	const id = identity(path);
	return id !== undefined && live.has(id);
}

/** Throws if this process holds a SQLite connection to `dbPath`: raw I/O must go to a child process. */
export function assertNoLiveHandle(dbPath: string, what: string): void {
	if (hasLiveHandle(dbPath)) {
		throw new Error(
			`internal: refusing ${what} of ${dbPath} in a process that holds a ` +
				`SQLite connection to it (it would drop SQLite's POSIX locks); read it ` +
				`in a child process`,
		);
	}
}
