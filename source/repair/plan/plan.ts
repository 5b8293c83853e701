/**
 * The repair plan: for each adoptable orphan, the exact writes `repair-routing --apply` makes
 * (docs/hermes-rules.md, apply) as a before/after table, what a restart resumes for that chat
 * before and after, and the consequences worth a warning. Pure: rows and an analysis in, a plan
 * out.
 */
import {sha256 as sha256Hash} from '../../ground/crypto.js';
import {type Analysis, analyze} from '../../forensics/analysis/analyze.js';
import {REPAIR_END_REASON} from '../../forensics/end-reasons.js';
import type {OrphanVerdict} from '../../forensics/routing/orphans.js';
import {resolutionProblem, resolveSessionId} from '../../forensics/resolve.js';
import {chooseDonor} from './operator-choice.js';
import {heldBackByBuild} from './build-held-back.js';
import type {SessionRecord, Snapshot} from '../../forensics/types.js';

/** A column value as JSON can carry it (Buffers as hex, bigints as strings). */
export type Value = string | number | null | {hex: string} | {bigint: string};

/** The donor's ended_at when it was still open: set to the time of the apply. */
export const AT_APPLY = '<time of apply>';

export type ColumnChange = {
	column: string;
	before: Value;
	/** AT_APPLY until the apply stamps the time. */
	after: Value;
	/** False when the write keeps the value (COALESCE over a non-NULL cell). */
	changes: boolean;
};

export type RowChange = {sessionId: string; role: 'orphan' | 'donor'; columns: ColumnChange[]};

export type Adoption = {
	orphanId: string;
	donorId: string;
	sessionKey: string;
	/** `operator`: the donor was chosen by the operator (--donor) for an orphan repair-routing refuses. */
	evidence: 'lineage' | 'contiguity' | 'operator';
	/** For an operator's choice: why repair-routing refused the orphan, in Hermes' words. */
	refusedBecause?: {reasonKind: string | null; reason: string};
	messageCount: number;
	rows: [RowChange, RowChange];
	restartBefore: string | null;
	restartAfter: string | null;
	rollbackRiskBefore: boolean;
	rollbackRiskAfter: boolean;
	/**
	 * Where this adoption undoes a rollback that already happened (forensics/rollbacks/rollbacks.ts): the
	 * turns the gateway wrote into the donor after the restart, which stay there (§1.4).
	 */
	writtenSinceRestart?: {messages: number; userTurns: number; firstAt: number; lastAt: number};
	warnings: string[];
};

export type RepairPlan = {
	adoptions: Adoption[];
	/** Orphans repair-routing refuses, with Hermes' reason. */
	refused: OrphanVerdict[];
	/** Adoptable orphans left out by --only. */
	notSelected: string[];
	/** --only ids that name no adoptable orphan. */
	unknownOnly: string[];
	/** Why the operator's --donor is refused (nothing is planned then), or null. */
	donorRefusal: string | null;
	maxGapSeconds: number;
};

/** Orphan columns filled from the donor only where the orphan's are NULL. */
export const FILLED_COLUMNS = ['chat_id', 'chat_type', 'thread_id', 'user_id', 'origin_json', 'display_name'] as const;

export function toValue(v: unknown): Value {
	if (v === null || v === undefined) {
		return null;
	}

	if (typeof v === 'string' || typeof v === 'number') {
		return v;
	}

	if (typeof v === 'bigint') {
		return {bigint: v.toString()};
	}

	if (Buffer.isBuffer(v)) {
		return {hex: v.toString('hex')};
	}

	return String(v);
}

/** Back to what SQLite stores. */
export function fromValue(v: Value): string | number | bigint | Buffer | null {
	if (v === null || typeof v === 'string' || typeof v === 'number') {
		return v;
	}

	return 'hex' in v ? Buffer.from(v.hex, 'hex') : BigInt(v.bigint);
}

function same(a: Value, b: Value): boolean {
	return JSON.stringify(a) === JSON.stringify(b);
}

/** JSON with sorted keys: the stable text hashed for plans and rows. */
export function canonical(value: unknown): string {
	return JSON.stringify(value, (_k, v: unknown) => {
		if (typeof v === 'bigint') {
			return {bigint: v.toString()};
		}

		if (v && typeof v === 'object' && !Array.isArray(v)) {
			if ((v as {type?: string}).type === 'Buffer' && Array.isArray((v as {data?: unknown}).data)) {
				return {hex: Buffer.from((v as {data: number[]}).data).toString('hex')};
			}

			return Object.fromEntries(
				Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
			);
		}

		return v;
	});
}

export function sha256(text: string): string {
	return sha256Hash().update(text).digest('hex');
}

