/**
 * Which rows hold one chat's conversation, and why each belongs (hermes-incidents.md §1.3, §7):
 * by its session key, by the peer tuple the restart finder falls back to, by lineage
 * (parent_session_id and model_config markers), and the keyless rows attributed to it (a
 * rollback's skipped rows, adoptable orphans, ambiguous orphans whose every donor carries the key).
 * Also: which chat a session id names. Pure.
 */
import type {Lineage, LineageEdge} from '../lineage/lineage.js';
import type {OrphanVerdict} from '../routing/orphans.js';
import type {ChatRouting} from '../routing/routing.js';
import type {Certainty, Rollback} from '../rollbacks/rollbacks.js';
import type {SessionRecord} from '../types.js';

export type Membership = 'key' | 'peer-tuple' | 'lineage' | 'skipped' | 'adoptable' | 'same-chat-orphan';

export type ChatRow = {
	id: string;
	via: Membership[];
	/** Why it belongs, one fact each. */
	evidence: string[];
	certainty: Certainty;
};

export type ChatRowsInput = {
	sessionKey: string;
	chat: ChatRouting | undefined;
	sessions: readonly SessionRecord[];
	byId: ReadonlyMap<string, SessionRecord>;
	lineage: Lineage;
	rollbacks: readonly Rollback[];
	orphans: readonly OrphanVerdict[];
};

const RANK: Record<Certainty, number> = {weak: 0, strong: 1, certain: 2};

/**
 * Lineage edges that carry one conversation on (a /branch is weaker: the user forked it; a delegate is another
 * agent's).
 */
const CONTINUES: ReadonlySet<LineageEdge['kind']> = new Set(['compression', 'reset', 'repair']);

class Rows {
	readonly byId = new Map<string, ChatRow>();

	add(id: string, via: Membership, evidence: string, certainty: Certainty): boolean {
		const row = this.byId.get(id);
		if (!row) {
			this.byId.set(id, {id, via: [via], evidence: [evidence], certainty});
			return true;
		}

		if (!row.via.includes(via)) {
			row.via.push(via);
			row.evidence.push(evidence);
		}

		row.certainty = RANK[certainty] > RANK[row.certainty] ? certainty : row.certainty;
		return false;
	}
}

function tupleText(chat: ChatRouting): string {
	const {platform, userId, chatId, chatType, threadId} = chat.identity;
	return `(${[platform, userId, chatId, chatType, threadId].map(v => v ?? '—').join(', ')})`;
}

/**
 * Keyless rows carrying the chat's whole peer tuple (source, user, chat, type, thread): what the finder's fallback
 * matches.
 */
function addTupleRows(rows: Rows, input: ChatRowsInput): void {
	const chat = input.chat;
	if (!chat?.identity.chatId) {
		return;
	}

	const {platform, userId, chatId, chatType, threadId} = chat.identity;
	for (const s of input.sessions) {
		if (
			s.sessionKey === null &&
			s.chatId === chatId &&
			s.source === platform &&
			(s.userId ?? '') === (userId ?? '') &&
			(s.chatType ?? '') === (chatType ?? '') &&
			(s.threadId ?? '') === (threadId ?? '')
		) {
			rows.add(
				s.id,
				'peer-tuple',
				`keyless, but it carries the chat's peer tuple ${tupleText(chat)}: the restart finder's fallback matches it`,
				'strong',
			);
		}
	}
}

/**
 * Rows reached through lineage from a member: continuations, resets, repairs (strong), /branch children (weak); never
 * another key's rows.
 */
