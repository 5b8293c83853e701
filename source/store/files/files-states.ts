/**
 * What the files say, judged: each state of state.db, -wal and -journal that needs attention, as
 * a finding (exit 1: committed data at risk, the store still readable) or unusable (exit 2: the
 * store cannot be read as it is), with the file, the cause and the next safe step. Shared by
 * `hfx files` (its exit code) and the Files pane (its lines). Plain data in, plain data out.
 */
import path from 'node:path';
import type {ExitCode} from '../../ground/errors.js';
import {grouped} from '../../text/format.js';
import {type DbHeader, mainShortfall} from '../db-header.js';
import type {FilesReport} from './files-probe.js';

export type FileState = {
	file: string;
	state: 'finding' | 'unusable';
	/** A short machine-readable tag (stable, for --json). */
	kind: string;
	reason: string;
	next: string;
};

function n(v: number): string {
	return grouped(v);
}

const COPY_ASIDE =
	'stop every process using the store, copy state.db, its -wal, -shm and ' +
	'-journal aside with cp, and open none of them with any SQLite tool ' +
	'before the copy is made';

/**
 * A -wal whose header SQLite rejects, with committed frames behind it: data SQLite does not see, and the next writer
 * overwrites.
 */
function walBehindHeader(r: FilesReport, walPath: string): FileState | null {
	const w = r.wal;
	const behind = w?.behindBrokenHeader;
	if (!w || w.retry || !behind || behind.generationCommits === 0) {
		return null;
	}

	const verified =
		behind.verifiedCommits > 0
			? `, ${n(behind.verifiedCommits)} of them verified by their checksums`
			: ', none verifiable by checksum';
	return {
		file: walPath,
		state: 'finding',
		kind: 'wal-header-damaged',
		reason:
			`the WAL header is unusable (${w.state}) ` +
			`yet ${n(behind.generationFrames)} frames follow it ` +
			`with ${n(behind.generationCommits)} committed transactions${verified}: ` +
			`committed data SQLite ignores (it reads this WAL as empty) and the next ` +
			`writer overwrites`,
		next: COPY_ASIDE,
	};
}

/** A checksum break with commits after it (W5). */
function walBreak(r: FilesReport, walPath: string): FileState | null {
	const w = r.wal;
	if (!w?.silentlyInvisible) {
		return null;
	}

	return {
		file: walPath,
		state: 'finding',
		kind: 'wal-checksum-break',
		reason:
			`the checksum chain breaks at frame ${w.breakAt} ` +
			`and ${n(w.invalidTailCommitFrames)} committed transactions after it ` +
			`carry the current salts: committed data SQLite silently does not see`,
		next: COPY_ASIDE,
	};
}

/**
 * A main file shorter than its header's page count × page size. While a process holds the store
 * and its WAL reaches that size, a checkpoint may be copying pages in (it writes page 1 first):
 * a finding to look at again, not damage yet.
 */
function mainTruncated(r: FilesReport, header: DbHeader | null): FileState | null {
	if (!header || r.sizes.db === null) {
		return null;
	}

	const short = mainShortfall(header, r.sizes.db);
	if (!short) {
		return null;
	}

	const said =
		`${n(r.sizes.db)} bytes, but its header says ${n(header.pageCount)} ` +
		`pages × ${n(header.pageSize)} = ${n(short.expectedBytes)} bytes`;
	const checkpointing = r.holders.holders.length > 0 && (r.wal?.dbSize ?? 0) >= header.pageCount;
	if (r.journalHeader === 'valid' && r.holders.holders.length === 0) {
		// An interrupted write that grew the file: rolling its journal back restores the old size.
		return {
			file: r.dbPath,
			state: 'finding',
			kind: 'main-short-with-hot-journal',
			reason: `the main file is ${said}, beside a hot journal whose rollback restores the pages that write changed`,
			next: `copy ${path.basename(r.dbPath)} and its -journal aside together with cp before anything opens the store`,
		};
	}

	if (checkpointing) {
		return {
			file: r.dbPath,
			state: 'finding',
			kind: 'main-short-while-held',
			reason:
				`the main file is ${said}, while a process holds the store and its WAL ` +
				`reaches that size (a checkpoint copying pages in?)`,
			next: 'run hfx files again in a few seconds; if it stays short, treat it as truncated',
		};
	}

	return {
		file: r.dbPath,
		state: 'unusable',
		kind: 'main-truncated',
		reason:
			`the main file is truncated: ${said}; ${n(short.missingPages)} pages are ` +
			`missing, so SQLite reads it as damaged`,
		next:
			'do not let the agent write to it; copy the files aside with cp and ' +
			'restore the newest backup (hfx backups, hfx restore)',
	};
}

/** A hot rollback journal: SQLite rolls it back on the next open that may write. */
function hotJournal(r: FilesReport): FileState | null {
	if (!r.sizes.journal || r.journalHeader !== 'valid' || !r.sizes.db) {
		return null;
	}

	const file = `${r.dbPath}-journal`;
	if (r.holders.holders.length > 0) {
		// A writer holds the store: the journal of a transaction in progress, not a left-over.
		return null;
	}

	const unseen = r.holders.complete
		? ''
		: ` (unless a process hfx cannot see holds it: ${r.holders.unreadablePids} processes were not readable)`;
	return {
		file,
		state: 'finding',
		kind: 'hot-journal',
		reason:
			`a hot rollback journal (${n(r.sizes.journal)} bytes, a valid header, no ` +
			`process holds the store${unseen}): an interrupted write; SQLite rolls ` +
			`it back into ${path.basename(r.dbPath)} on the next open that may write`,
		next:
			`copy ${path.basename(r.dbPath)} and ${path.basename(file)} aside ` +
			`together with cp before anything opens the store; never delete the ` +
			`journal alone`,
	};
}

/** A process holding a deleted -wal (W7): an old WAL generation whose commits no new open sees. */
function deletedWalHolders(r: FilesReport, walPath: string): FileState[] {
	return r.holders.holders
		.filter(h => h.holdsDeletedWal)
		.map(h => ({
			file: walPath,
			state: 'finding' as const,
			kind: 'deleted-wal-held',
			reason: `pid ${h.pid} holds a DELETED -wal: an old WAL generation`,
			next: 'stop that process before any restart, repair or restore',
		}));
}

/** Every state that needs attention, the unusable ones first. */
export function fileStates(r: FilesReport, fallbackHeader: DbHeader | null = null): FileState[] {
	const walPath = `${r.dbPath}-wal`;
	const states = [
		mainTruncated(r, r.dbHeader ?? fallbackHeader),
		walBehindHeader(r, walPath),
		walBreak(r, walPath),
		hotJournal(r),
		...deletedWalHolders(r, walPath),
	].filter((s): s is FileState => s !== null);
	return states.sort((a, b) => (a.state === b.state ? 0 : a.state === 'unusable' ? -1 : 1));
}

/** The exit code the states give: 2 when one is unusable, 1 with a finding, else 0. */
export function statesExit(states: readonly FileState[]): ExitCode {
	return states.some(s => s.state === 'unusable') ? 2 : states.length > 0 ? 1 : 0;
}
