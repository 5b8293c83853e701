/**
 * The `-shm` (wal-index) header: what the owner's SQLite currently considers committed (mxFrame),
 * already checkpointed (nBackfill) and pinned by readers (read marks) (docs/sqlite-wal.md, shm).
 *
 * Why a child process: POSIX locks belong to the process, and any `open()`+`close()` of `-shm` or
 * the main file here would silently drop the locks our own SQLite connection holds on them
 * (docs/sqlite-wal.md, posix-locks; worker_threads share the process, so they do not help). The
 * child (`head`) holds no SQLite connection, so its plain reads are harmless. This module never
 * opens those files itself; it only stat()s the -shm, which opens nothing.
 */
import {type ChildProcess, type ExecFileException, execFile} from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {type DbHeader, hasSqliteMagic, parseDbHeader} from '../db-header.js';
import {walChecksum} from '../wal/wal.js';

export const SHM_HEADER_BYTES = 136;
const READ_MARK_UNUSED = 0xff_ff_ff_ff;

export type ShmHeader = {
	/** The byte order the header was decoded with (the -shm is native order; the host's unless told otherwise). */
	byteOrder: 'le' | 'be';
	iVersion: number;
	/** Bumped by every transaction that changes the wal-index. */
	iChange: number;
	/** 1 once initialized; 0 while a connection runs recovery. */
	isInit: number;
	/** 1 when the WAL uses big-endian checksums (magic 0x377f0683). */
	bigEndCksum: number;
	/** As stored: 1 means 65536. */
	szPage: number;
	pageSize: number;
	/** Last committed frame: what a new reader would see. */
	mxFrame: number;
	/** Database size in pages after that commit. */
	nPage: number;
	/** Running WAL checksum after frame mxFrame. */
	frameChecksum: [number, number];
	/** Raw copies of WAL header bytes 16..23, read big-endian: equal to the WAL header's salt1/salt2. */
	salt1: number;
	salt2: number;
	checksum: [number, number];
	/** aCksum matches bytes 0..39 (native-order WAL checksum). */
	checksumValid: boolean;
	/** Bytes 0..47 equal their second copy at 48..95 (a writer was not mid-update). */
	copiesEqual: boolean;
	/** copiesEqual, isInit == 1 and checksumValid: what SQLite's walIndexTryHdr demands before trusting it. */
	consistent: boolean;
	/** Frames already copied into the main file. */
	nBackfill: number;
	/** read-mark[0..4]; null = unused (0xFFFFFFFF). A reader on mark N uses the WAL up to that frame. */
	readMarks: Array<number | null>;
	/** Frames a checkpointer attempted to copy. */
	nBackfillAttempted: number;
};

/** Decodes the first 136 bytes of `-shm`. Pure; throws only when fewer than 136 bytes are given. */
export function parseShmHeader(buf: Buffer, options: {littleEndian?: boolean} = {}): ShmHeader {
	if (buf.length < SHM_HEADER_BYTES) {
		throw new RangeError(`-shm header needs ${SHM_HEADER_BYTES} bytes, got ${buf.length}`);
	}

	const le = options.littleEndian ?? os.endianness() === 'LE';
	const u32 = (o: number) => (le ? buf.readUInt32LE(o) : buf.readUInt32BE(o));
	const u16 = (o: number) => (le ? buf.readUInt16LE(o) : buf.readUInt16BE(o));
	const szPage = u16(14);
	const checksum: [number, number] = [u32(40), u32(44)];
	const [c0, c1] = walChecksum(Buffer.from(buf.subarray(0, 40)), le);
	const isInit = buf[12]!;
	const checksumValid = c0 === checksum[0] && c1 === checksum[1];
	const copiesEqual = buf.subarray(0, 48).equals(buf.subarray(48, 96));
	const readMarks: Array<number | null> = [];
	for (let i = 0; i < 5; i++) {
		const mark = u32(100 + i * 4);
		readMarks.push(mark === READ_MARK_UNUSED ? null : mark);
	}

	return {
		byteOrder: le ? 'le' : 'be',
		iVersion: u32(0),
		iChange: u32(8),
		isInit,
		bigEndCksum: buf[13]!,
		szPage,
		pageSize: szPage === 1 ? 65_536 : szPage,
		mxFrame: u32(16),
		nPage: u32(20),
		frameChecksum: [u32(24), u32(28)],
		salt1: buf.readUInt32BE(32),
		salt2: buf.readUInt32BE(36),
		checksum,
		checksumValid,
		copiesEqual,
		consistent: copiesEqual && isInit === 1 && checksumValid,
		nBackfill: u32(96),
		readMarks,
		nBackfillAttempted: u32(128),
	};
}

