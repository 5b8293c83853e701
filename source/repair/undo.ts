/**
 * `hfx repair --undo ENTRY`: puts back the exact previous values of one applied repair, through
 * the same guarded write as the apply (guarded-write.ts: preconditions, a checked snapshot, the
 * holders again, intent, one transaction with foreign keys on, outcome, under the same signal
 * protection), and refuses if any column it touched changed since.
 */
import {errorMessage, FailClosed} from '../ground/errors.js';
import {type AuditEntry, auditPathFor, readAudit} from '../store/audit-trail.js';
import {fromValue, sha256, toValue, type Value} from './plan/plan.js';
import {checkPreconditions, guardedWrite} from './write/guarded-write.js';
import {reconcileAudit} from './write/reconcile.js';
import {testMark} from '../ground/test-pause.js';
import {type ApplyOutcome, type ChangeRecord, type IntentFields, WriteRun} from './write/write-run.js';

export type UndoOptions = {
	dbPath: string;
	/** The apply entry: its sequence number, or a prefix of its sha256. */
	entry: string;
	argv: string[];
	yes: boolean;
	confirm: (entry: AuditEntry) => Promise<boolean>;
	log: (line: string) => void;
	/** The entry the caller resolved already (resolveUndoEntry; hfx repair does, first): it is not looked up again. */
	target?: AuditEntry;
	/** The caller settled the audit trail's crash windows already (hfx repair does, first): none are settled here. */
	reconciled?: boolean;
};

function lineHash(entry: AuditEntry): string {
	return sha256(JSON.stringify(entry));
}

/** Finds the apply entry an undo names, or explains why it cannot be undone. */
export function findApplyEntry(entries: readonly AuditEntry[], ref: string): AuditEntry {
	const named = entries.find(e => String(e.seq) === ref || (ref.length >= 8 && lineHash(e).startsWith(ref)));
	if (!named) {
		throw new Error(`no audit entry ${ref}`);
	}

	// An intent stands for its outcome (the entry that says how it ended).
	const entry = named.phase === 'intent' ? entries.find(e => e.intent === named.seq) : named;
	if (!entry) {
		throw new Error(
			`entry ${named.seq} is the intent of an ${named.mode} that has no ` +
				`outcome yet (its process still runs, or it could not be reconciled)`,
		);
	}

	// Committed: applied, or applied but not confirmed by the re-read ("failed" with its changes kept).
	const committed =
		entry.result === 'applied' ||
		(entry.result === 'failed' && Array.isArray(entry.changes) && entry.changes.length > 0);
	if (entry.mode !== 'apply' || !committed) {
		throw new Error(
			`entry ${entry.seq} is a ${entry.mode} that ended ${String(entry.result)}: only an applied repair can be undone`,
		);
	}

	const undone = entries.find(e => e.mode === 'undo' && e.result === 'applied' && e.undoes === entry.seq);
	if (undone) {
		throw new Error(`entry ${entry.seq} was already undone by entry ${undone.seq}`);
	}

	return entry;
}

/** The trail's applied repairs an undo may name now, newest first (what `hfx repair --undo SEQ` accepts). */
export function undoableEntries(entries: readonly AuditEntry[]): AuditEntry[] {
	return entries
		.filter(e => e.mode === 'apply' && e.phase !== 'intent')
		.flatMap(e => {
			try {
				return [findApplyEntry(entries, String(e.seq))];
			} catch {
				return [];
			}
		})
		.reverse();
}

/** The columns an undo of `entry` puts back: last written first, each from what the repair wrote to what it found. */
export function restoresOf(entry: AuditEntry): ChangeRecord[] {
	return [...((entry.changes as ChangeRecord[] | undefined) ?? [])]
		.reverse()
		.map(c => ({...c, before: c.after, after: c.before}));
}

/** One undo in progress: the entry it undoes, the writes that put it back, and how they are recorded. */
class UndoRun extends WriteRun {
	readonly mode = 'undo';
	target: AuditEntry | undefined;
	/** The columns put back, each from what the repair wrote to what it found. */
	restores: ChangeRecord[] = [];

