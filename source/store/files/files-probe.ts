/**
 * The live files view: sizes of state.db and its sidecars, the WAL scanned incrementally (frame
 * classes, checksum break), the -shm header read in a child process (docs/sqlite-wal.md,
 * posix-locks), and the processes holding the files. Plain data out; `describeFiles` turns it into
 * lines.
 */
import fs from 'node:fs';
import type {DbHeader} from '../db-header.js';
import {type HolderReport, findHolders} from './holders.js';
import {type ShmHeader, type ShmRead, ShmReader} from './shm.js';
import {type WalPoll, type WalScan, WalTail} from '../wal/wal.js';

/**
 * The `-journal`'s first 8 bytes: the rollback journal's magic (a hot journal SQLite rolls back), zeros (a persisted,
 * finished one), anything else, or unreadable.
 */
export type JournalHeader = 'valid' | 'zeroed' | 'other' | 'unreadable';

export type FilesReport = {
	dbPath: string;
	sizes: {db: number | null; wal: number | null; shm: number | null; journal: number | null};
	/** Null when there is no (or an empty) -journal. */
	journalHeader: JournalHeader | null;
	wal: WalScan | null;
	walReset: WalPoll['reset'];
	walNewCommits: number;
	shm: ShmHeader | null;
	shmError: string | null;
	dbHeader: DbHeader | null;
	holders: HolderReport;
	readAt: number;
};

function size(p: string): number | null {
	try {
		return fs.statSync(p).size;
	} catch {
		return null;
	}
}

const JOURNAL_MAGIC = Buffer.from([0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7]);

/**
 * Reads the -journal's magic. Only a regular file is read (O_NONBLOCK: a FIFO never blocks the
 * open). A plain read is safe beside our own SQLite connection: SQLite takes no POSIX lock on the
 * journal, only on the main file (docs/sqlite-wal.md, posix-locks).
 */
