/**
 * The chat-level verdict the product exists for: per session key, what a restart would resume
 * versus where the chat's newest message actually is. When they differ: rollback risk.
 */
import type {Lineage} from './lineage.js';
import type {OrphanVerdict} from './orphans.js';
import {type ChatIdentity, type Resolution, assessRoutingEntry, parseSessionKey, resolveRestart} from './restart.js';
import {lastActive, startedLater} from './time.js';
import type {RoutingEntry, RuleSet, SessionRecord} from './types.js';

export type ChatRouting = {
	sessionKey: string;
	platform: string;
	identity: ChatIdentity;
	/** The gateway_routing entry's session id (null when the key has no entry). */
	routingEntry: string | null;
	routingEntryScope: string | null;
	routingEntryStale: boolean;
	routingEntryNote: string | null;
	resolution: Resolution;
	restartResolvesTo: string | null;
	/** The session holding the chat's newest message (an adoptable orphan counts as its donor's chat). */
	newestActivityIn: string | null;
	newestActivityAt: number | null;
	/** When the session a restart resumes last had a message. */
	resolvesToActivityAt: number | null;
	rollbackRisk: boolean;
	/** Sessions that hold this chat's conversation. */
	members: string[];
	/** Adoptable orphans that belong to this chat. */
	adoptableOrphans: string[];
	/**
	 * Orphans repair-routing refuses as ambiguous although every candidate donor carries this
	 * chat's key (say a compression parent and its tip): not repairable by Hermes, yet plainly
	 * this chat's conversation, so they count for the rollback-risk verdict.
	 */
	sameChatAmbiguousOrphans: string[];
};

function holdsConversation(s: SessionRecord): boolean {
	return s.hasMessageRows;
}

/** When the newest message of a session was written; falls back to its last activity when every message timestamp is unusable. */
export function messageActivity(s: SessionRecord): number | null {
	return s.newestMessageAt ?? (s.hasMessageRows ? lastActive(s) : null);
}

function chatIdentity(key: string, keyed: readonly SessionRecord[]): ChatIdentity {
	const {namespace, platform} = parseSessionKey(key);
	// The newest row of the platform that carries a chat tuple (latest started_at, then the
	// greatest id).
	let withTuple: SessionRecord | undefined;
	for (const s of keyed) {
		const candidate = (platform === null || s.source === platform) && (s.chatId !== null || s.chatType !== null);
		if (candidate && (withTuple === undefined || startedLater(s, withTuple))) {
			withTuple = s;
		}
	}

	return {
		// Without a platform in the key, every keyed row counts as the platform's.
		platform: platform ?? keyed[0]?.source ?? '',
		namespace,
		userId: withTuple?.userId ?? null,
		chatId: withTuple?.chatId ?? null,
		chatType: withTuple?.chatType ?? null,
		threadId: withTuple?.threadId ?? null,
	};
}

export function tupleKey(source: string, userId: string | null, chatId: string | null, chatType: string | null, threadId: string | null): string {
	return `${source}\u0000${userId ?? ''}\u0000${chatId ?? ''}\u0000${chatType ?? ''}\u0000${threadId ?? ''}`;
}

/** The tuple fallback's equality on a column: `COALESCE(a, '') = COALESCE(b, '')`. */
function sameOrBothEmpty(a: string | null, b: string | null): boolean {
	return (a ?? '') === (b ?? '');
}

/** Does the row carry the chat's tuple: its platform, and user, chat, type and thread compared as the fallback query does? */
function matchesTuple(s: SessionRecord, identity: ChatIdentity): boolean {
	return s.source === identity.platform
		&& sameOrBothEmpty(s.chatId, identity.chatId)
		&& sameOrBothEmpty(s.userId, identity.userId)
		&& sameOrBothEmpty(s.chatType, identity.chatType)
		&& sameOrBothEmpty(s.threadId, identity.threadId);
}

/** The one session key every candidate donor of an ambiguous orphan carries, if they agree. */
export function unanimousKey(o: OrphanVerdict, byId: Pick<ReadonlyMap<string, SessionRecord>, 'get'>): string | null {
	if (o.reasonKind !== 'ambiguous_predecessor' || o.candidateDonors.length < 2) {
		return null;
	}

	const keys = new Set(o.candidateDonors.map(id => byId.get(id)?.sessionKey ?? null));
	const [only] = keys;
	return keys.size === 1 && only !== undefined && only !== null ? only : null;
}

export type RoutingInput = {
	sessions: readonly SessionRecord[];
	byId: ReadonlyMap<string, SessionRecord>;
	routing: readonly RoutingEntry[];
	lineage: Lineage;
	orphans: readonly OrphanVerdict[];
	ruleSet: RuleSet;
	owner: string | null;
	/** Only these chats (for incremental refreshes); all when omitted. */
	onlyKeys?: ReadonlySet<string>;
	/** The sessions by key, when the caller keeps it (see keyIndexOf). */
	byKey?: ReadonlyMap<string, readonly SessionRecord[]>;
};

/** Sessions by session key. */
export function buildKeyIndex(sessions: readonly SessionRecord[]): Map<string, SessionRecord[]> {
	const byKey = new Map<string, SessionRecord[]>();
	for (const s of sessions) {
		if (s.sessionKey !== null) {
			const list = byKey.get(s.sessionKey);
			if (list) {
				list.push(s);
			} else {
				byKey.set(s.sessionKey, [s]);
			}
		}
	}

	return byKey;
}

