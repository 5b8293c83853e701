/**
 * The `-wal` file, read the way SQLite's own recovery reads it (sqlite-wal.md §1.2–1.6, App. A).
 *
 * Why parse it ourselves: SQLite never reports a broken checksum chain. Recovery stops at the first
 * bad frame and everything after it, committed or not, silently stops existing (§1.8). Only a raw
 * scan can show what is pending a checkpoint, what a live writer has spilled but not committed,
 * and which committed-looking frames SQLite will ignore.
 *
 * Reading `-wal` with plain file I/O inside a process that holds a SQLite connection is safe:
 * SQLite takes no POSIX locks on it (rule 4). Nothing here ever writes.
 */
import fs from 'node:fs';
import os from 'node:os';
import {errorCode} from '../errors.js';

export const WAL_MAGIC_LE = 0x37_7F_06_82;
export const WAL_MAGIC_BE = 0x37_7F_06_83;
export const WAL_FORMAT_VERSION = 3_007_000;
export const WAL_HEADER_BYTES = 32;
export const WAL_FRAME_HEADER_BYTES = 24;

const HOST_LE = os.endianness() === 'LE';
const DEFAULT_RECENT_COMMITS = 16;

/**
 * ok: a WAL SQLite would use. no-file/empty: nothing to replay (empty is normal right after a
 * TRUNCATE checkpoint). too-short, bad-magic, bad-version, bad-page-size: SQLite ignores the file.
 * header-checksum-mismatch: the header is rewritten in place at every WAL reset, so a reader can
 * catch it half-written; read again shortly before calling it damage (§1.6).
 */
export type WalState = 'ok' | 'no-file' | 'empty' | 'too-short' | 'bad-magic' | 'bad-version' | 'bad-page-size' | 'header-checksum-mismatch';

export type WalHeader = {
	magic: number;
	/** Byte order of the checksum words (the magic's low bit); header fields are always big-endian. */
	checksumOrder: 'le' | 'be';
	formatVersion: number;
	/** Literal bytes: the WAL stores 65536 as is (the db header and -shm use 1). */
	pageSize: number;
	/** +1 at every WAL reset: counts WAL generations. */
	checkpointSequence: number;
	salt1: number;
	salt2: number;
	checksum1: number;
	checksum2: number;
	checksumValid: boolean;
};

export type WalHeaderParse = {state: WalState; header: WalHeader | null};

/** Why the valid prefix ended. SQLite's walDecodeFrame rejects a frame for exactly these. */
export type FrameBreak = 'salt-mismatch' | 'page-number-zero' | 'checksum-mismatch';

export type WalCommit = {
	/** 1-based index of the commit frame. */
	frame: number;
	/** Frames written by this transaction (its commit frame included). */
	frames: number;
	/** Distinct pages among them (fewer than frames when a page was written twice). */
	pages: number;
	/** Database size in pages after this commit. */
	dbSize: number;
};

