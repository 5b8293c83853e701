/**
 * The `-shm` (wal-index) header: what the owner's SQLite currently considers committed (mxFrame),
 * already checkpointed (nBackfill) and pinned by readers (read marks) (sqlite-wal.md §1.7).
 *
 * Why a child process: POSIX locks belong to the process, and any `open()`+`close()` of `-shm` or
 * the main file here would silently drop the locks our own SQLite connection holds on them (rule 4,
 * H3; worker_threads share the process, so they do not help). The child holds no SQLite
 * connection, so its plain reads are harmless. This module never opens those files itself.
 */
import {type ChildProcess, fork} from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import {type DbHeader, hasSqliteMagic, parseDbHeader} from './db-header.js';
import {walChecksum} from './wal.js';
import {distFile} from '../paths.js';

export const SHM_HEADER_BYTES = 136;
const READ_MARK_UNUSED = 0xFF_FF_FF_FF;

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
// IPC with shm-child.js

export type ShmChildRequest = {id: number; dbPath: string};

export type ShmChildFile = {
	/** Base64 of the bytes read, or null. */
	bytes: string | null;
	/** ENOENT: the file does not exist (not an error for -shm). */
	missing: boolean;
	/** An OS error code or a short tag; null when the bytes are usable. */
	error: string | null;
};

export type ShmChildReply = {id: number; shm: ShmChildFile; db: ShmChildFile; attempts: number};

export type ShmRead = {
	/** Null when there is no -shm (no live connection) or it could not be read. */
	shm: ShmHeader | null;
	/** The main file's 100-byte header: sqliteVersionNumber is the version of the last writer. */
	dbHeader: DbHeader | null;
	/** What went wrong, if anything, e.g. "shm-unstable" (never consistent across the retries; shm is still returned), "timeout". */
	error: string | null;
	/** Reads of the -shm header the child needed until it was consistent. */
	attempts: number;
};

export type ShmReaderOptions = {
	/** Per read, including the child's retries (default 3000 ms). */
	timeoutMs?: number;
	/** Path of the compiled child script (default: shm-child.js beside this module, or dist/ when running from source). */
	childScript?: string;
	/**
	 * An idle child exits after this long without a read (default 5000 ms): the TUI reads every
	 * 15 s while the Files pane is hidden, and a resident Node child would cost ~40 MB RSS for it.
	 */
	idleExitMs?: number;
};

/** The compiled child script (dist/store/shm-child.js), for the bundle, dist/ and the sources alike. */
export function defaultShmChildScript(): string {
	return distFile('store/shm-child.js');
}

type Pending = {resolve: (r: ShmRead) => void; timer: NodeJS.Timeout; child: ChildProcess};

function decodeReply(reply: ShmChildReply): ShmRead {
	const errors: string[] = [];
	let shm: ShmHeader | null = null;
	if (reply.shm.bytes !== null) {
		const raw = Buffer.from(reply.shm.bytes, 'base64');
		if (raw.length < SHM_HEADER_BYTES) {
			errors.push(`shm-short: ${raw.length} bytes`);
		} else {
			shm = parseShmHeader(raw);
		}
	}

	if (reply.shm.error) {
		errors.push(reply.shm.error);
	}

	let dbHeader: DbHeader | null = null;
	if (reply.db.bytes !== null) {
		const raw = Buffer.from(reply.db.bytes, 'base64');
		if (raw.length >= 100 && hasSqliteMagic(raw)) {
			dbHeader = parseDbHeader(raw);
		} else {
			errors.push(raw.length < 100 ? `db-short: ${raw.length} bytes` : 'db-not-sqlite');
		}
	}

	if (reply.db.error) {
		errors.push(`db: ${reply.db.error}`);
	}

	return {shm, dbHeader, error: errors.length > 0 ? errors.join('; ') : null, attempts: reply.attempts};
}

/**
 * Reads `-shm` and main-file headers through one long-lived child process (forked lazily).
 * A read that times out kills the child; the next read forks a fresh one. A child left idle
 * for `idleExitMs` is ended, and the next read forks a fresh one.
 */
export class ShmReader {
	private child: ChildProcess | null = null;
	private nextId = 1;
	private readonly pending = new Map<number, Pending>();
	private readonly timeoutMs: number;
	private readonly childScript: string | undefined;
	private readonly idleExitMs: number;
	private idleTimer: NodeJS.Timeout | undefined;

