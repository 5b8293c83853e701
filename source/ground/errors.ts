/**
 * Fail-closed errors. Every refusal names the file, the cause and the next safe step, so the
 * operator reading one line over SSH knows what happened and what to do without guessing.
 */
import fs from 'node:fs';

import type {RefusalKind} from './refusal-kinds.js';
import {grouped} from '../text/format.js';
import {safeText} from '../text/sanitize.js';

export type ExitCode = 0 | 1 | 2;

export type Refusal = {file: string; reason: string; next: string};

/**
 * The one line every refusal prints on stderr: the file, the cause and the next safe step (one line whatever they
 * hold).
 */
export function refusalLine(r: Refusal): string {
	return safeText(`hfx: ${r.file}: ${r.reason}. Next: ${r.next}`);
}

export class FailClosed extends Error {
	readonly file: string;
	readonly reason: string;
	readonly next: string;
	readonly exitCode: ExitCode;
	/** A short machine-readable tag, e.g. "zero-byte-main-file", for --json output and tests. */
	readonly kind: RefusalKind;

	constructor(options: {
		file: string;
		kind: RefusalKind;
		reason: string;
		next: string;
		exitCode?: ExitCode;
		cause?: unknown;
	}) {
		super(`${options.file}: ${options.reason}. Next: ${options.next}`, {cause: options.cause});
		this.name = 'FailClosed';
		this.file = options.file;
		this.kind = options.kind;
		this.reason = options.reason;
		this.next = options.next;
		this.exitCode = options.exitCode ?? 2;
	}

	/** The one line printed on stderr. */
	line(): string {
		return refusalLine(this);
	}

	/** `--json`'s error object: {file, kind, reason, next}, kind from the closed list (ground/refusal-kinds.ts). */
	toJSON(): {file: string; kind: RefusalKind; reason: string; next: string} {
		return {file: this.file, kind: this.kind, reason: this.reason, next: this.next};
	}
}

export function isFailClosed(error: unknown): error is FailClosed {
	return error instanceof FailClosed;
}

/**
 * The one way a caught refusal ends a command: its one line on stderr, its exit code. A file
 * error from the OS (an errno: ELOOP, ENOTDIR, EACCES, EFBIG…) that no caller turned into a
 * refusal becomes one here, in the words of `errnoWords`. Anything else is rethrown (an internal
 * error, reported as such by the entry point).
 */
export function refusalExit(error: unknown, err: (line: string) => void): ExitCode {
	const refusal = asRefusal(error);
	if (!refusal) {
		throw error;
	}

	err(refusal.line());
	return refusal.exitCode;
}

/** The refusal an error stands for: itself when it is one, an errno error as its one-line refusal, else null. */
export function asRefusal(error: unknown): FailClosed | null {
	if (isFailClosed(error)) {
		return error;
	}

	return isErrnoError(error) ? fileRefusal(error) : null;
}

/** What an errno means for a file hfx was reading or writing, in the operator's words, and the next safe step. */
export type ErrnoWords = {cause: string; next: string};

const OWNER_NEXT = "run hfx as the user that owns it (sudo -u <that user> hfx …); do not chmod the agent's files";

/**
 * The one errno → (cause, next step) mapping: every place a file error becomes a refusal uses it
 * (directly or through `fileRefusal`), so ELOOP is never called a permission problem and EFBIG
 * never an I/O error.
 */
