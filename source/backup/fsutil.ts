/**
 * Small durable-file helpers shared by the backup side: fsync of files and folders, hashing,
 * process liveness (for stale locks and debris), UTC stamps, and a registry of temp paths that
 * are removed on any exit, including Ctrl-C and SIGTERM (never on SIGKILL: the next run sweeps).
 */
import {sha256, randomHex} from '../crypto.js';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import {FailClosed, errorCode, errorMessage} from '../errors.js';
import {onInterruptOrExit} from '../interrupts.js';

/** fsync a folder so a rename inside it is durable (rename alone is atomic, not durable). */
export function fsyncDir(dir: string): void {
	let fd: number | undefined;
	try {
		fd = fs.openSync(dir, 'r');
		fs.fsyncSync(fd);
	} catch (error) {
		// Some filesystems refuse fsync on a directory (EINVAL); the rename is still atomic.
		if (errorCode(error) !== 'EINVAL' && errorCode(error) !== 'EBADF') {
			throw error;
		}
	} finally {
		if (fd !== undefined) {
			fs.closeSync(fd);
		}
	}
}

export function fsyncFile(file: string): void {
	const fd = fs.openSync(file, 'r');
	try {
		fs.fsyncSync(fd);
	} finally {
		fs.closeSync(fd);
	}
}

/** Writes a file under a temp name, fsyncs it, renames it into place and fsyncs the folder. */
export function writeFileDurable(file: string, data: string | Buffer, mode = 0o600): void {
	const temp = path.join(path.dirname(file), `.${path.basename(file)}.hfx-p${process.pid}.partial`);
	registerTemp(temp);
	try {
		const fd = fs.openSync(temp, 'w', mode);
		try {
			fs.writeFileSync(fd, data);
			fs.fsyncSync(fd);
		} finally {
			fs.closeSync(fd);
		}

		fs.chmodSync(temp, mode);
		fs.renameSync(temp, file);
	} catch (error) {
		fs.rmSync(temp, {force: true});
		throw error;
	} finally {
		unregisterTemp(temp);
	}

	fsyncDir(path.dirname(file));
}

export type Digest = {size: number; crc32: number; sha256: string};

/** A running CRC-32 + sha256 + byte count. */
export class Hasher {
	private readonly sha = sha256();
	crc = 0;
	size = 0;

	update(chunk: Buffer): void {
		this.sha.update(chunk);
		this.crc = zlib.crc32(chunk, this.crc);
		this.size += chunk.length;
	}

	digest(): Digest {
		return {size: this.size, crc32: this.crc >>> 0, sha256: this.sha.digest('hex')};
	}
}

/** Hashes a whole file with 1 MiB reads. Only for files this process holds no SQLite connection to. */
export function digestFile(file: string, onBytes?: (n: number) => void): Digest {
	const hasher = new Hasher();
	const fd = fs.openSync(file, 'r');
	try {
		const buf = Buffer.allocUnsafe(1 << 20);
		let pos = 0;
		for (;;) {
			const n = fs.readSync(fd, buf, 0, buf.length, pos);
			if (n <= 0) {
				break;
			}

			hasher.update(buf.subarray(0, n));
			pos += n;
			onBytes?.(n);
		}
	} finally {
		fs.closeSync(fd);
	}

	return hasher.digest();
}

export function crcHex(crc: number): string {
	return (crc >>> 0).toString(16).padStart(8, '0');
}

/** Field 22 of /proc/PID/stat (start time in clock ticks): tells a live pid from a reused one. */
export function processStartTicks(pid: number): string | null {
	try {
		const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
		const after = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
		return after[19] ?? null;
	} catch {
		return null;
	}
}

export function isPidAlive(pid: number): boolean {
	if (!Number.isInteger(pid) || pid <= 0) {
		return false;
	}

	try {
		process.kill(pid, 0);
		return true;
	} catch (error) {
		return errorCode(error) === 'EPERM';
	}
}

/** UTC "YYYYmmdd-HHMMSS", the stamp Hermes uses for snapshots. */
export function utcStamp(date = new Date()): string {
	return date.toISOString().replaceAll(/[-:]/g, '').replace('T', '-').slice(0, 15);
}

/** Parses a stamp written by utcStamp back to epoch seconds (null when the name carries none). */
export function parseStamp(text: string): number | null {
	const m = /(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(\d{2})/.exec(text);
	if (!m) {
		return null;
	}

	const t = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]));
	return Number.isFinite(t) ? t / 1000 : null;
}

// ---------------------------------------------------------------------------------------------
// Temp paths removed on exit and on SIGINT/SIGTERM/SIGHUP, through the project's one signal
// policy (source/interrupts.ts: a signal inside a critical section waits for it to end).

const temps = new Set<string>();
let hooked = false;

function cleanupTemps(): void {
	for (const p of [...temps]) {
		try {
			fs.rmSync(p, {recursive: true, force: true});
		} catch {
			// best effort on the way out
		}
	}

	temps.clear();
}

function installHooks(): void {
	if (!hooked) {
		hooked = true;
		onInterruptOrExit(cleanupTemps);
	}
}

export function registerTemp(p: string): void {
	installHooks();
	temps.add(p);
}

export function unregisterTemp(p: string): void {
	temps.delete(p);
}

/** A hook run on exit/signal (e.g. releasing a lock file). Returns the remover. */
export function onExit(hook: () => void): () => void {
	return onInterruptOrExit(hook);
}

export function removeTemp(p: string): void {
	fs.rmSync(p, {recursive: true, force: true});
	temps.delete(p);
}

/**
 * Removes debris of earlier runs that were killed with SIGKILL: `.hfx-*` temp names that embed
 * the pid of a process that no longer runs. Returns the removed names.
 */
export function sweepDebris(dir: string): string[] {
	let names: string[];
	try {
		names = fs.readdirSync(dir);
	} catch {
		return [];
	}

	const removed: string[] = [];
	for (const name of names) {
		const m = /^\.hfx-.*?[.-]p(\d+)[.-]/.exec(name) ?? /^\..*\.hfx-p(\d+)\.partial$/.exec(name);
		if (!m || !name.endsWith('.partial')) {
			continue;
		}

		const pid = Number(m[1]);
		if (pid === process.pid || isPidAlive(pid)) {
			continue;
		}

		fs.rmSync(path.join(dir, name), {recursive: true, force: true});
		removed.push(name);
	}

	return removed;
}

/** A temp name in `dir` that sweepDebris recognises: `.hfx-<what>.p<pid>.<rand>.partial`. */
export function tempPath(dir: string, what: string): string {
	return path.join(dir, `.hfx-${what}.p${process.pid}.${randomHex(4)}.partial`);
}

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