export type WalScan = {
	state: WalState;
	/** The header looked half-written: scan again shortly (not corruption unless it persists). */
	retry: boolean;
	header: WalHeader | null;
	fileSize: number;
	pageSize: number;
	/** 24 + pageSize, or 0 without a usable header. */
	frameSize: number;
	/** Whole frame slots in the file, valid or not. */
	frameSlots: number;
	/** Bytes after the last whole slot: a frame being appended, or a truncated file. */
	partialTailBytes: number;
	/** The valid prefix: frames SQLite's recovery accepts (1..validFrames). */
	validFrames: number;
	/** Commit frames in the valid prefix = transactions. */
	commitFrames: number;
	/** Last valid commit frame (0: none) = what `-shm` mxFrame says for a healthy live store. */
	lastCommitFrame: number;
	/** Database size in pages after the last valid commit (0: none). */
	dbSize: number;
	/** 1-based slot of the first invalid frame; 0 when every whole slot is valid. */
	breakAt: number;
	breakReason: FrameBreak | null;

	/** The nBackfill used for the classes below (from `-shm`), or null when unknown. */
	nBackfill: number | null;
	/** Frames 1..nBackfill: already copied into the main file (clamped to lastCommitFrame). */
	checkpointedFrames: number | null;
	/** Frames nBackfill+1..lastCommitFrame: committed, visible, living only in the WAL. */
	pendingCheckpointFrames: number | null;
	/** nBackfill beyond the last valid commit: the -shm describes frames this WAL does not validly hold. */
	nBackfillBeyondCommit: boolean;
	/**
	 * Valid frames after the last commit: a live writer's open transaction that spilled to the WAL,
	 * or the leftovers of one that crashed (recovery discards them). Such a transaction can go on
	 * past the break as invalidTail (a page it rewrote in place) and unsealedFrames.
	 */
	inFlightFrames: number;
	/**
	 * Slots from breakAt on that carry the current salts: written in this generation, yet invisible
	 * to SQLite. Damage, a torn append, or a page an open transaction rewrote in place (its
	 * checksum is redone at COMMIT).
	 */
	invalidTailFrames: number;
	/** Commit frames among them. Non-zero = committed transactions SQLite silently ignores (W5). */
	invalidTailCommitFrames: number;
	/**
	 * Slots of an open transaction still waiting for their checksums: once a transaction rewrites a
	 * page it already spilled (in place), SQLite writes its further frames with zero salts and
	 * checksums and fills them in at COMMIT (wal.c walEncodeFrame, iReCksum). In flight, not damage.
	 */
	unsealedFrames: number;
	/** Slots with other salts: older WAL generations (never pending; may hold old page versions). */
	staleFrames: number;
	/**
	 * Data that SQLite silently does not see: a commit frame with the current salts after the break.
	 * A rolled-back or still-open transaction can leave current-salt frames after a break too, but
	 * never a commit frame, so those alone do not raise this.
	 */
	silentlyInvisible: boolean;
	/** The last commits of the valid prefix, oldest first (at most `recentCommits`). */
	recentCommits: WalCommit[];
};

export type ScanOptions = {
	/** `-shm` nBackfill, to split committed frames into checkpointed / pending. Only meaningful when the -shm salts equal this WAL's. */
	nBackfill?: number | null;
	/** How many recent commits to keep in `recentCommits` (default 16). */
	recentCommits?: number;
};

// ---------------------------------------------------------------------------------------------
// Checksum (§1.4): pairs of u32 words in the magic's byte order, s0 += a + s1; s1 += b + s0.

/**
 * Sums words of one buffer. The fast path reads through an Int32Array view when the buffer is
 * 4-aligned and the checksum order is the host's (~1 GB/s vs ~180 MB/s with readUInt32, §4.2); a
 * byte-swapping view covers the other order; DataView covers unaligned buffers.
 * Arithmetic stays in int32 (`| 0` is mod 2^32); compare with `>>> 0`.
 */
class Summer {
	s0 = 0;
	s1 = 0;
	private readonly words: Int32Array | null;
	private readonly view: DataView;
	private readonly swap: boolean;

	constructor(buf: Buffer, private readonly littleEndian: boolean) {
		this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
		this.words = (buf.byteOffset & 3) === 0 ? new Int32Array(buf.buffer, buf.byteOffset, buf.byteLength >>> 2) : null;
		this.swap = HOST_LE !== littleEndian;
	}

	/** Continues the running sum over buf[offset, offset+length); length is a multiple of 8. */
	run(offset: number, length: number): void {
		let s0 = this.s0;
		let s1 = this.s1;
		const w = this.words;
		if (w && (offset & 3) === 0) {
			const end = (offset + length) >>> 2;
			if (this.swap) {
				for (let i = offset >>> 2; i < end; i += 2) {
					const a = w[i]!;
					const b = w[i + 1]!;
					s0 = (s0 + ((a << 24) | ((a & 0xFF_00) << 8) | ((a >>> 8) & 0xFF_00) | (a >>> 24)) + s1) | 0;
					s1 = (s1 + ((b << 24) | ((b & 0xFF_00) << 8) | ((b >>> 8) & 0xFF_00) | (b >>> 24)) + s0) | 0;
				}
			} else {
				for (let i = offset >>> 2; i < end; i += 2) {
					s0 = (s0 + w[i]! + s1) | 0;
					s1 = (s1 + w[i + 1]! + s0) | 0;
				}
			}
		} else {
			const v = this.view;
			const le = this.littleEndian;
			const end = offset + length;
			for (let o = offset; o < end; o += 8) {
				s0 = (s0 + v.getInt32(o, le) + s1) | 0;
				s1 = (s1 + v.getInt32(o + 4, le) + s0) | 0;
			}
		}

		this.s0 = s0;
		this.s1 = s1;
	}
}

