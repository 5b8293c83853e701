/**
 * The audit trail: an append-only JSONL file beside the snapshots (`<home>/hfx-audit.jsonl`,
 * mode 0600): an intent and an outcome per apply and undo (a dry run writes none). Each entry carries the sha256 of the
 * previous
 * line, so an edit or a cut inside the file breaks the chain; a head file records the count and
 * the last hash, so a cut or an edit of the last entries is caught too (unless both are rewritten:
 * `hfx audit verify` prints the head hash to keep elsewhere).
 *
 * One trail for both writers: repairs and undos (repair/) and restores (backup/restore/audit.ts)
 * append to it, so it sits below them both, beside the store it describes.
 */
import fs from 'node:fs';
import path from 'node:path';
import {FailClosed, errnoWords, errorCode, errorMessage} from '../ground/errors.js';
import {randomHex, sha256 as sha256Hash} from '../ground/crypto.js';
import {isPidAlive} from '../ground/liveness.js';
import {assertReplaceable, openAppend, writeNewFile} from '../ground/safe-create.js';

export const AUDIT_FILE = 'hfx-audit.jsonl';
export const HEAD_FILE = 'hfx-audit.head';
export const GENESIS = 'genesis';

/** The sha256 of a line, as hex (the chain's link). */
function sha256(text: string): string {
	return sha256Hash().update(text).digest('hex');
}

export type AuditEntry = {
	seq: number;
	/** sha256 of the previous line's exact bytes (GENESIS for the first). */
	prev: string;
	time: string;
	tool: {name: 'hfx'; version: string};
	sqliteVersion: string;
	argv: string[];
	mode: 'dry-run' | 'apply' | 'undo' | 'restore';
	database: string;
	[key: string]: unknown;
};

export function auditPathFor(dbPath: string): string {
	return path.join(path.dirname(path.resolve(dbPath)), AUDIT_FILE);
}

function headPath(auditPath: string): string {
	return path.join(path.dirname(auditPath), HEAD_FILE);
}

/**
 * Refuses a planted link where hfx keeps its own file beside the store (the trail, its head): as
 * root, following it would append to any file. A link the operator did not name is never written through.
 */
export function refuseLink(file: string): void {
	const st = fs.lstatSync(file, {throwIfNoEntry: false});
	if (st?.isSymbolicLink()) {
		let to = '?';
		try {
			to = fs.readlinkSync(file);
		} catch {
			// the link's target is only named in the refusal
		}

		throw new FailClosed({
			file,
			kind: 'symlink',
			reason: `is a symbolic link (to ${to}); hfx does not read or write its audit trail through a link`,
			next: `remove the link (rm ${file}) or put the real file there, then run again`,
		});
	}
}

function lines(auditPath: string): string[] {
	refuseLink(auditPath);
	refuseLink(headPath(auditPath));
	try {
		return fs
			.readFileSync(auditPath, 'utf8')
			.split('\n')
			.filter(l => l.length > 0);
	} catch (error) {
		if (errorCode(error) === 'ENOENT') {
			return [];
		}

		throw error;
	}
}

/** Throws FailClosed when the folder cannot take the audit trail (checked before any write). */
export function assertAuditWritable(auditPath: string): void {
	const dir = path.dirname(auditPath);
	refuseLink(auditPath);
	refuseLink(headPath(auditPath));
	try {
		fs.accessSync(dir, fs.constants.W_OK);
		if (fs.existsSync(auditPath)) {
			fs.accessSync(auditPath, fs.constants.W_OK);
		}
	} catch (error) {
		const code = errorCode(error);
		// Only a permission problem is the owner's to fix: a read-only file system or a full disk is named as it is.
		const owner = code === undefined || code === 'EACCES' || code === 'EPERM';
		const words = owner ? null : errnoWords(code, errorMessage(error));
		throw new FailClosed({
			file: auditPath,
			kind: 'audit-not-writable',
			reason: `the audit trail cannot be written (${words ? `${words.cause}, ` : ''}${code ?? errorMessage(error)})`,
			next: `${words ? words.next : "run as the store's owner"}; hfx writes nothing it cannot record`,
		});
	}
}

/** Appends one entry (O_APPEND, fsync), then rewrites the head file. Returns the entry as written. */
export function appendAudit(auditPath: string, entry: Omit<AuditEntry, 'seq' | 'prev'>): AuditEntry {
	const existing = lines(auditPath);
	const last = existing.at(-1);
	const seq = last ? (JSON.parse(last) as AuditEntry).seq + 1 : 1;
	const full = {seq, prev: last ? sha256(last) : GENESIS, ...entry} as AuditEntry;
	const line = JSON.stringify(full);
	const created = !fs.existsSync(auditPath);
	refuseLink(headPath(auditPath));
	// O_NOFOLLOW: a link planted after the check is refused by the kernel (ELOOP), never followed.
	const fd = openAppend(
		auditPath,
		what =>
			new FailClosed({
				file: auditPath,
				kind: 'symlink',
				reason: `is ${what}; hfx appends its audit trail only to a plain file of its own`,
				next: `remove ${auditPath} or put the real trail there, then run again`,
			}),
	);
	fs.fchmodSync(fd, 0o600);
	if (created && process.getuid?.() === 0) {
		// A trail made by root (sudo hfx restore) stays the home user's, as its head does (keepOwner).
		const dir = fs.statSync(path.dirname(auditPath));
		fs.fchownSync(fd, dir.uid, dir.gid);
	}

	try {
		fs.writeSync(fd, `${line}\n`);
		fs.fsyncSync(fd);
	} catch (error) {
		// A full disk: leave no empty trail behind (an existing trail keeps what it had).
		if (created) {
			fs.rmSync(auditPath, {force: true});
		}

		throw error;
	} finally {
		fs.closeSync(fd);
	}

	writeHead(auditPath, seq, sha256(line));
	return full;
}

