/**
 * The frame scan (docs/sqlite-wal.md, frame-classes): walks the frames the way SQLite's recovery
 * does (salts, page number, the checksum chain), stops at the first invalid frame and classifies
 * every slot after it; scanWal runs it over a whole `-wal` in memory. Shared with the tailer, which
 * walks chunks.
 */
import {Summer} from './wal-checksum.js';
import {
	type BehindHeader,
	type FrameBreak,
	type ScanOptions,
	WAL_FRAME_HEADER_BYTES,
	WAL_HEADER_BYTES,
	WAL_MAGIC_BE,
	WAL_MAGIC_LE,
	type WalCommit,
	type WalHeader,
	type WalScan,
	type WalState,
} from './wal-format.js';
import {parseWalHeader} from './wal-header.js';

const DEFAULT_RECENT_COMMITS = 16;

/** Everything needed to continue the walk at the next frame. */
export type Cursor = {
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

export type Walk = {
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

export function startCursor(header: WalHeader): Cursor {
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

export function newWalk(header: WalHeader, recentLimit: number, cursor: Cursor): Walk {
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
export function verifyFrames(walk: Walk, buf: Buffer, start: number, count: number): number {
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

export const STALE = 0;
const CURRENT = 1;
const CURRENT_COMMIT = 2;
const UNSEALED = 3;

/**
 * After the break: slots that still carry this generation's salts (invisible data), slots of an
 * open transaction awaiting checksums (salts and checksums all zero), and older generations.
 */
export function classifyHeader(walk: Walk, frameHeader: Buffer, offset: number): number {
	const a = frameHeader.readUInt32BE(offset + 8);
	const b = frameHeader.readUInt32BE(offset + 12);
	if (a === walk.header.salt1 && b === walk.header.salt2) {
		return frameHeader.readUInt32BE(offset + 4) === 0 ? CURRENT : CURRENT_COMMIT;
	}

	if (
		a === 0 &&
		b === 0 &&
		frameHeader.readUInt32BE(offset + 16) === 0 &&
		frameHeader.readUInt32BE(offset + 20) === 0 &&
		frameHeader.readUInt32BE(offset) !== 0
	) {
		return UNSEALED;
	}

	return STALE;
}

export function countClass(walk: Walk, cls: number): void {
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

export function emptyScan(
	state: WalState,
	header: WalHeader | null,
	fileSize: number,
	nBackfill: number | null,
): WalScan {
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
		behindBrokenHeader: null,
	};
}

export function finish(walk: Walk, fileSize: number, nBackfill: number | null): WalScan {
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
		behindBrokenHeader: null,
	};
}

function isPageSize(n: number | undefined): n is number {
	return n !== undefined && n >= 512 && n <= 65_536 && (n & (n - 1)) === 0;
}

/**
 * Headers to walk the frames behind an unusable header with: frame 1's salts (a frame carries its
 * generation's salts), the header's stored checksum words (the chain's seed: intact when only
 * bytes 0..23 were damaged), its page size or the main file's, and its byte order or both. Empty
 * when there is no frame to walk. `frame1` is frame 1's 24-byte header.
 */
export function salvageHeaders(
	headerBytes: Buffer,
	frame1: Buffer,
	fileSize: number,
	pageSizeHint?: number,
): WalHeader[] {
	if (headerBytes.length < WAL_HEADER_BYTES || frame1.length < WAL_FRAME_HEADER_BYTES || frame1.readUInt32BE(0) === 0) {
		return [];
	}

	const own = headerBytes.readUInt32BE(8);
	const pageSize = isPageSize(own) ? own : isPageSize(pageSizeHint) ? pageSizeHint : 0;
	if (pageSize === 0 || fileSize < WAL_HEADER_BYTES + WAL_FRAME_HEADER_BYTES + pageSize) {
		return [];
	}

	const magic = headerBytes.readUInt32BE(0);
	const orders = magic === WAL_MAGIC_BE ? (['be', 'le'] as const) : (['le', 'be'] as const);
	return orders.map(order => ({
		magic: order === 'le' ? WAL_MAGIC_LE : WAL_MAGIC_BE,
		checksumOrder: order,
		formatVersion: headerBytes.readUInt32BE(4),
		pageSize,
		checkpointSequence: headerBytes.readUInt32BE(12),
		salt1: frame1.readUInt32BE(8),
		salt2: frame1.readUInt32BE(12),
		checksum1: headerBytes.readUInt32BE(24),
		checksum2: headerBytes.readUInt32BE(28),
		checksumValid: false,
	}));
}

/** What a walk of the frames behind an unusable header found. */
export function behindHeaderOf(scan: WalScan): BehindHeader {
	return {
		pageSize: scan.pageSize,
		frameSlots: scan.frameSlots,
		verifiedFrames: scan.validFrames,
		verifiedCommits: scan.commitFrames,
		generationFrames: scan.validFrames + scan.invalidTailFrames,
		generationCommits: scan.commitFrames + scan.invalidTailCommitFrames,
	};
}

/** Of the walks behind an unusable header (one per byte order), the one that verified most. */
export function bestBehind(scans: readonly WalScan[]): BehindHeader | null {
	const best = [...scans].sort((a, b) => b.validFrames - a.validFrames || b.commitFrames - a.commitFrames)[0];
	return best ? behindHeaderOf(best) : null;
}

export function normalizedBackfill(options: ScanOptions | undefined): number | null {
	const n = options?.nBackfill;
	return typeof n === 'number' && Number.isFinite(n) && n >= 0 ? n : null;
}

export function recentLimitOf(options: {recentCommits?: number} | undefined): number {
	const n = options?.recentCommits;
	return typeof n === 'number' && n >= 0 ? Math.floor(n) : DEFAULT_RECENT_COMMITS;
}

/**
 * Classifies a whole `-wal` held in memory (docs/sqlite-wal.md, frame-classes). Pure; never throws
 * on garbage. A buffer whose byteOffset is not 4-aligned (e.g. a subarray) is handled, just more
 * slowly.
 */
export function scanWal(buf: Buffer, options?: ScanOptions): WalScan {
	const nBackfill = normalizedBackfill(options);
	const {state, header} = parseWalHeader(buf);
	if (state !== 'ok' || !header) {
		const scan = emptyScan(state, header, buf.length, nBackfill);
		const candidates = salvageHeaders(
			buf.subarray(0, WAL_HEADER_BYTES),
			buf.subarray(WAL_HEADER_BYTES, WAL_HEADER_BYTES + WAL_FRAME_HEADER_BYTES),
			buf.length,
			options?.pageSize,
		);
		scan.behindBrokenHeader = bestBehind(candidates.map(h => walkInMemory(buf, h, 0, null)));
		return scan;
	}

	return walkInMemory(buf, header, recentLimitOf(options), nBackfill);
}

function walkInMemory(buf: Buffer, header: WalHeader, recentLimit: number, nBackfill: number | null): WalScan {
	const walk = newWalk(header, recentLimit, startCursor(header));
	const slots = Math.floor((buf.length - WAL_HEADER_BYTES) / walk.frameSize);
	const validated = verifyFrames(walk, buf, WAL_HEADER_BYTES, slots);
	for (let i = validated; i < slots; i++) {
		countClass(walk, classifyHeader(walk, buf, WAL_HEADER_BYTES + i * walk.frameSize));
	}

	return finish(walk, buf.length, nBackfill);
}
