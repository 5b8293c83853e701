/**
 * A rollback that already happened (hermes-incidents.md §1.3, the primary signature): after a
 * restart the gateway resumed a keyed row K and wrote new turns into it, while the conversation
 * the chat had moved on to sits in a keyless row O whose messages fall inside a gap of K's own
 * timeline. Decided from the pairs' message timelines the store read (store/read/restart-probes.ts),
 * with how sure it is and on what evidence (§7). Pure.
 */
import {REPAIR_END_REASON} from '../end-reasons.js';
import {compareCells} from '../time.js';
import type {RestartProbe, RoutingEntry, SessionRecord} from '../types.js';

export type {RestartProbe} from '../types.js';

/** §7's words: certain = read from a file with that meaning; strong = several signals agree; weak = one. */
export type Certainty = 'certain' | 'strong' | 'weak';

/** The row holding the conversation a restart skipped. */
export type SkippedRow = {
	id: string;
	/**
	 * keyless: the #82616 orphan (primary signature); same-key: a newer row of the chat's own key the restart passed over
	 * (secondary).
	 */
	kind: 'keyless' | 'same-key';
	messages: number;
	firstAt: number;
	lastAt: number;
	/**
	 * Seconds from K's last message before the gap to the orphan's first: the fork (null for a same-key row: no fork).
	 */
	forkSeconds: number | null;
	certainty: Certainty;
	/** Why it is tied to the chat, and anything that weakens it, one fact each. */
	evidence: string[];
};

export type Rollback = {
	sessionKey: string;
	/** The keyed row a restart resumed (K). */
	resumedId: string;
	/** K's last message before the gap (tA). */
	jumpedFrom: number;
	/** K's first message after the gap (tR): the first the resumed, older context answered. */
	resumedAt: number;
	/** What the gateway wrote into K from tR on. */
	after: {messages: number; userTurns: number; lastAt: number};
	skipped: SkippedRow;
	/** Other keyless rows inside the same gap (older branches of the same conversation). */
	alsoSkipped: Array<Pick<SkippedRow, 'id' | 'messages' | 'lastAt'>>;
	certainty: Certainty;
	/** The session the chat's routing entry names now (certain: read from gateway_routing); null when it has none. */
	routedTo: string | null;
	/** A full rewrite of the routing scope between the orphan's last message and tR (§1.3), if one shows. */
	routingRewriteAt: number | null;
};

export type RollbackContext = {
	byId: ReadonlyMap<string, SessionRecord>;
	routing: readonly RoutingEntry[];
	/** The gateway's own routing scope: only its rows are its routing index (null: the table has no scope column). */
	routingScope?: string | null;
	/** The window within which a fork is "close" (repair-routing's contiguity window). */
	maxGapSeconds: number;
};

/** Gateway ids end in 8 hex digits; CLI and TUI ids in 6 (hermes-state.md §1.2). */
export function hasGatewaySuffix(id: string): boolean {
	return /_[0-9a-f]{8}$/.test(id);
}

/** The signature holds: K has messages before and after the orphan's span and none inside it. */
function signatureHolds(
	p: RestartProbe,
): p is RestartProbe & {before: NonNullable<RestartProbe['before']>; after: NonNullable<RestartProbe['after']>} {
	return (
		p.before !== null &&
		p.after !== null &&
		p.inside === 0 &&
		p.before.at <= p.orphan.firstAt &&
		p.orphan.lastAt <= p.after.at
	);
}

/** Platform message ids: inside K's gap ties the orphan to the chat; outside it weakens the tie. */
function platformIdFact(
	p: RestartProbe & {before: {platformId: number | null}; after: {platformId: number | null}},
): {fact: string; agrees: boolean} | null {
	const {firstPlatformId: first, lastPlatformId: last} = p.orphan;
	const before = p.before.platformId;
	const after = p.after.platformId;
	if (first === null || last === null || before === null || after === null) {
		return null;
	}

	const agrees = before < first && last < after;
	return {
		agrees,
		fact:
			`platform message ids ${first}..${last} ${agrees ? 'lie' : 'do not lie'} ` +
			`between the resumed row's ${before} (before the gap) and ${after} ` +
			`(after it)`,
	};
}