function addLineageRows(rows: Rows, input: ChatRowsInput): void {
	const queue = [...rows.byId.keys()];
	const edgeOf = (e: LineageEdge, from: string): {id: string; text: string} =>
		e.parentId === from
			? {
					id: e.childId,
					text:
						`${e.kind} child of ${e.parentId} ` +
						`(${e.via === 'marker' ? 'a model_config marker' : 'parent_session_id'})`,
				}
			: {
					id: e.parentId,
					text:
						`${e.kind} parent of ${e.childId} ` +
						`(${e.via === 'marker' ? 'a model_config marker' : 'parent_session_id'})`,
				};
	// A row reached from `id` along `e` joins the chat, unless it is another key's (another chat's), or a keyed row of
	// this chat (no second reason needed).
	const follow = (e: LineageEdge, id: string): void => {
		const nextId = e.parentId === id ? e.childId : e.parentId;
		const s = input.byId.get(nextId);
		if (
			e.kind === 'delegate' ||
			!s ||
			(s.sessionKey !== null && (s.sessionKey !== input.sessionKey || rows.byId.has(nextId)))
		) {
			return;
		}

		const next = edgeOf(e, id);
		if (rows.add(next.id, 'lineage', next.text, CONTINUES.has(e.kind) ? 'strong' : 'weak')) {
			queue.push(next.id);
		}
	};

	while (queue.length > 0) {
		const id = queue.pop()!;
		const parent = input.lineage.parentEdge.get(id);
		if (parent) {
			follow(parent, id);
		}

		for (const e of input.lineage.children.get(id) ?? []) {
			follow(e, id);
		}
	}
}

function addAttributed(rows: Rows, input: ChatRowsInput): void {
	for (const r of input.rollbacks) {
		if (r.sessionKey === input.sessionKey) {
			rows.add(
				r.skipped.id,
				'skipped',
				`the conversation a restart skipped when it resumed ${r.resumedId}: ${r.skipped.evidence.join('; ')}`,
				r.skipped.certainty,
			);
			for (const a of r.alsoSkipped) {
				rows.add(a.id, 'skipped', `an older keyless row inside the same gap of ${r.resumedId}`, 'weak');
			}
		}
	}

	for (const o of input.orphans) {
		if (o.verdict === 'adoptable' && o.sessionKey === input.sessionKey) {
			rows.add(
				o.orphanId,
				'adoptable',
				`repair-routing adopts it into this chat by ${o.evidence}: donor ${o.donorId}`,
				o.evidence === 'lineage' ? 'strong' : 'weak',
			);
		}
	}

	for (const id of input.chat?.sameChatAmbiguousOrphans ?? []) {
		rows.add(
			id,
			'same-chat-orphan',
			"repair-routing refuses it as ambiguous, but every candidate donor carries this chat's key",
			'weak',
		);
	}
}

/** Every row of the chat with why it belongs, in id order (the timeline orders by time, never by this). */
export function chatRows(input: ChatRowsInput): ChatRow[] {
	const rows = new Rows();
	const byKey = `session_key = ${input.sessionKey}`;
	for (const s of input.sessions) {
		if (s.sessionKey === input.sessionKey) {
			rows.add(s.id, 'key', byKey, 'certain');
		}
	}

	addAttributed(rows, input);
	addTupleRows(rows, input);
	addLineageRows(rows, input);
	return [...rows.byId.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** The chat a session belongs to: its own key, a rollback or adoption that names it, or the nearest keyed ancestor. */
export function chatOfSession(
	id: string,
	input: Omit<ChatRowsInput, 'sessionKey' | 'chat' | 'sessions'> & {routing: readonly ChatRouting[]},
): string | null {
	const s = input.byId.get(id);
	if (s?.sessionKey) {
		return s.sessionKey;
	}

	const rollback = input.rollbacks.find(r => r.skipped.id === id || r.alsoSkipped.some(a => a.id === id));
	const orphan = input.orphans.find(o => o.orphanId === id && o.verdict === 'adoptable');
	const ambiguous = input.routing.find(c => c.sameChatAmbiguousOrphans.includes(id));
	const attributed = rollback?.sessionKey ?? orphan?.sessionKey ?? ambiguous?.sessionKey;
	if (attributed) {
		return attributed;
	}

	const seen = new Set<string>();
	for (
		let edge = input.lineage.parentEdge.get(id);
		edge && !seen.has(edge.parentId);
		edge = input.lineage.parentEdge.get(edge.parentId)
	) {
		seen.add(edge.parentId);
		const parent = input.byId.get(edge.parentId);
		if (edge.kind !== 'delegate' && parent?.sessionKey) {
			return parent.sessionKey;
		}
	}

	return null;
}
