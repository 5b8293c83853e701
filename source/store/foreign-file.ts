/**
 * Reading a file hfx did not create (a store, its sidecars, sessions.json, a config file, a /proc
 * entry, an archive): a regular file only, and a bounded read. The type is checked on the open
 * descriptor (fstat after an O_NONBLOCK open), so a FIFO swapped in between a check and the open
 * can neither block the open nor be read: a FIFO's reader waits for a writer forever, which froze
 * `hfx files` and the TUI (q and Ctrl-C were never read).
 */
import fs from 'node:fs';
import {FailClosed} from '../ground/errors.js';
import {createExclusive} from '../ground/safe-create.js';

/** The text of a symbolic link, or '?' when it cannot be read (gone meanwhile): for refusal lines. */
export function linkText(p: string): string {
	try {
		return fs.readlinkSync(p);
	} catch {
		return '?';
	}
}

/** What a file that is not a regular one is, in words. */
export function fileTypeName(st: fs.Stats): string {
	if (st.isSymbolicLink()) {
		return 'a symbolic link';
	}

	if (st.isFIFO()) {
		return 'a FIFO';
	}

	if (st.isSocket()) {
		return 'a socket';
	}

	if (st.isDirectory()) {
		return 'a directory';
	}

	return st.isCharacterDevice() || st.isBlockDevice() ? 'a device' : 'not a regular file';
}

export type ForeignOpen = {
	/** Refuse a symbolic link as the last component (O_NOFOLLOW): ELOOP. Default: follow. */
	noFollow?: boolean;
	/** What the file is to hfx, for the refusal ("the archive", "the store's -wal"). */
	what?: string;
};

/**
 * Opens `file` read-only without blocking and returns its descriptor and stats, or throws a
 * FailClosed (kind `not-a-file`) when the open descriptor is not a regular file. Errno errors
 * (ENOENT, EACCES, ELOOP under noFollow) are thrown as they are, for the caller to word.
 */
export function openForeign(file: string, options: ForeignOpen = {}): {fd: number; st: fs.Stats} {
	const flags = fs.constants.O_RDONLY | fs.constants.O_NONBLOCK | (options.noFollow ? fs.constants.O_NOFOLLOW : 0);
	const fd = fs.openSync(file, flags);
	let st: fs.Stats;
	try {
		st = fs.fstatSync(fd);
	} catch (error) {
		fs.closeSync(fd);
		throw error;
	}

	if (!st.isFile()) {
		fs.closeSync(fd);
		throw new FailClosed({
			file,
			kind: 'not-a-file',
			reason:
				`${fileTypeName(st)}, not a regular file: hfx does not ` +
				`read ${options.what ?? 'it'} (a FIFO or a device could block the read ` +
				`forever)`,
			next: 'move it aside or pass the regular file it stands for, then run hfx again',
		});
	}

	return {fd, st};
}

/**
 * The first bytes of a regular file, at most `maxBytes` (read until EOF: /proc files report size
 * 0). `truncated` says there was more.
 */
export function readForeign(
	file: string,
	options: ForeignOpen & {maxBytes: number},
): {bytes: Buffer; truncated: boolean; st: fs.Stats} {
	const {fd, st} = openForeign(file, options);
	try {
		const chunks: Buffer[] = [];
		let total = 0;
		for (;;) {
			const want = Math.min(65_536, options.maxBytes + 1 - total);
			if (want <= 0) {
				break;
			}

			const buf = Buffer.allocUnsafe(want);
			const n = fs.readSync(fd, buf, 0, want, null);
			if (n === 0) {
				break;
			}

			chunks.push(buf.subarray(0, n));
			total += n;
		}

		const bytes = Buffer.concat(chunks);
		return {bytes: bytes.subarray(0, options.maxBytes), truncated: bytes.length > options.maxBytes, st};
	} finally {
		fs.closeSync(fd);
	}
}

/** A small text file (a /proc entry) or '' when it cannot be read as a regular file. */
export function readForeignTextOrEmpty(file: string, maxBytes = 65_536): string {
	try {
		return readForeign(file, {maxBytes}).bytes.toString('utf8');
	} catch {
		return '';
	}
}

/**
 * Copies a regular file to a new file `dest` (created O_EXCL, 0600) in 1 MiB reads; the source is
 * opened as readForeign opens it (never a FIFO). Returns the bytes copied.
 */
/**
 * Runs a read or write of the copy by descriptor; its error names the files as a copyfile error
 * does (Node's errors of fd calls carry no path): the source, and for a write the destination.
 */
function withPath<T>(names: {path: string; dest?: string}, io: () => T): T {
	try {
		return io();
	} catch (error) {
		if (error && typeof error === 'object' && !('path' in error)) {
			Object.assign(error, names.dest ? {syscall: 'copyfile', ...names} : names);
		}

		throw error;
	}
}

export function copyForeign(src: string, dest: string, options: ForeignOpen = {}): number {
	const {fd} = openForeign(src, options);
	try {
		const out = createExclusive(dest, 0o600, 'a copy');
		try {
			const buf = Buffer.allocUnsafe(1 << 20);
			let total = 0;
			for (;;) {
				const n = withPath({path: src}, () => fs.readSync(fd, buf, 0, buf.length, null));
				if (n === 0) {
					return total;
				}

				let written = 0;
				while (written < n) {
					written += withPath({path: src, dest}, () => fs.writeSync(out, buf, written, n - written));
				}

				total += n;
			}
		} finally {
			fs.closeSync(out);
		}
	} finally {
		fs.closeSync(fd);
	}
}
