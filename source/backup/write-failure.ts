/**
 * Why a write failed or would fail: the one-line refusal for an I/O error while writing, the
 * process's file size limit (ulimit -f) and the free space in a folder.
 */
import fs from 'node:fs';
import {FailClosed, errorCode, errorMessage} from '../errors.js';

/** Turns an I/O error while writing into the one-line refusal. */
export function writeFailure(target: string, error: unknown, what: string): FailClosed {
	if (error instanceof FailClosed) {
		return error;
	}

	const code = errorCode(error) ?? '';
	const message = errorMessage(error);
	const limit = fileSizeLimit();
	if (limit !== null && (code === 'SQLITE_IOERR_WRITE' || code === 'SQLITE_FULL' || code === 'EFBIG')) {
		// SQLite reports EFBIG as a plain write error; the process limit tells what it was.
		return new FailClosed({file: target, kind: 'file-too-large', reason: `the file size limit was reached while ${what} (${code === 'EFBIG' ? 'EFBIG' : `${code}, EFBIG`}: ulimit -f allows ${limit} bytes per file); the partial output was removed`, next: 'raise the limit (ulimit -f unlimited) or run where it is not set', cause: error});
	}

	if (code === 'ENOSPC' || code === 'SQLITE_FULL' || /SQLITE_FULL|database or disk is full/i.test(message)) {
		return new FailClosed({file: target, kind: 'no-space', reason: `no space left on the device while ${what} (${code || 'SQLITE_FULL'}); the partial output was removed`, next: 'free space there or write elsewhere with -o DIR (df -h shows free space)', cause: error});
	}

	if (code === 'EFBIG') {
		return new FailClosed({file: target, kind: 'file-too-large', reason: `the file size limit was reached while ${what} (EFBIG: ulimit -f or the filesystem's maximum file size); the partial output was removed`, next: 'raise the limit (ulimit -f unlimited) or write elsewhere with -o DIR', cause: error});
	}

	if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') {
		return new FailClosed({file: target, kind: 'not-writable', reason: `cannot write there while ${what} (${code})`, next: 'choose a writable folder with -o DIR', cause: error});
	}

	if (code === 'EIO' || code.startsWith('SQLITE_IOERR')) {
		return new FailClosed({file: target, kind: 'io-error', reason: `I/O error while ${what} (${code}: ${message}); the partial output was removed`, next: 'check the disk (dmesg) and write elsewhere with -o DIR', cause: error});
	}

	return new FailClosed({file: target, kind: 'write-failed', reason: `failed while ${what} (${code || 'error'}: ${message}); the partial output was removed`, next: 'fix the cause above and run the command again', cause: error});
}

/** The process's maximum file size (ulimit -f) in bytes, or null when unlimited or unknown. */
export function fileSizeLimit(): number | null {
	try {
		const m = /^Max file size\s+(\S+)/m.exec(fs.readFileSync('/proc/self/limits', 'utf8'));
		return m && m[1] !== 'unlimited' ? Number(m[1]) : null;
	} catch {
		return null;
	}
}

/** Free bytes for an unprivileged writer in the folder (statfs), or null when unknown. */
export function freeBytes(dir: string): number | null {
	try {
		const s = fs.statfsSync(dir);
		return Number(s.bavail) * Number(s.bsize);
	} catch {
		return null;
	}
}