/**
 * A newer row of the same key the restart passed over (secondary signature): K has a message
 * before the sibling's newest and its first message after it came later. The same chat for
 * certain; strong where K started after the sibling (the legacy finder's started_at ranking),
 * weak otherwise (a /resume the user chose looks the same).
 */
function sameKeyFit(p: RestartProbe, sibling: SessionRecord, resumed: SessionRecord | undefined): Fit | null {
	if (p.after === null || p.lastBefore === null || p.after.at < p.orphan.lastAt) {
		return null;
	}

	const legacyShape = resumed !== undefined && compareCells(resumed.startedAtRaw, sibling.startedAtRaw) > 0;
	const state =
		sibling.endReason === null ? 'still live' : `ended ${sibling.endReason}, which restart recovery reopens`;
	const evidence = [
		`a newer row of the same session key (certain: the same chat), ${state}, ` +
			`whose ${p.orphan.messages} messages run ` +
			`until ${Math.round(p.orphan.lastAt - p.lastBefore)} s after the resumed ` +
			`row's last message before it`,
		legacyShape
			? 'the resumed row started later but was quieter: a finder ranking by ' +
				"started_at picks it (the legacy finder's bug, #70704)"
			: "the resumed row is the older one: a restart's finder or a /resume the user chose; the store cannot tell which",
	];
	return {
		id: p.orphanId,
		kind: 'same-key',
		messages: p.orphan.messages,
		firstAt: p.orphan.firstAt,
		lastAt: p.orphan.lastAt,
		forkSeconds: null,
		certainty: legacyShape ? 'strong' : 'weak',
		evidence,
		probe: p,
		jumpedFrom: p.lastBefore,
	};
}

/** A pair that fits: the skipped row, its probe, and K's last message before the skipped conversation (tA). */
type Fit = SkippedRow & {probe: RestartProbe; jumpedFrom: number};

/** One pair's skipped row with its certainty and evidence; null when the signature does not hold. */
export function skippedRowOf(p: RestartProbe, context: RollbackContext): Fit | null {
	const orphan = context.byId.get(p.orphanId);
	if (orphan?.sessionKey) {
		return sameKeyFit(p, orphan, context.byId.get(p.keyedId));
	}

	if (!signatureHolds(p)) {
		return null;
	}

	const forkSeconds = p.orphan.firstAt - p.before.at;

	const evidence = [
		`keyless, with ${p.orphan.messages} messages, all inside the resumed row's silence (no message of it in between)`,
	];
	let strong = 0;
	let against = false;
	if (hasGatewaySuffix(p.orphanId)) {
		evidence.push("its id has the gateway's 8-hex suffix: the gateway minted it for a chat");
		strong++;
	}

	if (forkSeconds <= context.maxGapSeconds) {
		evidence.push(`it began ${Math.round(forkSeconds)} s after the resumed row's last message: a rotation's fork`);
		strong++;
	}

	if (orphan?.source === 'unknown') {
		evidence.push("its source is 'unknown': the row the token-accounting writer creates lazily");
	}

	const ids = platformIdFact(p);
	if (ids) {
		evidence.push(ids.fact);
		strong += ids.agrees ? 1 : 0;
		against ||= !ids.agrees;
	}

	const certainty: Certainty = !against && strong >= 2 ? 'strong' : 'weak';
	if (certainty === 'weak') {
		evidence.push('a gap alone is weak evidence: a user can be silent for days');
	}

	return {
		id: p.orphanId,
		kind: 'keyless',
		messages: p.orphan.messages,
		firstAt: p.orphan.firstAt,
		lastAt: p.orphan.lastAt,
		forkSeconds,
		certainty,
		evidence,
		probe: p,
		jumpedFrom: p.before.at,
	};
}