// ---------------------------------------------------------------------------------------------
// Reading through `head`

/** What one read of a file's first bytes gave. */
type PrefixRead = {bytes: Buffer | null; missing: boolean; error: string | null};

export type ShmRead = {
	/** Null when there is no -shm (no live connection) or it could not be read. */
	shm: ShmHeader | null;
	/** The main file's 100-byte header: sqliteVersionNumber is the version of the last writer. */
	dbHeader: DbHeader | null;
	/**
	 * What went wrong, if anything, e.g. "shm-unstable" (never consistent across the retries; shm is still returned),
	 * "timeout".
	 */
	error: string | null;
	/** Reads of the -shm header needed until it was consistent. */
	attempts: number;
};

export type ShmReaderOptions = {
	/** Per read, retries included (default 3000 ms). */
	timeoutMs?: number;
	/**
	 * The program that prints a file's first bytes, called as `PROGRAM... -c N -- FILE` (default
	 * `head`). Tests substitute one that hangs.
	 */
	headCommand?: readonly string[];
};

/** Like SQLite's walIndexTryHdr: a header caught mid-update is read again after a short pause. */
const BACKOFF_MS = [0, 1, 2, 4, 8, 16, 32, 64];

function sleep(ms: number): Promise<void> {
	return new Promise(resolve => {
		setTimeout(resolve, ms);
	});
}

/** head's message for a file it could not read, as an errno-style tag. */
function headError(stderr: string): string {
	if (/No such file/i.test(stderr)) {
		return 'ENOENT';
	}

	if (/Permission denied/i.test(stderr)) {
		return 'EACCES';
	}

	if (/Is a directory/i.test(stderr)) {
		return 'EISDIR';
	}

	return `read-failed: ${stderr.trim().split('\n')[0] || 'unknown error'}`;
}

/**
 * Reads `-shm` and main-file headers in short-lived child processes: `head -c N -- FILE`, one per
 * file and attempt (about a millisecond each). Nothing stays resident between reads: a forked
 * Node reader used to cost ~40 MB while it lived. A read that outlives `timeoutMs` has its child
 * killed and says "timeout".
 */
export class ShmReader {
	private readonly timeoutMs: number;
	private readonly headCommand: readonly string[];
	private readonly running = new Set<ChildProcess>();
	private closed = false;
	/** Pid of the last child started (for tests: it must be another process, and gone after the read). */
	lastChildPid: number | undefined;
	/** Children started so far (for tests: what a reading costs). */
	childrenStarted = 0;

	constructor(options: ShmReaderOptions = {}) {
		this.timeoutMs = options.timeoutMs ?? 3000;
		this.headCommand = options.headCommand ?? ['head'];
	}

	async read(dbPath: string): Promise<ShmRead> {
		if (this.closed) {
			return {shm: null, dbHeader: null, error: 'closed', attempts: 0};
		}

		const file = path.resolve(dbPath);
		const deadline = Date.now() + this.timeoutMs;
		const errors: string[] = [];

		// The -shm: stat (which opens nothing) tells a store without one from one we cannot read.
		let shm: ShmHeader | null = null;
		let attempts = 0;
		let shmMissing = false;
		try {
			fs.statSync(`${file}-shm`);
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
				shmMissing = true;
			} else {
				errors.push((error as NodeJS.ErrnoException).code ?? String(error));
			}
		}

