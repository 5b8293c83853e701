/**
 * The analysis after a few sessions changed, without redoing all of it: the lineage edges and the
 * chats those sessions can affect are recomputed, the rest is reused. Pure, and equal to
 * `analyze(snapshot)` (the property test in test/forensics/analysis/incremental.test.ts holds it to that).
 * The live view needs it: on a store of twenty thousand sessions a full analysis per commit is
 * too slow to keep up with an agent writing hundreds of times a second.
 */
import {reapChurnAfter} from '../rollbacks/reap-churn.js';
import {elsewhereOf} from '../places/elsewhere.js';
import {
	type Analysis,
	type AnalyzeOptions,
	analyze,
	collectFindings,
	hasCorruptTime,
	repairRoutingOf,
	rollbacksOf,
	splitListed,
} from './analyze.js';
import {CURRENT_RULE_SET, type Rules, rulesFor} from '../generations.js';
import type {BuildRules} from '../routing/build-rules.js';
import {upgradeChanges} from '../routing/upgrade.js';
import {updateLineage} from '../lineage/lineage.js';
import {isOrphanCandidate, type OrphanVerdict} from '../routing/orphans.js';
import {mayFailRepairRouting} from '../routing/repair-routing-crash.js';
import {isCorruptTime, lastActive} from '../time.js';
import {type ChatRouting, analyzeRouting, buildKeyIndex} from '../routing/routing.js';
import {ChatNames} from './chat-names.js';
import type {SessionRecord, Snapshot} from '../types.js';
import {type SignatureState, hasSignature, signatureState} from '../signatures/session-signatures.js';
import {type Lookup, reachOf} from './change-reach.js';

/**
 * Which analysis an incremental one was derived from, and what changed: views use it to update
 * what they derived before instead of recomputing (the sessions list order). Only the latest link
 * is kept, so analyses never form a chain that holds old snapshots in memory.
 */
export type Derivation = {
	previous: Analysis;
	changed: ReadonlySet<string>;
	/** A changed session's record as it was in `previous` (undefined: it did not exist). */
	old: (id: string) => SessionRecord | undefined;
};

const derivations = new WeakMap<Analysis, Derivation>();

export function derivedFrom(analysis: Analysis): Derivation | undefined {
	return derivations.get(analysis);
}

/** Beyond this share of changed sessions, a full analysis is cheaper. */
const FULL_RATIO = 0.1;

const NONE_BEFORE: ReadonlyMap<string, SessionRecord | undefined> = new Map();

/**
 * True when no verdict can have moved: no changed session is (or was) an orphan candidate or an
 * orphan's recorded parent, and no changed keyed row's last activity (before or after) falls in
 * the contiguity window of an orphan of its source. (Most commits append messages to a live keyed
 * session whose last activity is now, far from any orphan's start.)
 */
/** What orphansUnmoved asks of a list of orphans: their recorded parents, and their starts by source. */
type OrphanFacts = {parents: Set<string>; starts: Map<string, number[]>};

/**
 * Kept per list: a list reused from one analysis to the next (no orphan moved) names the same rows, none of which
 * changed (a changed orphan candidate moves the list), so its facts are computed once, not on every commit.
 */
const orphanFacts = new WeakMap<readonly OrphanVerdict[], OrphanFacts>();

function factsOf(orphans: readonly OrphanVerdict[], old: Lookup): OrphanFacts {
	let facts = orphanFacts.get(orphans);
	if (!facts) {
		facts = {parents: new Set(), starts: new Map()};
		for (const o of orphans) {
			const row = old(o.orphanId);
			if (row?.parentSessionId) {
				facts.parents.add(row.parentSessionId);
			}

			const started = row?.startedAtRaw;
			const start = (typeof started === 'bigint' ? Number(started) : typeof started === 'number' ? started : 0) || 0;
			const list = facts.starts.get(o.source) ?? [];
			list.push(start);
			facts.starts.set(o.source, list);
		}

		for (const list of facts.starts.values()) {
			list.sort((a, b) => a - b);
		}

		orphanFacts.set(orphans, facts);
	}

	return facts;
}

/**
 * Whether an orphan's start (ascending) lies within `gap` of `at`: a binary search, not a walk of the source's orphans
 * (the bench store lists 8,642 keyless rows: the walk was a tenth of each commit's analysis).
 */
