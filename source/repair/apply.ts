/**
 * The only writer of the repair: plan, check every precondition, then the guarded write
 * (guarded-write.ts: a verified snapshot, the holders again, the intent in the audit trail, one
 * BEGIN IMMEDIATE transaction that first re-verifies that the store still is what the plan was
 * computed from, the outcome); re-read and verify afterwards. Fails closed: any refusal writes
 * nothing to the store.
 */
import type Database from 'better-sqlite3';
import {analyze, type Analysis} from '../forensics/analysis/analyze.js';
import type {BuildRules} from '../forensics/routing/build-rules.js';
import type {RuleSet} from '../forensics/generations.js';
import {REPAIR_END_REASON} from '../forensics/end-reasons.js';
import {FailClosed, errorMessage} from '../ground/errors.js';
import {resolveSessionId} from '../forensics/resolve.js';
import {readStore} from '../store/open/immutable-read.js';
import {type ReadOnlyStore, writerSqliteVersion} from '../store/open/open.js';
import {type SchemaInfo, detectSchema} from '../store/open/schema.js';
import {type Preflight, preflight} from '../store/open/preflight.js';
import {routingHomeOf} from '../store/read/routing-home.js';
import {readSnapshot} from '../store/read/read-snapshot.js';
import {ShmReader} from '../store/files/shm.js';
import {auditPathFor} from '../store/audit-trail.js';
import {testMark} from '../ground/test-pause.js';
import {type PlanBasis, basisDifference, readPlanBasis} from './plan/plan-basis.js';
import {
	type Adoption,
	AT_APPLY,
	type RepairPlan,
	crashRefusal,
	fromValue,
	planHash,
	planRepair,
	rowsHash,
	toValue,
} from './plan/plan.js';
import {checkPreconditions, guardedWrite} from './write/guarded-write.js';
import {reconcileAudit} from './write/reconcile.js';
import {stillWinsWhy} from './plan/still-wins.js';
import {type ApplyOutcome, type ChangeRecord, type IntentFields, WriteRun} from './write/write-run.js';
import type {Stop} from './write/write-transaction.js';

export type Planned = {
	plan: RepairPlan;
	analysis: Analysis;
	rows: Map<string, Record<string, unknown>>;
	basis: PlanBasis;
	hash: string;
	sqliteVersion: string;
	sessionColumns: Set<string>;
	/** The store's schema version and generation (what an upgrade would change). */
	schema: Pick<SchemaInfo, 'version' | 'ruleSet'>;
	/** Why none of it may be written, checked once with the plan (planRefusal): the dry run and the apply read it. */
	refusal: PlanRefusal | null;
};

/** Why a plan cannot be written at all, in the words of the dry run (the apply says its own next step for a donor). */
export type PlanRefusal = {kind: 'repair-routing-crash' | 'donor-refused'; reason: string; next: string};

/** Current Hermes' repair-routing failing on the store, or an operator's --donor that cannot be taken; else null. */
function planRefusal(analysis: Analysis, plan: RepairPlan): PlanRefusal | null {
	testMark('plan-refusal');
	const crash = crashRefusal(analysis);
	if (crash) {
		return {kind: 'repair-routing-crash', ...crash};
	}

	return plan.donorRefusal
		? {
				kind: 'donor-refused',
				reason: `--donor refused: ${plan.donorRefusal}`,
				next: 'see the refused orphans and their candidate donors with: hfx repair',
			}
		: null;
}

function readRows(store: ReadOnlyStore, ids: readonly string[]): Map<string, Record<string, unknown>> {
	const stmt = store.prepare('SELECT * FROM sessions WHERE id = ?');
	const rows = new Map<string, Record<string, unknown>>();
	for (const id of [...new Set(ids)].sort()) {
		const row = stmt.get(id) as Record<string, unknown> | undefined;
		if (row) {
			rows.set(id, row);
		}
	}

	return rows;
}

export type PlanOptions = {
	owner: string;
	maxGapSeconds: number;
	only?: readonly string[];
	donor?: string;
	now?: number;
	/** The store's preflight the caller already took (hfx repair's, passed down): then none is taken here. */
	preflight?: Preflight;
	/** The installed build's rules for the store's generation (issue #27); absent: the generation's own. */
	buildRules?: (ruleSet: RuleSet) => BuildRules;
};