/**
 * The WAL checksum of a whole buffer (length a multiple of 8), continuing from (s0, s1).
 * Also used for the -shm header, which SQLite sums in native byte order.
 */
export function walChecksum(buf: Buffer, littleEndian: boolean, s0 = 0, s1 = 0): [number, number] {
	const summer = new Summer(buf, littleEndian);
	summer.s0 = s0 | 0;
	summer.s1 = s1 | 0;
	summer.run(0, buf.length - (buf.length % 8));
	return [summer.s0 >>> 0, summer.s1 >>> 0];
}

// ---------------------------------------------------------------------------------------------
// Header

function isValidPageSize(n: number): boolean {
	return n >= 512 && n <= 65_536 && (n & (n - 1)) === 0;
}

/** Parses the 32-byte header. `header` is null when there is nothing to parse (empty, too short, not a WAL). */
export function parseWalHeader(buf: Buffer): WalHeaderParse {
	if (buf.length === 0) {
		return {state: 'empty', header: null};
	}

	if (buf.length < WAL_HEADER_BYTES) {
		return {state: 'too-short', header: null};
	}

	const magic = buf.readUInt32BE(0);
	if (magic !== WAL_MAGIC_LE && magic !== WAL_MAGIC_BE) {
		return {state: 'bad-magic', header: null};
	}

	const littleEndian = magic === WAL_MAGIC_LE;
	const summer = new Summer(buf.subarray(0, 24), littleEndian);
	summer.run(0, 24);
	const checksum1 = buf.readUInt32BE(24);
	const checksum2 = buf.readUInt32BE(28);
	const header: WalHeader = {
		magic,
		checksumOrder: littleEndian ? 'le' : 'be',
		formatVersion: buf.readUInt32BE(4),
		pageSize: buf.readUInt32BE(8),
		checkpointSequence: buf.readUInt32BE(12),
		salt1: buf.readUInt32BE(16),
		salt2: buf.readUInt32BE(20),
		checksum1,
		checksum2,
		checksumValid: summer.s0 >>> 0 === checksum1 && summer.s1 >>> 0 === checksum2,
	};
	// Version and page size before the checksum: a torn header (reset in progress) differs only in
	// sequence, salts and checksum, so those two being wrong means "not a WAL SQLite would use".
	if (header.formatVersion !== WAL_FORMAT_VERSION) {
		return {state: 'bad-version', header};
	}

	if (!isValidPageSize(header.pageSize)) {
		return {state: 'bad-page-size', header};
	}

	return {state: header.checksumValid ? 'ok' : 'header-checksum-mismatch', header};
}

/** Byte offset of frame k (1-based). */
export function walFrameOffset(k: number, pageSize: number): number {
	return WAL_HEADER_BYTES + (k - 1) * (WAL_FRAME_HEADER_BYTES + pageSize);
}

// ---------------------------------------------------------------------------------------------
// The frame walk, shared by scanWal (one buffer) and WalTail (chunks of a file).

/** Everything needed to continue the walk at the next frame. */
type Cursor = {
	validFrames: number;
	s0: number;
	s1: number;
	commitFrames: number;
	lastCommitFrame: number;
	dbSize: number;
	/** Chain state right after the last commit frame: where a tailer resumes. */
	commitS0: number;
	commitS1: number;
	txFrames: number;
	txPages: Set<number>;
	commits: WalCommit[];
};

type Walk = {
	header: WalHeader;
	littleEndian: boolean;
	pageSize: number;
	frameSize: number;
	recentLimit: number;
	cursor: Cursor;
	breakAt: number;
	breakReason: FrameBreak | null;
	invalidTail: number;
	invalidTailCommits: number;
	unsealed: number;
	stale: number;
};