const ERRNO_WORDS: Readonly<Record<string, ErrnoWords>> = {
	ENOENT: {cause: 'no such file or folder', next: 'check the path (--db PATH, --home DIR or HERMES_HOME)'},
	EACCES: {cause: 'permission denied', next: OWNER_NEXT},
	EPERM: {cause: 'operation not permitted', next: OWNER_NEXT},
	ELOOP: {
		cause: 'too many levels of symbolic links (a link loop, or a link where hfx follows none)',
		next: 'look at the links with ls -l and readlink -f, then pass the real path of the file',
	},
	ENAMETOOLONG: {
		cause: 'the path is too long (a name over 255 bytes, or a path over 4,096)',
		next: 'pass a shorter path (cd to the folder first, or use a shorter link to it)',
	},
	ENOTDIR: {
		cause: 'a part of the path is a file, not a folder',
		next: 'check the path: every part before the last must be a folder',
	},
	EISDIR: {cause: 'a folder where a file was expected', next: 'pass the file itself, not its folder'},
	EFBIG: {
		cause: "file size limit reached (ulimit -f, or the filesystem's largest file)",
		next: 'raise the limit (ulimit -f unlimited) or run where it is not set',
	},
	ENOSPC: {
		cause: 'no space left on the device',
		next: 'free space there (df -h) or point the output (or TMPDIR) at a larger folder',
	},
	EDQUOT: {cause: 'disk quota exceeded', next: 'free space within the quota (quota -s) or write elsewhere'},
	EROFS: {cause: 'read-only file system', next: 'write elsewhere (a writable folder)'},
	EIO: {
		cause: 'I/O error from the device',
		next: 'check the disk (dmesg); copy the files elsewhere with cp before anything else',
	},
	EMFILE: {cause: 'too many open files in this process', next: 'raise the open-file limit (ulimit -n) and run again'},
	ENFILE: {
		cause: 'too many open files on the system',
		next: 'close other programs or raise fs.file-max, then run again',
	},
	ENXIO: {
		cause: 'no such device or address (a socket, or a device with nothing behind it)',
		next: 'pass a regular file',
	},
	ENODEV: {cause: 'no such device', next: 'pass a regular file'},
	EBUSY: {cause: 'device or resource busy', next: 'run again once it is free'},
	ETXTBSY: {cause: 'the file is busy (being executed or written)', next: 'run again once it is free'},
	EAGAIN: {cause: 'resource temporarily unavailable', next: 'run again'},
	ESTALE: {
		cause: 'stale file handle (a network file system lost the file)',
		next: 'remount or wait for the network file system, then run again',
	},
	ENOMEM: {cause: 'out of memory', next: 'free memory, then run again'},
	EOVERFLOW: {cause: 'the file is too large for this call', next: 'report this with the path and its size (stat)'},
	EXDEV: {cause: 'a move across file systems', next: 'write the output on the same file system as its folder'},
	EEXIST: {cause: 'it already exists', next: 'move it aside or choose another name'},
	ENOTEMPTY: {cause: 'the folder is not empty', next: 'choose an empty folder or move its contents aside'},
};

/**
 * The words for an errno code; an unknown code keeps the OS's own message. EFBIG names the process's limit when it has
 * one.
 */
export function errnoWords(code: string, osMessage = ''): ErrnoWords {
	const limit = code === 'EFBIG' ? fileSizeLimit() : null;
	if (limit !== null) {
		return {
			cause: `file size limit reached (ulimit -f allows ${grouped(limit)} bytes per file)`,
			next: ERRNO_WORDS.EFBIG!.next,
		};
	}

	const open = code === 'EMFILE' ? processLimit('Max open files') : null;
	if (open !== null) {
		return {
			cause: `too many open files (ulimit -n allows ${grouped(open)} per process)`,
			next: ERRNO_WORDS.EMFILE!.next,
		};
	}

	return (
		ERRNO_WORDS[code] ?? {
			cause: osMessage ? `the system said: ${osMessage}` : 'the system call failed',
			next: 'fix the cause above and run the command again',
		}
	);
}

/**
 * The process's maximum file size (ulimit -f) in bytes, or null when unlimited or unknown (Node ignores SIGXFSZ, so a
 * write past it fails with EFBIG).
 */
export function fileSizeLimit(): number | null {
	return processLimit('Max file size');
}

/**
 * A soft limit of this process from /proc/self/limits ("Max file size", "Max open files"), or null when unlimited or
 * unknown.
 */
function processLimit(name: string): number | null {
	try {
		const m = new RegExp(`^${name}\\s+(\\S+)`, 'm').exec(fs.readFileSync('/proc/self/limits', 'utf8'));
		return m && m[1] !== 'unlimited' ? Number(m[1]) : null;
	} catch {
		return null;
	}
}

/**
 * EMFILE or ENFILE when this process has (next to) no file descriptor left, else null. SQLite
 * reports it as SQLITE_CANTOPEN ("unable to open database file"), which is not a permission
 * problem: ask the system before naming one (listing /proc/self/fd takes a descriptor itself).
 */
export function descriptorsExhausted(): 'EMFILE' | 'ENFILE' | null {
	let open: number;
	try {
		open = fs.readdirSync('/proc/self/fd').length;
	} catch (error) {
		const code = errorCode(error);
		return code === 'EMFILE' || code === 'ENFILE' ? code : null;
	}

	const limit = processLimit('Max open files');
	// SQLite needs up to three at once (the database, its -wal, its -shm): fewer than that free is exhaustion.
	return limit !== null && open + 4 > limit ? 'EMFILE' : null;
}

/** What a syscall was doing, in words (for "… while reading it"). */
const DOING: Readonly<Record<string, string>> = {
	stat: 'looking it up',
	lstat: 'looking it up',
	fstat: 'looking it up',
	access: 'looking it up',
	realpath: 'resolving its path',
	readlink: 'reading the link',
	open: 'opening it',
	read: 'reading it',
	write: 'writing it',
	close: 'closing it',
	fsync: 'flushing it to disk',
	fdatasync: 'flushing it to disk',
	ftruncate: 'truncating it',
	scandir: 'listing the folder',
	opendir: 'listing the folder',
	mkdir: 'creating the folder',
	mkdtemp: 'creating a temp folder',
	rmdir: 'removing the folder',
	unlink: 'removing it',
	rm: 'removing it',
	copyfile: 'copying it',
	rename: 'renaming it',
	link: 'linking it',
	symlink: 'creating a link',
	chmod: 'changing its mode',
	utime: 'setting its times',
};