/** What the plan reads of the store in one read: the analysis, the rows it touches, the schema, the writer's SQLite. */
function planRead(dbPath: string, options: PlanOptions) {
	return (store: ReadOnlyStore) => {
		const schema = detectSchema(store);
		const {snapshot} = readSnapshot(
			store,
			schema,
			routingHomeOf({path: dbPath, owner: options.owner}, schema).context,
			{columns: 'full'},
		);
		const analysis = analyze(snapshot, {
			maxGapSeconds: options.maxGapSeconds,
			buildRules: options.buildRules?.(schema.ruleSet),
		});
		const ids = analysis.orphans.flatMap(o => [o.orphanId, ...(o.donorId ? [o.donorId] : [])]);
		const chosen = options.donor === undefined ? null : resolveSessionId(analysis.byId.keys(), options.donor);
		if (chosen?.ok) {
			ids.push(chosen.id);
		}

		// The SQLite the write goes through, not node:sqlite's of an immutable read.
		return {
			analysis,
			rows: store.read(() => readRows(store, ids)),
			schema,
			sqliteVersion: store.isImmutable ? writerSqliteVersion() : store.sqliteVersion(),
		};
	};
}

/**
 * Reads the store read-only and computes a bound plan. The basis (what the plan is computed from) is read before and
 * after: a store that moved meanwhile is refused. The -shm is read through the caller's reader (the TUI's, the apply's)
 * or, given none, one of the plan's own, closed after it.
 */
export async function computePlan(dbPath: string, options: PlanOptions, reader?: ShmReader): Promise<Planned> {
	testMark('plan');
	if (reader) {
		return planWith(dbPath, options, reader);
	}

	const own = new ShmReader();
	try {
		return await planWith(dbPath, options, own);
	} finally {
		await own.close();
	}
}

/** The plan, its -shm read through `reader` before and after the read. */
async function planWith(dbPath: string, options: PlanOptions, reader: ShmReader): Promise<Planned> {
	// The same refusals as every read (missing, not SQLite, 0-byte beside a WAL...), before the basis's stat and -shm
	// read: the caller's preflight, or one taken now. The read checks the file against it again (readStore).
	const pre = options.preflight ?? preflight(dbPath);
	const before = await readPlanBasis(dbPath, '', reader);
	// A stopped store (what a repair requires) is read in place as an immutable file, never copied.
	const {analysis, rows, schema, sqliteVersion} = readStore(dbPath, planRead(dbPath, options), {
		preflight: pre,
	});
	const hashOfRows = rowsHash(rows);
	const after = await readPlanBasis(dbPath, hashOfRows, reader);
	const moved = basisDifference({...before, rowsHash: hashOfRows}, after);
	if (moved) {
		throw new FailClosed({
			file: dbPath,
			kind: 'store-moving',
			reason: `the store changed while it was being read (${moved}); a writer is active`,
			next: 'stop the gateway, then run hfx repair again',
		});
	}

	const plan = planRepair({
		analysis,
		rows,
		sessionColumns: schema.sessionColumns,
		only: options.only,
		donor: options.donor,
		now: options.now ?? Date.now() / 1000,
	});
	return {
		plan,
		analysis,
		rows,
		basis: after,
		hash: planHash(plan, hashOfRows),
		sqliteVersion,
		sessionColumns: schema.sessionColumns,
		schema: {version: schema.version, ruleSet: schema.ruleSet},
		refusal: planRefusal(analysis, plan),
	};
}

export type {ApplyOutcome, ChangeRecord} from './write/write-run.js';

export type ApplyOptions = {
	dbPath: string;
	owner: string;
	maxGapSeconds: number;
	only?: readonly string[];
	/** The operator's donor for the one orphan `only` names (an adoption repair-routing refuses). */
	donor?: string;
	argv: string[];
	/** Typed confirmation; resolves true to go ahead. Not called with yes. */
	confirm: (planned: Planned) => Promise<boolean>;
	yes: boolean;
	/** Progress lines for the operator. */
	log: (line: string) => void;
	/** A plan already shown to the operator (TUI, hfx repair --donor): applied only if the store still matches it. */
	planned?: Planned;
	/** The caller settled the audit trail's crash windows already (hfx repair does, first): none are settled here. */
	reconciled?: boolean;
	/** Called once the plan is known, before any precondition or prompt (to show it). */
	onPlanned?: (planned: Planned) => void;
	/** The store's preflight the command already took: the plan uses it (computePlan takes none of its own). */
	preflight?: Preflight;
	/** The installed build's rules (issue #27): the plan and the re-read after the write judge by them. */
	buildRules?: (ruleSet: RuleSet) => BuildRules;
};

/**
 * Test hook: hold the write transaction open for this long after the first UPDATE (fault injection for the interrupt
 * tests).
 */