/** The hash of the full rows a plan touches: any change to any of their columns changes it. */
export function rowsHash(rows: ReadonlyMap<string, Record<string, unknown>>): string {
	return sha256(canonical([...rows.entries()].sort(([a], [b]) => (a < b ? -1 : 1))));
}

function column(name: string, before: unknown, after: Value): ColumnChange {
	const b = toValue(before);
	return {column: name, before: b, after, changes: !same(b, after)};
}

/** What the sessions look like after the plan, for predicting the restart (pure). */
export function applyToRecords(
	sessions: readonly SessionRecord[],
	adoptions: readonly Adoption[],
	at: number,
): SessionRecord[] {
	const byId = new Map(sessions.map(s => [s.id, {...s}]));
	for (const a of adoptions) {
		const o = byId.get(a.orphanId);
		const d = byId.get(a.donorId);
		if (!o || !d) {
			continue;
		}

		o.sessionKey = d.sessionKey;
		o.chatId ??= d.chatId;
		o.chatType ??= d.chatType;
		o.threadId ??= d.threadId;
		o.userId ??= d.userId;
		o.displayName ??= d.displayName;
		o.parentSessionId ??= d.id;
		d.endedAtRaw = d.endedAtRaw ?? at;
		d.endReason = REPAIR_END_REASON;
	}

	return [...byId.values()];
}

export type PlanInput = {
	analysis: Analysis;
	/** Full rows (every column) of the orphans and donors involved, by id. */
	rows: ReadonlyMap<string, Record<string, unknown>>;
	/** Columns the sessions table has (older stores may lack some Hermes writes). */
	sessionColumns: ReadonlySet<string>;
	only?: readonly string[];
	/** The operator's donor for the one orphan --only names (hfx repair --donor). */
	donor?: string;
	/** Epoch seconds used to predict the state after the apply. */
	now: number;
};

/**
 * The adoptable orphans `--only` names (each name resolved as every command resolves a session:
 * the id, a unique prefix or its random suffix), and each name that names none, with why.
 */
function selectOnly(
	adoptable: readonly OrphanVerdict[],
	only: readonly string[],
	listed: readonly OrphanVerdict[],
): {selected: OrphanVerdict[]; unknown: string[]} {
	const ids = new Set<string>();
	const unknown: string[] = [];
	for (const name of only) {
		const r = resolveSessionId(
			adoptable.map(o => o.orphanId),
			name,
		);
		if (r.ok) {
			ids.add(r.id);
			continue;
		}

		const other = resolveSessionId(
			listed.map(o => o.orphanId),
			name,
		);
		unknown.push(
			other.ok
				? `${name} (${other.id} is not adoptable: ${listed.find(o => o.orphanId === other.id)?.reason ?? 'refused'})`
				: `${name} (${resolutionProblem(r, 'adoptable orphan')})`,
		);
	}

	return {selected: adoptable.filter(o => ids.has(o.orphanId)), unknown};
}

/** One adoption's writes, as repair-routing's --apply makes them, with the consequences worth a warning. */
function draftAdoption(o: OrphanVerdict, rows: PlanInput['rows'], has: (column: string) => boolean): Adoption {
	const orphan = rows.get(o.orphanId) ?? {};
	const donor = rows.get(o.donorId!) ?? {};
	const orphanCols: ColumnChange[] = [column('session_key', orphan.session_key, toValue(donor.session_key))];
	for (const c of FILLED_COLUMNS) {
		if (has(c)) {
			orphanCols.push(column(c, orphan[c], toValue(orphan[c] ?? donor[c])));
		}
	}

	orphanCols.push(
		column('parent_session_id', orphan.parent_session_id, toValue(orphan.parent_session_id ?? o.donorId)),
	);
	const donorCols: ColumnChange[] = [
		column(
			'ended_at',
			donor.ended_at,
			donor.ended_at === null || donor.ended_at === undefined ? AT_APPLY : toValue(donor.ended_at),
		),
		column('end_reason', donor.end_reason, REPAIR_END_REASON),
	];
	const warnings: string[] = [];
	if (donor.end_reason === 'compression') {
		warnings.push(
			`the donor's end reason "compression" is overwritten with ` +
				`"${REPAIR_END_REASON}": its continuation child is no longer classed as ` +
				`a compression continuation`,
		);
	}

	if (donor.ended_at === null || donor.ended_at === undefined) {
		warnings.push(`the donor ${o.donorId} is still open: the repair ends it now (it will never be resumed again)`);
	} else if (donor.end_reason && donor.end_reason !== REPAIR_END_REASON) {
		warnings.push(`the donor's end reason "${String(donor.end_reason)}" is replaced; its ended_at is kept`);
	}

	for (const c of FILLED_COLUMNS) {
		if (
			has(c) &&
			orphan[c] !== null &&
			orphan[c] !== undefined &&
			donor[c] !== null &&
			donor[c] !== undefined &&
			!same(toValue(orphan[c]), toValue(donor[c]))
		) {
			warnings.push(
				`the orphan keeps its own ${c} (${JSON.stringify(toValue(orphan[c]))}); ` +
					`the donor's is ${JSON.stringify(toValue(donor[c]))}`,
			);
		}
	}

	return {
		orphanId: o.orphanId,
		donorId: o.donorId!,
		sessionKey: o.sessionKey!,
		evidence: o.evidence as 'lineage' | 'contiguity',
		messageCount: o.messageCount,
		rows: [
			{sessionId: o.orphanId, role: 'orphan', columns: orphanCols},
			{sessionId: o.donorId!, role: 'donor', columns: donorCols},
		],
		restartBefore: null,
		restartAfter: null,
		rollbackRiskBefore: false,
		rollbackRiskAfter: false,
		warnings,
	};
}

