/**
 * One pass of the forensic engine over a snapshot: lineage, orphans, per-chat routing and the
 * findings an operator must act on. Pure: same snapshot in, same analysis out.
 */
import {type BuildRules, variantsCanDiffer} from '../routing/build-rules.js';
import {CURRENT_RULE_SET, type Rules, orphanRulesFor, rulesFor} from '../generations.js';
import {type Lineage, buildLineageSteps} from '../lineage/lineage.js';
import {DEFAULT_MAX_GAP_SECONDS, type OrphanVerdict, findOrphans, isListedRefusedLocal} from '../routing/orphans.js';
import {type RepairRoutingCrash, repairRoutingCrashOf} from '../routing/repair-routing-crash.js';
import {type ChatRouting, analyzeRoutingSteps} from '../routing/routing.js';
import {type UpgradeChanges, upgradeChanges} from '../routing/upgrade.js';
import {isCorruptTime} from '../time.js';
import type {MissingColumn} from '../rule-columns.js';
import type {SessionRecord, Snapshot} from '../types.js';
import {duration} from '../duration.js';
import type {Finding, Severity} from '../finding.js';
import {type Rollback, detectRollbacks} from '../rollbacks/rollbacks.js';
import {rollbackHappenedFinding} from '../rollbacks/rollback-finding.js';
import {type ReapChurn, detectReapChurn, reapChurnFinding} from '../rollbacks/reap-churn.js';
import {ELSEWHERE_ACTION_KINDS, type Elsewhere, elsewhereOf} from '../places/elsewhere.js';
import {type Steps, drain} from './steps.js';

export type {Finding, Severity} from '../finding.js';

export type {RepairRoutingCrash} from '../routing/repair-routing-crash.js';

/** The verdicts of one generation of rules on one snapshot. */
export type GenerationVerdicts = {
	ruleSet: Rules['ruleSet'];
	/** The rules as said (the generation, or its variant for a build lacking a change: build-rules.ts). */
	rulesLabel: string;
	/** Every row repair-routing lists, in its order ([] where it crashes). */
	listed: OrphanVerdict[];
	/** The findings among them: every listed row but the local-surface ones it refuses. */
	orphans: OrphanVerdict[];
	/** Local-surface rows it lists and refuses: keyless by design, not findings. */
	listedRefusedLocal: OrphanVerdict[];
	repairRoutingCrash: RepairRoutingCrash | null;
	routing: ChatRouting[];
};

export type Analysis = GenerationVerdicts & {
	snapshot: Snapshot;
	/** Rollbacks that already happened: a restart resumed an older row and the gateway wrote into it (rollbacks.ts). */
	rollbacks: Rollback[];
	/** Chats whose every turn began without history after a reap (reap-churn.ts). */
	reapChurns: ReapChurn[];
	byId: Map<string, SessionRecord>;
	lineage: Lineage;
	findings: Finding[];
	maxGapSeconds: number;
	/** What current Hermes decides once it has migrated the store; null when the store is current. */
	afterUpgrade: GenerationVerdicts | null;
	/** Per orphan and per chat: "today X; after upgrading Hermes, Y" (empty when the store is current). */
	upgradeChanges: UpgradeChanges;
	/** The places beside the store judged, and each chat's newest message outside state.db (elsewhere.ts). */
	places: Elsewhere['places'];
	newestElsewhere: Elsewhere['newestElsewhere'];
	/** The installed build, the rules it decided and how (absent: not read; the generation decided). */
	buildRules: BuildRules | null;
	/** Where the build leaves a verdict-changing rule change undecided: the verdicts of the other side. */
	buildAlternative: GenerationVerdicts | null;
	/** Per orphan and per chat where the two sides differ: "with #N: X; before #N: Y". */
	buildChanges: UpgradeChanges;
	/**
	 * `snapshot.sessions` newest activity first (newest-first.ts), when the caller sorted them in steps before
	 * publishing (the live view's first analysis); absent: the sessions pane sorts them itself.
	 */
	newestFirst?: readonly SessionRecord[];
};

export type AnalyzeOptions = {
	maxGapSeconds?: number;
	/**
	 * The sessions by id, when the caller already keeps that index of this snapshot (the live store
	 * does, and shares it with every later analysis): not built a second time.
	 */
	byId?: Map<string, SessionRecord>;
	/** The rules of the installed build (build-rules.ts); absent: the store's generation decides alone. */
	buildRules?: BuildRules;
};