/** Head temps of runs SIGKILLed between their write and their rename (their pid is dead): ours, so removed. */
function sweepHeadTemps(dir: string): void {
	for (const name of fs.readdirSync(dir)) {
		const pid = Number(/^hfx-audit\.head\.tmp-(\d+)(?:-[0-9a-f]{16})?$/.exec(name)?.[1] ?? 0);
		if (
			pid > 0 &&
			pid !== process.pid &&
			!isPidAlive(pid) &&
			fs.lstatSync(path.join(dir, name), {throwIfNoEntry: false})?.isFile()
		) {
			fs.rmSync(path.join(dir, name), {force: true});
		}
	}
}

/**
 * Run as root (a restore by sudo), a new file would be root's 0600 and the agent's user could no
 * longer read the head: the temp takes the owner and mode of the head it replaces, or, with none
 * there, the owner of the folder (the home's user). A plain user's files are its own already.
 */
export function keepOwner(file: string, replaced: string): void {
	if (process.getuid?.() !== 0) {
		return;
	}

	const old = fs.lstatSync(replaced, {throwIfNoEntry: false});
	const from = old?.isFile() ? old : fs.statSync(path.dirname(replaced));
	fs.chownSync(file, from.uid, from.gid);
	if (old?.isFile()) {
		fs.chmodSync(file, old.mode & 0o7777);
	}
}

/**
 * The head file, written to a fresh temp of an unguessable name (ground/safe-create.ts: O_EXCL|O_NOFOLLOW,
 * never through a planted link; the pid in it lets a later run sweep a SIGKILLed run's temp) and
 * renamed over a head that is absent or a plain file (a link there is refused).
 */
function writeHead(auditPath: string, entries: number, last: string): void {
	const head = headPath(auditPath);
	const tmp = `${head}.tmp-${process.pid}-${randomHex(8)}`;
	sweepHeadTemps(path.dirname(head));
	try {
		writeNewFile(tmp, `${JSON.stringify({entries, last})}\n`, {fsync: true, what: 'its audit trail'});
		assertReplaceable(head, 'its audit trail');
		keepOwner(tmp, head);
		fs.renameSync(tmp, head);
	} catch (error) {
		fs.rmSync(tmp, {force: true});
		throw error;
	}
}

export type AuditVerification = {
	ok: boolean;
	entries: number;
	/** sha256 of the last line: record it elsewhere to pin the trail. */
	head: string | null;
	/** 1-based line of the first problem. */
	brokenAt: number | null;
	problem: string | null;
};

export function verifyAudit(auditPath: string): AuditVerification {
	const all = lines(auditPath);
	let prev = GENESIS;
	for (const [i, line] of all.entries()) {
		let entry: AuditEntry;
		try {
			entry = JSON.parse(line) as AuditEntry;
		} catch {
			return {
				ok: false,
				entries: all.length,
				head: null,
				brokenAt: i + 1,
				problem: 'not valid JSON (edited or truncated)',
			};
		}

		if (entry.seq !== i + 1) {
			return {
				ok: false,
				entries: all.length,
				head: null,
				brokenAt: i + 1,
				problem: `sequence ${entry.seq} where ${i + 1} was expected (an entry was removed or inserted)`,
			};
		}

		if (entry.prev !== prev) {
			return {
				ok: false,
				entries: all.length,
				head: null,
				brokenAt: i + 1,
				problem:
					i === 0
						? 'the first entry does not start the chain'
						: `the previous entry (line ${i}) was changed: its hash no longer matches`,
			};
		}

		prev = sha256(line);
	}

	const head = all.length > 0 ? prev : null;
	refuseLink(headPath(auditPath));
	try {
		const recorded = JSON.parse(fs.readFileSync(headPath(auditPath), 'utf8')) as {entries: number; last: string};
		if (recorded.entries !== all.length || recorded.last !== head) {
			return {
				ok: false,
				entries: all.length,
				head,
				brokenAt: Math.min(recorded.entries, all.length) || 1,
				problem:
					`the head file records ${recorded.entries} entries ending ` +
					`in ${recorded.last.slice(0, 12)}…, the trail has ${all.length} ending ` +
					`in ${(head ?? '').slice(0, 12)}… (entries cut or the last one edited)`,
			};
		}
	} catch (error) {
		if (all.length > 0) {
			return {
				ok: false,
				entries: all.length,
				head,
				brokenAt: all.length,
				problem: `the head file is missing or unreadable (${errorCode(error) ?? 'invalid'})`,
			};
		}
	}

	return {ok: true, entries: all.length, head, brokenAt: null, problem: null};
}

export function readAudit(auditPath: string): AuditEntry[] {
	return lines(auditPath).map(l => JSON.parse(l) as AuditEntry);
}