/**
 * Where current Hermes' own repair-routing fails on this store (the store's, when it is current;
 * else the one an upgrade brings), hfx cannot say what Hermes would adopt: the refusal, or null.
 */
export function crashRefusal(
	analysis: Pick<Analysis, 'afterUpgrade' | 'repairRoutingCrash' | 'ruleSet'>,
): {reason: string; next: string} | null {
	const current = analysis.afterUpgrade ?? analysis;
	const crash = current.repairRoutingCrash;
	if (crash === null) {
		return null;
	}

	return {
		reason:
			`current Hermes' own repair-routing (rules ${current.ruleSet}) fails on ` +
			`this store (${crash.error}, on session ${crash.sessionId}): hfx cannot ` +
			`say what Hermes would adopt, so it repairs nothing`,
		next: 'see the row and why with: hfx scan',
	};
}

/**
 * On a store of an older generation hfx writes an adoption only where current Hermes, which takes
 * over after an upgrade, names the same donor: the fail-closed choice where the two disagree
 * (say v25 adopting across profiles, which v30's fence refuses). Returns the refusal, or null.
 */
export function heldBack(
	o: OrphanVerdict,
	analysis: Pick<Analysis, 'afterUpgrade' | 'ruleSet' | 'rulesLabel'>,
): OrphanVerdict | null {
	if (analysis.afterUpgrade === null) {
		return null;
	}

	const after = analysis.afterUpgrade.listed.find(x => x.orphanId === o.orphanId);
	if (after?.verdict === 'adoptable' && after.donorId === o.donorId && after.sessionKey === o.sessionKey) {
		return null;
	}

	const current =
		after === undefined
			? 'does not list it'
			: after.verdict === 'adoptable'
				? `adopts it from ${after.donorId} instead`
				: `refuses it (${after.reasonKind}: ${after.reason})`;
	return {
		...o,
		verdict: 'refused',
		reasonKind: 'generations_disagree',
		reason:
			`held back: this store's Hermes (${analysis.rulesLabel}) would adopt it ` +
			`from ${o.donorId}, but current Hermes ` +
			`(${analysis.afterUpgrade.rulesLabel}) ${current}; hfx writes only what ` +
			`both agree on`,
	};
}

/** The orphans to adopt: every adoptable one, the ones --only names, or the operator's choice (--donor). */
function selection(
	input: PlanInput,
	adoptable: OrphanVerdict[],
	held: OrphanVerdict[],
): {selected: OrphanVerdict[]; unknown: string[]; manual: boolean; donorRefusal: string | null} {
	const only = input.only ?? [];
	if (input.donor !== undefined) {
		const choice = chooseDonor(input.analysis, only, input.donor);
		// Naming repair-routing's own donor is its adoption, held back as it is where the generations disagree.
		const hold = choice.ok && !choice.manual ? held.find(h => h.orphanId === choice.verdict.orphanId) : undefined;
		if (!choice.ok || hold) {
			return {selected: [], unknown: [], manual: false, donorRefusal: choice.ok ? hold!.reason : choice.reason};
		}

		return {selected: [choice.verdict], unknown: [], manual: choice.manual, donorRefusal: null};
	}

	const picked =
		only.length > 0
			? selectOnly(adoptable, only, [...held, ...input.analysis.orphans])
			: {selected: adoptable, unknown: []};
	return {...picked, manual: false, donorRefusal: null};
}

/** An operator's adoption says so, and why repair-routing refused it, before any other warning. */
function markOperatorChoice(a: Adoption, refused: OrphanVerdict): void {
	a.evidence = 'operator';
	a.refusedBecause = {reasonKind: refused.reasonKind, reason: refused.reason};
	a.warnings.unshift(
		`operator choice: repair-routing refuses ${a.orphanId} ` +
			`(${refused.reasonKind ?? 'refused'}: ${refused.reason}); this adoption ` +
			`from ${a.donorId} is your decision, the manual procedure of Hermes' ` +
			`tracking issue, not Hermes' own`,
	);
}