/** Sessions with a timestamp outside the epoch window (reported as info findings). */
export function hasCorruptTime(s: SessionRecord): boolean {
	return isCorruptTime(s.startedAtRaw) || isCorruptTime(s.lastActivityAtRaw) || isCorruptTime(s.endedAtRaw);
}

/** @param corrupt the sessions with unusable timestamps, when the caller already knows them (in session order). */
export function collectFindings(
	verdicts: Pick<GenerationVerdicts, 'orphans' | 'routing' | 'repairRoutingCrash'> & {
		rollbacks?: readonly Rollback[];
		reapChurns?: readonly ReapChurn[];
		byId?: ReadonlyMap<string, SessionRecord>;
		elsewhere?: readonly Finding[];
	},
	sessions: readonly SessionRecord[],
	corrupt?: readonly SessionRecord[],
	changes?: UpgradeChanges,
	missing: readonly MissingColumn[] = [],
): Finding[] {
	const crash = verdicts.repairRoutingCrash;
	// The operator's own complaint first: a rollback that already happened.
	const findings: Finding[] = [
		...(verdicts.rollbacks ?? []).map(rollbackHappenedFinding),
		...(verdicts.reapChurns ?? []).map(reapChurnFinding),
		...missing.map(missingColumnFinding),
		...(verdicts.elsewhere ?? []),
		...routingFindings(verdicts.routing, verdicts.byId ?? new Map()),
		...(crash ? [repairRoutingCrashFinding(crash)] : []),
		...verdicts.orphans.map(orphanFinding),
		...(changes?.lines ?? []).map(afterUpgradeFinding),
		...corruptTimeFindings(corrupt ?? sessions.filter(hasCorruptTime)),
	];
	const order: Record<Severity, number> = {critical: 0, warning: 1, info: 2};
	return findings.sort((a, b) => order[a.severity] - order[b.severity]);
}

/** Per chat: the rollback a restart would make, and a routing entry that names an ended or missing session. */
function routingFindings(routing: readonly ChatRouting[], byId: ReadonlyMap<string, SessionRecord>): Finding[] {
	const findings: Finding[] = [];
	for (const chat of routing) {
		if (chat.rollbackRisk) {
			findings.push(rollbackFinding(chat, byId));
		}

		if (chat.routingEntryStale) {
			findings.push({
				severity: 'warning',
				kind: 'stale-routing-entry',
				subject: chat.sessionKey,
				title: `stale routing entry ${chat.sessionKey}`,
				detail: chat.routingEntryNote ?? 'the entry names an ended or missing session',
				next:
					'the gateway drops or re-creates it on the next message; check that the ' +
					'restart target above is the right conversation',
			});
		}
	}

	return findings;
}

/** This store's own `hermes sessions repair-routing` fails on it. */
function repairRoutingCrashFinding(crash: RepairRoutingCrash): Finding {
	return {
		severity: 'warning',
		kind: 'repair-routing-crash',
		subject: crash.sessionId,
		title: `this store's own repair-routing fails: ${crash.error}`,
		detail: crash.note,
		next:
			'do not rely on `hermes sessions repair-routing` here; see what current ' +
			'Hermes would do under "after upgrading Hermes"',
	};
}

/** One orphan: adoptable into its chat, or refused with the reason. */
function orphanFinding(o: OrphanVerdict): Finding {
	return o.verdict === 'adoptable'
		? {
				severity: 'warning',
				kind: 'orphan-adoptable',
				subject: o.orphanId,
				title: `orphan ${o.orphanId} (${o.messageCount} messages) adoptable into ${o.sessionKey}`,
				detail: `evidence ${o.evidence}: donor ${o.donorId}; ${o.reason}`,
				next: 'preview with: hfx repair (then stop the gateway and run hfx repair --apply)',
			}
		: {
				severity: 'warning',
				kind: 'orphan-refused',
				subject: o.orphanId,
				title: `orphan ${o.orphanId} (${o.messageCount} messages) not repairable`,
				detail: `${o.reasonKind}: ${o.reason}`,
				next:
					'its messages are safe but unreachable by restart recovery; ' +
					'repair-routing refuses it, so settle it by hand (hfx lineage ' +
					o.orphanId +
					')',
			};
}