function startCursor(header: WalHeader): Cursor {
	return {
		validFrames: 0,
		s0: header.checksum1 | 0,
		s1: header.checksum2 | 0,
		commitFrames: 0,
		lastCommitFrame: 0,
		dbSize: 0,
		commitS0: header.checksum1 | 0,
		commitS1: header.checksum2 | 0,
		txFrames: 0,
		txPages: new Set(),
		commits: [],
	};
}

function newWalk(header: WalHeader, recentLimit: number, cursor: Cursor): Walk {
	return {
		header,
		littleEndian: header.checksumOrder === 'le',
		pageSize: header.pageSize,
		frameSize: WAL_FRAME_HEADER_BYTES + header.pageSize,
		recentLimit,
		cursor,
		breakAt: 0,
		breakReason: null,
		invalidTail: 0,
		invalidTailCommits: 0,
		unsealed: 0,
		stale: 0,
	};
}

/**
 * Validates `count` whole frames of `buf` starting at byte `start` (slot validFrames+1 onward).
 * Stops at the first invalid frame and records the break; returns the frames validated.
 */
function verifyFrames(walk: Walk, buf: Buffer, start: number, count: number): number {
	const c = walk.cursor;
	const {frameSize, pageSize, recentLimit} = walk;
	const {salt1, salt2} = walk.header;
	const summer = new Summer(buf, walk.littleEndian);
	for (let i = 0; i < count; i++) {
		const o = start + i * frameSize;
		const slot = c.validFrames + 1;
		if (buf.readUInt32BE(o + 8) !== salt1 || buf.readUInt32BE(o + 12) !== salt2) {
			walk.breakAt = slot;
			walk.breakReason = 'salt-mismatch';
			return i;
		}

		const pgno = buf.readUInt32BE(o);
		if (pgno === 0) {
			walk.breakAt = slot;
			walk.breakReason = 'page-number-zero';
			return i;
		}

		// Frame header words 0..1 only (page number, commit field), then the page: the salts are
		// compared above, the checksum words themselves are what we verify against.
		summer.s0 = c.s0;
		summer.s1 = c.s1;
		summer.run(o, 8);
		summer.run(o + WAL_FRAME_HEADER_BYTES, pageSize);
		if (summer.s0 >>> 0 !== buf.readUInt32BE(o + 16) || summer.s1 >>> 0 !== buf.readUInt32BE(o + 20)) {
			walk.breakAt = slot;
			walk.breakReason = 'checksum-mismatch';
			return i;
		}

		c.s0 = summer.s0;
		c.s1 = summer.s1;
		c.validFrames = slot;
		c.txFrames++;
		c.txPages.add(pgno);
		const commit = buf.readUInt32BE(o + 4);
		if (commit !== 0) {
			c.commitFrames++;
			c.lastCommitFrame = slot;
			c.dbSize = commit;
			c.commitS0 = c.s0;
			c.commitS1 = c.s1;
			c.commits.push({frame: slot, frames: c.txFrames, pages: c.txPages.size, dbSize: commit});
			if (c.commits.length > recentLimit) {
				c.commits.shift();
			}

			c.txFrames = 0;
			c.txPages = new Set();
		}
	}

	return count;
}

const STALE = 0;
const CURRENT = 1;
const CURRENT_COMMIT = 2;
const UNSEALED = 3;

/**
 * After the break: slots that still carry this generation's salts (invisible data), slots of an
 * open transaction awaiting checksums (salts and checksums all zero), and older generations.
 */
function classifyHeader(walk: Walk, frameHeader: Buffer, offset: number): number {
	const a = frameHeader.readUInt32BE(offset + 8);
	const b = frameHeader.readUInt32BE(offset + 12);
	if (a === walk.header.salt1 && b === walk.header.salt2) {
		return frameHeader.readUInt32BE(offset + 4) === 0 ? CURRENT : CURRENT_COMMIT;
	}

	if (a === 0 && b === 0 && frameHeader.readUInt32BE(offset + 16) === 0 && frameHeader.readUInt32BE(offset + 20) === 0 && frameHeader.readUInt32BE(offset) !== 0) {
		return UNSEALED;
	}

	return STALE;
}

