/**
 * The incremental tail of a live `-wal`: each poll re-verifies only what can have changed since the
 * last one, and rescans from frame 1 after a reset; scanWalFile is its one-shot form. Reading
 * `-wal` with plain file I/O beside a SQLite connection is safe (docs/sqlite-wal.md, posix-locks);
 * nothing here writes.
 */
import fs from 'node:fs';
import {FailClosed, errorCode} from '../../ground/errors.js';
import {openForeign} from '../foreign-file.js';
import {
	type BehindHeader,
	type ScanOptions,
	WAL_FRAME_HEADER_BYTES,
	WAL_HEADER_BYTES,
	type WalCommit,
	type WalHeader,
	type WalScan,
	walFrameOffset,
} from './wal-format.js';
import {parseWalHeader} from './wal-header.js';
import {
	type Cursor,
	STALE,
	type Walk,
	bestBehind,
	classifyHeader,
	countClass,
	emptyScan,
	finish,
	newWalk,
	normalizedBackfill,
	recentLimitOf,
	salvageHeaders,
	startCursor,
	verifyFrames,
} from './wal-scan.js';

export type WalReset = 'salts-changed' | 'truncated' | 'overwritten';

export type WalPoll = {
	scan: WalScan;
	/** Frames valid now beyond the previous poll's valid prefix (all valid frames after a reset). */
	appendedFrames: number;
	/** Commits since the previous poll, oldest first; at most `recentCommits` of them. */
	newCommits: WalCommit[];
	/** How many commits there were since the previous poll (newCommits may be capped). */
	newCommitCount: number;
	/**
	 * Why the tailer had to rescan from frame 1 (Litestream's verifyWithExecutor cases: docs/sqlite-wal.md, wal-reset).
	 */
	reset: WalReset | null;
	/** Bytes read from the -wal by this poll. */
	bytesRead: number;
};

export type WalPollOptions = ScanOptions & {
	/**
	 * Re-verify from frame 1 (a tailer trusts frames it already verified; bit-rot that happens later is only seen by a
	 * full scan).
	 */
	full?: boolean;
};

export type WalTailOptions = {
	recentCommits?: number;
	/** Largest single read (rounded to whole frames; default MAX_CHUNK_BYTES). */
	maxChunkBytes?: number;
};

/**
 * The default largest read, and so the largest buffer a tail keeps between polls (issue #26). It was 4 MiB: the TUI's
 * Files pane and `hfx watch` each held a 4 MiB buffer for their whole life once one poll had walked a large -wal (seen
 * in a heap snapshot of the TUI following a writer: 4 MB of its ~110 MB anonymous RSS). A 40 MB -wal (10,237 frames)
 * walked whole, chunk sizes interleaved, 7 rounds on the shared 2-core machine: 256 KiB median 53 ms (31-160),
 * 4 MiB median 234 ms (43-343): smaller reads are no slower (they stay in the CPU caches).
 */
export const MAX_CHUNK_BYTES = 256 * 1024;

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
		this.maxChunk = Math.max(options.maxChunkBytes ?? MAX_CHUNK_BYTES, 1);
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
			// Non-blocking, no link followed, a regular file only (checked on the descriptor): a FIFO
			// named -wal appearing under a running view is refused in a line, never read (it would block).
			fd = openForeign(this.walPath, {noFollow: true, what: "it as the store's -wal"}).fd;
		} catch (error) {
			if (errorCode(error) === 'ELOOP') {
				throw new FailClosed({
					file: this.walPath,
					kind: 'sidecar-symlink',
					reason: "a symbolic link, not the store's own -wal: hfx does not read a sidecar through a link",
					next: 'move the link aside, then run hfx again',
					cause: error,
				});
			}

			if (errorCode(error) !== 'ENOENT') {
				throw error;
			}

			return this.lost(emptyScan('no-file', null, 0, nBackfill));
		}

		try {
			return this.pollOpen(fd, nBackfill, options?.pageSize);
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

	private pollOpen(fd: number, nBackfill: number | null, pageSizeHint: number | undefined): WalPoll {
		const st = fs.fstatSync(fd);
		const size = st.size;
		const headerBytes = Buffer.from(this.read(fd, 0, Math.min(size, WAL_HEADER_BYTES)));
		const {state, header} = parseWalHeader(headerBytes);
		if (state !== 'ok' || !header) {
			const scan = emptyScan(state, header, size, nBackfill);
			scan.behindBrokenHeader = this.behind(fd, headerBytes, size, pageSizeHint);
			// A checksum mismatch is probably a reset caught mid-write: keep the resume point, the next poll decides.
			return state === 'header-checksum-mismatch' ? this.report(scan, null, true) : this.lost(scan);
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
			} else if (
				r.lastCommitFrameHeader &&
				!this.read(fd, resumeOffset - frameSize, WAL_FRAME_HEADER_BYTES).equals(r.lastCommitFrameHeader)
			) {
				reset = 'overwritten';
			}

			if (reset) {
				this.resume = null;
				// The same file restarted with new salts keeps the slot headers seen after the last break: a slot still
				// unchanged lies beyond the new generation's write head, and so does every later one (classifyAfterBreak
				// classifies them again from those headers). Without it every poll that came after a reset read the
				// whole file (measured: 109 MB per 15 s reading of a 108 MB -wal holding ~200-700 valid frames).
				const sameFile = reset === 'salts-changed' && st.dev === r.dev && st.ino === r.ino;
				if (!sameFile || header.pageSize !== r.header.pageSize) {
					this.cache = null;
				}
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
			lastCommitFrameHeader:
				committed.lastCommitFrame > 0
					? Buffer.from(this.read(fd, walFrameOffset(committed.lastCommitFrame, walk.pageSize), WAL_FRAME_HEADER_BYTES))
					: null,
		};
		return this.report(scan, reset);
	}

	/** Walks the frames behind an unusable header (salvageHeaders), in bounded chunks; null when there are none. */
	private behind(fd: number, headerBytes: Buffer, size: number, pageSizeHint: number | undefined): BehindHeader | null {
		this.cache = null;
		const frame1 = Buffer.from(this.read(fd, WAL_HEADER_BYTES, WAL_FRAME_HEADER_BYTES));
		const scans = salvageHeaders(headerBytes, frame1, size, pageSizeHint).map(h => {
			const walk = newWalk(h, 0, startCursor(h));
			const slots = Math.floor((size - WAL_HEADER_BYTES) / walk.frameSize);
			const read = this.walkFile(fd, walk, slots, size);
			return finish(walk, read === slots ? size : WAL_HEADER_BYTES + read * walk.frameSize, null);
		});
		// The walks used the tail cache for their own frames: not the followed WAL's.
		this.cache = null;
		return bestBehind(scans);
	}

	/**
	 * Verifies from the cursor on, then classifies the slots after a break. Returns the slots actually read (fewer when
	 * the file shrank meanwhile).
	 */
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
						// This slot is unchanged, so is every later one (see TailCache): classified again from the kept
						// headers, for the salts may have changed since (a reset).
						for (let s = slot; s < slots; s++) {
							const cls = classifyHeader(walk, old.headers, (s - old.from) * WAL_FRAME_HEADER_BYTES);
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