		if (!shmMissing && errors.length === 0) {
			let last: Buffer = Buffer.alloc(0);
			let failure: string | null = null;
			for (const delay of BACKOFF_MS) {
				if (delay > 0) {
					await sleep(delay);
				}

				attempts++;
				const r = await this.prefix(`${file}-shm`, SHM_HEADER_BYTES, deadline);
				if (r.missing) {
					// Removed in between: the owner closed its last connection.
					shmMissing = true;
					break;
				}

				if (r.error !== null || r.bytes === null) {
					failure = r.error ?? 'no bytes';
					break;
				}

				last = r.bytes;
				// Short: a connection is re-initializing it (SQLite truncates -shm to 3 bytes during recovery).
				if (last.length === SHM_HEADER_BYTES && parseShmHeader(last).consistent) {
					break;
				}
			}

			if (failure !== null) {
				errors.push(failure);
			} else if (!shmMissing) {
				if (last.length < SHM_HEADER_BYTES) {
					errors.push(`shm-short: ${last.length} bytes`);
				} else {
					shm = parseShmHeader(last);
					if (!shm.consistent) {
						errors.push('shm-unstable');
					}
				}
			}
		}

		let dbHeader: DbHeader | null = null;
		const db = await this.prefix(file, 100, deadline);
		if (db.bytes !== null && db.error === null) {
			if (db.bytes.length >= 100 && hasSqliteMagic(db.bytes)) {
				dbHeader = parseDbHeader(db.bytes);
			} else {
				errors.push(db.bytes.length < 100 ? `db-short: ${db.bytes.length} bytes` : 'db-not-sqlite');
			}
		} else {
			errors.push(`db: ${db.missing ? 'ENOENT' : (db.error ?? 'no bytes')}`);
		}

		return {shm, dbHeader, error: errors.length > 0 ? errors.join('; ') : null, attempts};
	}

	/** Kills any child still running; later reads answer "closed". */
	async close(): Promise<void> {
		this.closed = true;
		for (const child of this.running) {
			child.kill('SIGKILL');
		}

		this.running.clear();
	}

	/** The first `bytes` of `file`, read by a child process. */
	private async prefix(file: string, bytes: number, deadline: number): Promise<PrefixRead> {
		const left = deadline - Date.now();
		if (left <= 0) {
			return {bytes: null, missing: false, error: `timeout: the -shm reader took more than ${this.timeoutMs} ms`};
		}

		const [program, ...args] = this.headCommand;
		return new Promise<PrefixRead>(resolve => {
			let child: ChildProcess;
			try {
				child = execFile(
					program!,
					[...args, '-c', String(bytes), '--', file],
					{encoding: 'buffer', timeout: left, killSignal: 'SIGKILL', maxBuffer: bytes + 4096},
					(error, stdout, stderr) => {
						this.running.delete(child);
						if (!error) {
							resolve({bytes: stdout.subarray(0, bytes), missing: false, error: null});
							return;
						}

						const failed = error as ExecFileException;
						if (failed.killed || failed.signal === 'SIGKILL') {
							resolve({
								bytes: null,
								missing: false,
								error: this.closed ? 'closed' : `timeout: the -shm reader took more than ${this.timeoutMs} ms`,
							});
							return;
						}

						if (failed.code === 'ENOENT' && typeof failed.path === 'string') {
							resolve({bytes: null, missing: false, error: `reader-unavailable: ${program} not found`});
							return;
						}

						const tag = headError(stderr.toString());
						resolve({bytes: null, missing: tag === 'ENOENT', error: tag === 'ENOENT' ? null : tag});
					},
				);
			} catch (error) {
				resolve({
					bytes: null,
					missing: false,
					error: `reader-unavailable: ${error instanceof Error ? error.message : String(error)}`,
				});
				return;
			}

			this.lastChildPid = child.pid;
			this.childrenStarted++;
			this.running.add(child);
		});
	}
}