function countClass(walk: Walk, cls: number): void {
	switch (cls) {
		case STALE: {
			walk.stale++;
			break;
		}

		case UNSEALED: {
			walk.unsealed++;
			break;
		}

		default: {
			walk.invalidTail++;
			if (cls === CURRENT_COMMIT) {
				walk.invalidTailCommits++;
			}
		}
	}
}

function emptyScan(state: WalState, header: WalHeader | null, fileSize: number, nBackfill: number | null): WalScan {
	return {
		state,
		retry: state === 'header-checksum-mismatch',
		header,
		fileSize,
		pageSize: state === 'ok' ? header!.pageSize : 0,
		frameSize: state === 'ok' ? header!.pageSize + WAL_FRAME_HEADER_BYTES : 0,
		frameSlots: 0,
		partialTailBytes: 0,
		validFrames: 0,
		commitFrames: 0,
		lastCommitFrame: 0,
		dbSize: 0,
		breakAt: 0,
		breakReason: null,
		nBackfill,
		checkpointedFrames: nBackfill === null ? null : 0,
		pendingCheckpointFrames: nBackfill === null ? null : 0,
		nBackfillBeyondCommit: nBackfill !== null && nBackfill > 0,
		inFlightFrames: 0,
		invalidTailFrames: 0,
		invalidTailCommitFrames: 0,
		unsealedFrames: 0,
		staleFrames: 0,
		silentlyInvisible: false,
		recentCommits: [],
	};
}

function finish(walk: Walk, fileSize: number, nBackfill: number | null): WalScan {
	const c = walk.cursor;
	const slots = Math.floor((fileSize - WAL_HEADER_BYTES) / walk.frameSize);
	const last = c.lastCommitFrame;
	return {
		state: 'ok',
		retry: false,
		header: walk.header,
		fileSize,
		pageSize: walk.pageSize,
		frameSize: walk.frameSize,
		frameSlots: slots,
		partialTailBytes: fileSize - WAL_HEADER_BYTES - slots * walk.frameSize,
		validFrames: c.validFrames,
		commitFrames: c.commitFrames,
		lastCommitFrame: last,
		dbSize: c.dbSize,
		breakAt: walk.breakAt,
		breakReason: walk.breakReason,
		nBackfill,
		checkpointedFrames: nBackfill === null ? null : Math.min(nBackfill, last),
		pendingCheckpointFrames: nBackfill === null ? null : Math.max(0, last - nBackfill),
		nBackfillBeyondCommit: nBackfill !== null && nBackfill > last,
		inFlightFrames: c.validFrames - last,
		invalidTailFrames: walk.invalidTail,
		invalidTailCommitFrames: walk.invalidTailCommits,
		unsealedFrames: walk.unsealed,
		staleFrames: walk.stale,
		silentlyInvisible: walk.invalidTailCommits > 0,
		recentCommits: c.commits.map(x => ({...x})),
	};
}

function normalizedBackfill(options: ScanOptions | undefined): number | null {
	const n = options?.nBackfill;
	return typeof n === 'number' && Number.isFinite(n) && n >= 0 ? n : null;
}

function recentLimitOf(options: {recentCommits?: number} | undefined): number {
	const n = options?.recentCommits;
	return typeof n === 'number' && n >= 0 ? Math.floor(n) : DEFAULT_RECENT_COMMITS;
}

/**
 * Classifies a whole `-wal` held in memory (§1.5). Pure; never throws on garbage.
 * A buffer whose byteOffset is not 4-aligned (e.g. a subarray) is handled, just more slowly.
 */
export function scanWal(buf: Buffer, options?: ScanOptions): WalScan {
	const nBackfill = normalizedBackfill(options);
	const {state, header} = parseWalHeader(buf);
	if (state !== 'ok' || !header) {
		return emptyScan(state, header, buf.length, nBackfill);
	}

	const walk = newWalk(header, recentLimitOf(options), startCursor(header));
	const slots = Math.floor((buf.length - WAL_HEADER_BYTES) / walk.frameSize);
	const validated = verifyFrames(walk, buf, WAL_HEADER_BYTES, slots);
	for (let i = validated; i < slots; i++) {
		countClass(walk, classifyHeader(walk, buf, WAL_HEADER_BYTES + i * walk.frameSize));
	}

	return finish(walk, buf.length, nBackfill);
}