export function readJournalHeader(p: string): JournalHeader {
	let fd: number;
	try {
		fd = fs.openSync(p, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
	} catch {
		return 'unreadable';
	}

	try {
		if (!fs.fstatSync(fd).isFile()) {
			return 'unreadable';
		}

		const buf = Buffer.alloc(8);
		const n = fs.readSync(fd, buf, 0, 8, 0);
		return n === 8 && buf.equals(JOURNAL_MAGIC) ? 'valid' : buf.every(b => b === 0) ? 'zeroed' : 'other';
	} catch {
		return 'unreadable';
	} finally {
		fs.closeSync(fd);
	}
}

function sleep(ms: number): Promise<void> {
	return new Promise(resolve => {
		setTimeout(resolve, ms);
	});
}

/**
 * A -wal header that reads half-written is read again this many times, this far apart, before `settle` calls it damage.
 */
const SETTLE_TRIES = 4;
const SETTLE_MS = 50;

export type FilesProbeOptions = {
	/** Re-scan /proc for holders at most this often (it walks every process's fd table). */
	holdersEveryMs?: number;
	/**
	 * Read the -shm and db headers (two `head` children) only when the store's files changed since the last read
	 * (`filesChanged`), else reuse the last: `hfx watch`, whose every unchanged profile cost them at every reading (#26).
	 */
	headersWhenChanged?: boolean;
};

/** Nanoseconds: a file changed this recently may change again within its clock tick unseen by stat (racy stat). */
const RACY_NS = 2_000_000_000n;

type FileStamp = {dev: bigint; ino: bigint; size: bigint; mtimeNs: bigint; ctimeNs: bigint} | null;

function stampOf(p: string): FileStamp {
	try {
		const st = fs.statSync(p, {bigint: true});
		return {dev: st.dev, ino: st.ino, size: st.size, mtimeNs: st.mtimeNs, ctimeNs: st.ctimeNs};
	} catch {
		return null;
	}
}

/**
 * The stamps of the main file and the -wal, and the -shm's identity (stat only: nothing is opened). The -shm is written
 * through shared mappings, by every reader too (its read marks: our own read connection moves them), and the kernel
 * updates its mtime late, so its times and size say nothing of a commit: only a new -shm (another inode) is counted.
 */
export function filesStamp(dbPath: string): FileStamp[] {
	const shm = stampOf(`${dbPath}-shm`);
	return [
		stampOf(dbPath),
		stampOf(`${dbPath}-wal`),
		shm && {dev: shm.dev, ino: shm.ino, size: 0n, mtimeNs: 0n, ctimeNs: 0n},
	];
}

/**
 * True unless both stamps are equal and every file's last change is older than RACY_NS at `nowNs`. What the watch reads
 * of the -shm (nBackfill) and of the db header (page size) changes only with a commit or a checkpoint, which write the
 * -wal or the main file with write(2): their size, mtime and ctime move.
 */
export function filesChanged(before: readonly FileStamp[] | null, after: readonly FileStamp[], nowNs: bigint): boolean {
	if (before === null || before.length !== after.length) {
		return true;
	}

	return after.some((a, i) => {
		const b = before[i];
		if (a === null || b === null || b === undefined) {
			return a !== b;
		}

		const same =
			a.dev === b.dev && a.ino === b.ino && a.size === b.size && a.mtimeNs === b.mtimeNs && a.ctimeNs === b.ctimeNs;
		// ctime: moved by every write (and by nothing a process can set back), so it is the file's last change.
		return !same || nowNs - a.ctimeNs < RACY_NS;
	});
}

export class FilesProbe {
	readonly dbPath: string;
	private readonly tail: WalTail;
	private readonly shmReader = new ShmReader();
	private holders: HolderReport = {holders: [], complete: true, unreadablePids: 0, method: 'proc'};
	private holdersAt = 0;
	private readonly holdersEveryMs: number;
	private readonly headersWhenChanged: boolean;
	private headers: {stamp: FileStamp[]; read: ShmRead} | null = null;

	constructor(dbPath: string, options: FilesProbeOptions = {}) {
		this.dbPath = dbPath;
		this.tail = new WalTail(`${dbPath}-wal`);
		this.holdersEveryMs = options.holdersEveryMs ?? 2000;
		this.headersWhenChanged = options.headersWhenChanged ?? false;
	}

	/** Child processes started to read headers since the probe was made (tests count them). */
	get headerChildren(): number {
		return this.shmReader.childrenStarted;
	}

	/** The -shm and db headers: read again, or (headersWhenChanged) the last read while the files are unchanged. */
	private async readHeaders(): Promise<ShmRead> {
		if (!this.headersWhenChanged) {
			return this.shmReader.read(this.dbPath);
		}

		const stamp = filesStamp(this.dbPath);
		const nowNs = BigInt(Date.now()) * 1_000_000n;
		if (this.headers !== null && this.headers.read.error === null && !filesChanged(this.headers.stamp, stamp, nowNs)) {
			return this.headers.read;
		}

		const read = await this.shmReader.read(this.dbPath);
		this.headers = {stamp, read};
		return read;
	}

	/**
	 * One look at the files. `settle` (a one-shot command): a -wal header that reads half-written is
	 * read again a few times; if it stays so, it is damage, not a reset in progress (retry false).
	 */
	async read(options: {settle?: boolean; holders?: HolderReport} = {}): Promise<FilesReport> {
		// The -shm first: its nBackfill splits committed frames into checkpointed and pending.
		const shmRead = await this.readHeaders();
		const sizes = {
			db: size(this.dbPath),
			wal: size(`${this.dbPath}-wal`),
			shm: size(`${this.dbPath}-shm`),
			journal: size(`${this.dbPath}-journal`),
		};
		let poll: WalPoll | null = null;
		if (sizes.wal !== null) {
			const pollOptions = {
				nBackfill: shmRead.shm?.consistent ? shmRead.shm.nBackfill : null,
				pageSize: shmRead.dbHeader?.pageSize,
			};
			poll = this.tail.poll(pollOptions);
			for (let i = 1; options.settle && poll.scan.retry && i < SETTLE_TRIES; i++) {
				await sleep(SETTLE_MS);
				poll = this.tail.poll(pollOptions);
			}

			if (options.settle && poll.scan.retry) {
				poll = {...poll, scan: {...poll.scan, retry: false}};
			}
		}

		if (options.holders !== undefined) {
			// Found by the caller's one walk of /proc for every store it follows (findHoldersOfAll).
			this.holders = options.holders;
			this.holdersAt = Date.now();
		} else if (Date.now() - this.holdersAt >= this.holdersEveryMs) {
			this.holders = findHolders(this.dbPath);
			this.holdersAt = Date.now();
		}

		return {
			dbPath: this.dbPath,
			sizes,
			journalHeader: sizes.journal ? readJournalHeader(`${this.dbPath}-journal`) : null,
			wal: poll?.scan ?? null,
			walReset: poll?.reset ?? null,
			walNewCommits: poll?.newCommitCount ?? 0,
			shm: shmRead.shm,
			shmError: shmRead.error,
			dbHeader: shmRead.dbHeader,
			holders: this.holders,
			readAt: Date.now() / 1000,
		};
	}

	async close(): Promise<void> {
		await this.shmReader.close();
	}
}
