/**
 * The `-wal` file format (docs/sqlite-wal.md, wal-header, wal-frames, frame-classes): its
 * constants, the frame offsets, and the shapes a scan reports (header, commits, the classes of
 * frames).
 */
export const WAL_MAGIC_LE = 0x37_7f_06_82;
export const WAL_MAGIC_BE = 0x37_7f_06_83;
export const WAL_FORMAT_VERSION = 3_007_000;
export const WAL_HEADER_BYTES = 32;
export const WAL_FRAME_HEADER_BYTES = 24;

/**
 * ok: a WAL SQLite would use. no-file/empty: nothing to replay (empty is normal right after a
 * TRUNCATE checkpoint). too-short, bad-magic, bad-version, bad-page-size: SQLite ignores the file.
 * header-checksum-mismatch: the header is rewritten in place at every WAL reset, so a reader can
 * catch it half-written; read again shortly before calling it damage (docs/sqlite-wal.md,
 * wal-header).
 */
export type WalState =
	| 'ok'
	| 'no-file'
	| 'empty'
	| 'too-short'
	| 'bad-magic'
	| 'bad-version'
	| 'bad-page-size'
	| 'header-checksum-mismatch';

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
	/**
	 * When the header is unusable (damaged, wrong magic, version or page size) but frames follow it:
	 * what those frames hold. SQLite's recovery treats such a WAL as empty, so every commit behind
	 * the header is data it does not see, and the next writer overwrites. Null otherwise.
	 */
	behindBrokenHeader: BehindHeader | null;
};

/** The frames behind an unusable `-wal` header (walked with frame 1's salts and the header's stored checksums). */
export type BehindHeader = {
	pageSize: number;
	/** Whole frame slots after the header. */
	frameSlots: number;
	/** Frames whose checksum chain verifies (seeded by the header's stored checksum words), and commits among them. */
	verifiedFrames: number;
	verifiedCommits: number;
	/** Slots carrying frame 1's salts (one WAL generation), and commit frames among them, verified or not. */
	generationFrames: number;
	generationCommits: number;
};

export type ScanOptions = {
	/**
	 * `-shm` nBackfill, to split committed frames into checkpointed / pending. Only meaningful when the -shm salts equal
	 * this WAL's.
	 */
	nBackfill?: number | null;
	/** How many recent commits to keep in `recentCommits` (default 16). */
	recentCommits?: number;
	/** The main file's page size: walks the frames behind a header whose own page size is damaged. */
	pageSize?: number;
};

/** Byte offset of frame k (1-based). */
export function walFrameOffset(k: number, pageSize: number): number {
	return WAL_HEADER_BYTES + (k - 1) * (WAL_FRAME_HEADER_BYTES + pageSize);
}