function holdForTests(): void {
	const ms = Number(process.env.HFX_TEST_HOLD_IN_TRANSACTION_MS ?? 0);
	if (ms > 0) {
		Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
	}
}

function verify(
	dbPath: string,
	owner: string,
	maxGapSeconds: number,
	adoptions: readonly Adoption[],
	buildRules?: PlanOptions['buildRules'],
): ApplyOutcome['verification'] {
	return readStore(dbPath, store => {
		const schema = detectSchema(store);
		const {snapshot} = readSnapshot(store, schema, routingHomeOf({path: dbPath, owner}, schema).context);
		const analysis = analyze(snapshot, {maxGapSeconds, buildRules: buildRules?.(schema.ruleSet)});
		return adoptions.map(a => {
			const row = analysis.byId.get(a.orphanId);
			const chat = analysis.routing.find(r => r.sessionKey === a.sessionKey);
			const resolved = chat?.restartResolvesTo ?? null;
			const onOrphanLine =
				resolved === a.orphanId ||
				(resolved !== null && analysis.lineage.parentEdge.get(resolved)?.parentId === a.orphanId);
			const carriesKey = row?.sessionKey === a.sessionKey;
			const ok = carriesKey && onOrphanLine;
			return {
				orphanId: a.orphanId,
				sessionKey: a.sessionKey,
				carriesKey,
				restartResolvesTo: resolved,
				ok,
				why: ok || !chat ? null : stillWinsWhy(chat, a.orphanId),
			};
		});
	});
}

/** One apply in progress: the plan once known, the writes it makes, and how they are recorded. */
class ApplyRun extends WriteRun {
	readonly mode = 'apply';
	planned: Planned | undefined;
	/** The planned writes (the donor's open ended_at stamped), known before the transaction. */
	plannedWrites: ChangeRecord[] = [];

	constructor(readonly options: ApplyOptions) {
		super(options.dbPath, auditPathFor(options.dbPath), options.argv, options.log);
	}

	sqliteVersion(): string {
		return this.planned?.sqliteVersion ?? 'unknown';
	}

	outcomeFields(): Record<string, unknown> {
		const {planned} = this;
		return {
			planHash: planned?.hash ?? null,
			binding: planned?.basis ?? null,
			adoptions:
				planned?.plan.adoptions.map(a => ({
					orphanId: a.orphanId,
					donorId: a.donorId,
					sessionKey: a.sessionKey,
					evidence: a.evidence,
					...(a.refusedBecause ? {refusedBecause: a.refusedBecause} : {}),
				})) ?? [],
			verification: this.outcome.verification,
		};
	}

	intentFields(): IntentFields {
		const {planHash, binding, adoptions} = this.outcomeFields();
		return {planHash, binding, adoptions, changes: this.plannedWrites};
	}
}

/** Every column each adoption writes, before and after, with the apply's time for an open donor. */
function plannedChanges(bound: Planned, stamp: number): ChangeRecord[] {
	return bound.plan.adoptions.flatMap(a =>
		a.rows.flatMap(row =>
			row.columns.map(c => ({
				sessionId: row.sessionId,
				role: row.role,
				column: c.column,
				before: c.before,
				after: toValue(c.after === AT_APPLY ? stamp : fromValue(c.after)),
			})),
		),
	);
}

/** The plan (or the one already shown), then the typed confirmation; null when there is something to write. */
async function planAndConfirm(run: ApplyRun, reader: ShmReader): Promise<ApplyOutcome | null> {
	const {options, outcome} = run;
	const planned = options.planned ?? (await computePlan(options.dbPath, options, reader));
	run.planned = planned;
	options.onPlanned?.(planned);
	const {plan, refusal} = planned;
	if (refusal) {
		const next =
			refusal.kind === 'donor-refused' ? 'see the candidate donors with: hfx repair (dry run)' : refusal.next;
		return run.refuse(refusal.reason, next);
	}

	if (plan.unknownOnly.length > 0) {
		return run.refuse(
			`--only names no adoptable orphan: ${plan.unknownOnly.join('; ')}`,
			'list the adoptable orphans with: hfx repair',
		);
	}

	// Fail closed: a verdict that needs a column the store lacks would come out "fine" by default.
	const missing = planned.analysis.snapshot.missingColumns ?? [];
	if (plan.adoptions.length > 0 && missing.length > 0) {
		return run.refuse(
			`the store ` +
				`lacks ${missing.map(m => m.column).join(', ')}: ${missing[0]!.undecided}, ` +
				`so no adoption can be decided; nothing was written`,
			'read the findings with: hfx scan',
		);
	}

	if (plan.adoptions.length === 0) {
		outcome.result = 'nothing-to-do';
		outcome.exitCode = plan.refused.length > 0 || planned.analysis.repairRoutingCrash !== null ? 1 : 0;
		outcome.reason =
			plan.refused.length > 0
				? `no adoptable orphan; ${plan.refused.length} refused (see the dry run)`
				: 'no orphan to adopt';
		run.record();
		return outcome;
	}

	if (!options.yes && !(await options.confirm(planned))) {
		return run.refuse(
			'not confirmed: nothing was written',
			'run again and type the confirmation, or pass --yes after reviewing the dry run',
			'aborted',
		);
	}

	return null;
}

