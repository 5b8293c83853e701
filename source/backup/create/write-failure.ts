/**
 * Why a write failed or would fail: the one-line refusal for an I/O error while writing, the
 * process's file size limit (ulimit -f) and the free space in a folder.
 */
import fs from 'node:fs';
import {
	FailClosed,
	descriptorsExhausted,
	errnoWords,
	errorCode,
	errorMessage,
	fileSizeLimit,
} from '../../ground/errors.js';
import type {RefusalKind} from '../../ground/refusal-kinds.js';

/**
 * The errno a failed write stands for: its own, or the one behind SQLite's code (SQLite reports EFBIG as a plain write
 * error; the process limit tells what it was).
 */
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

const WRITE_KINDS: Readonly<Record<string, RefusalKind>> = {
	EFBIG: 'file-too-large',
	ENOSPC: 'no-space',
	EDQUOT: 'no-space',
	EACCES: 'not-writable',
	EPERM: 'not-writable',
	EROFS: 'not-writable',
	EIO: 'io-error',
};

/**
 * Where the words of the one errno mapping (ground/errors.ts) name a folder, a backup's output can move (`to`: how).
 */
const WRITE_NEXT: Readonly<Record<string, (to: Elsewhere) => string>> = {
	ENOSPC: to => `free space there or ${to.move} (df -h shows free space)`,
	EDQUOT: to => `free space within the quota or ${to.move}`,
	EACCES: to => to.choose,
	EPERM: to => to.choose,
	EROFS: to => to.choose,
	EIO: to => `check the disk (dmesg) and ${to.move}`,
};

type Elsewhere = {move: string; choose: string};

/**
 * How a backup's output moves elsewhere; a quick snapshot has no -o (it is always beside the store): a full backup goes
 * elsewhere.
 */
export const WRITE_ELSEWHERE: Readonly<Record<'backup' | 'quick', Elsewhere>> = {
	backup: {move: 'write elsewhere with -o DIR', choose: 'choose a writable folder with -o DIR'},
	quick: {
		move: 'take a full backup elsewhere with hfx backup -o DIR (a quick snapshot is always beside the store)',
		choose:
			'take a full backup to a writable folder with hfx backup -o DIR (a quick snapshot is always beside the store)',
	},
};

/** Turns an I/O error while writing into the one-line refusal, with the cause from the one errno mapping. */
export function writeFailure(
	target: string,
	error: unknown,
	what: string,
	elsewhere: Elsewhere = WRITE_ELSEWHERE.backup,
): FailClosed {
	if (error instanceof FailClosed) {
		return error;
	}

	const code = errorCode(error) ?? '';
	const message = errorMessage(error);
	const errno = writeErrno(code, message);
	if (errno === null) {
		return new FailClosed({
			file: target,
			kind: 'write-failed',
			reason: `failed while ${what} (${code || 'error'}: ${message}); the partial output was removed`,
			next: 'fix the cause above and run the command again',
			cause: error,
		});
	}

	const words = errnoWords(errno, message);
	const shown = errno === code ? code : `${code || 'SQLITE_FULL'}, ${errno}`;
	return new FailClosed({
		file: target,
		kind: WRITE_KINDS[errno] ?? `errno-${errno.toLowerCase()}`,
		reason:
			`${words.cause} while ${what} ` +
			`(${shown}${errno === 'EIO' ? `: ${message}` : ''}); the partial output ` +
			`was removed`,
		next: WRITE_NEXT[errno]?.(elsewhere) ?? words.next,
		cause: error,
	});
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
