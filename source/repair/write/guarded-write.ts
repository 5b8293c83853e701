/**
 * The guard sequence every write to the store goes through, --apply and --undo alike:
 * preconditions (the audit trail writable, no holder) → a fresh snapshot, verified and exit 0 →
 * no connection of this process to the store, the holders once more → no interrupt → the INTENT
 * in the audit trail → one transaction with foreign keys on (write-transaction.ts) → the OUTCOME.
 * From the snapshot to the outcome a signal waits (ground/interrupts.ts: critical), so a committed write
 * is always recorded.
 */
import type Database from 'better-sqlite3';
import {errorMessage, FailClosed} from '../../ground/errors.js';
import {critical, interruptRequested} from '../../ground/interrupts.js';
import {testPause} from '../../ground/test-pause.js';
import {takeQuickSnapshot} from '../../backup/create/snapshot.js';
import {assertAuditWritable} from '../../store/audit-trail.js';
import {hasLiveHandle} from '../../store/open/live-handles.js';
import {holderChecks} from './preconditions.js';
import type {ApplyOutcome, WriteRun} from './write-run.js';
import {type Stop, inWriteTransaction} from './write-transaction.js';

/**
 * The audit trail must be writable (else nothing is recorded, not even the refusal), then no process may hold the
 * store; null to go on.
 */
export function checkPreconditions(run: WriteRun): ApplyOutcome | null {
	const {outcome, auditPath} = run;
	try {
		assertAuditWritable(auditPath);
	} catch (error) {
		const detail = error instanceof FailClosed ? `${error.reason}` : errorMessage(error);
		outcome.checks.push({
			id: 'audit-writable',
			ok: false,
			label: 'the audit trail can be written',
			detail,
			next: "run as the store's owner",
		});
		outcome.reason = `${error instanceof FailClosed ? error.file : auditPath}: ${detail}`;
		outcome.next = error instanceof FailClosed ? error.next : 'run hfx as the user that owns the store';
		return outcome;
	}

	outcome.checks.push({
		id: 'audit-writable',
		ok: true,
		label: 'the audit trail can be written',
		detail: auditPath,
		next: null,
	});
	// Holders first: with the gateway running, nothing else is worth computing.
	outcome.checks.push(...holderChecks(run.dbPath));
	for (const c of outcome.checks) {
		run.log(`${c.ok ? '✓' : '✗'} ${c.label}${c.ok ? '' : `: ${c.detail}`}`);
	}

	const failed = outcome.checks.find(c => !c.ok);
	return failed
		? run.refuse(`precondition failed: ${failed.label}: ${failed.detail}`, failed.next ?? 'resolve it and run again')
		: null;
}

/** A fresh snapshot that verified and exited 0; null to go on. */
async function snapshotChecked(run: WriteRun, label: 'pre-repair' | 'pre-undo'): Promise<ApplyOutcome | null> {
	const {outcome} = run;
	run.log('taking a snapshot before writing…');
	let snapshot: Awaited<ReturnType<typeof takeQuickSnapshot>>;
	try {
		snapshot = await takeQuickSnapshot({dbPath: run.dbPath, label});
	} catch (error) {
		const why = error instanceof FailClosed ? error.reason : errorMessage(error);
		outcome.checks.push({
			id: 'snapshot',
			ok: false,
			label: 'a fresh snapshot was taken and verified',
			detail: why,
			next: 'free space beside the store (state-snapshots/) and run again',
		});
		return run.refuse(`the snapshot failed: ${why}`, 'free space beside the store (state-snapshots/) and run again');
	}

	outcome.snapshotDir = snapshot.dir;
	const ok = snapshot.verified && snapshot.exitCode === 0;
	outcome.checks.push({
		id: 'snapshot',
		ok,
		label: 'a fresh snapshot was taken and verified',
		detail: ok ? snapshot.dir : snapshot.problems.join('; '),
		next: ok ? null : 'check the snapshot problems above and run again',
	});
	run.log(`${ok ? '✓' : '✗'} snapshot ${snapshot.dir}`);
	return ok
		? null
		: run.refuse(
				`the snapshot did not verify: ${snapshot.problems.join('; ')}`,
				'check free space and the store, then run again',
			);
}

/**
 * A holder may have appeared while the snapshot was taken; an interrupt may have come; and this
 * process itself must hold no connection to the store (the TUI pauses its reads for a write: each
 * read closes its connection, so none is open now unless a read runs). Null to go on.
 */
function stillClear(run: WriteRun): ApplyOutcome | null {
	if (hasLiveHandle(run.dbPath)) {
		return run.refuse(
			'hfx itself has the store open (one of its own reads is running): nothing was written',
			`run hfx repair ${run.mode === 'apply' ? '--apply' : '--undo'} again in a moment`,
		);
	}

	const again = holderChecks(run.dbPath).find(c => !c.ok);
	if (again) {
		run.outcome.checks.push(again);
		return run.refuse(`precondition failed: ${again.label}: ${again.detail}`, again.next ?? 'resolve it and run again');
	}

	return interruptRequested()
		? run.refuse(
				'interrupted before the write: nothing was written',
				`run hfx repair ${run.mode === 'apply' ? '--apply' : '--undo'} again when ready`,
				'aborted',
			)
		: null;
}

export type GuardedWrite = {
	label: 'pre-repair' | 'pre-undo';
	/** Inside BEGIN IMMEDIATE: re-check and write; a Stop rolls back and becomes the outcome. */
	body: (db: Database.Database) => Promise<Stop<ApplyOutcome> | null> | Stop<ApplyOutcome> | null;
	/** The write threw and was rolled back. */
	failed: (error: unknown) => ApplyOutcome;
	/** After COMMIT: verify and record the outcome. */
	committed: () => ApplyOutcome;
};

/** Intent, transaction, outcome. Null from the transaction means committed. */
async function writeWithIntent(run: WriteRun, spec: GuardedWrite): Promise<ApplyOutcome> {
	try {
		run.recordIntent();
	} catch (error) {
		const why = error instanceof FailClosed ? error.reason : errorMessage(error);
		return run.refuse(
			`the intent could not be recorded in the audit trail (${why}): nothing was written`,
			"check the audit trail's folder (space, permissions), then run again",
		);
	}

	testPause('after-intent');
	const stopped = await inWriteTransaction(run.dbPath, spec.body, spec.failed);
	if (stopped) {
		return stopped;
	}

	testPause('after-commit');
	return spec.committed();
}

/** The whole guarded sequence after the preconditions and the confirmation. */
export async function guardedWrite(run: WriteRun, spec: GuardedWrite): Promise<ApplyOutcome> {
	return critical(
		async () => (await snapshotChecked(run, spec.label)) ?? stillClear(run) ?? writeWithIntent(run, spec),
	);
}
