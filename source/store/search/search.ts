/**
 * One store searched by content, read-only (hermes-incidents.md §5): Hermes' own full-text
 * indexes where they exist and can be trusted (`MATCH` on the read-only connection, `snippet()`,
 * as its dashboard does, newest first), the trigram index for Chinese, Japanese or Korean text
 * and for a substring the word index missed, and a bounded scan wherever no index holds the rows:
 * no FTS tables, an index marked stale, a pending rebuild window. Every way it went is said.
 */
import crypto from 'node:crypto';
import {errorMessage} from '../../ground/errors.js';
import {type StoreHit, mergeHits} from '../../forensics/search/search-hits.js';
import {type SearchQuery, TRIGRAM_MIN_CHARS} from '../../forensics/search/search-query.js';
import {splitMarked} from '../../forensics/search/search-snippet.js';
import {type FtsIndex, readFtsIndex} from './fts-index.js';
import type {ReadOnlyStore} from '../open/open.js';
import type {SchemaInfo} from '../open/schema.js';
import {type ScanResult, hitColumns, hitOf, scanMessages} from './search-scan.js';

export type SearchRoute = 'fts' | 'trigram' | 'scan';

/**
 * The page cache of a search's connection, in KiB. A search reads each page once or twice (the
 * index's hits, then the rows that label them): better-sqlite3's default cache (16 MB) only makes
 * SQLite take fresh memory for every page it reads, which costs more than the read itself, where a
 * small cache reuses its pages (measured on the 1M-message bench store: the keyless orphan's
 * search spends ~100 ms less CPU at 2 MB).
 */
export const SEARCH_CACHE_KIB = 2048;

export type StoreSearch = {
	index: FtsIndex;
	route: SearchRoute;
	/** Why this route, in words (and what fell back, when the index failed). */
	notes: string[];
	hits: StoreHit[];
	/** The scan, when one ran over the whole table: how many ids it searched of how many. */
	scan: Pick<ScanResult, 'searchedIds' | 'ofIds' | 'complete'> | null;
};

/** The index route for this query on this store, or the scan with the reason. */
export function chooseRoute(index: FtsIndex, query: SearchQuery): {route: SearchRoute; why: string | null} {
	if (index.layout === 'none') {
		return {route: 'scan', why: 'this store has no full-text index (no messages_fts table): its messages were scanned'};
	}

	if (index.stale) {
		return {
			route: 'scan',
			why:
				'state_meta.fts_stale marks the full-text index out of date (Hermes ' +
				'itself scans then): its messages were scanned',
		};
	}

	if (query.match === null) {
		return {
			route: 'scan',
			why: 'the text holds no letter or digit, which is all the index holds: its messages were scanned',
		};
	}

	if (!query.cjk) {
		return {route: 'fts', why: null};
	}

	if (index.trigram && query.shortest >= TRIGRAM_MIN_CHARS) {
		return {
			route: 'trigram',
			why:
				'Chinese, Japanese or Korean text: searched with the trigram index (the ' +
				'word index cannot find part of a run of it)',
		};
	}

	return {
		route: 'scan',
		why:
			`Chinese, Japanese or Korean ` +
			`text${index.trigram ? ` with a term shorter than ${TRIGRAM_MIN_CHARS} characters` : ' and no trigram index'}: ` +
			`its messages were scanned`,
	};
}

/**
 * The index's newest hits (snippet() with markers no message holds). Hermes' dashboard orders by
 * rank, which scores every match before the first row; newest first walks the index backwards
 * and stops at the limit (a common word in a million messages answers as fast as a rare one),
 * and the newest message is the forensic question.
 */
function indexHits(
	store: ReadOnlyStore,
	schema: SchemaInfo,
	table: 'messages_fts' | 'messages_fts_trigram',
	query: SearchQuery,
	limit: number,
): StoreHit[] {
	const nonce = crypto.randomBytes(8).toString('hex');
	const open = `\u0002${nonce}[`;
	const close = `]${nonce}\u0003`;
	const sql =
		`SELECT ${hitColumns(schema)}, snippet(${table}, -1, ?, ?, ` +
		`'…', ${table === 'messages_fts' ? 16 : 48}) AS snippet
		FROM ${table} ` +
		`JOIN messages m ON m.id = ${table}.rowid WHERE ${table} MATCH ? ORDER ` +
		`BY ${table}.rowid DESC LIMIT ?`;
	const rows = store.read(
		() => store.prepare(sql).all(open, close, query.match, limit) as Array<Record<string, unknown>>,
	);
	return rows.map(r =>
		hitOf(r, splitMarked(String(r.snippet ?? ''), open, close), table === 'messages_fts' ? 'fts' : 'trigram'),
	);
}

