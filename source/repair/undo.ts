/**
 * `hfx repair --undo ENTRY`: puts back the exact previous values of one applied repair, under
 * the same preconditions as the apply, and refuses if any column it touched changed since.
 */
import Database from 'better-sqlite3';
import {errorMessage, FailClosed} from '../errors.js';
import {takeQuickSnapshot} from '../backup/snapshot.js';
import {type AuditEntry, appendAudit, assertAuditWritable, auditPathFor, readAudit} from './audit.js';
import {type ApplyOutcome, type ChangeRecord, TOOL_VERSION} from './apply.js';
import {fromValue, sha256, toValue, type Value} from './plan.js';
import {holderChecks} from './preconditions.js';

export type UndoOptions = {
	dbPath: string;
	/** The apply entry: its sequence number, or a prefix of its sha256. */
	entry: string;
	argv: string[];
	yes: boolean;
	confirm: (entry: AuditEntry) => Promise<boolean>;
	log: (line: string) => void;
};

function lineHash(entry: AuditEntry): string {
	return sha256(JSON.stringify(entry));
}

/** Finds the apply entry an undo names, or explains why it cannot be undone. */
export function findApplyEntry(entries: readonly AuditEntry[], ref: string): AuditEntry {
	const wanted = entries.filter(e => String(e.seq) === ref || (ref.length >= 8 && lineHash(e).startsWith(ref)));
	const entry = wanted[0];
	if (!entry) {
		throw new Error(`no audit entry ${ref}`);
	}

	if (entry.mode !== 'apply' || entry.result !== 'applied') {
		throw new Error(`entry ${entry.seq} is a ${entry.mode} that ended ${String(entry.result)}: only an applied repair can be undone`);
	}

	const undone = entries.find(e => e.mode === 'undo' && e.result === 'applied' && e.undoes === entry.seq);
	if (undone) {
		throw new Error(`entry ${entry.seq} was already undone by entry ${undone.seq}`);
	}

	return entry;
}

export async function undoRepair(options: UndoOptions): Promise<ApplyOutcome> {
	const {dbPath, log} = options;
	const auditPath = auditPathFor(dbPath);
	const outcome: ApplyOutcome = {exitCode: 2, result: 'refused', reason: null, next: null, checks: [], snapshotDir: null, applied: [], changes: [], verification: [], audit: null};
	let target: AuditEntry | undefined;
	const record = () => {
		try {
			outcome.audit = appendAudit(auditPath, {
				time: new Date().toISOString(),
				tool: {name: 'hfx', version: TOOL_VERSION},
				sqliteVersion: 'n/a',
				argv: options.argv,
				mode: 'undo',
				database: dbPath,
				undoes: target?.seq ?? null,
				preconditions: outcome.checks,
				snapshot: outcome.snapshotDir,
				changes: outcome.changes,
				result: outcome.result,
				reason: outcome.reason,
				exitCode: outcome.exitCode,
			});
		} catch (error) {
			log(`warning: the audit entry could not be written: ${errorMessage(error)}`);
		}
	};

	const refuse = (reason: string, next: string, result: ApplyOutcome['result'] = 'refused'): ApplyOutcome => {
		outcome.exitCode = 2;
		outcome.result = result;
		outcome.reason = reason;
		outcome.next = next;
		record();
		return outcome;
	};

	try {
		assertAuditWritable(auditPath);
	} catch (error) {
		outcome.reason = errorMessage(error);
		outcome.next = 'run hfx as the user that owns the store';
		return outcome;
	}

	try {
		target = findApplyEntry(readAudit(auditPath), options.entry);
	} catch (error) {
		return refuse(errorMessage(error), 'list the entries with: hfx audit verify (then pick an applied repair)');
	}

	const changes = (target.changes as ChangeRecord[] | undefined) ?? [];
	outcome.checks.push(...holderChecks(dbPath));
	for (const c of outcome.checks) {
		log(`${c.ok ? '✓' : '✗'} ${c.label}${c.ok ? '' : `: ${c.detail}`}`);
	}

	const failed = outcome.checks.find(c => !c.ok);
	if (failed) {
		return refuse(`precondition failed: ${failed.label}: ${failed.detail}`, failed.next ?? 'resolve it and run again');
	}

	if (!options.yes && !await options.confirm(target)) {
		return refuse('not confirmed: nothing was written', 'run again and confirm, or pass --yes', 'aborted');
	}

	try {
		const snapshot = await takeQuickSnapshot({dbPath, label: 'pre-undo'});
		outcome.snapshotDir = snapshot.dir;
		if (!snapshot.verified) {
			return refuse(`the snapshot did not verify: ${snapshot.problems.join('; ')}`, 'check free space and the store, then run again');
		}
	} catch (error) {
		return refuse(`the snapshot failed: ${error instanceof FailClosed ? error.reason : errorMessage(error)}`, 'free space beside the store and run again');
	}

	const db = new Database(dbPath, {fileMustExist: true, timeout: 5000});
	try {
		db.exec('BEGIN IMMEDIATE');
		for (const c of changes) {
			const current = toValue((db.prepare(`SELECT "${c.column.replaceAll('"', '""')}" AS v FROM sessions WHERE id = ?`).get(c.sessionId) as {v: unknown} | undefined)?.v);
			if (JSON.stringify(current) !== JSON.stringify(c.after)) {
				db.exec('ROLLBACK');
				return refuse(`${c.sessionId}.${c.column} changed since the repair (now ${JSON.stringify(current)}, the repair wrote ${JSON.stringify(c.after)})`, 'the store moved on; restore the pre-repair snapshot by hand if you must (hfx restore), or leave it');
			}
		}

		for (const c of [...changes].reverse()) {
			db.prepare(`UPDATE sessions SET "${c.column.replaceAll('"', '""')}" = ? WHERE id = ?`).run(fromValue(c.before as Value), c.sessionId);
			outcome.changes.push({...c, before: c.after, after: c.before});
		}

		db.exec('COMMIT');
	} catch (error) {
		if (db.inTransaction) {
			db.exec('ROLLBACK');
		}

		outcome.changes = [];
		return refuse(`the undo failed and was rolled back: ${errorMessage(error)}`, 'nothing was written', 'failed');
	} finally {
		db.close();
	}

	outcome.result = 'applied';
	outcome.exitCode = 0;
	log(`✓ undid entry ${target.seq}: ${changes.length} columns restored`);
	record();
	return outcome;
}
