/**
 * The reach of a change, for the incremental analysis (incremental.ts): the chats whose verdict a few changed session
 * rows can move (their keys, the keys of orphans whose verdict moved, the routing entries that changed or name a
 * touched row) and what else a chat's verdict may name (the touched rows, the changed rows' origin tuples). Pure.
 */
import type {OrphanVerdict} from '../routing/orphans.js';
import {tupleKey, unanimousKey} from '../routing/routing.js';
import type {RoutingEntry, SessionRecord} from '../types.js';

export type Lookup = (id: string) => SessionRecord | undefined;

/**
 * What a change reaches: `affected` the chats to analyse again, `touched` the changed rows and their parents,
 * `tuples` the changed rows' origin tuples (before and after), `rowKeys` the keys whose rows changed (the empty key
 * too: a chat of rows, though none to route).
 */
export type Reach = {affected: Set<string>; touched: Set<string>; tuples: Set<string>; rowKeys: Set<string>};

export type ChangeFacts = {
	changed: ReadonlySet<string>;
	/** A changed row's record before the change. */
	old: Lookup;
	byId: ReadonlyMap<string, SessionRecord>;
	listedBefore: readonly OrphanVerdict[];
	listed: readonly OrphanVerdict[];
	/** The routing entries before and now; null when they did not move. */
	routing: {before: readonly RoutingEntry[]; now: readonly RoutingEntry[]} | null;
	entriesNow: readonly RoutingEntry[];
};

/** The chats a change can reach, and what their verdicts may name. */
export function reachOf(facts: ChangeFacts): Reach {
	const reach = rowsReach(facts.changed, facts.old, facts.byId);
	orphansReach(reach.affected, facts);
	if (facts.routing) {
		routingReach(reach.affected, facts.routing.before, facts.routing.now);
	}

	const entries = entriesBySession(facts.entriesNow);
	for (const id of reach.touched) {
		for (const e of entries.get(id) ?? []) {
			reach.affected.add(e.sessionKey);
		}
	}

	return reach;
}

/** The changed rows' own keys (before and after), their parents and their origin tuples. */
function rowsReach(changed: ReadonlySet<string>, old: Lookup, byId: ReadonlyMap<string, SessionRecord>): Reach {
	const reach: Reach = {affected: new Set(), touched: new Set(changed), tuples: new Set(), rowKeys: new Set()};
	for (const id of changed) {
		for (const s of [old(id), byId.get(id)]) {
			if (s) {
				if (s.sessionKey !== null) {
					reach.rowKeys.add(s.sessionKey);
				}

				if (s.sessionKey) {
					reach.affected.add(s.sessionKey);
				}

				if (s.parentSessionId) {
					// A new compression child moves an entry's tip: chats naming its parent are reached too.
					reach.touched.add(s.parentSessionId);
				}

				reach.tuples.add(tupleKey(s.source, s.userId, s.chatId, s.chatType, s.threadId));
			}
		}
	}

	return reach;
}

/**
 * The chats of orphans whose verdict moved (a new list: each orphan added, dropped, changed or whose row changed), or
 * of the orphans among the changed rows (the same list).
 */
function orphansReach(affected: Set<string>, facts: ChangeFacts): void {
	const {changed, old, byId, listedBefore, listed} = facts;
	if (listed === listedBefore) {
		const byOrphan = orphansById(listed);
		for (const id of changed) {
			for (const o of byOrphan.get(id) ?? []) {
				for (const key of chatKeysOf(o, byId)) {
					affected.add(key);
				}
			}
		}

		return;
	}

	const before = new Map(listedBefore.map(o => [o.orphanId, o]));
	const after = new Map(listed.map(o => [o.orphanId, o]));
	for (const id of new Set([...before.keys(), ...after.keys()])) {
		const b = before.get(id);
		const a = after.get(id);
		if (!b || !a || orphanSignature(b) !== orphanSignature(a) || changed.has(id)) {
			for (const key of [...(b ? chatKeysOf(b, {get: old}) : []), ...(a ? chatKeysOf(a, byId) : [])]) {
				affected.add(key);
			}
		}
	}
}

/** The keys of routing entries added, changed or removed. */
function routingReach(affected: Set<string>, before: readonly RoutingEntry[], now: readonly RoutingEntry[]): void {
	const entries = new Map<string, string>();
	for (const e of before) {
		entries.set(`${e.scope}\u0000${e.sessionKey}`, JSON.stringify(e));
	}

	for (const e of now) {
		const id = `${e.scope}\u0000${e.sessionKey}`;
		if (entries.get(id) !== JSON.stringify(e)) {
			affected.add(e.sessionKey);
		}

		entries.delete(id);
	}

	for (const e of before) {
		if (entries.has(`${e.scope}\u0000${e.sessionKey}`)) {
			affected.add(e.sessionKey);
		}
	}
}

function orphanSignature(o: OrphanVerdict): string {
	return JSON.stringify([
		o.verdict,
		o.donorId,
		o.sessionKey,
		o.reasonKind,
		o.messageCount,
		o.lastActive,
		o.candidateDonors,
	]);
}

function chatKeysOf(o: OrphanVerdict, byId: Pick<ReadonlyMap<string, SessionRecord>, 'get'>): string[] {
	const keys: string[] = [];
	if (o.sessionKey) {
		keys.push(o.sessionKey);
	}

	const unanimous = unanimousKey(o, byId);
	if (unanimous) {
		keys.push(unanimous);
	}

	return keys;
}

/** A list's orphans by id (kept per list: a list reused from one analysis to the next is indexed once). */
const orphanIndexes = new WeakMap<readonly OrphanVerdict[], Map<string, OrphanVerdict[]>>();

function orphansById(orphans: readonly OrphanVerdict[]): Map<string, OrphanVerdict[]> {
	let index = orphanIndexes.get(orphans);
	if (!index) {
		index = new Map();
		for (const o of orphans) {
			const list = index.get(o.orphanId);
			list ? list.push(o) : index.set(o.orphanId, [o]);
		}

		orphanIndexes.set(orphans, index);
	}

	return index;
}

/** The routing entries by the session they route to (kept per array: the live store hands one on until a probe). */
const entryIndexes = new WeakMap<readonly RoutingEntry[], Map<string, RoutingEntry[]>>();

function entriesBySession(routing: readonly RoutingEntry[]): Map<string, RoutingEntry[]> {
	let index = entryIndexes.get(routing);
	if (!index) {
		index = new Map();
		for (const e of routing) {
			if (e.sessionId) {
				const list = index.get(e.sessionId);
				list ? list.push(e) : index.set(e.sessionId, [e]);
			}
		}

		entryIndexes.set(routing, index);
	}

	return index;
}