function startNear(starts: readonly number[] | undefined, at: number, gap: number): boolean {
	if (starts === undefined) {
		return false;
	}

	// The first start with at <= start + gap (true from there on), then whether at >= start - gap there (false from
	// there on if not): the walk's own two comparisons, so the answer is the walk's to the last rounding.
	let [lo, hi] = [0, starts.length];
	while (lo < hi) {
		const mid = (lo + hi) >>> 1;
		if (at <= starts[mid]! + gap) {
			hi = mid;
		} else {
			lo = mid + 1;
		}
	}

	return lo < starts.length && at >= starts[lo]! - gap;
}

function orphansUnmoved(
	previous: Analysis,
	old: Lookup,
	byId: ReadonlyMap<string, SessionRecord>,
	changed: ReadonlySet<string>,
	gap: number,
): boolean {
	const {parents, starts} = factsOf(previous.listed, old);
	for (const id of changed) {
		for (const s of [old(id), byId.get(id)]) {
			if (!s) {
				continue;
			}

			if (isOrphanCandidate(s) || parents.has(id)) {
				return false;
			}

			const la = s.sessionKey === null ? null : lastActive(s);
			if (la !== null && startNear(starts.get(s.source), la, gap)) {
				return false;
			}
		}
	}

	return true;
}

/** What an analysis keeps for the next incremental step (never part of its public shape). */
type Carry = {byKey: Map<string, SessionRecord[]>; corrupt: Map<string, SessionRecord>};

const carries = new WeakMap<Analysis, Carry>();

function carryOf(analysis: Analysis): Carry {
	let carry = carries.get(analysis);
	if (!carry) {
		carry = {
			byKey: buildKeyIndex(analysis.snapshot.sessions),
			corrupt: new Map(analysis.snapshot.sessions.filter(hasCorruptTime).map(s => [s.id, s])),
		};
		carries.set(analysis, carry);
	}

	return carry;
}

/**
 * Takes what the next incremental step needs from an analysis's sessions now. A caller that
 * patches the sessions array in place (the live store) calls this before its first patch:
 * built afterwards, the key index would already hold the new records, and the step would add
 * them a second time.
 */
export function prepareIncremental(analysis: Analysis): void {
	carryOf(analysis);
}

/** What chats name which sessions, kept for the next incremental step (chat-names.ts). */
const chatNames = new WeakMap<Analysis, ChatNames>();

/** The previous analysis's chat names: taken over when it is consumed (in place), else a copy; built if absent. */
function chatNamesOf(previous: Analysis, inPlace: boolean): ChatNames {
	const kept = chatNames.get(previous);
	if (!kept) {
		return ChatNames.of(previous.routing);
	}

	if (inPlace) {
		chatNames.delete(previous);
		return kept;
	}

	return kept.copy();
}

/**
 * The keys of the chats of an analysis that name one of `ids` or fall back to one of `tuples`, as the next incremental
 * step finds them (its kept index; tests hold it to a walk of every chat).
 */
export function chatsReached(analysis: Analysis, ids: ReadonlySet<string>, tuples: ReadonlySet<string>): Set<string> {
	const into = new Set<string>();
	(chatNames.get(analysis) ?? ChatNames.of(analysis.routing)).reached(ids, tuples, into);
	return into;
}

/**
 * A caller that keeps its own index of the sessions by id (the live store) can hand it over instead
 * of having it copied (a copy of twenty thousand entries per commit is most of the work): `byId`,
 * already updated, and `before`, the records of the changed ids as they were. The previous
 * analysis then shares that map and must not be read for changed ids afterwards.
 */
export type SharedIndex = {byId: Map<string, SessionRecord>; before: ReadonlyMap<string, SessionRecord | undefined>};

/**
 * A session's record before this refresh: as `before` held it when it changed, else as `byId` holds it. Bound to a
 * refresh's maps (`recordBefore.bind(null, before, byId)`) rather than a closure made per refresh: a closure made per
 * call loses its optimised code at each mark-compact, and TurboFan compiles it again (issue #26).
 */
export function recordBefore(
	before: ReadonlyMap<string, SessionRecord | undefined>,
	byId: ReadonlyMap<string, SessionRecord>,
	id: string,
): SessionRecord | undefined {
	return before.has(id) ? before.get(id) : byId.get(id);
}

/**
 * Current Hermes' repair-routing fails on a few rows (repair-routing-crash.ts): where it did, or a changed row may make
 * it, the analysis is redone in full.
 */