/** Inside BEGIN IMMEDIATE: the rows the plan touches, and whether the store still matches the plan. */
async function boundRows(
	run: ApplyRun,
	db: Database.Database,
	bound: Planned,
	reader: ShmReader,
): Promise<{touched: Map<string, Record<string, unknown>>; refusal: Stop<ApplyOutcome> | null}> {
	const touched = new Map<string, Record<string, unknown>>();
	const select = db.prepare('SELECT * FROM sessions WHERE id = ?');
	for (const id of [...bound.rows.keys()]) {
		const row = select.get(id) as Record<string, unknown> | undefined;
		if (row) {
			touched.set(id, row);
		}
	}

	const now = await readPlanBasis(run.options.dbPath, rowsHash(touched), reader);
	const moved = basisDifference(bound.basis, now);
	run.outcome.checks.push({
		id: 'plan-current',
		ok: moved === null,
		label: 'the store still matches the plan (checked inside BEGIN IMMEDIATE)',
		detail: moved ?? `plan ${bound.hash.slice(0, 16)}`,
		next: moved ? 'run hfx repair again for a fresh plan' : null,
	});
	run.options.log(`${moved ? '✗' : '✓'} the store still matches the plan${moved ? `: ${moved}` : ''}`);
	if (moved) {
		return {
			touched,
			refusal: () =>
				run.refuse(`the plan is stale: ${moved}`, 'run hfx repair again (dry run) and review the new plan'),
		};
	}

	return {touched, refusal: null};
}

/**
 * Every adoption's two UPDATEs, each re-verified as Hermes does (adopt_orphaned_gateway_session); null when all were
 * written.
 */
function writeAdoptions(
	run: ApplyRun,
	db: Database.Database,
	bound: Planned,
	touched: ReadonlyMap<string, Record<string, unknown>>,
	stamp: number,
): Stop<ApplyOutcome> | null {
	const cols = bound.sessionColumns;
	const fill = (['chat_id', 'chat_type', 'thread_id', 'user_id', 'origin_json', 'display_name'] as const).filter(c =>
		cols.has(c),
	);
	const updateOrphan = db.prepare(
		`UPDATE sessions SET session_key = ` +
			`?, ${fill.map(c => `${c} = COALESCE(${c}, ?)`).join(', ')}${fill.length > 0 ? ', ' : ''}parent_session_id ` +
			`= COALESCE(parent_session_id, ?) WHERE id = ? AND session_key IS NULL`,
	);
	const updateDonor = db.prepare('UPDATE sessions SET ended_at = COALESCE(ended_at, ?), end_reason = ? WHERE id = ?');
	for (const [i, a] of bound.plan.adoptions.entries()) {
		const donor = touched.get(a.donorId);
		const orphan = touched.get(a.orphanId);
		if (
			!donor ||
			!orphan ||
			!donor.session_key ||
			orphan.session_key !== null ||
			String(donor.source ?? '') !== String(orphan.source ?? '')
		) {
			return () => run.refuse(`${a.orphanId} or its donor ${a.donorId} no longer qualifies`, 'run hfx repair again');
		}

		const o = updateOrphan.run(donor.session_key, ...fill.map(c => donor[c] ?? null), a.donorId, a.orphanId);
		if (i === 0) {
			holdForTests();
		}

		const d = updateDonor.run(stamp, REPAIR_END_REASON, a.donorId);
		if (o.changes !== 1 || d.changes !== 1) {
			return () =>
				run.refuse(
					`an update touched ${o.changes}/${d.changes} rows instead of 1/1 for ${a.orphanId}`,
					'run hfx repair again',
				);
		}
	}

	return null;
}

/**
 * The guarded write (guarded-write.ts): snapshot, holders again, intent, one transaction (all adoptions or none),
 * outcome.
 */
