/**
 * What changed between two moments of one store (issue #24 point 4; hermes-incidents.md §2.5: "a
 * per-chat diff between the newest pre-restart snapshot and the live store shows exactly which key
 * changed target at the restart"). Two analysed sides in, a Diff out:
 *
 *   - per chat (session key): what a restart resumes in each and where the newest message is in
 *     each; a chat whose restart target changed is the headline of a diff around a restart;
 *   - sessions added, removed and changed (messages added, end stamps moved, identity columns);
 *   - gateway_routing moves (entries added, removed, repointed, or only re-stamped);
 *   - rollbacks that happened in B and not in A (and the reverse).
 * Pure: plain data in, plain data out.
 */
import type {Analysis} from './analyze.js';
import type {Rollback} from '../rollbacks/rollbacks.js';
import {compareCells, numeric} from '../time.js';
import type {Cell, RoutingEntry, SessionRecord} from '../types.js';

/** One side: its analysis and its message count per session id (COUNT(*) of messages rows). */
export type DiffSide = {
	analysis: Pick<Analysis, 'routing' | 'rollbacks' | 'snapshot'>;
	messageCounts: ReadonlyMap<string, number>;
};

/** A chat at one moment. */
export type ChatMoment = {
	restartResumes: string | null;
	newestIn: string | null;
	newestAt: number | null;
	rollbackRisk: boolean;
	routingEntry: string | null;
};

export type ChatDiff = {
	sessionKey: string;
	/** null: the chat is not in that side (no session and no routing entry carries its key). */
	a: ChatMoment | null;
	b: ChatMoment | null;
	/** What a restart resumes differs (a chat present on one side only counts too). */
	targetChanged: boolean;
	/** The newest message is in another session, or newer. */
	newestMoved: boolean;
	/** A rollback of this chat is in B and not in A. */
	rolledBack: boolean;
	changed: boolean;
};

/** The identity columns a restart, a repair or a peer record rewrites (hermes-incidents.md §1.1 point 7). */
export const IDENTITY_COLUMNS = ['session_key', 'chat_id', 'user_id', 'source', 'parent_session_id'] as const;
export type IdentityColumn = (typeof IDENTITY_COLUMNS)[number];

const IDENTITY_FIELD: Record<IdentityColumn, 'sessionKey' | 'chatId' | 'userId' | 'source' | 'parentSessionId'> = {
	session_key: 'sessionKey',
	chat_id: 'chatId',
	user_id: 'userId',
	source: 'source',
	parent_session_id: 'parentSessionId',
};

export type SessionSummary = {
	id: string;
	sessionKey: string | null;
	source: string;
	messages: number;
	newestAt: number | null;
};

export type SessionDiff = {
	id: string;
	sessionKey: string | null;
	messages: {a: number; b: number};
	newestAt: {a: number | null; b: number | null};
	/** ended_at / end_reason, when either moved (a reopen clears both; an explicit close sets them). */
	ended: {a: number | null; b: number | null; reasonA: string | null; reasonB: string | null} | null;
	identity: Array<{column: IdentityColumn; a: string | null; b: string | null}>;
};

export type RoutingMove = {
	scope: string;
	sessionKey: string;
	kind: 'added' | 'removed' | 'repointed' | 'restamped';
	a: {sessionId: string | null; updatedAt: number | null} | null;
	b: {sessionId: string | null; updatedAt: number | null} | null;
};

export type Diff = {
	chats: ChatDiff[];
	sessions: {added: SessionSummary[]; removed: SessionSummary[]; changed: SessionDiff[]; unchanged: number};
	routing: RoutingMove[];
	/** Rollbacks that happened in B and not in A (the usual direction: A before, B after). */
	rollbacks: {inBOnly: Rollback[]; inAOnly: Rollback[]};
};

function momentOf(side: DiffSide, key: string): ChatMoment | null {
	const r = side.analysis.routing.find(c => c.sessionKey === key);
	return r
		? {
				restartResumes: r.restartResolvesTo,
				newestIn: r.newestActivityIn,
				newestAt: r.newestActivityAt,
				rollbackRisk: r.rollbackRisk,
				routingEntry: r.routingEntry,
			}
		: null;
}

function rollbackId(r: Rollback): string {
	return `${r.sessionKey}\u0000${r.resumedId}\u0000${r.skipped.id}`;
}

function only(xs: readonly Rollback[], ys: readonly Rollback[]): Rollback[] {
	const other = new Set(ys.map(rollbackId));
	return xs.filter(r => !other.has(rollbackId(r)));
}

export function diffChats(a: DiffSide, b: DiffSide, rolledBack: ReadonlySet<string>): ChatDiff[] {
	const keys = [...new Set([...a.analysis.routing, ...b.analysis.routing].map(c => c.sessionKey))].sort();
	return keys.map(sessionKey => {
		const ma = momentOf(a, sessionKey);
		const mb = momentOf(b, sessionKey);
		const targetChanged =
			(ma?.restartResumes ?? null) !== (mb?.restartResumes ?? null) || (ma === null) !== (mb === null);
		const newestMoved =
			(ma?.newestIn ?? null) !== (mb?.newestIn ?? null) || (ma?.newestAt ?? null) !== (mb?.newestAt ?? null);
		const back = rolledBack.has(sessionKey);
		const changed =
			targetChanged ||
			newestMoved ||
			back ||
			ma?.rollbackRisk !== mb?.rollbackRisk ||
			ma?.routingEntry !== mb?.routingEntry;
		return {sessionKey, a: ma, b: mb, targetChanged, newestMoved, rolledBack: back, changed};
	});
}