// ---------------------------------------------------------------------------------------------
// Incremental tailer

export type WalReset = 'salts-changed' | 'truncated' | 'overwritten';

export type WalPoll = {
	scan: WalScan;
	/** Frames valid now beyond the previous poll's valid prefix (all valid frames after a reset). */
	appendedFrames: number;
	/** Commits since the previous poll, oldest first; at most `recentCommits` of them. */
	newCommits: WalCommit[];
	/** How many commits there were since the previous poll (newCommits may be capped). */
	newCommitCount: number;
	/** Why the tailer had to rescan from frame 1 (Litestream's verifyWithExecutor cases, §1.6). */
	reset: WalReset | null;
	/** Bytes read from the -wal by this poll. */
	bytesRead: number;
};

export type WalPollOptions = ScanOptions & {
	/** Re-verify from frame 1 (a tailer trusts frames it already verified; bit-rot that happens later is only seen by a full scan). */
	full?: boolean;
};

export type WalTailOptions = {
	recentCommits?: number;
	/** Largest single read (rounded to whole frames; default 4 MiB). */
	maxChunkBytes?: number;
};

/** Where the committed part of the walk ended: resume here (committed frames never change within a generation). */
type Resume = {
	dev: number;
	ino: number;
	headerBytes: Buffer;
	header: WalHeader;
	cursor: Cursor;
	/** The last commit frame's 24-byte header, to notice it being overwritten. */
	lastCommitFrameHeader: Buffer | null;
};

/**
 * Headers of the slots after the break, by slot number. A writer writes only from its last commit
 * forward (plus in-place rewrites inside its own open transaction), so an older generation's slot
 * that reads back unchanged lies beyond its write head, and so does every slot after it: the
 * tailer does not re-read an old generation's leftovers on every poll. Current-salt slots are
 * never used as that landmark (an open transaction may still be writing past them).
 */
type TailCache = {
	fileSize: number;
	/** 0-based slot of headers[0]. */
	from: number;
	headers: Buffer;
	classes: Uint8Array;
};

/**
 * Follows a live `-wal`: each poll re-verifies only what can have changed since the last one (the
 * open transaction after the last commit, plus whatever was appended) by continuing the checksum
 * chain from the last commit, and rescans from frame 1 when the WAL was reset, truncated or
 * overwritten. Open/read/close per poll, read-only.
 */
export class WalTail {
	readonly walPath: string;
	private readonly recentLimit: number;
	private readonly maxChunk: number;
	private resume: Resume | null = null;
	private cache: TailCache | null = null;
	private previous: WalScan | null = null;
	private chunk: Buffer = Buffer.allocUnsafeSlow(0);
	private bytesRead = 0;

	constructor(walPath: string, options: WalTailOptions = {}) {
		this.walPath = walPath;
		this.recentLimit = recentLimitOf(options);
		this.maxChunk = Math.max(options.maxChunkBytes ?? 4 * 1024 * 1024, 1);
	}

	/** The scan returned by the last poll, if any. */
	get last(): WalScan | null {
		return this.previous;
	}

	poll(options?: WalPollOptions): WalPoll {
		this.bytesRead = 0;
		if (options?.full) {
			this.resume = null;
			this.cache = null;
		}

		const nBackfill = normalizedBackfill(options);
		let fd: number;
		try {
			fd = fs.openSync(this.walPath, 'r');
		} catch (error) {
			if (errorCode(error) !== 'ENOENT') {
				throw error;
			}

			return this.lost(emptyScan('no-file', null, 0, nBackfill));
		}

		try {
			return this.pollOpen(fd, nBackfill);
		} finally {
			fs.closeSync(fd);
		}
	}

