/**
 * What a search hit is to an operator: its row, its chat (the session key, or "keyless: orphan"
 * for the keyless gateway row a restart skipped), and the hits of every store in one list. Pure.
 */
import {type Analysis, indexById, repairRoutingOf, rollbacksOf, splitListed} from '../analysis/analyze.js';
import {orphanRulesFor, rulesFor} from '../generations.js';
import {DEFAULT_MAX_GAP_SECONDS, LOCAL_SURFACES, isOrphanCandidate} from '../routing/orphans.js';
import type {SnippetPart} from './search-snippet.js';
import type {SessionRecord, Snapshot} from '../types.js';

/** How a hit was found: the word index, the trigram index, a scan of a rebuild window, a scan of messages. */
export type HitVia = 'fts' | 'trigram' | 'rebuild-window' | 'scan';

export type StoreHit = {
	messageId: number;
	sessionId: string;
	role: string;
	timestamp: number | null;
	/** Not in the live transcript: a rewind/undo row (active=0, compacted=0) Hermes' own search hides. */
	inactive: boolean;
	snippet: SnippetPart[];
	via: HitVia;
};

export type ChatLabel = {
	kind: 'keyed' | 'orphan' | 'keyless' | 'unknown-session';
	/** The words: the key, `keyless: orphan`, `keyless: cli`… */
	label: string;
	sessionKey: string | null;
	/** For an orphan: the chat it belongs to, where the analysis names one (its donor's key, or the rolled-back chat). */
	belongsTo: string | null;
};

/** The orphans the analysis names, with the chat each belongs to (null when it names none). */
export function orphanChats(analysis: Pick<Analysis, 'orphans' | 'rollbacks'>): Map<string, string | null> {
	const chats = new Map<string, string | null>();
	for (const o of analysis.orphans) {
		chats.set(o.orphanId, o.sessionKey);
	}

	for (const r of analysis.rollbacks) {
		if (r.skipped.kind === 'keyless') {
			chats.set(r.skipped.id, r.sessionKey);
		}

		for (const also of r.alsoSkipped) {
			chats.set(also.id, r.sessionKey);
		}
	}

	return chats;
}

/**
 * What names the chat of a keyless row, and nothing more of the analysis (no restart resolution of
 * every key, no findings): today's repair-routing verdicts and the rollbacks, as analyzeChats computes
 * them; `orphanChats` of both answers the same (test/forensics/rollbacks/chat-scope.test.ts).
 */
export function keylessChatsOf(
	snapshot: Snapshot,
	maxGapSeconds = DEFAULT_MAX_GAP_SECONDS,
): {byId: Map<string, SessionRecord>; chats: Map<string, string | null>} {
	const byId = indexById(snapshot.sessions);
	const {listed} = repairRoutingOf(snapshot, orphanRulesFor(rulesFor(snapshot.ruleSet)), maxGapSeconds, byId);
	return {
		byId,
		chats: orphanChats({orphans: splitListed(listed).orphans, rollbacks: rollbacksOf(snapshot, byId, maxGapSeconds)}),
	};
}

/** The chat of a hit's row, in the words of `hfx sessions`. */
export function chatOf(session: SessionRecord | undefined, orphans: ReadonlyMap<string, string | null>): ChatLabel {
	if (!session) {
		return {kind: 'unknown-session', label: 'no sessions row', sessionKey: null, belongsTo: null};
	}

	if (session.sessionKey !== null) {
		return {kind: 'keyed', label: session.sessionKey, sessionKey: session.sessionKey, belongsTo: null};
	}

	// A keyless gateway row repair-routing lists is an orphan even where the analysis found no donor.
	if (orphans.has(session.id) || (isOrphanCandidate(session) && !LOCAL_SURFACES.has(session.source))) {
		const belongsTo = orphans.get(session.id) ?? null;
		return {
			kind: 'orphan',
			label: belongsTo ? `keyless: orphan of ${belongsTo}` : 'keyless: orphan',
			sessionKey: null,
			belongsTo,
		};
	}

	return {kind: 'keyless', label: `keyless: ${session.source || 'no source'}`, sessionKey: null, belongsTo: null};
}

/** Hits of one store, newest message first (ids grow with time), each message once, at most `limit`. */
export function mergeHits(indexed: readonly StoreHit[], scanned: readonly StoreHit[], limit: number): StoreHit[] {
	const byId = new Map<number, StoreHit>();
	for (const hit of [...indexed, ...scanned]) {
		if (!byId.has(hit.messageId)) {
			byId.set(hit.messageId, hit);
		}
	}

	return [...byId.values()].sort((a, b) => b.messageId - a.messageId).slice(0, limit);
}

/** The chat of a row read alone (id, source, key), or null when only the analysis can tell (a keyless gateway row). */
export function chatOfRow(row: {source: string; sessionKey: string | null} | undefined): ChatLabel | null {
	if (!row) {
		return {kind: 'unknown-session', label: 'no sessions row', sessionKey: null, belongsTo: null};
	}

	if (row.sessionKey !== null) {
		return {kind: 'keyed', label: row.sessionKey, sessionKey: row.sessionKey, belongsTo: null};
	}

	return LOCAL_SURFACES.has(row.source)
		? {kind: 'keyless', label: `keyless: ${row.source}`, sessionKey: null, belongsTo: null}
		: null;
}