/** One line of what current Hermes decides once it has migrated the store. */
function afterUpgradeFinding(line: UpgradeChanges['lines'][number]): Finding {
	return {
		severity: 'info',
		kind: 'after-upgrade',
		subject: line.subject,
		title: `after upgrading Hermes: ${line.subject}`,
		detail: line.text,
		next:
			'upgrading migrates the store and restarts the gateway: take `hfx backup ' +
			'--quick` first, then check `hfx scan` again',
	};
}

/**
 * The first 50 sessions with an unusable timestamp, by id: the same order however the list was built
 * (the incremental path patches it).
 */
function corruptTimeFindings(corrupt: readonly SessionRecord[]): Finding[] {
	const unusable = [...corrupt].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
	return unusable.slice(0, 50).map((s): Finding => {
		const cols = [
			['started_at', s.startedAtRaw],
			['last_activity_at', s.lastActivityAtRaw],
			['ended_at', s.endedAtRaw],
		]
			.filter(([, v]) => isCorruptTime(v as SessionRecord['startedAtRaw']))
			.map(
				([c, v]) =>
					`${String(c)}=${JSON.stringify(typeof v === 'bigint' ? String(v) : Buffer.isBuffer(v) ? '<blob>' : v)}`,
			);
		return {
			severity: 'info',
			kind: 'corrupt-timestamp',
			subject: s.id,
			title: `unusable timestamp on ${s.id}`,
			detail: `${cols.join(', ')} is outside the epoch window; it is ignored for recency, as Hermes does`,
			next: 'no action needed for routing; `hermes sessions recover` can rebuild damaged rows',
		};
	});
}

/** A column the rules need is absent: what cannot be decided, never a verdict that silently reads "fine". */
export function missingColumnFinding(m: MissingColumn): Finding {
	return {
		severity: 'warning',
		kind: 'missing-column',
		subject: m.column,
		title: `${m.column} is missing`,
		detail: `${m.column} is missing: ${m.undecided}`,
		next:
			"do not restart the gateway on this scan's word; current Hermes adds the " +
			'column on its first writable open (take `hfx backup --quick` first), ' +
			'after which hfx can decide',
	};
}

/**
 * What the operator will see if the gateway restarts now (issue #23, point 4): the chat jumps back
 * to the resumed row's context and the newest row's messages fall out of it.
 */
export function afterRestartWords(chat: ChatRouting, byId: ReadonlyMap<string, SessionRecord>): string | null {
	if (!chat.rollbackRisk || chat.restartResolvesTo === null || chat.newestActivityIn === null) {
		return null;
	}

	const newest = byId.get(chat.newestActivityIn);
	const count = newest ? (newest.messageRows ?? newest.messageCountColumn) : 0;
	const lag =
		chat.newestActivityAt !== null && chat.resolvesToActivityAt !== null
			? chat.newestActivityAt - chat.resolvesToActivityAt
			: null;
	const older = lag !== null && lag > 0 ? `, ${duration(lag)} older than the newest message,` : '';
	const messages =
		count > 0
			? `the ${count} message${count === 1 ? '' : 's'} of ${chat.newestActivityIn}`
			: `what ${chat.newestActivityIn} holds`;
	return (
		`if the gateway restarts now, the chat jumps back: its next reply ` +
		`answers from ${chat.restartResolvesTo}'s context${older} ` +
		`and ${messages} fall out of it (hfx then reports it ROLLED BACK)`
	);
}

function rollbackFinding(chat: ChatRouting, byId: ReadonlyMap<string, SessionRecord>): Finding {
	const lag =
		chat.newestActivityAt !== null && chat.resolvesToActivityAt !== null
			? chat.newestActivityAt - chat.resolvesToActivityAt
			: null;
	const adoptable = chat.adoptableOrphans.includes(chat.newestActivityIn ?? '');
	const resumes =
		chat.restartResolvesTo === null
			? 'a restart starts a fresh, empty session'
			: `a restart resumes ${chat.restartResolvesTo} (via ${chat.resolution.via})`;
	const after = afterRestartWords(chat, byId);
	return {
		severity: 'critical',
		kind: 'rollback-risk',
		subject: chat.sessionKey,
		title: `ROLLBACK RISK ${chat.sessionKey}`,
		detail:
			`${resumes} but the newest message is ` +
			`in ${chat.newestActivityIn}${lag !== null && lag > 0 ? `, ${duration(lag)} newer` : ''}`,
		...(after ? {ifRestarted: after} : {}),
		next: adoptable
			? `do not restart the gateway yet; preview the adoption of ${chat.newestActivityIn} with: hfx repair`
			: `do not restart the gateway yet; inspect the chat with: hfx routing ${JSON.stringify(chat.sessionKey)}`,
	};
}