	constructor(readonly options: UndoOptions) {
		super(options.dbPath, auditPathFor(options.dbPath), options.argv, options.log);
	}

	sqliteVersion(): string {
		return 'n/a';
	}

	outcomeFields(): Record<string, unknown> {
		return {undoes: this.target?.seq ?? null};
	}

	intentFields(): IntentFields {
		return {undoes: this.target?.seq ?? null, changes: this.restores};
	}
}

/** The entry an undo names, or a one-line refusal naming the trail (bad input: nothing is recorded). */
export function resolveUndoEntry(dbPath: string, ref: string): AuditEntry {
	testMark('undo-entry');
	const auditPath = auditPathFor(dbPath);
	try {
		return findApplyEntry(readAudit(auditPath), ref);
	} catch (error) {
		if (error instanceof FailClosed) {
			throw error;
		}

		const reason = errorMessage(error).replace(/^no audit entry (.*)$/s, `no audit entry $1 in ${auditPath}`);
		throw new FailClosed({
			file: dbPath,
			kind: 'no-such-entry',
			reason,
			next:
				`\`hfx audit verify --db ${dbPath}\` lists the entries: pick an applied ` +
				`repair and run hfx repair --undo SEQ`,
		});
	}
}

/** The operator confirmed; null to go on. */
async function confirmed(run: UndoRun, target: AuditEntry): Promise<ApplyOutcome | null> {
	if (!run.options.yes && !(await run.options.confirm(target))) {
		return run.refuse('not confirmed: nothing was written', 'run again and confirm, or pass --yes', 'aborted');
	}

	return null;
}

/** In one BEGIN IMMEDIATE: every column must still hold what the repair wrote, then each gets its old value back. */
async function restoreColumns(run: UndoRun): Promise<ApplyOutcome> {
	return guardedWrite(run, {
		label: 'pre-undo',
		body(db) {
			for (const c of run.restores) {
				const current = toValue(
					(
						db.prepare(`SELECT "${c.column.replaceAll('"', '""')}" AS v FROM sessions WHERE id = ?`).get(c.sessionId) as
							| {v: unknown}
							| undefined
					)?.v,
				);
				if (JSON.stringify(current) !== JSON.stringify(c.before)) {
					return () =>
						run.refuse(
							`${c.sessionId}.${c.column} changed since the repair ` +
								`(now ${JSON.stringify(current)}, the repair ` +
								`wrote ${JSON.stringify(c.before)})`,
							'the store moved on; restore the pre-repair snapshot by hand if you must (hfx restore), or leave it',
						);
				}
			}

			for (const c of run.restores) {
				db.prepare(`UPDATE sessions SET "${c.column.replaceAll('"', '""')}" = ? WHERE id = ?`).run(
					fromValue(c.after as Value),
					c.sessionId,
				);
			}

			return null;
		},
		failed(error) {
			run.outcome.changes = [];
			return run.refuse(`the undo failed and was rolled back: ${errorMessage(error)}`, 'nothing was written', 'failed');
		},
		committed() {
			run.outcome.changes = run.restores;
			run.outcome.result = 'applied';
			run.outcome.exitCode = 0;
			run.log(`✓ undid entry ${run.target!.seq}: ${run.restores.length} columns restored`);
			run.record();
			return run.outcome;
		},
	});
}

export async function undoRepair(options: UndoOptions): Promise<ApplyOutcome> {
	const run = new UndoRun(options);
	if (!options.reconciled) {
		try {
			reconcileAudit({dbPath: options.dbPath, argv: options.argv, write: true, warn: options.log});
		} catch (error) {
			options.log(`warning: an interrupted earlier write could not be reconciled: ${errorMessage(error)}`);
		}
	}

	// An unknown or unfit entry is bad input: refused in one line, nothing recorded.
	const target = options.target ?? resolveUndoEntry(options.dbPath, options.entry);
	run.target = target;
	// Last written first: the values put back in reverse order of the repair's writes.
	run.restores = restoresOf(target);
	return checkPreconditions(run) ?? (await confirmed(run, target)) ?? restoreColumns(run);
}
