/**
 * Why a write failed or would fail: the one-line refusal for an I/O error while writing, the
 * process's file size limit (ulimit -f) and the free space in a folder.
 */
import fs from 'node:fs';
import {FailClosed, descriptorsExhausted, errnoWords, errorCode, errorMessage, fileSizeLimit} from '../errors.js';
import type {RefusalKind} from '../refusal-kinds.js';

/** The errno a failed write stands for: its own, or the one behind SQLite's code (SQLite reports EFBIG as a plain write error; the process limit tells what it was). */
function writeErrno(code: string, message: string): string | null {
	if (fileSizeLimit() !== null && (code === 'SQLITE_IOERR_WRITE' || code === 'SQLITE_FULL' || code === 'EFBIG')) {
		return 'EFBIG';
	}

	if (code === 'SQLITE_FULL' || /SQLITE_FULL|database or disk is full/i.test(message)) {
		return 'ENOSPC';
	}

	if (code.startsWith('SQLITE_IOERR')) {
		return 'EIO';
	}

	if (code === 'SQLITE_CANTOPEN') {
		return descriptorsExhausted();
	}

	return /^E[A-Z0-9]+$/.test(code) ? code : null;
}

const WRITE_KINDS: Readonly<Record<string, RefusalKind>> = {EFBIG: 'file-too-large', ENOSPC: 'no-space', EDQUOT: 'no-space', EACCES: 'not-writable', EPERM: 'not-writable', EROFS: 'not-writable', EIO: 'io-error'};

/** Where the words of the one errno mapping (errors.ts) name a folder, a backup's output can move. */
const WRITE_NEXT: Readonly<Record<string, string>> = {
	ENOSPC: 'free space there or write elsewhere with -o DIR (df -h shows free space)',
	EDQUOT: 'free space within the quota or write elsewhere with -o DIR',
	EACCES: 'choose a writable folder with -o DIR',
	EPERM: 'choose a writable folder with -o DIR',
	EROFS: 'choose a writable folder with -o DIR',
	EIO: 'check the disk (dmesg) and write elsewhere with -o DIR',
};

/** Turns an I/O error while writing into the one-line refusal, with the cause from the one errno mapping. */
export function writeFailure(target: string, error: unknown, what: string): FailClosed {
	if (error instanceof FailClosed) {
		return error;
	}

	const code = errorCode(error) ?? '';
	const message = errorMessage(error);
	const errno = writeErrno(code, message);
	if (errno === null) {
		return new FailClosed({file: target, kind: 'write-failed', reason: `failed while ${what} (${code || 'error'}: ${message}); the partial output was removed`, next: 'fix the cause above and run the command again', cause: error});
	}

	const words = errnoWords(errno, message);
	const shown = errno === code ? code : `${code || 'SQLITE_FULL'}, ${errno}`;
	return new FailClosed({file: target, kind: WRITE_KINDS[errno] ?? `errno-${errno.toLowerCase()}`, reason: `${words.cause} while ${what} (${shown}${errno === 'EIO' ? `: ${message}` : ''}); the partial output was removed`, next: WRITE_NEXT[errno] ?? words.next, cause: error});
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
