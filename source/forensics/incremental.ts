/**
 * The analysis after a few sessions changed, without redoing all of it: the lineage edges and the
 * chats those sessions can affect are recomputed, the rest is reused. Pure, and equal to
 * `analyze(snapshot)` (the property test in test/forensics/incremental.test.ts holds it to that).
 * The live view needs it: on a store of twenty thousand sessions a full analysis per commit is
 * too slow to keep up with an agent writing hundreds of times a second.
 */
import {type Analysis, type AnalyzeOptions, analyze, collectFindings} from './analyze.js';
import {updateLineage} from './lineage.js';
import {findOrphans, isOrphanCandidate, type OrphanVerdict} from './orphans.js';
import {lastActive} from './time.js';
import {type ChatRouting, analyzeRouting, tupleKey, unanimousKey} from './routing.js';
import type {SessionRecord, Snapshot} from './types.js';

/**
 * Which analysis an incremental one was derived from, and what changed: views use it to update
 * what they derived before instead of recomputing (the sessions list order). Only the latest link
 * is kept, so analyses never form a chain that holds old snapshots in memory.
 */
const derivations = new WeakMap<Analysis, {previous: Analysis; changed: ReadonlySet<string>}>();

export function derivedFrom(analysis: Analysis): {previous: Analysis; changed: ReadonlySet<string>} | undefined {
	return derivations.get(analysis);
}

/** Beyond this share of changed sessions, a full analysis is cheaper. */
const FULL_RATIO = 0.1;

function orphanSignature(o: OrphanVerdict): string {
	return JSON.stringify([o.verdict, o.donorId, o.sessionKey, o.reasonKind, o.messageCount, o.lastActive, o.candidateDonors]);
}