export function planRepair(input: PlanInput): RepairPlan {
	const {analysis, rows} = input;
	const held = analysis.orphans
		.filter(o => o.verdict === 'adoptable')
		.map(o => heldBack(o, analysis) ?? heldBackByBuild(o, analysis))
		.filter(o => o !== null);
	const adoptable = analysis.orphans.filter(
		o => o.verdict === 'adoptable' && o.donorId && o.sessionKey && !held.some(h => h.orphanId === o.orphanId),
	);
	const {selected, unknown: unknownOnly, manual, donorRefusal} = selection(input, adoptable, held);
	const has = (c: string) => input.sessionColumns.has(c);
	const draft: Adoption[] = selected.map(o => draftAdoption(o, rows, has));
	if (manual) {
		markOperatorChoice(draft[0]!, analysis.orphans.find(o => o.orphanId === draft[0]!.orphanId)!);
	}

	// What a restart resumes for each chat, before and after all selected adoptions.
	const afterSnapshot: Snapshot = {
		...analysis.snapshot,
		sessions: applyToRecords(analysis.snapshot.sessions, draft, input.now),
	};
	const after = analyze(afterSnapshot, {
		maxGapSeconds: analysis.maxGapSeconds,
		buildRules: analysis.buildRules ?? undefined,
	});
	for (const a of draft) {
		predictRestart(a, analysis, after);
	}

	return {
		adoptions: draft,
		refused: [
			...analysis.orphans.filter(o => o.verdict === 'refused' && !(manual && o.orphanId === draft[0]?.orphanId)),
			...held,
		],
		notSelected: input.donor === undefined ? adoptable.filter(o => !selected.includes(o)).map(o => o.orphanId) : [],
		unknownOnly,
		donorRefusal,
		maxGapSeconds: analysis.maxGapSeconds,
	};
}

/** What a restart resumes for the adoption's chat, before and after, with the warnings that follow. */
function predictRestart(a: Adoption, analysis: Analysis, after: Analysis): void {
	const chatBefore = analysis.routing.find(r => r.sessionKey === a.sessionKey);
	const chatAfter = after.routing.find(r => r.sessionKey === a.sessionKey);
	a.restartBefore = chatBefore?.restartResolvesTo ?? null;
	a.restartAfter = chatAfter?.restartResolvesTo ?? null;
	a.rollbackRiskBefore = chatBefore?.rollbackRisk ?? false;
	a.rollbackRiskAfter = chatAfter?.rollbackRisk ?? false;
	const rollback = analysis.rollbacks.find(
		r => r.resumedId === a.donorId && (r.skipped.id === a.orphanId || r.alsoSkipped.some(x => x.id === a.orphanId)),
	);
	if (rollback) {
		// By design the turns written since the restart stay in the retired donor: not a risk left by the repair.
		a.writtenSinceRestart = {
			messages: rollback.after.messages,
			userTurns: rollback.after.userTurns,
			firstAt: rollback.resumedAt,
			lastAt: rollback.after.lastAt,
		};
		a.rollbackRiskAfter = false;
	}

	if (chatBefore?.routingEntry === a.donorId) {
		a.warnings.push(
			`gateway_routing still names the donor: the gateway drops that entry on ` +
				`the next message (the donor is ended) and finds ${a.orphanId} by its key`,
		);
	}

	const resumesOrphanLine =
		a.restartAfter !== null &&
		(a.restartAfter === a.orphanId || after.lineage.parentEdge.get(a.restartAfter)?.parentId === a.orphanId);
	if (!resumesOrphanLine) {
		a.warnings.push(
			`after the repair a restart would still ` +
				`resume ${a.restartAfter ?? 'a new, empty session'}, not ${a.orphanId}: ` +
				`check \`hfx routing ${a.sessionKey}\` before restarting`,
		);
	}
}

/**
 * What identifies a plan: the writes and the hash of the rows they were computed from. The same
 * store content gives the same hash, so a dry run and a later apply can be compared even after
 * the gateway's clean shutdown reset the WAL.
 */
export function planHash(plan: RepairPlan, touchedRowsHash: string): string {
	return sha256(
		canonical({
			rows: touchedRowsHash,
			adoptions: plan.adoptions.map(a => ({
				orphan: a.orphanId,
				donor: a.donorId,
				key: a.sessionKey,
				rows: a.rows,
				...(a.evidence === 'operator' ? {evidence: a.evidence} : {}),
			})),
		}),
	);
}