function crashMayMove(
	previous: Analysis,
	changed: ReadonlySet<string>,
	find: (id: string) => SessionRecord | undefined,
	rules: Rules,
): boolean {
	if (previous.repairRoutingCrash !== null) {
		return true;
	}

	for (const id of changed) {
		const now = find(id);
		if (now !== undefined && mayFailRepairRouting(now, rules)) {
			return true;
		}
	}

	return false;
}

/**
 * The installed build's rules (build-rules.ts) are a variant of the current ones that differs only
 * through a timestamp outside the epoch window: where the previous analysis had a second side (an
 * upgrade's or the other candidate build's verdicts) or a changed row has such a timestamp, the
 * analysis is redone in full; otherwise the build's rules decide exactly as the current ones, under
 * their own name.
 */
function buildMayMove(
	previous: Analysis,
	build: BuildRules | undefined,
	changed: ReadonlySet<string>,
	rows: Lookup[],
): boolean {
	if (build === undefined) {
		return false;
	}

	if (previous.afterUpgrade !== null || previous.buildAlternative !== null) {
		return true;
	}

	for (const id of changed) {
		for (const row of rows) {
			const s = row(id);
			if (s && (hasCorruptTime(s) || isCorruptTime(s.newestMessageRaw))) {
				return true;
			}
		}
	}

	return false;
}

/** The §4 signature findings of an analysis and what they rest on (kept for the next incremental step). */
const signatureCarries = new WeakMap<Analysis, SignatureState>();

/**
 * The signature findings after a commit: the last ones when the commit cannot have moved them (no lineage edge and
 * no routing row moved, no row removed, and no changed row is or was in a list or is a parent named in one), else a
 * pass over every row. Most commits append messages to a live chat's row: that pass was a tenth of each refresh.
 */
function signaturesAfter(
	previous: Analysis,
	snapshot: Snapshot,
	changed: ReadonlySet<string>,
	context: {byId: ReadonlyMap<string, SessionRecord>; lineage: Analysis['lineage']; routingMoved: boolean},
): SignatureState {
	const last = signatureCarries.get(previous);
	if (last !== undefined && context.lineage === previous.lineage && !context.routingMoved) {
		let moved = false;
		for (const id of changed) {
			const now = context.byId.get(id);
			if (
				now === undefined ||
				last.listed.has(id) ||
				last.nullChatParents.has(id) ||
				hasSignature(now, snapshot.owner)
			) {
				moved = true;
				break;
			}
		}

		if (!moved) {
			return last;
		}
	}

	return signatureState(snapshot.sessions, {
		byId: context.byId,
		lineage: context.lineage,
		routing: snapshot.routing,
		owner: snapshot.owner,
	});
}

/** Where each chat of a routing list is, by key (kept per list, and handed on to a list with the same positions). */
const positions = new WeakMap<readonly ChatRouting[], Map<string, number>>();

function positionsOf(routing: readonly ChatRouting[]): Map<string, number> {
	let at = positions.get(routing);
	if (!at) {
		at = new Map(routing.map((chat, i) => [chat.sessionKey, i]));
		positions.set(routing, at);
	}

	return at;
}

/**
 * The previous chats with the affected ones replaced where they stand, when no chat was added or dropped (a commit to
 * a chat that exists): a copy and a few writes, not a walk of every chat (1,791 on the bench store). Null otherwise.
 */
function replacedInPlace(
	before: readonly ChatRouting[],
	affected: ReadonlySet<string>,
	fresh: ReadonlyMap<string, ChatRouting>,
	names: ChatNames,
): ChatRouting[] | null {
	const at = positionsOf(before);
	if (at.size !== before.length) {
		return null;
	}

	for (const key of affected) {
		if (at.has(key) !== fresh.has(key)) {
			return null;
		}
	}

	for (const key of fresh.keys()) {
		if (!affected.has(key)) {
			return null;
		}
	}

	const routing = before.slice();
	const flagged = new Set(flaggedOf(before));
	for (const [key, chat] of fresh) {
		const i = at.get(key)!;
		names.replace(routing[i], chat);
		routing[i] = chat;
		hasRoutingFinding(chat) ? flagged.add(i) : flagged.delete(i);
	}

	positions.set(routing, at);
	flaggedAt.set(
		routing,
		[...flagged].sort((a, b) => a - b),
	);
	return routing;
}

/** A chat that makes a routing finding (analyze.ts routingFindings): a rollback risk or a stale entry. */
function hasRoutingFinding(chat: ChatRouting): boolean {
	return chat.rollbackRisk || chat.routingEntryStale;
}