function chatKeysOf(o: OrphanVerdict, byId: ReadonlyMap<string, SessionRecord>): string[] {
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

/**
 * True when no verdict can have moved: no changed session is (or was) an orphan candidate or an
 * orphan's recorded parent, and no changed keyed row's last activity (before or after) falls in
 * the contiguity window of an orphan of its source. (Most commits append messages to a live keyed
 * session whose last activity is now, far from any orphan's start.)
 */
function orphansUnmoved(previous: Analysis, byId: ReadonlyMap<string, SessionRecord>, changed: ReadonlySet<string>, gap: number): boolean {
	const orphans = previous.orphans;
	for (const id of changed) {
		for (const s of [previous.byId.get(id), byId.get(id)]) {
			if (!s) {
				continue;
			}

			if (isOrphanCandidate(s) || orphans.some(o => previous.byId.get(o.orphanId)?.parentSessionId === id)) {
				return false;
			}

			if (s.sessionKey === null) {
				continue;
			}

			const la = lastActive(s);
			if (la === null) {
				continue;
			}

			for (const o of orphans) {
				const started = previous.byId.get(o.orphanId)?.startedAtRaw;
				const start = (typeof started === 'bigint' ? Number(started) : (typeof started === 'number' ? started : 0)) || 0;
				if (o.source === s.source && la >= start - gap && la <= start + gap) {
					return false;
				}
			}
		}
	}

	return true;
}

/**
 * @param changed ids of sessions added, updated or removed since `previous.snapshot`.
 */
export function analyzeIncremental(previous: Analysis, snapshot: Snapshot, changed: ReadonlySet<string>, options: AnalyzeOptions = {}): Analysis {
	const maxGapSeconds = options.maxGapSeconds ?? previous.maxGapSeconds;
	const routingMoved = previous.snapshot.routing !== snapshot.routing && JSON.stringify(previous.snapshot.routing) !== JSON.stringify(snapshot.routing);
	if (changed.size > snapshot.sessions.length * FULL_RATIO || maxGapSeconds !== previous.maxGapSeconds || snapshot.ruleSet !== previous.snapshot.ruleSet || snapshot.owner !== previous.snapshot.owner) {
		return analyze(snapshot, {maxGapSeconds});
	}

	const byId = new Map(snapshot.sessions.map(s => [s.id, s]));
	const lineage = updateLineage(previous.lineage, byId, changed);
	const orphans = orphansUnmoved(previous, byId, changed, maxGapSeconds) ? previous.orphans : findOrphans(snapshot.sessions, {owner: snapshot.owner, maxGapSeconds});

	// The chats a change can reach.
	const affected = new Set<string>();
	const tuples = new Set<string>();
	for (const id of changed) {
		for (const s of [previous.byId.get(id), byId.get(id)]) {
			if (s) {
				if (s.sessionKey) {
					affected.add(s.sessionKey);
				}

				tuples.add(tupleKey(s.source, s.userId, s.chatId, s.chatType, s.threadId));
			}
		}
	}

	const before = new Map(previous.orphans.map(o => [o.orphanId, o]));
	const after = new Map(orphans.map(o => [o.orphanId, o]));
	for (const id of new Set([...before.keys(), ...after.keys()])) {
		const b = before.get(id);
		const a = after.get(id);
		if (!b || !a || orphanSignature(b) !== orphanSignature(a) || changed.has(id)) {
			for (const key of [...(b ? chatKeysOf(b, previous.byId) : []), ...(a ? chatKeysOf(a, byId) : [])]) {
				affected.add(key);
			}
		}
	}

	if (routingMoved) {
		const entries = new Map<string, string>();
		for (const e of previous.snapshot.routing) {
			entries.set(`${e.scope}\u0000${e.sessionKey}`, JSON.stringify(e));
		}

		for (const e of snapshot.routing) {
			const id = `${e.scope}\u0000${e.sessionKey}`;
			if (entries.get(id) !== JSON.stringify(e)) {
				affected.add(e.sessionKey);
			}

			entries.delete(id);
		}

		for (const e of previous.snapshot.routing) {
			if (entries.has(`${e.scope}\u0000${e.sessionKey}`)) {
				affected.add(e.sessionKey);
			}
		}
	}

	// Chats that name a changed session (or its parent: a new compression child moves an entry's
	// tip) anywhere in their verdict, and chats whose restart falls back to a changed tuple.
	const touched = new Set(changed);
	for (const id of changed) {
		for (const s of [previous.byId.get(id), byId.get(id)]) {
			if (s?.parentSessionId) {
				touched.add(s.parentSessionId);
			}
		}
	}

	for (const e of snapshot.routing) {
		if (e.sessionId && touched.has(e.sessionId)) {
			affected.add(e.sessionKey);
		}
	}

	for (const chat of previous.routing) {
		const id = chat.identity;
		const names = [chat.restartResolvesTo, chat.newestActivityIn, chat.routingEntry, ...chat.members, ...chat.resolution.candidates.map(c => c.sessionId)];
		if (names.some(n => n !== null && touched.has(n)) || tuples.has(tupleKey(id.platform, id.userId, id.chatId, id.chatType, id.threadId))) {
			affected.add(chat.sessionKey);
		}
	}

	const fresh = analyzeRouting({sessions: snapshot.sessions, byId, routing: snapshot.routing, lineage, orphans, ruleSet: snapshot.ruleSet, owner: snapshot.owner, onlyKeys: affected});
	const byKey = new Map<string, ChatRouting>();
	for (const chat of previous.routing) {
		if (!affected.has(chat.sessionKey)) {
			byKey.set(chat.sessionKey, chat);
		}
	}

	for (const chat of fresh) {
		byKey.set(chat.sessionKey, chat);
	}

	const routing = [...byKey.values()].sort((a, b) => (a.sessionKey < b.sessionKey ? -1 : (a.sessionKey > b.sessionKey ? 1 : 0)));
	const findings = collectFindings(orphans, routing, snapshot.sessions);
	const next: Analysis = {snapshot, byId, lineage, orphans, routing, findings, maxGapSeconds};
	derivations.delete(previous);
	derivations.set(next, {previous, changed});
	return next;
}
