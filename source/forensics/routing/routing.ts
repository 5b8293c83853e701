/**
 * The chat-level verdict the product exists for: per session key, what a restart would resume
 * versus where the chat's newest message actually is. When they differ: rollback risk.
 */
import {BOUNDARY_END_REASONS} from '../end-reasons.js';
import type {Rules} from '../generations.js';
import {type Lineage, ancestors} from '../lineage/lineage.js';
import type {OrphanVerdict} from './orphans.js';
import {type ChatIdentity, type Resolution, assessRoutingEntry, parseSessionKey, resolveRestart} from './restart.js';
import {type ChosenEntry, type KeyEntries, chooseEntry, entriesByKey, ownsKey} from './routing-entries.js';
import {lastActive, startedLater} from '../time.js';
import type {RoutingEntry, SessionRecord} from '../types.js';

export type ChatRouting = {
	sessionKey: string;
	platform: string;
	identity: ChatIdentity;
	/** The gateway_routing entry's session id (null when the key has no entry). */
	routingEntry: string | null;
	routingEntryScope: string | null;
	/**
	 * Where the entry the gateway loads comes from: its own scope of gateway_routing, or the legacy sessions.json mirror.
	 */
	routingEntrySource: ChosenEntry['source'];
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
	/**
	 * Why it is (or, where a restart resumes nothing, why it is not) a rollback risk; null when it resumes the newest
	 * conversation.
	 */
	rollbackRiskReason: string | null;
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

/**
 * When the newest message of a session was written; falls back to its last activity when every message timestamp is
 * unusable.
 */
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

export function tupleKey(
	source: string,
	userId: string | null,
	chatId: string | null,
	chatType: string | null,
	threadId: string | null,
): string {
	return `${source}\u0000${userId ?? ''}\u0000${chatId ?? ''}\u0000${chatType ?? ''}\u0000${threadId ?? ''}`;
}

/** The tuple fallback's equality on a column: `COALESCE(a, '') = COALESCE(b, '')`. */
function sameOrBothEmpty(a: string | null, b: string | null): boolean {
	return (a ?? '') === (b ?? '');
}

/**
 * Does the row carry the chat's tuple: its platform, and user, chat, type and thread compared as the fallback query
 * does?
 */
function matchesTuple(s: SessionRecord, identity: ChatIdentity): boolean {
	return (
		s.source === identity.platform &&
		sameOrBothEmpty(s.chatId, identity.chatId) &&
		sameOrBothEmpty(s.userId, identity.userId) &&
		sameOrBothEmpty(s.chatType, identity.chatType) &&
		sameOrBothEmpty(s.threadId, identity.threadId)
	);
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
	rules: Rules;
	owner: string | null;
	/** The gateway's own routing scope (realpath of its sessions folder); null: every entry counts (no scope column). */
	routingScope?: string | null;
	/** The legacy sessions.json mirror's entries: they fill keys that gateway_routing (own scope) lacks. */
	legacyRouting?: readonly RoutingEntry[];
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

/**
 * Is the newest conversation in a compression ancestor of the resumed row (one conversation: the child continues it)?
 */
function inCompressionAncestor(resumed: string, newest: string, lineage: Lineage): boolean {
	for (const edge of ancestors(resumed, lineage)) {
		if (edge.kind !== 'compression') {
			return false;
		}

		if (edge.parentId === newest) {
			return true;
		}
	}

	return false;
}

/**
 * A compression parent holding the newest message while a restart resumes nothing, before its
 * continuation is written: the rotation is under way (Hermes ends the parent, then writes the
 * continuation and points the routing entry at it, in commits of their own), and the parent and
 * its continuation are one conversation. Once a continuation exists, the finder's verdict on it
 * stands (the legacy finder skips one without messages: a restart then starts fresh, a real risk).
 */
function rotationUnderWay(newest: SessionRecord, lineage: Lineage): boolean {
	return (
		newest.endReason === 'compression' && !(lineage.children.get(newest.id) ?? []).some(e => e.kind === 'compression')
	);
}

/**
 * Rollback risk: a restart resumes another row than the one holding the newest conversation
 * (unless the newest is a compression ancestor of it), or resumes nothing (a fresh session) while
 * the newest conversation did not end by the user's choice (a reset or /new) nor in a compression
 * whose continuation is about to be written.
 */
export function rollbackVerdict(
	resumed: string | null,
	newest: SessionRecord | undefined,
	lineage: Lineage,
): {risk: boolean; reason: string | null} {
	if (newest === undefined) {
		return {
			risk: false,
			reason: resumed === null ? 'a restart starts a fresh session; the chat holds no conversation' : null,
		};
	}

	if (resumed === null) {
		if (newest.endReason !== null && BOUNDARY_END_REASONS.has(newest.endReason)) {
			return {
				risk: false,
				reason:
					`a restart starts a fresh session, as the user chose: the newest ` +
					`conversation ${newest.id} ended ${newest.endReason}`,
			};
		}

		if (rotationUnderWay(newest, lineage)) {
			return {
				risk: false,
				reason:
					`a compression rotation is under way: ${newest.id} ended compression and ` +
					`its continuation is not written yet: one conversation`,
			};
		}

		return {
			risk: true,
			reason:
				`a restart starts a fresh, empty session, but the newest conversation is ` +
				`in ${newest.id} ` +
				`(${newest.endReason === null ? 'still live' : `ended ${newest.endReason}, not a reset`})`,
		};
	}

	if (newest.id === resumed) {
		return {risk: false, reason: null};
	}

	if (inCompressionAncestor(resumed, newest.id, lineage)) {
		return {
			risk: false,
			reason: `the newest message is in ${newest.id}, a compression ancestor of ${resumed}: one conversation`,
		};
	}

	return {risk: true, reason: `a restart resumes ${resumed}, but the newest message is in ${newest.id}`};
}

/**
 * The tuple fallback's rows of a chat. Only an exact-key miss needs them, so the index is built on
 * first use, by chat id alone (a string each row already holds, so no key is built per session), a row without one
 * under '' (the fallback compares `COALESCE(chat_id, '')`); the few rows of one chat id are then matched on the rest
 * of the tuple. (A chat without a chat id looked at every row: on the 1M-message bench store 11.5 ms of the first
 * analysis's CPU profile, most of the closure's.)
 */
export function tupleFinder(sessions: readonly SessionRecord[]): (identity: ChatIdentity) => SessionRecord[] {
	let byChatId: Map<string, SessionRecord[]> | undefined;
	return identity => {
		if (!byChatId) {
			byChatId = new Map();
			for (const s of sessions) {
				const chatId = s.chatId ?? '';
				const list = byChatId.get(chatId);
				if (list) {
					list.push(s);
				} else {
					byChatId.set(chatId, [s]);
				}
			}
		}

		return (byChatId.get(identity.chatId ?? '') ?? []).filter(s => matchesTuple(s, identity));
	};
}

type ChatOrphans = {adoptable: Map<string, OrphanVerdict[]>; ambiguous: Map<string, OrphanVerdict[]>};

/**
 * The orphans that count into a chat, by its key: the adoptable ones, and the ambiguous ones whose every candidate
 * carries it.
 */
function orphansByChat(orphans: readonly OrphanVerdict[], byId: ReadonlyMap<string, SessionRecord>): ChatOrphans {
	const parts = listPartsOf(orphans);
	const ambiguous = new Map<string, OrphanVerdict[]>();
	for (const o of parts.ambiguous) {
		const key = unanimousKey(o, byId);
		if (key !== null) {
			addTo(ambiguous, key, o);
		}
	}

	return {adoptable: parts.adoptable, ambiguous};
}

function addTo(map: Map<string, OrphanVerdict[]>, key: string, o: OrphanVerdict): void {
	const list = map.get(key);
	if (list) {
		list.push(o);
	} else {
		map.set(key, [o]);
	}
}

/**
 * Of a list of orphans: the adoptable ones by key, and those an ambiguous predecessor may place (unanimousKey), kept
 * per list: an incremental analysis reuses the list while no verdict moves, and this walk of every listed row (3,208 on
 * the bench store) was a quarter of each commit's routing verdicts. Read only by its callers.
 */
const listParts = new WeakMap<
	readonly OrphanVerdict[],
	{adoptable: Map<string, OrphanVerdict[]>; ambiguous: OrphanVerdict[]}
>();

function listPartsOf(orphans: readonly OrphanVerdict[]): {
	adoptable: Map<string, OrphanVerdict[]>;
	ambiguous: OrphanVerdict[];
} {
	let parts = listParts.get(orphans);
	if (!parts) {
		parts = {adoptable: new Map(), ambiguous: []};
		for (const o of orphans) {
			if (o.verdict === 'adoptable' && o.sessionKey !== null) {
				addTo(parts.adoptable, o.sessionKey, o);
			}

			if (o.reasonKind === 'ambiguous_predecessor' && o.candidateDonors.length >= 2) {
				parts.ambiguous.push(o);
			}
		}

		listParts.set(orphans, parts);
	}

	return parts;
}

/** The chat's members: the platform's keyed rows, then its orphans (in this order: it settles equal-time ties). */
function membersOf(keyed: readonly SessionRecord[], platform: string, orphans: readonly OrphanVerdict[]): Set<string> {
	const ids = new Set<string>();
	for (const s of keyed) {
		if (s.source === platform) {
			ids.add(s.id);
		}
	}

	for (const o of orphans) {
		ids.add(o.orphanId);
	}

	return ids;
}

/**
 * Two members whose newest message is at the same time: the one a restart resumes, else the greater id (Hermes'
 * ids begin with their start time), so the answer never depends on the order the members come in (an incremental
 * refresh meets them in another order than a full analysis).
 */
function tieGoesTo(id: string, held: string, resumed: string | null): boolean {
	return id === resumed || (held !== resumed && id > held);
}

/**
 * The member holding the newest message; ties go to the session a restart resumes, so equal timestamps never raise a
 * false alarm, and between two others to the greater id (tieGoesTo).
 */
function newestMember(
	ids: ReadonlySet<string>,
	byId: ReadonlyMap<string, SessionRecord>,
	resumed: string | null,
): {newest: SessionRecord | undefined; at: number | null} {
	let newest: SessionRecord | undefined;
	let newestAt: number | null = null;
	for (const id of ids) {
		const s = byId.get(id);
		const at = s && holdsConversation(s) ? messageActivity(s) : null;
		if (
			at !== null &&
			(newestAt === null || at > newestAt || (at === newestAt && tieGoesTo(id, newest!.id, resumed)))
		) {
			newest = s;
			newestAt = at;
		}
	}

	return {newest, at: newestAt};
}

/**
 * The keys to judge: every chat, or (an incremental refresh) only the few asked about, with no
 * union of every key. The empty key is no chat: Hermes' finder returns nothing for it (`if not
 * session_key`), and no inbound message ever computes it.
 */
function chatKeys(
	input: RoutingInput,
	byKey: ReadonlyMap<string, readonly SessionRecord[]>,
	entries: ReadonlyMap<string, KeyEntries>,
): string[] {
	const loaded = (k: string) => {
		const e = entries.get(k);
		return e !== undefined && ownsKey(e);
	};

	const keys = input.onlyKeys
		? [...input.onlyKeys].filter(k => byKey.has(k) || loaded(k))
		: [...new Set([...byKey.keys(), ...[...entries.keys()].filter(loaded)])];
	return keys.filter(k => k !== '').sort();
}

type ChatContext = {
	input: RoutingInput;
	byKey: ReadonlyMap<string, readonly SessionRecord[]>;
	entries: ReadonlyMap<string, KeyEntries>;
	orphans: ChatOrphans;
	tupleRows: (identity: ChatIdentity) => SessionRecord[];
};

/** One chat's verdict: what a restart resumes, where the newest message is, and whether that is a rollback. */
function judgeChat(key: string, ctx: ChatContext): ChatRouting {
	const {input} = ctx;
	const keyed = ctx.byKey.get(key) ?? [];
	const identity = chatIdentity(key, keyed);
	const chosen = chooseEntry(ctx.entries.get(key));
	const entry = chosen.entry;
	const assessment = entry ? assessRoutingEntry(entry, input.byId, input.lineage) : undefined;
	const resolution = resolveRestart({
		sessionKey: key,
		identity,
		keyed,
		tupleRows: () => ctx.tupleRows(identity),
		routingEntry: entry,
		routingEntryAssessment: assessment,
		byId: input.byId,
		lineage: input.lineage,
		rules: input.rules,
		owner: input.owner,
	});
	resolution.notes.push(...chosen.notes);
	const adoptable = ctx.orphans.adoptable.get(key) ?? [];
	const ambiguous = ctx.orphans.ambiguous.get(key) ?? [];
	const memberIds = membersOf(keyed, identity.platform, [...adoptable, ...ambiguous]);
	const restartResolvesTo = resolution.sessionId;
	const {newest, at: newestAt} = newestMember(memberIds, input.byId, restartResolvesTo);
	const resolved = restartResolvesTo ? input.byId.get(restartResolvesTo) : undefined;
	const risk = rollbackVerdict(restartResolvesTo, newest, input.lineage);
	return {
		sessionKey: key,
		platform: identity.platform,
		identity,
		routingEntry: entry?.sessionId ?? null,
		routingEntryScope: entry ? entry.scope : null,
		routingEntrySource: chosen.source,
		routingEntryStale: assessment?.stale ?? false,
		routingEntryNote: assessment?.note ?? null,
		resolution,
		restartResolvesTo,
		newestActivityIn: newest?.id ?? null,
		newestActivityAt: newestAt,
		resolvesToActivityAt: resolved ? messageActivity(resolved) : null,
		rollbackRisk: risk.risk,
		rollbackRiskReason: risk.reason,
		members: [...memberIds].sort(),
		adoptableOrphans: adoptable.map(o => o.orphanId),
		sameChatAmbiguousOrphans: ambiguous.map(o => o.orphanId),
	};
}

export function analyzeRouting(input: RoutingInput): ChatRouting[] {
	// Run to its end (analysis/steps.ts `drain`, a room above this one).
	const steps = analyzeRoutingSteps(input);
	for (let step = steps.next(); ; step = steps.next()) {
		if (step.done) {
			return step.value;
		}
	}
}

/** Chats judged per step of `analyzeRoutingSteps` (on the bench store 400 a step held the loop 85-100 ms, load ~4). */
export const ROUTING_CHUNK = 150;

/** As `analyzeRouting`, `chunk` chats a step: the live view's first analysis answers keys between them (issue #26). */
export function* analyzeRoutingSteps(input: RoutingInput, chunk = ROUTING_CHUNK): Generator<void, ChatRouting[]> {
	const byKey = input.byKey ?? buildKeyIndex(input.sessions);
	const entries = entriesByKey(input.routing, input.legacyRouting ?? [], input.routingScope ?? null, input.onlyKeys);
	const ctx: ChatContext = {
		input,
		byKey,
		entries,
		orphans: orphansByChat(input.orphans, input.byId),
		tupleRows: tupleFinder(input.sessions),
	};
	const keys = chatKeys(input, byKey, entries);
	const judged: ChatRouting[] = [];
	for (let at = 0; at < keys.length; at += chunk) {
		if (at > 0) {
			yield;
		}

		for (const key of keys.slice(at, at + chunk)) {
			judged.push(judgeChat(key, ctx));
		}
	}

	return judged;
}
