/**
 * The files of a store as lines an operator reads (`hfx files`, the Files pane): the WAL's frame
 * classes, the -shm header, the journal, the holders, and each state judged. Presentation of the
 * store floor's FilesReport (store/files/files-probe.ts); a line's tone is the view's to colour.
 */
import path from 'node:path';
import {formatSqliteVersionNumber, hasWalResetBug} from '../../store/db-header.js';
import type {FilesReport} from '../../store/files/files-probe.js';
import {fileStates} from '../../store/files/files-states.js';
import {describeHolder} from '../../store/files/holders.js';
import {grouped} from '../../text/format.js';

export type FileLine = {text: string; tone?: 'danger' | 'warn' | 'ok' | 'muted'};

function n(v: number | null | undefined): string {
	return v === null || v === undefined ? '—' : grouped(v);
}

function hex(v: number): string {
	return `0x${(v >>> 0).toString(16).padStart(8, '0')}`;
}

/** The judged states as lines; a checksum break and a deleted -wal holder have their own lines below. */
function stateLines(r: FilesReport): FileLine[] {
	return fileStates(r)
		.filter(s => s.kind !== 'wal-checksum-break' && s.kind !== 'deleted-wal-held')
		.map(s => ({
			text: `${s.state === 'unusable' ? 'UNUSABLE' : 'FINDING'} ${path.basename(s.file)}: ${s.reason}. Next: ${s.next}`,
			tone: 'danger',
		}));
}

/** The Files view as lines (shared by the TUI pane and `hfx files`). */
export function describeFiles(r: FilesReport, journalMode: 'wal' | 'delete'): FileLine[] {
	return [
		...sizeLines(r),
		...dbHeaderLines(r),
		...stateLines(r),
		{text: ''},
		...walLines(r, journalMode),
		...shmLines(r, journalMode),
		{text: ''},
		...holderLines(r),
	];
}

/** The four files' sizes; the journal only when it exists. */
function sizeLines(r: FilesReport): FileLine[] {
	const b = (v: number | null) => (v === null ? 'absent' : `${n(v)} bytes`);
	const lines: FileLine[] = [
		{text: `state.db          ${b(r.sizes.db)}`},
		{text: `state.db-wal      ${b(r.sizes.wal)}`},
		{text: `state.db-shm      ${b(r.sizes.shm)}`},
	];
	if (r.sizes.journal !== null) {
		lines.push({text: `state.db-journal  ${b(r.sizes.journal)}`, tone: 'warn'});
	}

	return lines;
}

/** The main file's header: the last writer's SQLite (and its WAL-reset bug), the page geometry. */
function dbHeaderLines(r: FilesReport): FileLine[] {
	if (!r.dbHeader) {
		return [];
	}

	const v = r.dbHeader.sqliteVersionNumber;
	const bug = hasWalResetBug(v);
	return [
		{
			text:
				`last writer SQLite ${formatSqliteVersionNumber(v)} (database ` +
				`header)${bug ? ': affected by the WAL-reset bug (3.7.0–3.51.2); keep one checkpointer' : ''}`,
			tone: bug ? 'warn' : undefined,
		},
		{
			text:
				`application_id ${r.dbHeader.applicationId} · page ` +
				`size ${r.dbHeader.pageSize} · ${n(r.dbHeader.pageCount)} pages in the ` +
				`main file`,
			tone: 'muted',
		},
	];
}

/** The WAL: why there are no frames to show, its header in trouble, or its frames by class. */
function walLines(r: FilesReport, journalMode: 'wal' | 'delete'): FileLine[] {
	if (journalMode !== 'wal') {
		return [{text: 'WAL: not in WAL mode (rollback journal): no WAL frames to show', tone: 'muted'}];
	}

	const w = r.wal;
	if (!w) {
		return [{text: 'WAL: no -wal file (the owner closed cleanly, or nothing was written since)', tone: 'muted'}];
	}

	if (w.state !== 'ok' || !w.header) {
		return [
			{
				text: `WAL header: ${w.state}${w.retry ? ' (being rewritten; retrying)' : ''}`,
				tone: w.retry ? 'muted' : 'warn',
			},
		];
	}

	return [...walFrameLines(w, w.header), ...walBreakLines(w), ...walRecentLines(r, w)];
}

type Wal = NonNullable<FilesReport['wal']>;

