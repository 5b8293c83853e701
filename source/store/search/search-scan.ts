/**
 * The bounded scan of `messages.content` that covers what no full-text index holds
 * (hermes-incidents.md §5.3): a store without FTS tables, one marked `fts_stale`, the rows of a
 * pending rebuild window, text the index cannot find. `LIKE` with every term (ASCII
 * case-insensitive, `%`/`_` escaped), newest rows first, in slices of ids, each its own short read
 * transaction, until enough hits or the time budget is spent (it then says how far it got).
 */
import {JSON_CONTENT_PREFIX, decodeContent} from '../read/detail.js';
import type {ReadOnlyStore} from '../open/open.js';
import type {SchemaInfo} from '../open/schema.js';
import {type SnippetPart, ELLIPSIS, snippetAround} from '../../forensics/search/search-snippet.js';
import type {SearchQuery} from '../../forensics/search/search-query.js';
import type {HitVia, StoreHit} from '../../forensics/search/search-hits.js';

/** Ids per read transaction. */
const SLICE_IDS = 50_000;
/** A scan stops after this long, and says how much of the store it searched. */
export const SCAN_BUDGET_MS = 8000;

export type ScanResult = {hits: StoreHit[]; searchedIds: number; ofIds: number; complete: boolean};

/** A LIKE pattern matching the term anywhere, its wildcards taken literally. */
export function likePattern(term: string): string {
	return `%${term.replace(/[\\%_]/g, c => `\\${c}`)}%`;
}

/** A column, or a constant under its name where this store's schema lacks it. */
export function messageColumn(schema: SchemaInfo, name: string, fallback = 'NULL'): string {
	return schema.messageColumns.has(name) ? `m.${name}` : `${fallback}`;
}

/** The first characters of a message, when no term shows in its text (a match inside structured content). */
function headOf(text: string): SnippetPart[] {
	return [{text: text.length > 120 ? `${text.slice(0, 120)}${ELLIPSIS}` : text, match: false}];
}

export function snippetOf(raw: unknown, terms: readonly string[]): SnippetPart[] {
	const text = decodeContent(raw);
	const rawText =
		typeof raw === 'string' && raw.startsWith(JSON_CONTENT_PREFIX) ? raw.slice(JSON_CONTENT_PREFIX.length) : text;
	return snippetAround(text, terms) ?? snippetAround(rawText, terms) ?? headOf(text);
}

export function hitOf(row: Record<string, unknown>, snippet: SnippetPart[], via: HitVia): StoreHit {
	return {
		messageId: Number(row.id),
		sessionId: String(row.session_id),
		role: typeof row.role === 'string' ? row.role : '?',
		timestamp: typeof row.timestamp === 'number' ? row.timestamp : null,
		inactive: row.active === 0 && row.compacted !== 1,
		snippet,
		via,
	};
}

/** The columns every hit reads (and `m.content` for a scan to cut its snippet from). */
export function hitColumns(schema: SchemaInfo): string {
	return (
		`m.id AS id, m.session_id AS ` +
		`session_id, ${messageColumn(schema, 'role')} AS ` +
		`role, ${messageColumn(schema, 'timestamp')} AS ` +
		`timestamp, ${messageColumn(schema, 'active', '1')} AS ` +
		`active, ${messageColumn(schema, 'compacted', '0')} AS compacted`
	);
}

/** Scans ids in (after, upTo] (the whole table without a range), newest first. */
export function scanMessages(
	store: ReadOnlyStore,
	schema: SchemaInfo,
	query: SearchQuery,
	limit: number,
	options: {range?: {after: number; upTo: number}; via: HitVia},
): ScanResult {
	const bounds = store.read(
		() =>
			store.prepare('SELECT min(id) AS lo, max(id) AS hi FROM messages').get() as {
				lo: number | null;
				hi: number | null;
			},
	);
	const lowest = Math.max((bounds.lo ?? 1) - 1, options.range?.after ?? -1);
	const highest = Math.min(bounds.hi ?? 0, options.range?.upTo ?? Number.MAX_SAFE_INTEGER);
	const where = query.terms.map(() => "m.content LIKE ? ESCAPE '\\'").join(' AND ');
	const sql =
		`SELECT ${hitColumns(schema)}, m.content AS content FROM messages m ` +
		`WHERE m.id > ? AND m.id <= ? AND ${where} ORDER BY m.id DESC LIMIT ?`;
	const patterns = query.terms.map(likePattern);
	const started = performance.now();
	const hits: StoreHit[] = [];
	let top = highest;
	while (top > lowest && hits.length < limit && performance.now() - started < SCAN_BUDGET_MS) {
		const bottom = Math.max(lowest, top - SLICE_IDS);
		const rows = store.read(
			() => store.prepare(sql).all(bottom, top, ...patterns, limit - hits.length) as Array<Record<string, unknown>>,
		);
		hits.push(...rows.map(r => hitOf(r, snippetOf(r.content, query.terms), options.via)));
		top = bottom;
	}

	const ofIds = Math.max(0, highest - lowest);
	return {hits, searchedIds: ofIds - Math.max(0, top - lowest), ofIds, complete: top <= lowest || hits.length >= limit};
}