/** The index route's hits, or null (with the failure in `notes`) when SQLite could not read the index. */
function tryIndex(
	store: ReadOnlyStore,
	schema: SchemaInfo,
	route: 'fts' | 'trigram',
	query: SearchQuery,
	limit: number,
	notes: string[],
): StoreHit[] | null {
	const table = route === 'fts' ? 'messages_fts' : 'messages_fts_trigram';
	try {
		return indexHits(store, schema, table, query, limit);
	} catch (error) {
		notes.push(
			`${table} could not be read ` +
				`(${errorMessage(error).split('\n')[0]!.slice(0, 160)}): its messages ` +
				`were scanned instead`,
		);
		return null;
	}
}

export function searchStore(store: ReadOnlyStore, schema: SchemaInfo, query: SearchQuery, limit: number): StoreSearch {
	const index = readFtsIndex(store, schema);
	const chosen = chooseRoute(index, query);
	const notes = chosen.why ? [chosen.why] : [];
	let route = chosen.route;
	let ranked = route === 'scan' ? null : tryIndex(store, schema, route, query, limit, notes);
	if (
		ranked !== null &&
		ranked.length === 0 &&
		route === 'fts' &&
		index.trigram &&
		query.shortest >= TRIGRAM_MIN_CHARS
	) {
		// No whole word matched: the trigram index finds the text inside words (as Hermes routes a substring).
		const inside = tryIndex(store, schema, 'trigram', query, limit, notes);
		if (inside !== null && inside.length > 0) {
			notes.push(
				'no whole word matched: these are substring matches from the trigram ' +
					'index (it leaves out tool rows, cron and subagent sessions)',
			);
			route = 'trigram';
			ranked = inside;
		}
	}

	if (ranked === null) {
		const scan = scanMessages(store, schema, query, limit, {via: 'scan'});
		return {
			index,
			route: 'scan',
			notes,
			hits: scan.hits,
			scan: {searchedIds: scan.searchedIds, ofIds: scan.ofIds, complete: scan.complete},
		};
	}

	const window = index.rebuildWindow
		? scanMessages(store, schema, query, limit, {range: index.rebuildWindow, via: 'rebuild-window'})
		: null;
	if (index.rebuildWindow) {
		notes.push(
			`a full-text rebuild is pending: ` +
				`ids ${index.rebuildWindow.after + 1}–${index.rebuildWindow.upTo} are in ` +
				`no index yet and were scanned (${window!.hits.length} ` +
				`hit${window!.hits.length === 1 ? '' : 's'})`,
		);
	}

	return {index, route, notes, hits: mergeHits(ranked, window?.hits ?? [], limit), scan: null};
}

/** The sessions rows of the hits (id, source, key): enough to name the chat of every keyed or local-surface hit. */
export function hitSessions(
	store: ReadOnlyStore,
	schema: SchemaInfo,
	hits: readonly StoreHit[],
): Map<string, {source: string; sessionKey: string | null}> {
	const ids = [...new Set(hits.map(h => h.sessionId))];
	const key = schema.sessionColumns.has('session_key') ? 'session_key' : 'NULL';
	const rows =
		ids.length === 0
			? []
			: store.read(
					() =>
						store
							.prepare(
								`SELECT id, source, ${key} AS session_key FROM sessions WHERE id IN (SELECT value FROM json_each(?))`,
							)
							.all(JSON.stringify(ids)) as Array<{id: string; source: unknown; session_key: unknown}>,
				);
	return new Map(
		rows.map(r => [
			String(r.id),
			{
				source: typeof r.source === 'string' ? r.source : '',
				sessionKey: typeof r.session_key === 'string' ? r.session_key : null,
			},
		]),
	);
}

/**
 * Each row's newest message time, for the rows named (every row when `ids` is null): what the
 * places beside the store are compared with (a transcript last written before it mirrors the
 * store; a capture's turn at or before it is the store's own).
 */
export function newestBySession(
	store: ReadOnlyStore,
	schema: SchemaInfo,
	ids: readonly string[] | null,
): Map<string, number | null> {
	if ((ids !== null && ids.length === 0) || !schema.messageColumns.has('timestamp')) {
		return new Map();
	}

	const where = ids === null ? '' : 'WHERE session_id IN (SELECT value FROM json_each(?))';
	const rows = store.read(
		() =>
			store
				.prepare(`SELECT session_id AS id, max(timestamp) AS at FROM messages ${where} GROUP BY session_id`)
				.all(...(ids === null ? [] : [JSON.stringify(ids)])) as Array<{id: unknown; at: unknown}>,
	);
	return new Map(rows.map(r => [String(r.id), typeof r.at === 'number' ? r.at : null]));
}