/** A sound WAL's header and its frames by class: checkpointed, pending, in flight, invalid, stale. */
function walFrameLines(w: Wal, h: NonNullable<Wal['header']>): FileLine[] {
	const open = w.inFlightFrames + w.unsealedFrames;
	const sealed = w.unsealedFrames > 0 ? `, ${n(w.unsealedFrames)} frames sealed only at its commit` : '';
	return [
		{
			text:
				`WAL header  page size ${h.pageSize} · checkpoint ` +
				`seq ${h.checkpointSequence} · salts ${hex(h.salt1)} ${hex(h.salt2)} ` +
				`· ${h.checksumOrder === 'be' ? 'big' : 'little'}-endian checksums`,
		},
		{
			text:
				`frames      ${n(w.frameSlots)} slots · ${n(w.validFrames)} valid ` +
				`· ${n(w.commitFrames)} commits · last commit ` +
				`frame ${n(w.lastCommitFrame)} · db ${n(w.dbSize)} pages`,
		},
		{
			text:
				`  checkpointed           ` +
				` ${n(w.checkpointedFrames)}${w.checkpointedFrames === null ? ' (unknown: no consistent -shm)' : ''}`,
		},
		{
			text: `  committed, pending      ${n(w.pendingCheckpointFrames)}  (visible to readers, lives only in the WAL)`,
		},
		{
			text:
				`  in flight, uncommitted ` +
				` ${n(open)}${open > 0 ? `  (an open transaction${sealed}; after a crash, discarded on recovery)` : ''}`,
			tone: open > 0 ? 'warn' : undefined,
		},
		{
			text:
				`  invalid tail           ` +
				` ${n(w.invalidTailFrames)}` +
				`${w.partialTailBytes > 0 ? ` + ${n(w.partialTailBytes)} bytes of a partial frame` : ''}`,
			tone: w.silentlyInvisible ? 'danger' : w.invalidTailFrames > 0 ? 'warn' : undefined,
		},
		{
			text: `  stale generation        ${n(w.staleFrames)}  (older WAL generations, already checkpointed)`,
			tone: 'muted',
		},
	];
}

/** Where the checksum chain breaks: committed data SQLite silently does not see, or nothing hidden. */
function walBreakLines(w: Wal): FileLine[] {
	if (w.silentlyInvisible) {
		return [
			{
				text:
					`CHECKSUM BREAK at frame ${w.breakAt}: ${n(w.invalidTailCommitFrames)} ` +
					`committed transactions after it carry the current salts: committed data ` +
					`SQLite silently does not see. Copy the three files aside before ` +
					`anything checkpoints`,
				tone: 'danger',
			},
		];
	}

	if (w.breakAt > 0 && w.breakReason === 'checksum-mismatch') {
		return [
			{
				text:
					`the checksum chain breaks at frame ${w.breakAt} with no commit after it ` +
					`(a page an open transaction rewrote in place, or a torn append): ` +
					`nothing committed is hidden`,
				tone: 'muted',
			},
		];
	}

	return [];
}

/** A WAL reset seen since the last look, and the last three commits. */
function walRecentLines(r: FilesReport, w: Wal): FileLine[] {
	const lines: FileLine[] = [];
	if (r.walReset) {
		lines.push({text: `WAL reset seen since the last look (${r.walReset})`, tone: 'muted'});
	}

	const recent = w.recentCommits
		.slice(-3)
		.map(c => `frame ${c.frame}: ${c.frames} frames/${c.pages} pages`)
		.join(' · ');
	if (recent) {
		lines.push({text: `recent commits ${recent}`, tone: 'muted'});
	}

	return lines;
}

/** The -shm header as a child process read it, or why it could not be read. */
function shmLines(r: FilesReport, journalMode: 'wal' | 'delete'): FileLine[] {
	const s = r.shm;
	if (!s) {
		return r.shmError && journalMode === 'wal' ? [{text: `-shm: ${r.shmError}`, tone: 'muted'}] : [];
	}

	const lines: FileLine[] = [
		{
			text:
				`-shm (read in a child process)  mxFrame ${n(s.mxFrame)} · ` +
				`nBackfill ${n(s.nBackfill)} · change ${s.iChange} ` +
				`· ${s.consistent ? 'consistent' : 'inconsistent (a writer was mid-update)'}`,
			tone: s.consistent ? undefined : 'warn',
		},
		{
			text: `  read marks ${s.readMarks.map((m, i) => `${i}:${m === null ? '-' : m}`).join(' ')}`,
			tone: 'muted',
		},
	];
	if (r.wal && r.wal.lastCommitFrame !== s.mxFrame && s.consistent) {
		lines.push({
			text: `  the WAL's last valid commit (${r.wal.lastCommitFrame}) differs from mxFrame (${s.mxFrame})`,
			tone: 'warn',
		});
	}

	return lines;
}

/** The processes holding the store's files (from /proc), a deleted -wal's holder loudest. */
function holderLines(r: FilesReport): FileLine[] {
	const hs = r.holders.holders;
	const lines: FileLine[] = [
		{
			text:
				`holders (from /proc` +
				(r.holders.complete ? '' : `; ${r.holders.unreadablePids} processes not readable: run as root to see all`) +
				`)`,
		},
	];
	if (hs.length === 0) {
		lines.push({
			text: '  no other process holds the files (the agent is stopped, or runs in another PID namespace)',
			tone: 'muted',
		});
	}

	for (const h of hs) {
		lines.push({text: `  ${describeHolder(h)}`, tone: h.holdsDeletedWal ? 'danger' : undefined});
		if (h.holdsDeletedWal) {
			lines.push({
				text:
					`  ↳ pid ${h.pid} holds a DELETED -wal: an old WAL generation. Stop it ` +
					`before any restart, repair or restore`,
				tone: 'danger',
			});
		}
	}

	return lines;
}