	/** The file is gone or unusable: whatever we followed no longer exists. */
	private lost(scan: WalScan): WalPoll {
		const hadFrames = (this.previous?.validFrames ?? 0) > 0;
		this.resume = null;
		this.cache = null;
		const shrunk = scan.state === 'no-file' || scan.state === 'empty' || scan.state === 'too-short';
		return this.report(scan, hadFrames ? (shrunk ? 'truncated' : 'overwritten') : null);
	}

	private pollOpen(fd: number, nBackfill: number | null): WalPoll {
		const st = fs.fstatSync(fd);
		const size = st.size;
		const headerBytes = Buffer.from(this.read(fd, 0, Math.min(size, WAL_HEADER_BYTES)));
		const {state, header} = parseWalHeader(headerBytes);
		if (state === 'header-checksum-mismatch') {
			// Probably a reset caught mid-write: keep the resume point, the next poll decides.
			return this.report(emptyScan(state, header, size, nBackfill), null, true);
		}

		if (state !== 'ok' || !header) {
			return this.lost(emptyScan(state, header, size, nBackfill));
		}

		let reset: WalReset | null = null;
		const r = this.resume;
		if (r) {
			const frameSize = r.header.pageSize + WAL_FRAME_HEADER_BYTES;
			const resumeOffset = WAL_HEADER_BYTES + r.cursor.lastCommitFrame * frameSize;
			if (size < resumeOffset) {
				reset = 'truncated';
			} else if (!headerBytes.equals(r.headerBytes)) {
				reset = 'salts-changed';
			} else if (st.dev !== r.dev || st.ino !== r.ino) {
				reset = 'overwritten';
			} else if (r.lastCommitFrameHeader && !this.read(fd, resumeOffset - frameSize, WAL_FRAME_HEADER_BYTES).equals(r.lastCommitFrameHeader)) {
				reset = 'overwritten';
			}

			if (reset) {
				this.resume = null;
				this.cache = null;
			}
		}

		// Resume right after the last commit seen: committed frames never change within a
		// generation, but an open transaction's frames can be rolled back or rewritten in place.
		const cursor = this.resume ? cloneCursor(this.resume.cursor) : startCursor(header);
		const walk = newWalk(header, this.recentLimit, cursor);
		const slots = Math.floor((size - WAL_HEADER_BYTES) / walk.frameSize);
		const readSlots = this.walkFile(fd, walk, slots, size);
		const scan = finish(walk, readSlots === slots ? size : WAL_HEADER_BYTES + readSlots * walk.frameSize, nBackfill);
		const committed = cloneCursor(cursor);
		this.resume = {
			dev: st.dev,
			ino: st.ino,
			headerBytes,
			header,
			cursor: committed,
			lastCommitFrameHeader: committed.lastCommitFrame > 0
				? Buffer.from(this.read(fd, walFrameOffset(committed.lastCommitFrame, walk.pageSize), WAL_FRAME_HEADER_BYTES))
				: null,
		};
		return this.report(scan, reset);
	}

	/** Verifies from the cursor on, then classifies the slots after a break. Returns the slots actually read (fewer when the file shrank meanwhile). */
	private walkFile(fd: number, walk: Walk, slots: number, size: number): number {
		const {frameSize} = walk;
		const maxFrames = Math.max(1, Math.floor(this.maxChunk / frameSize));
		// Start small and double: between two polls of a live store usually only a few frames were
		// appended, and after a reset the file goes on with an old generation we need not read.
		let batch = 1;
		let slot = walk.cursor.validFrames;
		while (slot < slots && walk.breakAt === 0) {
			const n = Math.min(batch, maxFrames, slots - slot);
			const buf = this.read(fd, WAL_HEADER_BYTES + slot * frameSize, n * frameSize);
			const whole = Math.floor(buf.length / frameSize);
			if (whole < n) {
				slots = slot + whole;
			}

			slot += verifyFrames(walk, buf, 0, whole);
			batch *= 2;
		}

		if (walk.breakAt === 0) {
			this.cache = null;
			return slots;
		}

		return this.classifyAfterBreak(fd, walk, walk.breakAt - 1, slots, size);
	}