/** Codes of a failed write: the file they name is the one written (the destination of a copy or rename). */
const WRITE_CODES = new Set(['EFBIG', 'ENOSPC', 'EDQUOT', 'EROFS']);

type ErrnoError = Error & {code: string; syscall?: string; path?: string; dest?: string};

/** An error from the OS about a file (Node's errno errors carry code E…, a syscall, usually a path). */
export function isErrnoError(error: unknown): error is ErrnoError {
	const code = errorCode(error);
	return (
		error instanceof Error &&
		code !== undefined &&
		/^E[A-Z0-9]+$/.test(code) &&
		typeof (error as {syscall?: unknown}).syscall === 'string'
	);
}

/**
 * An errno error as its one-line refusal (exit 2): the file it names (or `file`), the cause from
 * the one mapping, what was being done, and the next step. `doing` replaces the syscall's words
 * ("reading the database header"). A refusal is returned as it is; any other error gets the words
 * of an unknown code (the OS's message).
 */
export function fileRefusal(
	error: unknown,
	options: {file?: string; doing?: string; kind?: RefusalKind} = {},
): FailClosed {
	if (isFailClosed(error)) {
		return error;
	}

	const code = errorCode(error) ?? 'error';
	const e = (error ?? {}) as Partial<ErrnoError>;
	const words = errnoWords(code, osMessage(error));
	const written = WRITE_CODES.has(code) && e.dest ? e.dest : undefined;
	const file = options.file ?? written ?? e.path ?? 'a file hfx was using (the system named none)';
	const doing =
		options.doing ??
		(written
			? `writing it (${e.syscall === 'copyfile' && e.path ? `a copy of ${e.path}` : (e.syscall ?? 'a write')})`
			: describeDoing(e));
	return new FailClosed({
		file,
		kind: options.kind ?? `errno-${code.toLowerCase()}`,
		reason: `${words.cause} (${code}) while ${doing}`,
		next: words.next,
		cause: error,
	});
}

/** Throws an errno error as its one-line refusal (fileRefusal); anything else (a bug) is thrown as it is. */
export function throwFileError(
	error: unknown,
	options: {file?: string; doing?: string; kind?: RefusalKind} = {},
): never {
	throw isErrnoError(error) ? fileRefusal(error, options) : error;
}

function describeDoing(e: Partial<ErrnoError>): string {
	const base = DOING[e.syscall ?? ''] ?? (e.syscall ? `${e.syscall}()` : 'using it');
	return e.dest && (e.syscall === 'copyfile' || e.syscall === 'rename' || e.syscall === 'link')
		? `${base} to ${e.dest}`
		: base;
}

/** The OS's message without Node's "CODE: " prefix and the quoted paths (the line names the file once). */
function osMessage(error: unknown): string {
	const m = /^[A-Z0-9]+: ([^,]+)/.exec(errorMessage(error));
	return m ? m[1]!.trim() : '';
}

/** Node/SQLite error code of an unknown error, if any. */
export function errorCode(error: unknown): string | undefined {
	if (error && typeof error === 'object' && 'code' in error && typeof (error as {code: unknown}).code === 'string') {
		const code = (error as {code: string}).code;
		if (code === '') {
			return codeOfStrerror(errorMessage(error));
		}

		// libuv has no name for some Linux errnos: Node then says "Unknown system error -122" (EDQUOT).
		return UNNAMED_ERRNO[code] ?? code;
	}

	return undefined;
}

/** Linux errnos libuv does not name, by Node's code for them. */
const UNNAMED_ERRNO: Readonly<Record<string, string>> = {
	'Unknown system error -122': 'EDQUOT',
	'Unknown system error -116': 'ESTALE',
};

/**
 * The system's own words for the codes Node's fs.rmSync leaves without a code (its message is ", Unknown error:
 * <strerror> 'path'").
 */
const STRERROR: ReadonlyArray<[string, string]> = [
	['Too many open files in system', 'ENFILE'],
	['Too many open files', 'EMFILE'],
	['No space left on device', 'ENOSPC'],
	['Disk quota exceeded', 'EDQUOT'],
	['Read-only file system', 'EROFS'],
	['Permission denied', 'EACCES'],
	['Operation not permitted', 'EPERM'],
	['Input/output error', 'EIO'],
	['Directory not empty', 'ENOTEMPTY'],
];

function codeOfStrerror(message: string): string | undefined {
	return STRERROR.find(([words]) => message.includes(`: ${words}`))?.[1];
}

export function errorMessage(error: unknown): string {
	return error instanceof Error ? error.message : String(error);
}
