/**
 * The live files view: sizes of state.db and its sidecars, the WAL scanned incrementally (frame
 * classes, checksum break), the -shm header read in a child process (docs/sqlite-wal.md,
 * posix-locks), and the processes holding the files. Plain data out; `describeFiles` turns it into
 * lines.
 */
import fs from 'node:fs';
import path from 'node:path';
import {type DbHeader, formatSqliteVersionNumber, hasWalResetBug} from './db-header.js';
import {fileStates} from './files-states.js';
import {type HolderReport, describeHolder, findHolders} from './holders.js';
import {type ShmHeader, ShmReader} from './shm.js';
import {type WalPoll, type WalScan, WalTail} from './wal.js';

/** The `-journal`'s first 8 bytes: the rollback journal's magic (a hot journal SQLite rolls back), zeros (a persisted, finished one), anything else, or unreadable. */
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

const JOURNAL_MAGIC = Buffer.from([0xD9, 0xD5, 0x05, 0xF9, 0x20, 0xA1, 0x63, 0xD7]);

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
		return n === 8 && buf.equals(JOURNAL_MAGIC) ? 'valid' : (buf.every(b => b === 0) ? 'zeroed' : 'other');
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

/** A -wal header that reads half-written is read again this many times, this far apart, before `settle` calls it damage. */
const SETTLE_TRIES = 4;
const SETTLE_MS = 50;

export type FilesProbeOptions = {
	/** Re-scan /proc for holders at most this often (it walks every process's fd table). */
	holdersEveryMs?: number;
};

export class FilesProbe {
	readonly dbPath: string;
	private readonly tail: WalTail;
	private readonly shmReader = new ShmReader();
	private holders: HolderReport = {holders: [], complete: true, unreadablePids: 0, method: 'proc'};
	private holdersAt = 0;
	private readonly holdersEveryMs: number;

	constructor(dbPath: string, options: FilesProbeOptions = {}) {
		this.dbPath = dbPath;
		this.tail = new WalTail(`${dbPath}-wal`);
		this.holdersEveryMs = options.holdersEveryMs ?? 2000;
	}

