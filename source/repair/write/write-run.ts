/**
 * One apply or undo in progress: its outcome and its two kinds of audit entry. The INTENT (the
 * planned changes with their before-values, the plan hash, the snapshot, this process) is appended
 * before the write transaction opens; the OUTCOME after it ended, naming the intent. An intent with
 * no outcome is a crash window: reconcile.ts settles it on the next run.
 */
import {errorMessage, type ExitCode} from '../../ground/errors.js';
import {processStartTicks} from '../../ground/liveness.js';
import {toolVersion} from '../../ground/version.js';
import {type AuditEntry, appendAudit} from '../../store/audit-trail.js';
import type {Adoption} from '../plan/plan.js';
import type {Check} from './preconditions.js';

export type ChangeRecord = {
	sessionId: string;
	role: 'orphan' | 'donor';
	column: string;
	before: unknown;
	after: unknown;
};

export type ApplyOutcome = {
	exitCode: ExitCode;
	result: 'applied' | 'nothing-to-do' | 'refused' | 'aborted' | 'failed';
	/** Why it refused or failed, one line. */
	reason: string | null;
	next: string | null;
	checks: Check[];
	snapshotDir: string | null;
	applied: Adoption[];
	changes: ChangeRecord[];
	verification: Array<{
		orphanId: string;
		sessionKey: string;
		carriesKey: boolean;
		restartResolvesTo: string | null;
		ok: boolean;
		why?: string | null;
	}>;
	audit: AuditEntry | null;
};

/** What an intent records beyond the common fields: the writes it is about to make. */
export type IntentFields = {changes: ChangeRecord[]; [key: string]: unknown};

export abstract class WriteRun {
	readonly outcome: ApplyOutcome = {
		exitCode: 2,
		result: 'refused',
		reason: null,
		next: null,
		checks: [],
		snapshotDir: null,
		applied: [],
		changes: [],
		verification: [],
		audit: null,
	};
	/** The intent entry's sequence number, once it is in the trail. */
	intentSeq: number | null = null;

	constructor(
		readonly dbPath: string,
		readonly auditPath: string,
		readonly argv: string[],
		readonly log: (line: string) => void,
	) {}

	abstract readonly mode: 'apply' | 'undo';
	abstract sqliteVersion(): string;
	/** The mode's own fields of the outcome entry (plan hash, adoptions... or the entry undone). */
	abstract outcomeFields(): Record<string, unknown>;
	/** The writes about to be made (before-values included), for the intent. */
	abstract intentFields(): IntentFields;

	private common() {
		return {
			time: new Date().toISOString(),
			tool: {name: 'hfx' as const, version: toolVersion()},
			sqliteVersion: this.sqliteVersion(),
			argv: this.argv,
			mode: this.mode,
			database: this.dbPath,
		};
	}

	/** Appends the intent; throws when the trail cannot take it (then nothing may be written). */
	recordIntent(): void {
		const entry = appendAudit(this.auditPath, {
			...this.common(),
			phase: 'intent',
			pid: process.pid,
			pidStart: processStartTicks(process.pid),
			snapshot: this.outcome.snapshotDir,
			...this.intentFields(),
		});
		this.intentSeq = entry.seq;
	}

	/**
	 * Appends the outcome (naming the intent when there is one). A failure is a warning: the intent stays for
	 * reconciliation.
	 */
	record(): void {
		const {outcome} = this;
		try {
			outcome.audit = appendAudit(this.auditPath, {
				...this.common(),
				...(this.intentSeq === null ? {} : {phase: 'outcome', intent: this.intentSeq}),
				preconditions: outcome.checks,
				snapshot: outcome.snapshotDir,
				...this.outcomeFields(),
				changes: outcome.changes,
				result: outcome.result,
				reason: outcome.reason,
				exitCode: outcome.exitCode,
			});
		} catch (error) {
			this.log(`warning: the audit entry could not be written: ${errorMessage(error)}`);
		}
	}

	/**
	 * Ends the run without its write. Only writes go into the trail: a refusal before the intent
	 * (a precondition, a mistyped --only, a holder) records nothing; one after it settles the intent.
	 */
	refuse(reason: string, next: string, result: ApplyOutcome['result'] = 'refused'): ApplyOutcome {
		Object.assign(this.outcome, {exitCode: 2, result, reason, next});
		if (this.intentSeq !== null) {
			this.record();
		}

		return this.outcome;
	}
}