function summary(s: SessionRecord, counts: ReadonlyMap<string, number>): SessionSummary {
	return {
		id: s.id,
		sessionKey: s.sessionKey,
		source: s.source,
		messages: counts.get(s.id) ?? 0,
		newestAt: s.newestMessageAt,
	};
}

function sameCell(x: Cell, y: Cell): boolean {
	return (x === null) === (y === null) && (x === null || compareCells(x, y) === 0);
}

/** How one session moved between the sides; null when nothing the diff reports did. */
export function diffSession(sa: SessionRecord, sb: SessionRecord, a: DiffSide, b: DiffSide): SessionDiff | null {
	const messages = {a: a.messageCounts.get(sa.id) ?? 0, b: b.messageCounts.get(sb.id) ?? 0};
	const newestAt = {a: sa.newestMessageAt, b: sb.newestMessageAt};
	const endMoved = !sameCell(sa.endedAtRaw, sb.endedAtRaw) || sa.endReason !== sb.endReason;
	const ended = endMoved
		? {a: numeric(sa.endedAtRaw), b: numeric(sb.endedAtRaw), reasonA: sa.endReason, reasonB: sb.endReason}
		: null;
	const identity = IDENTITY_COLUMNS.flatMap(column => {
		const field = IDENTITY_FIELD[column];
		const va = sa[field] || null;
		const vb = sb[field] || null;
		return va === vb ? [] : [{column, a: va, b: vb}];
	});
	if (messages.a === messages.b && newestAt.a === newestAt.b && !ended && identity.length === 0) {
		return null;
	}

	return {id: sa.id, sessionKey: sb.sessionKey ?? sa.sessionKey, messages, newestAt, ended, identity};
}

export function diffSessions(a: DiffSide, b: DiffSide): Diff['sessions'] {
	const inA = new Map(a.analysis.snapshot.sessions.map(s => [s.id, s]));
	const inB = new Map(b.analysis.snapshot.sessions.map(s => [s.id, s]));
	const added = [...inB.values()].filter(s => !inA.has(s.id)).map(s => summary(s, b.messageCounts));
	const removed = [...inA.values()].filter(s => !inB.has(s.id)).map(s => summary(s, a.messageCounts));
	const changed: SessionDiff[] = [];
	let unchanged = 0;
	for (const [id, sa] of inA) {
		const sb = inB.get(id);
		if (!sb) {
			continue;
		}

		const d = diffSession(sa, sb, a, b);
		if (d) {
			changed.push(d);
		} else {
			unchanged++;
		}
	}

	return {added, removed, changed, unchanged};
}

function routingKey(e: RoutingEntry): string {
	return `${e.scope}\u0000${e.sessionKey}`;
}

/** Every gateway_routing row (every scope) that appeared, vanished, names another session, or was only re-stamped. */
export function diffRouting(a: readonly RoutingEntry[], b: readonly RoutingEntry[]): RoutingMove[] {
	const inA = new Map(a.map(e => [routingKey(e), e]));
	const inB = new Map(b.map(e => [routingKey(e), e]));
	const moves: RoutingMove[] = [];
	const side = (e: RoutingEntry | undefined) => (e ? {sessionId: e.sessionId, updatedAt: e.updatedAt} : null);
	for (const k of [...new Set([...inA.keys(), ...inB.keys()])].sort()) {
		const ea = inA.get(k);
		const eb = inB.get(k);
		const e = (eb ?? ea)!;
		const kind = !ea
			? 'added'
			: !eb
				? 'removed'
				: ea.sessionId !== eb.sessionId
					? 'repointed'
					: ea.updatedAt !== eb.updatedAt
						? 'restamped'
						: null;
		if (kind) {
			moves.push({scope: e.scope, sessionKey: e.sessionKey, kind, a: side(ea), b: side(eb)});
		}
	}

	return moves;
}

export function diffStores(a: DiffSide, b: DiffSide): Diff {
	const inBOnly = only(b.analysis.rollbacks, a.analysis.rollbacks);
	const inAOnly = only(a.analysis.rollbacks, b.analysis.rollbacks);
	return {
		chats: diffChats(a, b, new Set(inBOnly.map(r => r.sessionKey))),
		sessions: diffSessions(a, b),
		routing: diffRouting(a.analysis.snapshot.routing, b.analysis.snapshot.routing),
		rollbacks: {inBOnly, inAOnly},
	};
}

/** The diff's verdict: a chat whose restart target changed, or a rollback that happened between A and B. */
export function diffHasFindings(d: Diff): boolean {
	return d.rollbacks.inBOnly.length > 0 || d.chats.some(c => c.targetChanged);
}