	/**
	 * One look at the files. `settle` (a one-shot command): a -wal header that reads half-written is
	 * read again a few times; if it stays so, it is damage, not a reset in progress (retry false).
	 */
	async read(options: {settle?: boolean} = {}): Promise<FilesReport> {
		// The -shm first: its nBackfill splits committed frames into checkpointed and pending.
		const shmRead = await this.shmReader.read(this.dbPath);
		const sizes = {db: size(this.dbPath), wal: size(`${this.dbPath}-wal`), shm: size(`${this.dbPath}-shm`), journal: size(`${this.dbPath}-journal`)};
		let poll: WalPoll | null = null;
		if (sizes.wal !== null) {
			const pollOptions = {nBackfill: shmRead.shm?.consistent ? shmRead.shm.nBackfill : null, pageSize: shmRead.dbHeader?.pageSize};
			poll = this.tail.poll(pollOptions);
			for (let i = 1; options.settle && poll.scan.retry && i < SETTLE_TRIES; i++) {
				await sleep(SETTLE_MS);
				poll = this.tail.poll(pollOptions);
			}

			if (options.settle && poll.scan.retry) {
				poll = {...poll, scan: {...poll.scan, retry: false}};
			}
		}

		if (Date.now() - this.holdersAt >= this.holdersEveryMs) {
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

export type FileLine = {text: string; tone?: 'danger' | 'warn' | 'ok' | 'muted'};

function n(v: number | null | undefined): string {
	return v === null || v === undefined ? '—' : v.toLocaleString('en-US');
}

function hex(v: number): string {
	return `0x${(v >>> 0).toString(16).padStart(8, '0')}`;
}

/** The judged states as lines; a checksum break and a deleted -wal holder have their own lines below. */
function stateLines(r: FilesReport): FileLine[] {
	return fileStates(r).filter(s => s.kind !== 'wal-checksum-break' && s.kind !== 'deleted-wal-held').map(s => ({
		text: `${s.state === 'unusable' ? 'UNUSABLE' : 'FINDING'} ${path.basename(s.file)}: ${s.reason}. Next: ${s.next}`,
		tone: 'danger',
	}));
}

/** The Files view as lines (shared by the TUI pane and `hfx files`). */
export function describeFiles(r: FilesReport, journalMode: 'wal' | 'delete'): FileLine[] {
	const lines: FileLine[] = [];
	const b = (v: number | null) => v === null ? 'absent' : `${n(v)} bytes`;
	lines.push({text: `state.db          ${b(r.sizes.db)}`});
	lines.push({text: `state.db-wal      ${b(r.sizes.wal)}`});
	lines.push({text: `state.db-shm      ${b(r.sizes.shm)}`});
	if (r.sizes.journal !== null) {
		lines.push({text: `state.db-journal  ${b(r.sizes.journal)}`, tone: 'warn'});
	}

	if (r.dbHeader) {
		const v = r.dbHeader.sqliteVersionNumber;
		const bug = hasWalResetBug(v);
		lines.push({text: `last writer SQLite ${formatSqliteVersionNumber(v)} (database header)${bug ? ': affected by the WAL-reset bug (3.7.0–3.51.2); keep one checkpointer' : ''}`, tone: bug ? 'warn' : undefined});
		lines.push({text: `application_id ${r.dbHeader.applicationId} · page size ${r.dbHeader.pageSize} · ${n(r.dbHeader.pageCount)} pages in the main file`, tone: 'muted'});
	}

	lines.push(...stateLines(r), {text: ''});
	if (journalMode !== 'wal') {
		lines.push({text: 'WAL: not in WAL mode (rollback journal): no WAL frames to show', tone: 'muted'});
	} else if (!r.wal) {
		lines.push({text: 'WAL: no -wal file (the owner closed cleanly, or nothing was written since)', tone: 'muted'});
	} else {
		const w = r.wal;
		if (w.state !== 'ok' || !w.header) {
			lines.push({text: `WAL header: ${w.state}${w.retry ? ' (being rewritten; retrying)' : ''}`, tone: w.retry ? 'muted' : 'warn'});
		} else {
			const h = w.header;
			lines.push({text: `WAL header  page size ${h.pageSize} · checkpoint seq ${h.checkpointSequence} · salts ${hex(h.salt1)} ${hex(h.salt2)} · ${h.checksumOrder === 'be' ? 'big' : 'little'}-endian checksums`});
			lines.push({text: `frames      ${n(w.frameSlots)} slots · ${n(w.validFrames)} valid · ${n(w.commitFrames)} commits · last commit frame ${n(w.lastCommitFrame)} · db ${n(w.dbSize)} pages`});
			lines.push({text: `  checkpointed            ${n(w.checkpointedFrames)}${w.checkpointedFrames === null ? ' (unknown: no consistent -shm)' : ''}`});
			lines.push({text: `  committed, pending      ${n(w.pendingCheckpointFrames)}  (visible to readers, lives only in the WAL)`});
			const open = w.inFlightFrames + w.unsealedFrames;
			lines.push({text: `  in flight, uncommitted  ${n(open)}${open > 0 ? `  (an open transaction${w.unsealedFrames > 0 ? `, ${n(w.unsealedFrames)} frames sealed only at its commit` : ''}; after a crash, discarded on recovery)` : ''}`, tone: open > 0 ? 'warn' : undefined});
			lines.push({text: `  invalid tail            ${n(w.invalidTailFrames)}${w.partialTailBytes > 0 ? ` + ${n(w.partialTailBytes)} bytes of a partial frame` : ''}`, tone: w.silentlyInvisible ? 'danger' : (w.invalidTailFrames > 0 ? 'warn' : undefined)});
			lines.push({text: `  stale generation        ${n(w.staleFrames)}  (older WAL generations, already checkpointed)`, tone: 'muted'});
			if (w.silentlyInvisible) {
				lines.push({text: `CHECKSUM BREAK at frame ${w.breakAt}: ${n(w.invalidTailCommitFrames)} committed transactions after it carry the current salts: committed data SQLite silently does not see. Copy the three files aside before anything checkpoints`, tone: 'danger'});
			} else if (w.breakAt > 0 && w.breakReason === 'checksum-mismatch') {
				lines.push({text: `the checksum chain breaks at frame ${w.breakAt} with no commit after it (a page an open transaction rewrote in place, or a torn append): nothing committed is hidden`, tone: 'muted'});
			}

			if (r.walReset) {
				lines.push({text: `WAL reset seen since the last look (${r.walReset})`, tone: 'muted'});
			}

			const recent = w.recentCommits.slice(-3).map(c => `frame ${c.frame}: ${c.frames} frames/${c.pages} pages`).join(' · ');
			if (recent) {
				lines.push({text: `recent commits ${recent}`, tone: 'muted'});
			}
		}
	}

	if (r.shm) {
		const s = r.shm;
		lines.push({text: `-shm (read in a child process)  mxFrame ${n(s.mxFrame)} · nBackfill ${n(s.nBackfill)} · change ${s.iChange} · ${s.consistent ? 'consistent' : 'inconsistent (a writer was mid-update)'}`, tone: s.consistent ? undefined : 'warn'});
		lines.push({text: `  read marks ${s.readMarks.map((m, i) => `${i}:${m === null ? '-' : m}`).join(' ')}`, tone: 'muted'});
		if (r.wal && r.wal.lastCommitFrame !== s.mxFrame && s.consistent) {
			lines.push({text: `  the WAL's last valid commit (${r.wal.lastCommitFrame}) differs from mxFrame (${s.mxFrame})`, tone: 'warn'});
		}
	} else if (r.shmError && journalMode === 'wal') {
		lines.push({text: `-shm: ${r.shmError}`, tone: 'muted'});
	}

	lines.push({text: ''});
	const hs = r.holders.holders;
	lines.push({text: `holders (from /proc${r.holders.complete ? '' : `; ${r.holders.unreadablePids} processes not readable: run as root to see all`})`});
	if (hs.length === 0) {
		lines.push({text: '  no other process holds the files (the agent is stopped, or runs in another PID namespace)', tone: 'muted'});
	}

	for (const h of hs) {
		lines.push({text: `  ${describeHolder(h)}`, tone: h.holdsDeletedWal ? 'danger' : undefined});
		if (h.holdsDeletedWal) {
			lines.push({text: `  ↳ pid ${h.pid} holds a DELETED -wal: an old WAL generation. Stop it before any restart, repair or restore`, tone: 'danger'});
		}
	}

	return lines;
}
