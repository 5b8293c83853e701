/**
 * `hfx repair --undo ENTRY`: puts back the exact previous values of one applied repair, under
 * the same preconditions as the apply, and refuses if any column it touched changed since.
 */
import {errorMessage, FailClosed} from '../errors.js';
import {takeQuickSnapshot} from '../backup/snapshot.js';
import {type AuditEntry, appendAudit, assertAuditWritable, auditPathFor, readAudit} from './audit.js';
import {toolVersion} from '../version.js';
import {type ApplyOutcome, type ChangeRecord} from './apply.js';
import {fromValue, sha256, toValue, type Value} from './plan.js';
import {holderChecks} from './preconditions.js';
import {inWriteTransaction} from './write-transaction.js';

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

/** One undo in progress: its outcome, the entry it undoes, and the two ways it ends (recorded either way). */
class UndoRun {
	readonly outcome: ApplyOutcome = {exitCode: 2, result: 'refused', reason: null, next: null, checks: [], snapshotDir: null, applied: [], changes: [], verification: [], audit: null};
	target: AuditEntry | undefined;

	constructor(readonly options: UndoOptions, readonly auditPath: string) {}

	record(): void {
		const {outcome, options} = this;
		try {
			outcome.audit = appendAudit(this.auditPath, {
				time: new Date().toISOString(),
				tool: {name: 'hfx', version: toolVersion()},
				sqliteVersion: 'n/a',
				argv: options.argv,
				mode: 'undo',
				database: options.dbPath,
				undoes: this.target?.seq ?? null,
				preconditions: outcome.checks,
				snapshot: outcome.snapshotDir,
				changes: outcome.changes,
				result: outcome.result,
				reason: outcome.reason,
				exitCode: outcome.exitCode,
			});
		} catch (error) {
			options.log(`warning: the audit entry could not be written: ${errorMessage(error)}`);
		}
	}

	refuse(reason: string, next: string, result: ApplyOutcome['result'] = 'refused'): ApplyOutcome {
		Object.assign(this.outcome, {exitCode: 2, result, reason, next});
		this.record();
		return this.outcome;
	}
}

/** No process holds the store, and the operator confirmed; null to go on. */
async function preconditions(run: UndoRun, target: AuditEntry): Promise<ApplyOutcome | null> {
	const {outcome, options} = run;
	outcome.checks.push(...holderChecks(options.dbPath));
	for (const c of outcome.checks) {
		options.log(`${c.ok ? '✓' : '✗'} ${c.label}${c.ok ? '' : `: ${c.detail}`}`);
	}

	const failed = outcome.checks.find(c => !c.ok);
	if (failed) {
		return run.refuse(`precondition failed: ${failed.label}: ${failed.detail}`, failed.next ?? 'resolve it and run again');
	}

	if (!options.yes && !await options.confirm(target)) {
		return run.refuse('not confirmed: nothing was written', 'run again and confirm, or pass --yes', 'aborted');
	}

	return null;
}

/** A fresh, verified snapshot before anything is written; null to go on. */
async function snapshotFirst(run: UndoRun): Promise<ApplyOutcome | null> {
	try {
		const snapshot = await takeQuickSnapshot({dbPath: run.options.dbPath, label: 'pre-undo'});
		run.outcome.snapshotDir = snapshot.dir;
		return snapshot.verified ? null : run.refuse(`the snapshot did not verify: ${snapshot.problems.join('; ')}`, 'check free space and the store, then run again');
	} catch (error) {
		return run.refuse(`the snapshot failed: ${error instanceof FailClosed ? error.reason : errorMessage(error)}`, 'free space beside the store and run again');
	}
}

/** In one BEGIN IMMEDIATE: every column must still hold what the repair wrote, then each gets its old value back. */
async function restoreColumns(run: UndoRun, changes: readonly ChangeRecord[]): Promise<ApplyOutcome | null> {
	return inWriteTransaction(run.options.dbPath, db => {
		for (const c of changes) {
			const current = toValue((db.prepare(`SELECT "${c.column.replaceAll('"', '""')}" AS v FROM sessions WHERE id = ?`).get(c.sessionId) as {v: unknown} | undefined)?.v);
			if (JSON.stringify(current) !== JSON.stringify(c.after)) {
				return () => run.refuse(`${c.sessionId}.${c.column} changed since the repair (now ${JSON.stringify(current)}, the repair wrote ${JSON.stringify(c.after)})`, 'the store moved on; restore the pre-repair snapshot by hand if you must (hfx restore), or leave it');
			}
		}

		for (const c of [...changes].reverse()) {
			db.prepare(`UPDATE sessions SET "${c.column.replaceAll('"', '""')}" = ? WHERE id = ?`).run(fromValue(c.before as Value), c.sessionId);
			run.outcome.changes.push({...c, before: c.after, after: c.before});
		}

		return null;
	}, error => {
		run.outcome.changes = [];
		return run.refuse(`the undo failed and was rolled back: ${errorMessage(error)}`, 'nothing was written', 'failed');
	});
}

export async function undoRepair(options: UndoOptions): Promise<ApplyOutcome> {
	const run = new UndoRun(options, auditPathFor(options.dbPath));
	try {
		assertAuditWritable(run.auditPath);
	} catch (error) {
		run.outcome.reason = errorMessage(error);
		run.outcome.next = 'run hfx as the user that owns the store';
		return run.outcome;
	}

	let target: AuditEntry;
	try {
		target = findApplyEntry(readAudit(run.auditPath), options.entry);
		run.target = target;
	} catch (error) {
		return run.refuse(errorMessage(error), 'list the entries with: hfx audit verify (then pick an applied repair)');
	}

	const changes = (target.changes as ChangeRecord[] | undefined) ?? [];
	const stopped = await preconditions(run, target) ?? await snapshotFirst(run) ?? await restoreColumns(run, changes);
	if (stopped) {
		return stopped;
	}

	run.outcome.result = 'applied';
	run.outcome.exitCode = 0;
	options.log(`✓ undid entry ${target.seq}: ${changes.length} columns restored`);
	run.record();
	return run.outcome;
}