/** Sessions by id (a loop: no pair array per session). */
export function indexById(sessions: readonly SessionRecord[]): Map<string, SessionRecord> {
	const byId = new Map<string, SessionRecord>();
	for (const s of sessions) {
		byId.set(s.id, s);
	}

	return byId;
}

/** Splits what repair-routing lists into findings and local-surface refusals. */
export function splitListed(
	listed: OrphanVerdict[],
): Pick<GenerationVerdicts, 'listed' | 'orphans' | 'listedRefusedLocal'> {
	const orphans: OrphanVerdict[] = [];
	const listedRefusedLocal: OrphanVerdict[] = [];
	for (const o of listed) {
		(isListedRefusedLocal(o) ? listedRefusedLocal : orphans).push(o);
	}

	return {listed, orphans, listedRefusedLocal};
}

/** The store's own repair-routing, under a generation's rules: its crash, or what it lists. */
export function repairRoutingOf(
	snapshot: Snapshot,
	rules: Rules,
	maxGapSeconds: number,
	byId: ReadonlyMap<string, SessionRecord>,
): {listed: OrphanVerdict[]; crash: RepairRoutingCrash | null} {
	const crash = repairRoutingCrashOf(snapshot.sessions, rules);
	return crash
		? {listed: [], crash}
		: {listed: findOrphans(snapshot.sessions, {owner: snapshot.owner, rules, maxGapSeconds, byId}), crash: null};
}

type VerdictContext = {byId: Map<string, SessionRecord>; lineage: Lineage; maxGapSeconds: number};

/** One generation's verdicts on the snapshot. */
export function verdictsOf(snapshot: Snapshot, rules: Rules, context: VerdictContext): GenerationVerdicts {
	return drain(verdictsSteps(snapshot, rules, context));
}

/** As `verdictsOf`, in two steps: what repair-routing lists, then the routing per chat. */
function* verdictsSteps(snapshot: Snapshot, rules: Rules, context: VerdictContext): Steps<GenerationVerdicts> {
	const {listed, crash} = repairRoutingOf(snapshot, orphanRulesFor(rules), context.maxGapSeconds, context.byId);
	yield;
	const routing = yield* analyzeRoutingSteps({
		sessions: snapshot.sessions,
		byId: context.byId,
		routing: snapshot.routing,
		legacyRouting: snapshot.legacyRouting,
		routingScope: snapshot.routingScope,
		lineage: context.lineage,
		orphans: listed,
		rules,
		owner: snapshot.owner,
	});
	return {ruleSet: rules.ruleSet, rulesLabel: rules.label, ...splitListed(listed), repairRoutingCrash: crash, routing};
}

/** The rollbacks that already happened, from the message timelines the store read with the snapshot. */
export function rollbacksOf(
	snapshot: Snapshot,
	byId: ReadonlyMap<string, SessionRecord>,
	maxGapSeconds: number,
): Rollback[] {
	return detectRollbacks(snapshot.restartProbes ?? [], {
		byId,
		routing: snapshot.routing,
		routingScope: snapshot.routingScope,
		maxGapSeconds,
	});
}

/**
 * What one chat's story needs (hfx timeline): the rows by id, lineage, today's verdicts and the rollbacks; no findings,
 * no upgrade, no places.
 */
export type ChatAnalysis = GenerationVerdicts &
	Pick<Analysis, 'snapshot' | 'byId' | 'lineage' | 'rollbacks' | 'maxGapSeconds'>;

type Core = {
	byId: Map<string, SessionRecord>;
	lineage: Lineage;
	maxGapSeconds: number;
	today: GenerationVerdicts;
	rollbacks: Rollback[];
};

function* coreSteps(snapshot: Snapshot, options: AnalyzeOptions): Steps<Core> {
	const maxGapSeconds = options.maxGapSeconds ?? DEFAULT_MAX_GAP_SECONDS;
	const byId = options.byId ?? indexById(snapshot.sessions);
	const lineage = yield* buildLineageSteps(snapshot.sessions, byId);
	yield;
	const today = yield* verdictsSteps(snapshot, options.buildRules?.rules ?? rulesFor(snapshot.ruleSet), {
		byId,
		lineage,
		maxGapSeconds,
	});
	yield;
	return {byId, lineage, maxGapSeconds, today, rollbacks: rollbacksOf(snapshot, byId, maxGapSeconds)};
}

