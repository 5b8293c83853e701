/**
 * The routing entry's moves, as far as the files tell (hermes-incidents.md §1.1 step 6-7, §1.3):
 * the gateway_routing row of the chat (its session id and updated_at: the last single-row upsert,
 * ≈ the chat's last turn), the block of rows of its scope sharing one updated_at (the last full
 * rewrite: a restart's recovery, a reset, a prune) and the sessions.json mirror when it names
 * another row (rewritten only on structural saves). Pure.
 */
import {suffixOf} from '../resolve.js';
import type {TimelineEvent} from './timeline-types.js';
import type {RoutingEntry} from '../types.js';

export type RoutingFacts = {
	sessionKey: string;
	/** gateway_routing rows (every scope), and the scope the gateway loads (null: no scope column). */
	routing: readonly RoutingEntry[];
	routingScope: string | null;
	legacyRouting: readonly RoutingEntry[];
	now: number;
};

/** The last full rewrite of a scope: the newest updated_at two or more of its rows share. */
export function lastFullRewrite(routing: readonly RoutingEntry[], scope: string): {at: number; entries: number} | null {
	const counts = new Map<number, number>();
	for (const r of routing) {
		if (r.scope === scope && r.updatedAt !== null) {
			counts.set(r.updatedAt, (counts.get(r.updatedAt) ?? 0) + 1);
		}
	}

	let best: {at: number; entries: number} | null = null;
	for (const [at, entries] of counts) {
		if (entries >= 2 && (best === null || at > best.at)) {
			best = {at, entries};
		}
	}

	return best;
}

function entryEvent(entry: RoutingEntry, rewrite: {at: number; entries: number} | null): TimelineEvent {
	const names = entry.sessionId
		? `names ${suffixOf(entry.sessionId)}`
		: `is unusable (${entry.problem ?? 'no session id'})`;
	if (rewrite !== null && entry.updatedAt === rewrite.at) {
		return {
			at: rewrite.at,
			kind: 'routing',
			sessionId: entry.sessionId,
			certainty: 'strong',
			text: `routing index rewritten in full; this chat's entry ${names}`,
			evidence: [
				`${rewrite.entries} gateway_routing rows of the scope share this ` +
					`updated_at: a structural save (restart recovery, reset or prune), and ` +
					`no turn of this chat upserted its entry since`,
			],
		};
	}

	return {
		at: entry.updatedAt!,
		kind: 'routing',
		sessionId: entry.sessionId,
		certainty: 'certain',
		text: `routing entry upserted: it ${names} (the chat's last turn, or close to it)`,
		evidence: ['gateway_routing.updated_at of this key: every turn upserts the entry with the time of that turn'],
	};
}

/** The routing entry of the chat and its moves, as events. */
export function routingEvents(f: RoutingFacts): TimelineEvent[] {
	const entries = f.routing.filter(
		r => r.sessionKey === f.sessionKey && (f.routingScope === null || r.scope === f.routingScope),
	);
	const events: TimelineEvent[] = [];
	for (const entry of entries) {
		const rewrite = lastFullRewrite(f.routing, entry.scope);
		if (entry.updatedAt !== null) {
			events.push(entryEvent(entry, rewrite));
		}

		if (rewrite !== null && entry.updatedAt !== null && entry.updatedAt > rewrite.at) {
			events.push({
				at: rewrite.at,
				kind: 'routing',
				sessionId: null,
				certainty: 'strong',
				text: 'routing index rewritten in full (the last structural save)',
				evidence: [
					`${rewrite.entries} gateway_routing rows of the scope share this ` +
						`updated_at; this chat's entry was upserted again since`,
				],
			});
		}
	}

	const mirror = f.legacyRouting.find(r => r.sessionKey === f.sessionKey);
	const table = entries[0];
	if (mirror?.sessionId && table?.sessionId && mirror.sessionId !== table.sessionId) {
		events.push({
			at: f.now,
			kind: 'routing',
			sessionId: mirror.sessionId,
			certainty: 'strong',
			text: `sessions.json still names ${suffixOf(mirror.sessionId)}, gateway_routing ${suffixOf(table.sessionId)}`,
			evidence: ['the mirror is rewritten only on structural saves: the later save is the one in gateway_routing'],
		});
	}

	if (entries.length === 0) {
		events.push({
			at: f.now,
			kind: 'routing',
			sessionId: mirror?.sessionId ?? null,
			certainty: 'certain',
			text: mirror?.sessionId
				? `no gateway_routing entry; sessions.json names ${suffixOf(mirror.sessionId)}`
				: 'no routing entry for this chat: a restart recovers it from the rows',
			evidence: mirror?.sessionId ? [] : ['a cold-start recovery of a key with no entry logs nothing at INFO'],
		});
	}

	return events;
}