	/** Classifies 0-based slots [first, slots): the break slot and everything after it. */
	private classifyAfterBreak(fd: number, walk: Walk, first: number, slots: number, size: number): number {
		const {frameSize} = walk;
		const old = this.cache;
		const usable = old !== null && old.fileSize === size && old.from + old.classes.length === slots;
		const headers = Buffer.alloc((slots - first) * WAL_FRAME_HEADER_BYTES);
		const classes = new Uint8Array(slots - first);
		const maxFrames = Math.max(1, Math.floor(this.maxChunk / frameSize));
		// With a usable cache the first slot read usually matches already.
		let batch = usable ? 1 : 8;
		let slot = first;
		while (slot < slots) {
			const n = Math.min(batch, maxFrames, slots - slot);
			const buf = this.read(fd, WAL_HEADER_BYTES + slot * frameSize, n * frameSize);
			const whole = Math.floor(buf.length / frameSize);
			for (let i = 0; i < whole; i++, slot++) {
				const o = i * frameSize;
				if (usable && slot >= old.from && old.classes[slot - old.from] === STALE) {
					const at = (slot - old.from) * WAL_FRAME_HEADER_BYTES;
					if (buf.compare(old.headers, at, at + WAL_FRAME_HEADER_BYTES, o, o + WAL_FRAME_HEADER_BYTES) === 0) {
						// This slot is unchanged, so is every later one (see TailCache).
						for (let s = slot; s < slots; s++) {
							const cls = old.classes[s - old.from]!;
							countClass(walk, cls);
							classes[s - first] = cls;
						}

						old.headers.copy(headers, (slot - first) * WAL_FRAME_HEADER_BYTES, at);
						this.cache = {fileSize: size, from: first, headers, classes};
						return slots;
					}
				}

				const cls = classifyHeader(walk, buf, o);
				countClass(walk, cls);
				classes[slot - first] = cls;
				buf.copy(headers, (slot - first) * WAL_FRAME_HEADER_BYTES, o, o + WAL_FRAME_HEADER_BYTES);
			}

			if (whole < n) {
				// Shrank while we read: no cache for a file we did not see whole.
				this.cache = null;
				return slot;
			}

			batch *= 2;
		}

		this.cache = {fileSize: size, from: first, headers, classes};
		return slots;
	}

	/** Reads into a reusable, 4-aligned buffer: the result is valid until the next read. */
	private read(fd: number, position: number, length: number): Buffer {
		if (this.chunk.length < length) {
			this.chunk = Buffer.allocUnsafeSlow(Math.max(length, 64 * 1024));
		}

		let got = 0;
		while (got < length) {
			const n = fs.readSync(fd, this.chunk, got, length - got, position + got);
			if (n === 0) {
				break;
			}

			got += n;
		}

		this.bytesRead += got;
		return this.chunk.subarray(0, got);
	}

	private report(scan: WalScan, reset: WalReset | null, keepPrevious = false): WalPoll {
		const prev = reset ? null : this.previous;
		const since = prev?.lastCommitFrame ?? 0;
		const result: WalPoll = {
			scan,
			appendedFrames: Math.max(0, scan.validFrames - (prev?.validFrames ?? 0)),
			newCommits: scan.recentCommits.filter(c => c.frame > since),
			newCommitCount: Math.max(0, scan.commitFrames - (prev?.commitFrames ?? 0)),
			reset,
			bytesRead: this.bytesRead,
		};
		if (!keepPrevious) {
			this.previous = scan;
		}

		return result;
	}
}

function cloneCursor(c: Cursor): Cursor {
	// Positioned right after the last commit: the open transaction is walked again next time.
	return {
		...c,
		validFrames: c.lastCommitFrame,
		s0: c.commitS0,
		s1: c.commitS1,
		txFrames: 0,
		txPages: new Set(),
		commits: c.commits.map(x => ({...x})),
	};
}

/** One-shot scan of a `-wal` on disk (no-file when absent), in bounded chunks. */
export function scanWalFile(walPath: string, options?: ScanOptions): WalScan {
	return new WalTail(walPath, {recentCommits: options?.recentCommits}).poll(options).scan;
}
