/**
 * Is a live SQLite connection attached to this store? Every connection in WAL mode holds a POSIX
 * lock on its -shm (the wal-index's dead-man switch) for as long as it is open, so a -shm no other
 * process holds a lock on was left by an owner that is gone (a crash, kill -9, a container
 * stopped). Opening such a store in place makes SQLite recover the wal-index: it rewrites the
 * -shm, destroying the header that is evidence (docs/sqlite-wal.md, wal-index-recovery). Read from
 * /proc/locks: no file of the store is opened.
 */
import {readForeign} from '../foreign-file.js';
import {parseProcLocks, procLocksDevice} from './holders.js';

/**
 * true: a connection holds a lock on the -shm (another process's, or this one's: a connection of
 * ours keeps the wal-index valid too, so an open in place recovers nothing); false: none does;
 * null: /proc/locks cannot be read (not Linux).
 */
export function shmHeld(shm: {dev: number; ino: number}, procLocks = '/proc/locks'): boolean | null {
	let text: string;
	try {
		// Bounded, and a regular file only (never a FIFO planted under a procLocks path given in a test).
		text = readForeign(procLocks, {maxBytes: 16 * 1024 * 1024}).bytes.toString('utf8');
	} catch {
		return null;
	}

	const device = procLocksDevice(shm.dev);
	// A pid of 0 (a holder outside this pid namespace) counts as well.
	return parseProcLocks(text).some(l => l.device === device && l.ino === shm.ino);
}
