/**
 * The `-wal` file, read the way SQLite's own recovery reads it (docs/sqlite-wal.md, wal-header to
 * wal-reset, and scan).
 *
 * Why parse it ourselves: SQLite never reports a broken checksum chain. Recovery stops at the first
 * bad frame and everything after it, committed or not, silently stops existing (docs/sqlite-wal.md,
 * silent-loss). Only a raw scan can show what is pending a checkpoint, what a live writer has
 * spilled but not committed, and which committed-looking frames SQLite will ignore.
 *
 * Reading `-wal` with plain file I/O inside a process that holds a SQLite connection is safe:
 * SQLite takes no POSIX locks on it (docs/sqlite-wal.md, posix-locks). Nothing here ever writes.
 *
 * This module is the entry; the parts, one job each: wal-format.ts (constants and shapes),
 * wal-checksum.ts, wal-header.ts, wal-scan.ts (the frame walk) and wal-tail.ts (the incremental tail).
 */
export {
	WAL_FORMAT_VERSION,
	WAL_FRAME_HEADER_BYTES,
	WAL_HEADER_BYTES,
	WAL_MAGIC_BE,
	WAL_MAGIC_LE,
	walFrameOffset,
} from './wal-format.js';
export type {
	BehindHeader,
	FrameBreak,
	ScanOptions,
	WalCommit,
	WalHeader,
	WalHeaderParse,
	WalScan,
	WalState,
} from './wal-format.js';
export {walChecksum} from './wal-checksum.js';
export {parseWalHeader} from './wal-header.js';
export {scanWal} from './wal-scan.js';
export {WalTail, scanWalFile} from './wal-tail.js';
export type {WalPoll, WalPollOptions, WalReset, WalTailOptions} from './wal-tail.js';
