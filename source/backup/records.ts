/**
 * Where verified and drilled status is recorded: an append-only JSONL file beside the artifacts,
 * `hfx-records.jsonl` in the archive folder (and in `state-snapshots/` for quick snapshots; Hermes
 * only looks at folders there). One line per event; never rewritten. An event names the
 * artifact by its file name and fingerprint (size, mtime and, for our archives, the seal), so a
 * file that changed after it was verified no longer counts as verified.
 */
import fs from 'node:fs';
import path from 'node:path';
import {FailClosed, errorCode} from '../ground/errors.js';
import {fileTypeName, linkText, readForeign} from '../store/foreign-file.js';
import {openAppend} from '../ground/safe-create.js';

export const RECORDS_NAME = 'hfx-records.jsonl';

/** A records file is one short line per event; beyond this it is not read (its records do not count). */
const MAX_RECORDS_BYTES = 64 * 1024 * 1024;

export type RecordEvent = 'backup' | 'snapshot' | 'verify' | 'drill' | 'restore' | 'prune';

export type BackupRecord = {
	v: 1;
	/** Epoch seconds. */
	at: number;
	event: RecordEvent;
	/** File or folder name of the artifact inside the records folder. */
	artifact: string;
	kind: 'archive' | 'snapshot' | 'tar' | 'zip';
	ok: boolean;
	exitCode: number;
	size: number | null;
	mtimeMs: number | null;
	/** The archive's seal (sha256 of everything before its end record), when it has one. */
	seal?: string | null;
	/** Creation time of the artifact (epoch seconds) as its manifest says. */
	createdAt?: number | null;
	/** "full" (every check) or "write" (the read-back right after writing). */
	level?: 'full' | 'write';
	summary: string;
	details?: Record<string, unknown>;
};

export function recordsFile(dir: string): string {
	return path.join(dir, RECORDS_NAME);
}

/** The refusal of a records file that is not our plain file: a link, a FIFO, a hard link to another file. */
function notOurs(file: string, what: string): FailClosed {
	return new FailClosed({
		file,
		kind: 'records-not-a-file',
		reason:
			`${what}: hfx appends its records only to a plain file of its own, never ` +
			`through a link or into a FIFO (a planted link would make it append to ` +
			`any file)`,
		next: `remove ${file} (hfx creates it again on the next record), then run the command again`,
	});
}

/**
 * Refuses, before any work, a records file that hfx could not safely append to (see appendRecord).
 * Absent is fine (created on the first record).
 */
export function assertRecordsFile(dir: string): void {
	const file = recordsFile(dir);
	let st: fs.Stats;
	try {
		st = fs.lstatSync(file);
	} catch {
		return;
	}

	if (st.isSymbolicLink()) {
		throw notOurs(file, `a symbolic link (to ${linkText(file)})`);
	}

	if (!st.isFile()) {
		throw notOurs(file, `${fileTypeName(st)}, not a regular file`);
	}

	if (st.nlink > 1) {
		throw notOurs(file, `a file with ${st.nlink} hard links (another name shares its bytes)`);
	}
}

/**
 * Appends one line (O_APPEND, fsync). Returns false when the folder is not writable. Never follows
 * a link (O_NOFOLLOW) and never blocks on a FIFO (O_NONBLOCK; the descriptor is checked to be a
 * regular file with one name before anything is written): such a file is refused in one line.
 */
export function appendRecord(dir: string, record: Omit<BackupRecord, 'v'>): boolean {
	const line = `${JSON.stringify({v: 1, ...record})}\n`;
	const file = recordsFile(dir);
	try {
		const fd = openAppend(file, what => notOurs(file, what));
		try {
			fs.writeSync(fd, line);
			fs.fsyncSync(fd);
		} finally {
			fs.closeSync(fd);
		}

		return true;
	} catch (error) {
		const code = errorCode(error);
		if (code === 'EACCES' || code === 'EROFS' || code === 'EPERM' || code === 'ENOENT' || code === 'ENOSPC') {
			return false;
		}

		throw error;
	}
}

/**
 * Every record in the folder (a torn last line ignored). A records file that is not a plain file is not read: no record
 * counts.
 */
export function readRecords(dir: string): BackupRecord[] {
	let text: string;
	try {
		const read = readForeign(recordsFile(dir), {noFollow: true, maxBytes: MAX_RECORDS_BYTES});
		text = read.bytes.toString('utf8');
	} catch {
		return [];
	}

	const out: BackupRecord[] = [];
	for (const line of text.split('\n')) {
		if (!line.trim()) {
			continue;
		}

		try {
			const r = JSON.parse(line) as BackupRecord;
			if (r && r.v === 1 && typeof r.artifact === 'string' && typeof r.event === 'string') {
				out.push(r);
			}
		} catch {
			// a torn last line (crash mid-append) is ignored
		}
	}

	return out;
}

export type Fingerprint = {size: number | null; mtimeMs: number | null; seal?: string | null};

export function fingerprintOf(artifactPath: string): Fingerprint {
	try {
		const st = fs.statSync(artifactPath);
		return {size: st.isDirectory() ? null : st.size, mtimeMs: st.isDirectory() ? null : Math.round(st.mtimeMs)};
	} catch {
		return {size: null, mtimeMs: null};
	}
}

function matches(r: BackupRecord, fp: Fingerprint): boolean {
	if (r.size !== null && fp.size !== null && r.size !== fp.size) {
		return false;
	}

	if (r.mtimeMs !== null && fp.mtimeMs !== null && Math.round(r.mtimeMs) !== fp.mtimeMs) {
		return false;
	}

	if (fp.seal && r.seal && fp.seal !== r.seal) {
		return false;
	}

	return true;
}

export type ArtifactStatus = {
	createdAt: number | null;
	/** Last verify (or the backup's own read-back) of this very file. */
	verified: BackupRecord | null;
	drilled: BackupRecord | null;
	/** Newest verify/drill record that failed, if it is newer than the last success. */
	lastFailure: BackupRecord | null;
	/** The file changed after a verify or drill was recorded for its name. */
	changedSinceRecorded: boolean;
	seal: string | null;
};

export function statusFor(records: readonly BackupRecord[], artifact: string, fp: Fingerprint): ArtifactStatus {
	const mine = records.filter(r => r.artifact === artifact);
	const current = mine.filter(r => matches(r, fp));
	// The latest outcome wins: a failed drill after a passed one means "not drilled" any more.
	const latestOk = (events: RecordEvent[]) => {
		const latest = [...current].reverse().find(r => events.includes(r.event)) ?? null;
		return latest?.ok ? latest : null;
	};

	const verified = latestOk(['verify', 'drill']);
	const drilled = latestOk(['drill']);
	const failures = [...current].reverse().find(r => (r.event === 'verify' || r.event === 'drill') && !r.ok) ?? null;
	const lastFailure = failures && (!verified || failures.at > verified.at) ? failures : null;
	const created = [...mine].reverse().find(r => typeof r.createdAt === 'number')?.createdAt ?? null;
	const seal = [...current].reverse().find(r => typeof r.seal === 'string')?.seal ?? null;
	return {
		createdAt: created,
		verified,
		drilled,
		lastFailure,
		changedSinceRecorded:
			mine.some(r => r.event === 'verify' || r.event === 'drill' || r.event === 'backup') && current.length === 0,
		seal,
	};
}