/** The part of analyze() one chat needs, computed by the same functions (analyze is this plus the store-wide rest). */
export function analyzeChats(snapshot: Snapshot, options: AnalyzeOptions = {}): ChatAnalysis {
	const {today, ...core} = drain(coreSteps(snapshot, options));
	return {snapshot, ...core, ...today};
}

/** An older generation, or a build of the current one that lacks a change these rows feel (build-rules.ts). */
function upgradeMatters(snapshot: Snapshot, rules: Rules | undefined): boolean {
	const current = rulesFor(CURRENT_RULE_SET);
	return (
		snapshot.ruleSet !== CURRENT_RULE_SET ||
		(rules !== undefined && rules.label !== current.label && variantsCanDiffer(snapshot.sessions, rules, current))
	);
}

export function analyze(snapshot: Snapshot, options: AnalyzeOptions = {}): Analysis {
	return drain(analyzeSteps(snapshot, options));
}

/**
 * As `analyze`, in steps of a few tens of milliseconds on the 1M-message store (lineage; each generation's listing,
 * then its routing; the rollbacks; the store-wide rest): the live view's first analysis lets the event loop answer
 * keys between them (issue #26).
 */
export function* analyzeSteps(snapshot: Snapshot, options: AnalyzeOptions = {}): Steps<Analysis> {
	const {byId, lineage, maxGapSeconds, today, rollbacks} = yield* coreSteps(snapshot, options);
	yield;
	const context = {byId, lineage, maxGapSeconds};
	const afterUpgrade = upgradeMatters(snapshot, options.buildRules?.rules)
		? yield* verdictsSteps(snapshot, rulesFor(CURRENT_RULE_SET), context)
		: null;
	const changes = upgradeChanges(today, afterUpgrade);
	const build = options.buildRules ?? null;
	const buildAlternative =
		build?.alternative && variantsCanDiffer(snapshot.sessions, build.rules, build.alternative)
			? yield* verdictsSteps(snapshot, build.alternative, context)
			: null;
	yield;
	const buildChanges = upgradeChanges(today, buildAlternative, {
		today: `with ${today.rulesLabel}`,
		after: `with ${build?.alternative?.label ?? ''}`,
	});
	const reapChurns = detectReapChurn(snapshot.sessions);
	yield;
	const elsewhere = elsewhereOf(snapshot, {byId, lineage, routing: today.routing});
	yield;
	const findings = collectFindings(
		{...today, rollbacks, reapChurns, byId, elsewhere: elsewhere.findings},
		snapshot.sessions,
		undefined,
		changes,
		snapshot.missingColumns,
	);
	return {
		snapshot,
		byId,
		lineage,
		...today,
		rollbacks,
		reapChurns,
		findings,
		maxGapSeconds,
		afterUpgrade,
		upgradeChanges: changes,
		places: elsewhere.places,
		newestElsewhere: elsewhere.newestElsewhere,
		buildRules: build,
		buildAlternative,
		buildChanges,
	};
}

/**
 * Exit status of a scan: 1 when there is any rollback that happened, orphan, rollback risk, failing repair-routing,
 * undecidable rule (a missing column), write halt, unreplayed turn or §4 signature (elsewhere.ts).
 */
export function hasFindings(
	analysis: Pick<Analysis, 'orphans' | 'routing' | 'repairRoutingCrash'> & {
		rollbacks?: readonly Rollback[];
		reapChurns?: readonly ReapChurn[];
		snapshot?: Pick<Analysis['snapshot'], 'missingColumns'>;
		findings?: readonly Finding[];
	},
): boolean {
	return (
		(analysis.findings ?? []).some(f => ELSEWHERE_ACTION_KINDS.has(f.kind)) ||
		(analysis.rollbacks?.length ?? 0) > 0 ||
		(analysis.reapChurns?.length ?? 0) > 0 ||
		analysis.orphans.length > 0 ||
		analysis.repairRoutingCrash !== null ||
		analysis.routing.some(r => r.rollbackRisk) ||
		(analysis.snapshot?.missingColumns?.length ?? 0) > 0
	);
}