/** Where the chats with a routing finding stand in a list, ascending (kept per list, patched with the chats). */
const flaggedAt = new WeakMap<readonly ChatRouting[], readonly number[]>();

function flaggedOf(routing: readonly ChatRouting[]): readonly number[] {
	let flagged = flaggedAt.get(routing);
	if (!flagged) {
		flagged = routing.flatMap((chat, i) => (hasRoutingFinding(chat) ? [i] : []));
		flaggedAt.set(routing, flagged);
	}

	return flagged;
}

/** The previous order, with the affected chats replaced or dropped; new keys appended and sorted in. */
function rebuilt(
	before: readonly ChatRouting[],
	affected: ReadonlySet<string>,
	fresh: Map<string, ChatRouting>,
	names: ChatNames,
): ChatRouting[] {
	const routing: ChatRouting[] = [];
	let added = false;
	for (const chat of before) {
		if (!affected.has(chat.sessionKey)) {
			routing.push(chat);
		} else {
			const replacement = fresh.get(chat.sessionKey);
			names.replace(chat, replacement);
			if (replacement) {
				routing.push(replacement);
				fresh.delete(chat.sessionKey);
			}
		}
	}

	for (const chat of fresh.values()) {
		names.replace(undefined, chat);
		routing.push(chat);
		added = true;
	}

	if (added) {
		routing.sort((a, b) => (a.sessionKey < b.sessionKey ? -1 : a.sessionKey > b.sessionKey ? 1 : 0));
	}

	return routing;
}

/** Whether the previous analysis cannot be carried over: too much changed, or what the verdicts are judged by. */
function mustAnalyseInFull(
	previous: Analysis,
	snapshot: Snapshot,
	changed: ReadonlySet<string>,
	maxGapSeconds: number,
	buildRules: BuildRules | undefined,
): boolean {
	// A store of an older generation is analysed twice (today and after an upgrade): always in full (rare, and small).
	const contextMoved =
		snapshot.ruleSet !== CURRENT_RULE_SET ||
		snapshot.ruleSet !== previous.snapshot.ruleSet ||
		snapshot.owner !== previous.snapshot.owner ||
		snapshot.routingScope !== previous.snapshot.routingScope ||
		(snapshot.legacyRouting !== previous.snapshot.legacyRouting &&
			JSON.stringify(snapshot.legacyRouting) !== JSON.stringify(previous.snapshot.legacyRouting));
	return (
		changed.size > snapshot.sessions.length * FULL_RATIO ||
		maxGapSeconds !== previous.maxGapSeconds ||
		contextMoved ||
		buildRules?.rules.label !== previous.buildRules?.rules.label ||
		buildRules?.alternative?.label !== previous.buildRules?.alternative?.label
	);
}

/** The new record of a changed id: the caller's index (`lookup`), else the snapshot's. */
function finderOf(snapshot: Snapshot, changed: ReadonlySet<string>, lookup?: Lookup): Lookup {
	if (lookup) {
		return lookup;
	}

	const fresh = new Map<string, SessionRecord>();
	for (const s of snapshot.sessions) {
		if (changed.has(s.id)) {
			fresh.set(s.id, s);
		}
	}

	return id => fresh.get(id);
}

/** A key's rows, each list copied on its first change unless the index is patched in place (a shared index). */
type KeyRows = {list: (key: string) => SessionRecord[]; drop: (key: string) => void};

function keyRows(byKey: Map<string, SessionRecord[]>, inPlace: boolean): KeyRows {
	const own = new Set<string>();
	return {
		list(key) {
			let list = byKey.get(key);
			if (!list || (!inPlace && !own.has(key))) {
				list = list ? [...list] : [];
				byKey.set(key, list);
				own.add(key);
			}

			return list;
		},
		drop(key) {
			byKey.delete(key);
			own.delete(key);
		},
	};
}

/**
 * One changed row in the key index. A row that keeps its key keeps its place among the key's rows: the order a full
 * analysis meets them in (a key without a platform takes its first row's source). Moved to the end, the order drifted
 * from the full analysis's for as long as the view followed, now that a periodic reload no longer analyses in full.
 */