export function analyzeRouting(input: RoutingInput): ChatRouting[] {
	const byKey = input.byKey ?? buildKeyIndex(input.sessions);

	// Only the tuple fallback (an exact-key miss) needs this index: built on first use, by chat id
	// alone (a string each row already holds, so no key is built per session); the few rows of
	// one chat id are then matched on the rest of the tuple.
	let byChatId: Map<string, SessionRecord[]> | undefined;
	const tupleRows = (identity: ChatIdentity): SessionRecord[] => {
		if (!byChatId) {
			byChatId = new Map();
			for (const s of input.sessions) {
				if (s.chatId === null) {
					continue;
				}

				const list = byChatId.get(s.chatId);
				if (list) {
					list.push(s);
				} else {
					byChatId.set(s.chatId, [s]);
				}
			}
		}

		// An empty chat id also matches the rows without one, which the index leaves out: look at every row then.
		const rows = identity.chatId === null || identity.chatId === '' ? input.sessions : (byChatId.get(identity.chatId) ?? []);
		return rows.filter(s => matchesTuple(s, identity));
	};

	const only = input.onlyKeys;
	const entriesByKey = new Map<string, RoutingEntry[]>();
	for (const e of input.routing) {
		if (only && !only.has(e.sessionKey)) {
			continue;
		}

		const list = entriesByKey.get(e.sessionKey) ?? [];
		list.push(e);
		entriesByKey.set(e.sessionKey, list);
	}

	const adoptableByKey = new Map<string, OrphanVerdict[]>();
	const ambiguousByKey = new Map<string, OrphanVerdict[]>();
	for (const o of input.orphans) {
		if (o.verdict === 'adoptable' && o.sessionKey !== null) {
			const list = adoptableByKey.get(o.sessionKey) ?? [];
			list.push(o);
			adoptableByKey.set(o.sessionKey, list);
		}

		const key = unanimousKey(o, input.byId);
		if (key !== null) {
			const list = ambiguousByKey.get(key) ?? [];
			list.push(o);
			ambiguousByKey.set(key, list);
		}
	}

	// An incremental refresh asks about a few chats: look only at those (no union of every key).
	const keys = only
		? [...only].filter(k => byKey.has(k) || entriesByKey.has(k)).sort()
		: [...new Set([...byKey.keys(), ...entriesByKey.keys()])].sort();
	return keys.map(key => {
		const keyed = byKey.get(key) ?? [];
		const identity = chatIdentity(key, keyed);
		const entries = (entriesByKey.get(key) ?? []).sort((a, b) => (b.updatedAt ?? 0) - (a.updatedAt ?? 0));
		const entry = entries[0];
		const assessment = entry ? assessRoutingEntry(entry, input.byId, input.lineage) : undefined;
		const resolution = resolveRestart({
			sessionKey: key,
			identity,
			keyed,
			tupleRows: () => tupleRows(identity),
			routingEntry: entry,
			routingEntryAssessment: assessment,
			byId: input.byId,
			lineage: input.lineage,
			ruleSet: input.ruleSet,
			owner: input.owner,
		});
		if (entries.length > 1) {
			resolution.notes.push(`${entries.length} gateway_routing entries for this key (scopes: ${entries.map(e => e.scope || "''").join(', ')}); the newest is assumed`);
		}

		const adoptable = adoptableByKey.get(key) ?? [];
		const ambiguous = ambiguousByKey.get(key) ?? [];
		// The platform's keyed rows, then the chat's orphans (in this order: it settles equal-time ties below).
		const memberIds = new Set<string>();
		for (const s of keyed) {
			if (s.source === identity.platform) {
				memberIds.add(s.id);
			}
		}

		for (const o of adoptable) {
			memberIds.add(o.orphanId);
		}

		for (const o of ambiguous) {
			memberIds.add(o.orphanId);
		}

		let newest: SessionRecord | undefined;
		let newestAt: number | null = null;
		for (const id of memberIds) {
			const s = input.byId.get(id);
			if (!s || !holdsConversation(s)) {
				continue;
			}

			const at = messageActivity(s);
			if (at === null) {
				continue;
			}

			// Ties go to the session a restart resumes, so equal timestamps never raise a false alarm.
			if (newestAt === null || at > newestAt || (at === newestAt && id === resolution.sessionId)) {
				newest = s;
				newestAt = at;
			}
		}

		const resolved = resolution.sessionId ? input.byId.get(resolution.sessionId) : undefined;
		const restartResolvesTo = resolution.sessionId;
		return {
			sessionKey: key,
			platform: identity.platform,
			identity,
			routingEntry: entry?.sessionId ?? null,
			routingEntryScope: entry ? entry.scope : null,
			routingEntryStale: assessment?.stale ?? false,
			routingEntryNote: assessment?.note ?? null,
			resolution,
			restartResolvesTo,
			newestActivityIn: newest?.id ?? null,
			newestActivityAt: newestAt,
			resolvesToActivityAt: resolved ? messageActivity(resolved) : null,
			rollbackRisk: restartResolvesTo !== null && newest !== undefined && newest.id !== restartResolvesTo,
			members: [...memberIds].sort(),
			adoptableOrphans: adoptable.map(o => o.orphanId),
			sameChatAmbiguousOrphans: ambiguous.map(o => o.orphanId),
		};
	});
}