/** The time a block of routing rows of one scope share (a structural rewrite), between the orphan's end and tR. */
export function routingRewriteBetween(
	routing: readonly RoutingEntry[],
	scope: string | null,
	from: number,
	to: number,
): number | null {
	const counts = new Map<number, number>();
	for (const r of routing) {
		if ((scope === null || r.scope === scope) && r.updatedAt !== null && r.updatedAt >= from && r.updatedAt <= to) {
			counts.set(r.updatedAt, (counts.get(r.updatedAt) ?? 0) + 1);
		}
	}

	const shared = [...counts].filter(([, n]) => n >= 2).map(([at]) => at);
	return shared.length === 0 ? null : Math.max(...shared);
}

/** For each orphan, the keyed row its gap fits best (the closest fork); a second fit weakens it. */
function bestPairPerOrphan(probes: readonly RestartProbe[], context: RollbackContext): Fit[] {
	const byOrphan = new Map<string, Fit[]>();
	for (const p of probes) {
		const row = skippedRowOf(p, context);
		if (row) {
			byOrphan.set(p.orphanId, [...(byOrphan.get(p.orphanId) ?? []), row]);
		}
	}

	return [...byOrphan.values()].map(rows => {
		const fork = (f: Fit) => f.forkSeconds ?? f.lastAt - f.jumpedFrom;
		const [best, ...others] = [...rows].sort(
			(a, b) => fork(a) - fork(b) || (a.probe.keyedId < b.probe.keyedId ? -1 : 1),
		);
		if (others.length === 0) {
			return best!;
		}

		const also = others.map(o => o.probe.keyedId).join(', ');
		return {
			...best!,
			certainty: 'weak',
			evidence: [
				...best!.evidence,
				`its messages also fit the gap of ${also}: which chat it belongs to is not certain`,
			],
		};
	});
}

function rollbackOf(rows: Fit[], context: RollbackContext): Rollback | null {
	// The skipped conversation is the one the chat was in when the gateway restarted: the newest.
	const [primary, ...rest] = [...rows].sort((a, b) => b.lastAt - a.lastAt);
	const {probe, jumpedFrom, ...skipped} = primary!;
	const resumed = context.byId.get(probe.keyedId);
	// A resumed row a repair retired is settled: no restart resumes it again (the timeline keeps the story).
	if (!resumed?.sessionKey || !probe.after || resumed.endReason === REPAIR_END_REASON) {
		return null;
	}

	const key = resumed.sessionKey;
	const scope = context.routingScope ?? null;
	const own = scope === null ? context.routing : context.routing.filter(r => r.scope === scope);
	const routedTo = own.find(r => r.sessionKey === key)?.sessionId ?? null;
	return {
		sessionKey: key,
		resumedId: resumed.id,
		jumpedFrom,
		resumedAt: probe.after.at,
		after: {messages: probe.after.messages, userTurns: probe.after.userTurns, lastAt: probe.after.lastAt},
		skipped,
		alsoSkipped: rest.map(r => ({id: r.id, messages: r.messages, lastAt: r.lastAt})),
		certainty: skipped.certainty,
		routedTo,
		routingRewriteAt: routingRewriteBetween(own, scope, skipped.lastAt, probe.after.at + 1),
	};
}

/**
 * Every rollback that already happened, one per resumed row, newest jump first. A pair whose
 * keyed row has no message after the orphan's last (a store before the restart), or one inside
 * the orphan's span (an interleaved replay), is not one.
 */
export function detectRollbacks(probes: readonly RestartProbe[], context: RollbackContext): Rollback[] {
	const byResumed = new Map<string, Fit[]>();
	for (const row of bestPairPerOrphan(probes, context)) {
		byResumed.set(row.probe.keyedId, [...(byResumed.get(row.probe.keyedId) ?? []), row]);
	}

	const rollbacks = [...byResumed.values()].flatMap(rows => rollbackOf(rows, context) ?? []);
	return rollbacks.sort((a, b) => b.resumedAt - a.resumedAt || (a.sessionKey < b.sessionKey ? -1 : 1));
}