function patchKeyRows(rows: KeyRows, was: SessionRecord | undefined, now: SessionRecord | undefined): void {
	let kept = false;
	if (was?.sessionKey != null) {
		const list = rows.list(was.sessionKey);
		const i = list.indexOf(was);
		if (i !== -1 && now !== undefined && now.sessionKey === was.sessionKey) {
			list[i] = now;
			kept = true;
		} else if (i !== -1) {
			list.splice(i, 1);
		}

		if (list.length === 0) {
			rows.drop(was.sessionKey);
		}
	}

	if (now !== undefined && now.sessionKey !== null && !kept) {
		rows.list(now.sessionKey).push(now);
	}
}

/** byId, the key index and the corrupt list after the change. */
type Indexes = {byId: Map<string, SessionRecord>; byKey: Map<string, SessionRecord[]>; corrupt: Carry['corrupt']};

/**
 * byId, the key index and the corrupt list: the previous ones, patched where sessions changed. With a shared index the
 * previous analysis is consumed: its key index and corrupt list are taken over and patched in place (byId is the
 * caller's, already patched). Otherwise they are copied, and a key's list on its first change.
 */
function patchIndexes(
	previous: Analysis,
	changed: ReadonlySet<string>,
	rows: {old: Lookup; find: Lookup},
	shared?: SharedIndex,
): Indexes {
	const carried = carryOf(previous);
	const inPlace = shared !== undefined;
	if (inPlace) {
		carries.delete(previous);
	}

	const byId = shared ? shared.byId : new Map(previous.byId);
	const byKey = inPlace ? carried.byKey : new Map(carried.byKey);
	const corrupt = inPlace ? carried.corrupt : new Map(carried.corrupt);
	const keys = keyRows(byKey, inPlace);
	for (const id of changed) {
		const now = rows.find(id);
		patchKeyRows(keys, rows.old(id), now);
		corrupt.delete(id);
		if (now && hasCorruptTime(now)) {
			corrupt.set(id, now);
		}

		if (!shared) {
			if (now) {
				byId.set(id, now);
			} else {
				byId.delete(id);
			}
		}
	}

	return {byId, byKey, corrupt};
}

/**
 * @param changed ids of sessions added, updated or removed since `previous.snapshot`.
 * @param lookup the new record of a changed id (the caller's index); found in the snapshot otherwise.
 */
export function analyzeIncremental(
	previous: Analysis,
	snapshot: Snapshot,
	changed: ReadonlySet<string>,
	options: AnalyzeOptions = {},
	lookup?: Lookup,
	shared?: SharedIndex,
): Analysis {
	const maxGapSeconds = options.maxGapSeconds ?? previous.maxGapSeconds;
	const buildRules = options.buildRules ?? previous.buildRules ?? undefined;
	const full = {maxGapSeconds, buildRules};
	if (mustAnalyseInFull(previous, snapshot, changed, maxGapSeconds, buildRules)) {
		return analyze(snapshot, full);
	}

	const find = finderOf(snapshot, changed, lookup);
	const rules = buildRules?.rules ?? rulesFor(CURRENT_RULE_SET);
	if (
		crashMayMove(previous, changed, find, rules) ||
		buildMayMove(previous, buildRules, changed, [find, id => (shared ? shared.before.get(id) : previous.byId.get(id))])
	) {
		return analyze(snapshot, full);
	}

	const old: Lookup = shared
		? recordBefore.bind(null, shared.before, shared.byId)
		: recordBefore.bind(null, NONE_BEFORE, previous.byId);
	const indexes = patchIndexes(previous, changed, {old, find}, shared);
	const {byId} = indexes;
	const lineage = updateLineage(previous.lineage, byId, changed);
	const orphans = orphansUnmoved(previous, old, byId, changed, maxGapSeconds)
		? previous.listed
		: repairRoutingOf(snapshot, rules, maxGapSeconds, byId).listed;
	const routingMoved =
		previous.snapshot.routing !== snapshot.routing &&
		JSON.stringify(previous.snapshot.routing) !== JSON.stringify(snapshot.routing);
	const {affected, touched, tuples, rowKeys} = reachOf({
		changed,
		old,
		byId,
		listedBefore: previous.listed,
		listed: orphans,
		routing: routingMoved ? {before: previous.snapshot.routing, now: snapshot.routing} : null,
		entriesNow: snapshot.routing,
	});
	// Chats that name a touched session anywhere in their verdict, and chats whose restart falls back to a changed tuple.
	const names = chatNamesOf(previous, shared !== undefined);
	names.reached(touched, tuples, affected);
	const fresh = new Map(
		analyzeRouting({
			sessions: snapshot.sessions,
			byId,
			routing: snapshot.routing,
			legacyRouting: snapshot.legacyRouting,
			routingScope: snapshot.routingScope,
			lineage,
			orphans,
			rules,
			owner: snapshot.owner,
			onlyKeys: affected,
			byKey: indexes.byKey,
		}).map(c => [c.sessionKey, c]),
	);
	const routing =
		replacedInPlace(previous.routing, affected, fresh, names) ?? rebuilt(previous.routing, affected, fresh, names);
	const judged = {maxGapSeconds, rules, buildRules: buildRules ?? null};
	const parts = {indexes, lineage, orphans, routing, rowKeys, routingMoved, changed, judged};
	const {next, signatures} = assemble(previous, snapshot, parts);
	remember(next, previous, {indexes, names, signatures, changed, shared});
	return next;
}

