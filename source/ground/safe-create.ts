/**
 * Every file hfx creates, anywhere, is created here: never through a planted link (issue 29, class
 * 1). A new file is opened O_CREAT|O_EXCL|O_NOFOLLOW (a link at its name, dangling or not, makes
 * the open fail: it is never followed); a temp name carries random bytes (an attacker who can write
 * the folder cannot plant a link at it in advance); a file that replaces another is written to such
 * a temp and renamed over the target only when the target is absent or a regular file (a link at
 * the target is refused, not replaced); the folder is checked to be a real folder, not a link.
 * An append opens O_APPEND|O_NOFOLLOW|O_NONBLOCK and checks the descriptor is a plain file.
 */
import fs from 'node:fs';
import path from 'node:path';
import {randomHex} from './crypto.js';
import {FailClosed, errorCode} from './errors.js';

function linkTarget(p: string): string {
	try {
		return fs.readlinkSync(p);
	} catch {
		return '?';
	}
}

/** The refusal of a link where hfx was about to create or replace a file. */
export function plantedLink(file: string, what: string): FailClosed {
	return new FailClosed({
		file,
		kind: 'symlink',
		reason:
			`is a symbolic link (to ${linkTarget(file)}); hfx never writes ${what} ` +
			`through a link, so nothing was written`,
		next: `remove the link (rm ${file}) and check who planted it, then run again`,
	});
}

/**
 * A new file, created exclusively (O_CREAT|O_EXCL|O_NOFOLLOW): returns its descriptor. A link at
 * its name is refused (one FailClosed naming it); any other error (EEXIST for a real file, EACCES,
 * ENOSPC...) is thrown as the OS gave it, so callers keep their own handling.
 */
export function createExclusive(file: string, mode = 0o600, what = 'a file'): number {
	const {O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW} = fs.constants;
	try {
		return fs.openSync(file, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode);
	} catch (error) {
		if (
			(errorCode(error) === 'EEXIST' || errorCode(error) === 'ELOOP') &&
			fs.lstatSync(file, {throwIfNoEntry: false})?.isSymbolicLink()
		) {
			throw plantedLink(file, what);
		}

		throw error;
	}
}

/** Writes all of `data` to a new file (createExclusive), fsynced when asked. */
export function writeNewFile(
	file: string,
	data: string | Uint8Array,
	options: {mode?: number; fsync?: boolean; what?: string} = {},
): void {
	const fd = createExclusive(file, options.mode ?? 0o600, options.what);
	try {
		fs.writeFileSync(fd, data);
		if (options.fsync) {
			fs.fsyncSync(fd);
		}
	} finally {
		fs.closeSync(fd);
	}
}

/** A temp name beside `file` that no one can guess: `.<name>.<16 hex>.tmp`. */
export function unguessableTemp(file: string): string {
	return path.join(path.dirname(file), `.${path.basename(file)}.${randomHex(8)}.tmp`);
}

/**
 * Refuses a folder that is a link or not a folder (lstat: the link itself, never what it names). Absent: ENOENT as
 * thrown.
 */
export function assertRealFolder(dir: string, what = 'its files'): void {
	const st = fs.lstatSync(dir);
	if (st.isSymbolicLink()) {
		throw plantedLink(dir, what);
	}

	if (!st.isDirectory()) {
		throw new FailClosed({
			file: dir,
			kind: 'not-a-file',
			reason: `is not a folder; hfx writes ${what} only into a real folder`,
			next: 'remove what is there or choose another folder, then run again',
		});
	}
}

/**
 * A folder hfx owns inside a path the operator named (state-snapshots/, backups/...): made (0700)
 * when absent, and otherwise required to be a real folder, never a link to elsewhere.
 */
export function ensureOwnFolder(dir: string, what = 'its files'): void {
	try {
		fs.mkdirSync(dir, {mode: 0o700});
	} catch (error) {
		if (errorCode(error) !== 'EEXIST') {
			throw error;
		}
	}

	assertRealFolder(dir, what);
}

/**
 * Refuses a target that is a link or not a regular file (checked before any work, and again right before the rename);
 * absent is fine.
 */
export function assertReplaceable(file: string, what: string): void {
	const st = fs.lstatSync(file, {throwIfNoEntry: false});
	if (st?.isSymbolicLink()) {
		throw plantedLink(file, what);
	}

	if (st && !st.isFile()) {
		throw new FailClosed({
			file,
			kind: 'not-a-file',
			reason: `is not a regular file; hfx replaces only its own plain file with ${what}`,
			next: `remove ${file} or name another file, then run again`,
		});
	}
}

/**
 * Replaces `file` atomically with `data`: the folder checked (a real folder, as resolved), a new
 * temp of an unguessable name (O_EXCL|O_NOFOLLOW), fsynced when asked, then renamed over the target
 * only when the target is absent or a regular file. On any failure the temp is removed.
 */
export function replaceFile(
	file: string,
	data: string | Uint8Array,
	options: {mode?: number; fsync?: boolean; what?: string} = {},
): void {
	const what = options.what ?? 'a file';
	assertRealFolder(fs.realpathSync(path.dirname(file)), what);
	assertReplaceable(file, what);
	const temp = unguessableTemp(file);
	let created = false;
	try {
		const fd = createExclusive(temp, options.mode ?? 0o600, what);
		created = true;
		try {
			fs.fchmodSync(fd, options.mode ?? 0o600);
			fs.writeFileSync(fd, data);
			if (options.fsync) {
				fs.fsyncSync(fd);
			}
		} finally {
			fs.closeSync(fd);
		}

		assertReplaceable(file, what);
		fs.renameSync(temp, file);
		created = false;
	} finally {
		if (created) {
			fs.rmSync(temp, {force: true});
		}
	}
}

/**
 * Opens `file` to append (created 0600 when absent): never through a link (O_NOFOLLOW: ELOOP) and
 * never blocking on a FIFO (O_NONBLOCK); the descriptor is checked to be a plain file with one
 * name before it is returned, else it is closed and `refuse(what it is)` is thrown.
 */
export function openAppend(file: string, refuse: (what: string) => Error): number {
	const {O_WRONLY, O_APPEND, O_CREAT, O_NOFOLLOW, O_NONBLOCK} = fs.constants;
	let fd: number;
	try {
		fd = fs.openSync(file, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK, 0o600);
	} catch (error) {
		const code = errorCode(error);
		if (code === 'ELOOP' || code === 'ENXIO') {
			throw refuse(code === 'ELOOP' ? `a symbolic link (to ${linkTarget(file)})` : 'a FIFO, not a regular file');
		}

		throw error;
	}

	const st = fs.fstatSync(fd);
	if (!st.isFile() || st.nlink > 1) {
		fs.closeSync(fd);
		throw refuse(
			st.isFile() ? `a file with ${st.nlink} hard links (another name shares its bytes)` : 'not a regular file',
		);
	}

	return fd;
}
