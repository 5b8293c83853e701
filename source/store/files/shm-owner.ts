/**
 * Is a live SQLite connection attached to this store? Every connection in WAL mode holds a POSIX
 * lock on its -shm (the wal-index's dead-man switch) for as long as it is open, so a -shm no other
 * process holds a lock on was left by an owner that is gone (a crash, kill -9, a container
 * stopped). Opening such a store in place makes SQLite recover the wal-index: it rewrites the
 * -shm, destroying the header that is evidence (docs/sqlite-wal.md, wal-index-recovery). Read from
 * /proc/locks: no file of the store is opened.
 */
import fs from 'node:fs';
import {openForeign} from '../foreign-file.js';
import {parseProcLocks, procLocksDevice} from './holders.js';

/** /proc/locks is read whole, up to this much (one line per lock held on the machine). */
const MAX_LOCKS_BYTES = 16 * 1024 * 1024;

/**
 * The buffer /proc/locks is read into, kept between reads and grown when it fills. The live view asks before every
 * read (up to 20 a second, following a writer): a fresh 64 KiB chunk per read, and another for the read that finds
 * the end, then a copy of them (readForeign), made this look ~0.07 ms where the kernel's part is ~0.02 ms.
 */
let locksBuffer = Buffer.allocUnsafe(64 * 1024);

/** The text of a /proc/locks file, at most MAX_LOCKS_BYTES (a regular file only: never a FIFO given in a test). */
function readLocks(file: string): string {
	const {fd} = openForeign(file);
	try {
		let total = 0;
		for (;;) {
			if (total === locksBuffer.length) {
				if (total >= MAX_LOCKS_BYTES) {
					break;
				}

				const grown = Buffer.allocUnsafe(Math.min(MAX_LOCKS_BYTES, total * 2));
				locksBuffer.copy(grown, 0, 0, total);
				locksBuffer = grown;
			}

			const n = fs.readSync(fd, locksBuffer, total, locksBuffer.length - total, null);
			if (n === 0) {
				break;
			}

			total += n;
		}

		return locksBuffer.toString('latin1', 0, total);
	} finally {
		fs.closeSync(fd);
	}
}

/**
 * The -shm's dead-man switch (SQLite's unix VFS: UNIX_SHM_DMS, right after the 8 lock bytes at 120): every
 * connection holds a lock on it for as long as it is open. A reader with its -shm read-only (`readonly_shm=1`, as
 * hfx reads a crashed store in place) finds it unheld, builds the WAL index in its own memory and holds only a
 * read mark (byte 123): no connection, so not a holder. Counting that read mark as one made a second hfx open the
 * store as a live one, become its first connection and rewrite the -shm (a CI run of two-scans-at-once-crashed).
 */
const SHM_DMS_BYTE = 128;

/** Whether a /proc/locks range (start, end: a number or EOF) covers the dead-man switch. */
function coversDms(start: string, end: string): boolean {
	return Number(start) <= SHM_DMS_BYTE && (end === 'EOF' || Number(end) >= SHM_DMS_BYTE);
}

/**
 * true: a connection holds the -shm's dead-man switch (another process's, or this one's: a connection of ours keeps
 * the wal-index valid too, so an open in place recovers nothing); false: none does (a read-only -shm reader's read
 * mark is no connection); null: /proc/locks cannot be read (not Linux).
 */
export function shmHeld(shm: {dev: number; ino: number}, procLocks = '/proc/locks'): boolean | null {
	let text: string;
	try {
		// Bounded, and a regular file only (never a FIFO planted under a procLocks path given in a test).
		text = readLocks(procLocks);
	} catch {
		return null;
	}

	const device = procLocksDevice(shm.dev);
	// Only the lines naming this file are parsed (each names its device:inode between spaces).
	const id = ` ${device}:${shm.ino} `;
	const lines = text.split('\n').filter(line => line.includes(id));
	// A pid of 0 (a holder outside this pid namespace) counts as well.
	return parseProcLocks(lines.join('\n')).some(
		l => l.device === device && l.ino === shm.ino && coversDms(l.start, l.end),
	);
}
