/**
 * One backup at a time per Hermes root: `<root>/.hfx-backup.lock`, created with O_EXCL and
 * holding {pid, start ticks, host, started}. A lock whose process is gone (SIGKILL, crash) is
 * stale and taken over. Hermes' own `.backup.lock` counts as busy while a process holds a lock
 * on it in /proc/locks (Hermes locks it; it never removes the file).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {FailClosed, errnoWords, errorCode, errorMessage} from '../../ground/errors.js';
import {readForeign} from '../../store/foreign-file.js';
import {parseProcLocks, procLocksDevice} from '../../store/files/holders.js';
import {isPidAlive, processStartTicks} from '../../ground/liveness.js';
import {onInterruptOrExit} from '../../ground/interrupts.js';
import {createExclusive} from '../../ground/safe-create.js';

export const LOCK_NAME = '.hfx-backup.lock';
export const HERMES_LOCK_NAME = '.backup.lock';

type LockBody = {pid: number; startTicks: string | null; host: string; started: string; what: string};

export type BackupLock = {path: string; release: () => void};

function readLock(file: string): LockBody | null {
	try {
		// Our own lock name, but whatever sits there now: no link followed, no FIFO read, bounded.
		return JSON.parse(readForeign(file, {noFollow: true, maxBytes: 65_536}).bytes.toString('utf8')) as LockBody;
	} catch {
		return null;
	}
}

function holderAlive(body: LockBody | null): boolean {
	if (!body || typeof body.pid !== 'number') {
		return false;
	}

	if (body.host && body.host !== os.hostname()) {
		// Another machine (shared volume): we cannot see its processes; treat as held.
		return true;
	}

	if (!isPidAlive(body.pid)) {
		return false;
	}

	const ticks = processStartTicks(body.pid);
	return ticks === null || body.startTicks === null || ticks === body.startTicks;
}

/** The pid holding a POSIX/flock lock on Hermes' `.backup.lock`, if any. */
export function hermesBackupLockHolder(root: string): number | null {
	const file = path.join(root, HERMES_LOCK_NAME);
	let st: fs.Stats;
	try {
		st = fs.statSync(file);
	} catch {
		return null;
	}

	let text = '';
	try {
		text = readForeign('/proc/locks', {maxBytes: 16 * 1024 * 1024}).bytes.toString('utf8');
	} catch {
		return null;
	}

	const device = procLocksDevice(st.dev);
	const lock = parseProcLocks(text).find(l => l.device === device && l.ino === st.ino && l.pid > 0);
	return lock ? lock.pid : null;
}

/** Creates the lock file (O_EXCL) with its body, and the release that removes it at most once (also at exit). */
function createLock(file: string, root: string, body: LockBody): BackupLock {
	const fd = createExclusive(file, 0o600, 'its backup lock');
	try {
		fs.writeSync(fd, JSON.stringify(body));
	} catch (error) {
		// A full disk: the lock could be created but not written. Leave nothing behind.
		fs.closeSync(fd);
		fs.rmSync(file, {force: true});
		// A full disk, or another cause in the one errno mapping's words (EFBIG, EIO are not a full disk).
		const code = errorCode(error) ?? 'error';
		// EDQUOT is the user's quota, not a full disk: its own words.
		const full = code === 'ENOSPC';
		const words = errnoWords(code, errorMessage(error));
		throw new FailClosed({
			file: root,
			kind: full || code === 'EDQUOT' ? 'no-space' : 'lock-write-failed',
			reason:
				`cannot write the backup lock ` +
				`(${code}): ${full ? 'the disk holding the Hermes root is full' : words.cause}`,
			next: `${full ? 'free space on that disk first' : words.next}; nothing was written`,
			cause: error,
		});
	}

	fs.closeSync(fd);

	let released = false;
	const release = (): void => {
		if (released) {
			return;
		}

		released = true;
		removeHook();
		const current = readLock(file);
		if (current?.pid === process.pid) {
			fs.rmSync(file, {force: true});
		}
	};

	const removeHook = onInterruptOrExit(release);
	return {path: file, release};
}

/** Takes the lock or throws FailClosed (exit 2) naming the running backup. */
export function acquireBackupLock(root: string, what: string): BackupLock {
	const file = path.join(root, LOCK_NAME);
	const hermes = hermesBackupLockHolder(root);
	if (hermes !== null && hermes !== process.pid) {
		throw new FailClosed({
			file: path.join(root, HERMES_LOCK_NAME),
			kind: 'backup-running',
			reason: `a Hermes backup is running (pid ${hermes} holds its lock)`,
			next: 'wait for it to finish, then run hfx backup again',
		});
	}

	const body: LockBody = {
		pid: process.pid,
		startTicks: processStartTicks(process.pid),
		host: os.hostname(),
		started: new Date().toISOString(),
		what,
	};
	for (let attempt = 0; attempt < 3; attempt++) {
		try {
			return createLock(file, root, body);
		} catch (error) {
			if (errorCode(error) === 'EROFS') {
				// A read-only root (a mounted copy): nothing can write there, so nothing can race us either.
				return {path: file, release() {}};
			}

			if (errorCode(error) === 'EACCES' || errorCode(error) === 'EPERM') {
				throw new FailClosed({
					file,
					kind: 'not-writable',
					reason: `cannot create the backup lock file (${errorCode(error)})`,
					next: 'run hfx as the user that owns the Hermes root',
					cause: error,
				});
			}

			if (errorCode(error) !== 'EEXIST') {
				throw error;
			}
		}

		const holder = readLock(file);
		if (holderAlive(holder)) {
			throw new FailClosed({
				file,
				kind: 'backup-running',
				reason:
					`another backup is already running ` +
					`(pid ${holder!.pid}` +
					`${holder!.host && holder!.host !== os.hostname() ? ` on ${holder!.host}` : ''}, ${holder!.what}, ` +
					`since ${holder!.started})`,
				next: 'wait for it to finish; if no hfx runs any more, remove the lock file',
			});
		}

		// Stale: its process is gone (killed or crashed). Take it over.
		fs.rmSync(file, {force: true});
	}

	throw new FailClosed({
		file,
		kind: 'backup-running',
		reason: 'the backup lock kept changing hands',
		next: 'wait a moment and run the command again',
	});
}
