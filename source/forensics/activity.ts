/**
 * What changed between two snapshots, in the operator's words: messages appended, sessions
 * created / ended / rotated, routing entries moved, findings that appeared or cleared.
 * Pure: the live store feeds it two analyses and the ids of messages that arrived in between.
 */
import type {Analysis} from './analyze.js';
import {inWindow} from './time.js';
import type {SessionRecord} from './types.js';

export type ActivityKind = 'commit' | 'messages' | 'created' | 'ended' | 'rotated' | 'routing' | 'orphan' | 'rollback-risk' | 'resolved' | 'removed';

export type ActivityEvent = {
	/** Wall-clock seconds when hfx saw it. */
	at: number;
	kind: ActivityKind;
	/** Session id or session key the event is about. */
	subject: string;
	text: string;
};

export type NewMessages = ReadonlyMap<string, number>;

function label(s: SessionRecord): string {
	return s.sessionKey ?? (s.source ? `${s.source} (no key)` : 'no key');
}

/**
 * `changed`, when known, limits the session comparison to those ids (the live view's incremental
 * path); `old` gives their records as they were when the two analyses share one index.
 */
export function diffActivity(before: Analysis, after: Analysis, newMessages: NewMessages, at: number, changed?: ReadonlySet<string>, old?: (id: string) => SessionRecord | undefined): ActivityEvent[] {
	const events: ActivityEvent[] = [];
	const prev: Pick<ReadonlyMap<string, SessionRecord>, 'get' | 'has' | 'keys'> = old ? {get: old, has: id => old(id) !== undefined, keys: () => before.byId.keys()} : before.byId;
	const compared = changed ? [...changed].map(id => after.byId.get(id)).filter((s): s is SessionRecord => s !== undefined) : after.snapshot.sessions;
	for (const [id, count] of newMessages) {
		const s = after.byId.get(id);
		events.push({at, kind: 'messages', subject: id, text: `+${count} message${count === 1 ? '' : 's'} in ${id} (${s ? label(s) : 'unknown session'})`});
	}

	for (const s of compared) {
		const old = prev.get(s.id);
		if (!old) {
			const edge = after.lineage.parentEdge.get(s.id);
			if (edge && (edge.kind === 'compression' || edge.kind === 'reset')) {
				events.push({at, kind: 'rotated', subject: s.id, text: `rotated: ${edge.parentId} → ${s.id} (${edge.kind}, ${label(s)})`});
			} else {
				events.push({at, kind: 'created', subject: s.id, text: `session created ${s.id} (${s.source}${s.sessionKey ? `, ${s.sessionKey}` : ', no routing identity'})`});
			}

			continue;
		}

		if (old.endedAtRaw === null && s.endedAtRaw !== null) {
			events.push({at, kind: 'ended', subject: s.id, text: `session ended ${s.id}: ${s.endReason ?? '(no reason)'}`});
		} else if (old.endedAtRaw !== null && s.endedAtRaw === null) {
			events.push({at, kind: 'ended', subject: s.id, text: `session reopened ${s.id} (was ${old.endReason ?? 'ended'})`});
		}

		if (old.sessionKey !== s.sessionKey) {
			events.push({at, kind: 'routing', subject: s.id, text: `${s.id} session key ${old.sessionKey ?? 'NULL'} → ${s.sessionKey ?? 'NULL'}`});
		}
	}

	for (const id of changed ?? prev.keys()) {
		if (prev.has(id) && !after.byId.has(id)) {
			events.push({at, kind: 'removed', subject: id, text: `session removed ${id}`});
		}
	}

	// The live store hands over the very same arrays when nothing there moved: nothing to compare.
	if (before.snapshot.routing !== after.snapshot.routing) {
		const oldEntries = new Map(before.snapshot.routing.map(e => [`${e.scope}\u0000${e.sessionKey}`, e.sessionId]));
		for (const e of after.snapshot.routing) {
			const was = oldEntries.get(`${e.scope}\u0000${e.sessionKey}`);
			if (was !== e.sessionId) {
				events.push({at, kind: 'routing', subject: e.sessionKey, text: `routing entry ${e.sessionKey}: ${was ?? '(none)'} → ${e.sessionId ?? '(unusable)'}`});
			}
		}
	}

	if (before.orphans !== after.orphans) {
		const oldOrphans = new Set(before.orphans.map(o => o.orphanId));
		for (const o of after.orphans) {
			if (!oldOrphans.has(o.orphanId)) {
				events.push({at, kind: 'orphan', subject: o.orphanId, text: `orphan ${o.orphanId} (${o.source}, no routing identity): ${o.verdict}${o.donorId ? ` into ${o.sessionKey}` : ` (${o.reasonKind})`}`});
			}
		}
	}

	const oldRisk = new Set(before.routing.filter(r => r.rollbackRisk).map(r => r.sessionKey));
	const newRisk = new Set(after.routing.filter(r => r.rollbackRisk).map(r => r.sessionKey));
	for (const r of after.routing) {
		if (r.rollbackRisk && !oldRisk.has(r.sessionKey)) {
			events.push({at, kind: 'rollback-risk', subject: r.sessionKey, text: `ROLLBACK RISK ${r.sessionKey}: ${r.restartResolvesTo === null ? 'a restart would start a fresh, empty session' : `a restart would resume ${r.restartResolvesTo}`}, newest message in ${r.newestActivityIn}`});
		}
	}

	for (const key of oldRisk) {
		if (!newRisk.has(key)) {
			events.push({at, kind: 'resolved', subject: key, text: `rollback risk cleared for ${key}`});
		}
	}

	return events;
}

/** Ids whose row changed (for a brief highlight in tables). */
export function changedSessionIds(before: Analysis, after: Analysis, newMessages: NewMessages, candidates?: ReadonlySet<string>, old?: (id: string) => SessionRecord | undefined): Set<string> {
	const changed = new Set(newMessages.keys());
	const compared = candidates ? [...candidates].map(id => after.byId.get(id)).filter((s): s is SessionRecord => s !== undefined) : after.snapshot.sessions;
	for (const s of compared) {
		const was = old ? old(s.id) : before.byId.get(s.id);
		if (!was || was.endedAtRaw !== s.endedAtRaw || was.endReason !== s.endReason || was.sessionKey !== s.sessionKey || was.title !== s.title || inWindow(was.lastActivityAtRaw) !== inWindow(s.lastActivityAtRaw)) {
			changed.add(s.id);
		}
	}

	return changed;
}
