/**
 * Search by content in the places beside a store where Hermes keeps the conversation when
 * state.db did not take it (hermes-incidents.md §2.1–2.3, issue #24 point 3): the lines of
 * `sessions/<id>.jsonl`, the messages of each `pending_messages/` payload shape, and the turns a
 * retired-WAL capture holds. What a message's text is, whether every term occurs in it (as the
 * store's LIKE scan matches: ASCII letters without regard to case), and what a hit there is. Pure.
 */
import {type SnippetPart, snippetAround} from './search-snippet.js';

/** Where a hit outside state.db was found. */
export type PlaceKind = 'jsonl' | 'spool' | 'retired-wal';

export type PlaceHit = {
	place: PlaceKind;
	/** The file (a capture's folder for a retired-WAL hit). */
	file: string;
	/** Where in it: the line of a .jsonl (1-based), the message of a payload (1-based), the message id in a capture. */
	position: number;
	sessionId: string | null;
	role: string;
	timestamp: number | null;
	snippet: SnippetPart[];
	/** What Hermes does with it: a spool payload's replay verdict; a transcript's or a capture's standing words. */
	fate: string;
};

/** A message as Hermes holds it, where a payload or a line keeps one. */
export type PlaceMessage = {role: string; text: string; timestamp: unknown; sessionId: string | null};

function record(value: unknown): Record<string, unknown> | null {
	return value !== null && typeof value === 'object' && !Array.isArray(value)
		? (value as Record<string, unknown>)
		: null;
}

/** The text of a content value: a string, or the `text` of each part of a list (Hermes' multimodal content). */
export function contentText(content: unknown): string {
	if (typeof content === 'string') {
		return content;
	}

	const parts = Array.isArray(content) ? content : [content];
	return parts
		.map(p => (typeof p === 'string' ? p : typeof record(p)?.text === 'string' ? String(record(p)!.text) : ''))
		.filter(Boolean)
		.join('\n');
}

/** One message dict (a .jsonl line, a spooled message): its role and its text, reasoning included. */
export function messageOf(value: unknown, sessionId: string | null): PlaceMessage | null {
	const m = record(value);
	if (m === null) {
		return null;
	}

	const text = [contentText(m.content), typeof m.reasoning === 'string' ? m.reasoning : ''].filter(Boolean).join('\n');
	return {role: typeof m.role === 'string' ? m.role : '?', text, timestamp: m.timestamp, sessionId};
}

/**
 * The messages of one spool payload, by its shape (§2.2): a cap drop's message, a shutdown's text, an agent history's
 * list.
 */
export function payloadMessages(payload: Record<string, unknown>): PlaceMessage[] {
	const data = record(payload.data);
	const id = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null);
	if (payload.reason === 'shutdown-with-unpersisted-agent-history') {
		const list = Array.isArray(payload.messages) ? payload.messages : [];
		return list.flatMap(m => messageOf(m, id(payload.session_id)) ?? []);
	}

	if (payload.reason === 'transcript_cap_drop') {
		const m = messageOf(data?.message, id(data?.session_id) ?? id(payload.session_key));
		return m ? [m] : [];
	}

	return typeof data?.text === 'string'
		? [{role: 'user', text: data.text, timestamp: payload.ts, sessionId: id(data.session_id)}]
		: [];
}

/** ASCII letters folded to lower case, as SQLite's LIKE compares them (other letters compare exactly). */
function asciiLower(text: string): string {
	return text.replace(/[A-Z]+/g, s => s.toLowerCase());
}

/** Every term occurs in the text (the store's scan: `content LIKE %term%` for each term). */
export function containsAll(text: string, terms: readonly string[]): boolean {
	const folded = asciiLower(text);
	return terms.every(t => folded.includes(asciiLower(t)));
}

/** The hit a matching message makes, or null when a term is missing. */
export function placeHit(
	m: PlaceMessage,
	terms: readonly string[],
	where: Pick<PlaceHit, 'place' | 'file' | 'position' | 'fate'>,
	epoch: (v: unknown) => number | null,
): PlaceHit | null {
	if (!containsAll(m.text, terms)) {
		return null;
	}

	return {
		...where,
		sessionId: m.sessionId,
		role: m.role,
		timestamp: epoch(m.timestamp),
		snippet: snippetAround(m.text, terms) ?? [{text: m.text.slice(0, 120), match: false}],
	};
}

/** Newest first (no time last), then by file and position: the order of the store's hits. */
export function byNewest(a: PlaceHit, b: PlaceHit): number {
	return (
		(b.timestamp ?? Number.NEGATIVE_INFINITY) - (a.timestamp ?? Number.NEGATIVE_INFINITY) ||
		(a.file < b.file ? -1 : a.file > b.file ? 1 : a.position - b.position)
	);
}