	constructor(options: ShmReaderOptions = {}) {
		this.timeoutMs = options.timeoutMs ?? 3000;
		this.childScript = options.childScript;
		this.idleExitMs = options.idleExitMs ?? 5000;
	}

	/** Pid of the current child, if one is running (for tests and diagnostics). */
	get childPid(): number | undefined {
		return this.child?.pid;
	}

	async read(dbPath: string): Promise<ShmRead> {
		let child: ChildProcess;
		try {
			child = this.ensureChild();
		} catch (error) {
			return {shm: null, dbHeader: null, error: `child-unavailable: ${error instanceof Error ? error.message : String(error)}`, attempts: 0};
		}

		const id = this.nextId++;
		return new Promise<ShmRead>(resolve => {
			const timer = setTimeout(() => {
				this.settle(id, {shm: null, dbHeader: null, error: `timeout: no answer from the -shm reader within ${this.timeoutMs} ms`, attempts: 0});
				this.kill(child);
			}, this.timeoutMs);
			this.pending.set(id, {resolve, timer, child});
			this.updateRef();
			const request: ShmChildRequest = {id, dbPath: path.resolve(dbPath)};
			child.send(request, error => {
				if (error) {
					this.settle(id, {shm: null, dbHeader: null, error: `child-send: ${error.message}`, attempts: 0});
				}
			});
		});
	}

	/** Ends the child; pending reads resolve with error "closed". */
	async close(): Promise<void> {
		clearTimeout(this.idleTimer);
		this.idleTimer = undefined;
		const child = this.child;
		this.failAll(child, 'closed');
		if (!child) {
			return;
		}

		this.child = null;
		if (child.exitCode !== null || child.signalCode !== null) {
			return;
		}

		const gone = new Promise<void>(resolve => {
			child.once('exit', () => {
				resolve();
			});
		});
		// An unref'd child would let the process end before 'exit' arrives, and close() never return.
		child.ref();
		child.kill();
		await gone;
	}

	private ensureChild(): ChildProcess {
		if (this.child) {
			return this.child;
		}

		const script = this.childScript ?? defaultShmChildScript();
		// execArgv: [] so the child does not inherit loaders or --inspect from the parent (vitest, debuggers).
		const child = fork(script, [], {execArgv: [], stdio: ['ignore', 'ignore', 'ignore', 'ipc'], serialization: 'json'});
		child.on('message', (message: ShmChildReply) => {
			if (message && typeof message.id === 'number') {
				this.settle(message.id, decodeReply(message));
			}
		});
		child.on('error', error => {
			this.failAll(child, `child-error: ${error.message}`);
		});
		child.on('exit', (code, signal) => {
			if (this.child === child) {
				this.child = null;
			}

			this.failAll(child, `child-exited: code ${code ?? '-'}, signal ${signal ?? '-'}`);
		});
		this.child = child;
		this.updateRef();
		return child;
	}

	private settle(id: number, result: ShmRead): void {
		const p = this.pending.get(id);
		if (!p) {
			return;
		}

		this.pending.delete(id);
		clearTimeout(p.timer);
		p.resolve(result);
		this.updateRef();
	}

	private failAll(child: ChildProcess | null, error: string): void {
		for (const [id, p] of this.pending) {
			if (child === null || p.child === child) {
				this.settle(id, {shm: null, dbHeader: null, error, attempts: 0});
			}
		}
	}

	private kill(child: ChildProcess): void {
		if (this.child === child) {
			this.child = null;
		}

		this.failAll(child, 'child-killed');
		child.kill('SIGKILL');
	}

	/**
	 * An idle child must not keep a CLI alive (a pending read is kept alive by its timer), and
	 * ends itself after `idleExitMs` without a read.
	 */
	private updateRef(): void {
		clearTimeout(this.idleTimer);
		this.idleTimer = undefined;
		const child = this.child;
		if (!child) {
			return;
		}

		const channel = child.channel as undefined | {ref(): void; unref(): void};
		if (this.pending.size > 0) {
			child.ref();
			channel?.ref();
		} else {
			child.unref();
			channel?.unref();
			this.idleTimer = setTimeout(() => {
				if (this.child === child && this.pending.size === 0) {
					this.child = null;
					child.kill();
				}
			}, this.idleExitMs);
			this.idleTimer.unref();
		}
	}
}