async function commitAdoptions(run: ApplyRun, bound: Planned, reader: ShmReader): Promise<ApplyOutcome> {
	const stamp = Date.now() / 1000;
	run.plannedWrites = plannedChanges(bound, stamp);
	return guardedWrite(run, {
		label: 'pre-repair',
		async body(db) {
			const {touched, refusal} = await boundRows(run, db, bound, reader);
			return refusal ?? writeAdoptions(run, db, bound, touched, stamp);
		},
		failed(error) {
			run.outcome.changes = [];
			return run.refuse(
				`the write failed and was rolled back: ${errorMessage(error)}`,
				'nothing was written; check the store and run again',
				'failed',
			);
		},
		committed: () => verifyAndRecord(run, bound),
	});
}

/** A finding the adoption did not clear: where a restart still goes, and why. */
function remainingWords(b: {
	sessionKey: string;
	restartResolvesTo: string | null;
	orphanId: string;
	why?: string | null;
}): string {
	const why = b.why ? ` (${b.why})` : '';
	const resumes = b.restartResolvesTo ?? 'a new, empty session';
	return `${b.sessionKey}: a restart still resumes ${resumes}, not ${b.orphanId}${why}`;
}

/** After the commit: re-read the store, confirm each orphan carries its key and a restart resumes it, record. */
function verifyAndRecord(run: ApplyRun, bound: Planned): ApplyOutcome {
	const {outcome, options} = run;
	const {plan} = bound;
	outcome.applied = plan.adoptions;
	outcome.changes = run.plannedWrites;
	options.log(
		`✓ committed ${plan.adoptions.length} adoption${plan.adoptions.length === 1 ? '' : 's'} in one transaction`,
	);
	let reread: string | null = null;
	try {
		outcome.verification = verify(
			options.dbPath,
			options.owner,
			options.maxGapSeconds,
			plan.adoptions,
			options.buildRules,
		);
	} catch (error) {
		// Committed all the same: recorded as such (undoable), never as a refusal.
		reread = error instanceof FailClosed ? error.reason : errorMessage(error);
	}

	// Committed: the exit says so (1 where something is left to look at); 2 stays for "nothing was written".
	const bad = outcome.verification.filter(v => !v.ok);
	const unconfirmed = bad.filter(v => !v.carriesKey);
	if (reread !== null || unconfirmed.length > 0) {
		Object.assign(outcome, {
			exitCode: 1,
			result: 'failed',
			reason:
				reread === null
					? `applied, but the re-read does not show the key on ${unconfirmed.map(b => b.orphanId).join(', ')}`
					: `applied, but the re-read failed (${reread})`,
			next: 'inspect with hfx routing; undo with hfx repair --undo <entry>',
		});
	} else {
		outcome.result = 'applied';
		outcome.exitCode = plan.refused.length > 0 || bad.length > 0 ? 1 : 0;
		if (bad.length > 0) {
			outcome.reason = `applied, but a finding remains: ${bad.map(remainingWords).join('; ')}`;
			outcome.next =
				`look at the chat with hfx routing ${JSON.stringify(bad[0]!.sessionKey)} ` +
				`before restarting; undo with hfx repair --undo <entry>`;
		}
	}

	run.record();
	if (outcome.next?.includes('<entry>') && outcome.audit) {
		outcome.next = outcome.next.replace('<entry>', String(outcome.audit.seq));
	}

	return outcome;
}

/** Settles an earlier run's crash window first (reconcile.ts); never stops the apply. */
function reconciled(run: ApplyRun): null {
	try {
		reconcileAudit({dbPath: run.dbPath, argv: run.argv, write: true, warn: run.log});
	} catch (error) {
		// The preconditions that follow refuse an unwritable or linked trail in their own words.
		run.log(`warning: an interrupted earlier write could not be reconciled: ${errorMessage(error)}`);
	}

	return null;
}

/**
 * Runs the whole apply: holders, plan and confirmation, snapshot, one write transaction, verify.
 * Never throws for a refusal: the outcome says what happened, and the audit trail records it.
 */
export async function applyRepair(options: ApplyOptions): Promise<ApplyOutcome> {
	const run = new ApplyRun(options);
	const reader = new ShmReader();
	try {
		const settled = options.reconciled ? null : reconciled(run);
		const stopped = settled ?? checkPreconditions(run) ?? (await planAndConfirm(run, reader));
		if (stopped) {
			return stopped;
		}

		// From the snapshot to the audit entry, an interrupt waits: a committed write is always verified and recorded.
		return await commitAdoptions(run, run.planned!, reader);
	} catch (error) {
		if (error instanceof FailClosed) {
			return run.refuse(error.reason, error.next);
		}

		throw error;
	} finally {
		await reader.close();
	}
}