/** The parts an incremental step carries into the next analysis. */
type Parts = {
	indexes: Indexes;
	lineage: Analysis['lineage'];
	orphans: Analysis['listed'];
	routing: ChatRouting[];
	rowKeys: ReadonlySet<string>;
	routingMoved: boolean;
	changed: ReadonlySet<string>;
	/** What the verdicts are judged by. */
	judged: {maxGapSeconds: number; rules: Rules; buildRules: BuildRules | null};
};

/** The next analysis from its parts: the orphan lists, rollbacks, reap churn, places and findings after the change. */
function assemble(previous: Analysis, snapshot: Snapshot, parts: Parts): {next: Analysis; signatures: SignatureState} {
	const {indexes, lineage, orphans, routing, rowKeys, routingMoved, changed, judged} = parts;
	const {byId, byKey, corrupt} = indexes;
	// The same list (no verdict moved) splits as before: its 8,000-odd local-surface rows are not walked again.
	const listed =
		orphans === previous.listed
			? {listed: orphans, orphans: previous.orphans, listedRefusedLocal: previous.listedRefusedLocal}
			: splitListed(orphans);
	const rollbacks = rollbacksOf(snapshot, byId, judged.maxGapSeconds);
	const reapChurns = reapChurnAfter(previous.reapChurns, rowKeys, key => byKey.get(key));
	const signatures = signaturesAfter(previous, snapshot, changed, {byId, lineage, routingMoved});
	const elsewhere = elsewhereOf(snapshot, {byId, lineage, routing}, signatures.findings);
	// The routing findings come from the chats that make one (in order): the others are not walked (1,791 a commit).
	const flagged = flaggedOf(routing).map(i => routing[i]!);
	const findings = collectFindings(
		{...listed, routing: flagged, repairRoutingCrash: null, rollbacks, reapChurns, byId, elsewhere: elsewhere.findings},
		snapshot.sessions,
		[...corrupt.values()],
		undefined,
		snapshot.missingColumns,
	);
	const next: Analysis = {
		snapshot,
		byId,
		lineage,
		ruleSet: judged.rules.ruleSet,
		rulesLabel: judged.rules.label,
		...listed,
		repairRoutingCrash: null,
		routing,
		rollbacks,
		reapChurns,
		findings,
		maxGapSeconds: judged.maxGapSeconds,
		afterUpgrade: null,
		upgradeChanges: upgradeChanges({...listed, repairRoutingCrash: null, routing}, null),
		places: elsewhere.places,
		newestElsewhere: elsewhere.newestElsewhere,
		buildRules: judged.buildRules,
		buildAlternative: null,
		buildChanges: upgradeChanges({...listed, repairRoutingCrash: null, routing}, null),
	};
	return {next, signatures};
}

/** What the next step needs of this one (its carries), and the derivation views read (`derivedFrom`). */
function remember(
	next: Analysis,
	previous: Analysis,
	step: {
		indexes: Indexes;
		names: ChatNames;
		signatures: SignatureState;
		changed: ReadonlySet<string>;
		shared?: SharedIndex;
	},
): void {
	const {byId, byKey, corrupt} = step.indexes;
	carries.set(next, {byKey, corrupt});
	chatNames.set(next, step.names);
	signatureCarries.set(next, step.signatures);
	derivations.delete(previous);
	const before = step.shared ? new Map(step.shared.before) : undefined;
	derivations.set(next, {
		previous,
		changed: step.changed,
		old: before ? id => (before.has(id) ? before.get(id) : byId.get(id)) : id => previous.byId.get(id),
	});
}
