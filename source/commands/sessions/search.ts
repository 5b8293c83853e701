/**
 * `hfx search TEXT`: messages found by content in every store of a home (or the one --db or
 * --profile names), read-only, through Hermes' own full-text indexes where they can be trusted
 * and a bounded scan where they cannot (store/search/search.ts). Each hit names its row, its chat
 * ("keyless: orphan" for the row a restart skipped), its time, its role and a snippet.
 * Exit 0 hits, 1 no hit, 2 a store could not be searched or the text was refused.
 */
import {type ExitCode, FailClosed, asRefusal} from '../../ground/errors.js';
import {chatOf, chatOfRow, keylessChatsOf} from '../../forensics/search/search-hits.js';
import {MAX_QUERY_CHARS, type SearchQuery, parseSearchQuery} from '../../forensics/search/search-query.js';
import {
	type LabelledHit,
	type SearchReport,
	type StoreSearchReport,
	searchJson,
	searchText,
} from '../../report/sessions/search.js';
import type {StoreLocation} from '../../store/locate.js';
import {readStore} from '../../store/open/immutable-read.js';
import {type ReadOnlyStore, sqliteFailure} from '../../store/open/open.js';
import {readSnapshot} from '../../store/read/read-snapshot.js';
import {routingHomeOf} from '../../store/read/routing-home.js';
import {type SchemaInfo, detectSchema} from '../../store/open/schema.js';
import {hasCaptures, searchPlaces, transcriptIds} from '../../store/search/search-places.js';
import {
	SEARCH_CACHE_KIB,
	type StoreSearch,
	hitSessions,
	newestBySession,
	searchStore,
} from '../../store/search/search.js';
import {type GlobalFlags, type Io, emit, guarded, locate} from '../context.js';

export const DEFAULT_SEARCH_LIMIT = 20;
export const MAX_SEARCH_LIMIT = 1000;

export type SearchFlags = GlobalFlags & {text: string; limit: number};

/** The text, or its refusal (one line, exit 2) when too long or with nothing to search. */
export function queryOf(text: string): SearchQuery {
	if (text.length > MAX_QUERY_CHARS) {
		throw new FailClosed({
			file: 'TEXT',
			kind: 'usage',
			reason: `the search text is ${text.length} characters; at most ${MAX_QUERY_CHARS} are searched`,
			next: 'search for a shorter, distinctive phrase',
		});
	}

	const query = parseSearchQuery(text);
	if (query === null) {
		throw new FailClosed({
			file: 'TEXT',
			kind: 'usage',
			reason: 'nothing is left to search once control characters are taken out',
			next: 'give the words to find',
		});
	}

	return query;
}

/**
 * The chat of every hit: from the rows alone, or, where a hit is a keyless gateway row, from the
 * analysis of the rows that decide it (forensics/rollbacks/chat-scope.ts), read on the same connection.
 */
function labelHits(
	store: ReadOnlyStore,
	schema: SchemaInfo,
	location: StoreLocation,
	flags: GlobalFlags,
	found: StoreSearch,
): LabelledHit[] {
	const rows = hitSessions(store, schema, found.hits);
	const light = found.hits.map(h => chatOfRow(rows.get(h.sessionId)));
	if (light.every(l => l !== null)) {
		return found.hits.map((h, i) => ({...h, chat: light[i]!}));
	}

	// Only what names an orphan's chat: today's verdicts and the rollbacks (no findings, places or upgrade).
	const keyless = found.hits.filter((_, i) => light[i] === null);
	// The rows that decide these rows' chats (the rows of their sources where SQLite cannot tell which).
	const {snapshot} = readSnapshot(store, schema, routingHomeOf(location, schema).context, {
		columns: 'lean',
		chatsOfSources: new Set(keyless.map(h => rows.get(h.sessionId)?.source ?? '')),
		chatsOfRows: new Set(keyless.map(h => h.sessionId)),
	});
	const {byId, chats} = keylessChatsOf(snapshot, flags.maxGapSeconds);
	return found.hits.map((h, i) => ({...h, chat: light[i] ?? chatOf(byId.get(h.sessionId), chats)}));
}

/**
 * One store: its hits, labelled, and the places beside it. A stopped store is read in place as an
 * immutable file (store/open/immutable-read.ts), never copied; a running one through its own WAL.
 */
function searchOne(location: StoreLocation, flags: SearchFlags, query: SearchQuery): StoreSearchReport {
	let file = location.path;
	try {
		const read = readStore(location.path, store => {
			file = store.preflight.path;
			store.setCacheSizeKib(SEARCH_CACHE_KIB);
			const schema = detectSchema(store);
			const found = searchStore(store, schema, query, flags.limit);
			const hits = labelHits(store, schema, location, flags, found);
			// Listing names beside the store (never opening state.db or its -shm): which rows the places name.
			const newest = newestBySession(store, schema, hasCaptures(file) ? null : transcriptIds(file));
			return {found, hits, newest};
		});
		const {found, hits} = read;
		const places = searchPlaces(file, query, flags.limit, read.newest);
		return {
			ok: true,
			profile: location.label,
			path: file,
			index: found.index,
			route: found.route,
			notes: found.notes,
			scan: found.scan,
			hits,
			places,
		};
	} catch (error) {
		// A store SQLite finds damaged is refused in the words of every read (store/open/open.ts).
		const refusal = asRefusal(sqliteFailure(file, error));
		if (!refusal) {
			throw error;
		}

		return {ok: false, profile: location.label, path: file, line: refusal.line(), kind: refusal.kind};
	}
}

export function exitCodeOf(stores: readonly StoreSearchReport[]): ExitCode {
	if (stores.some(s => !s.ok)) {
		return 2;
	}

	return stores.some(s => s.ok && (s.hits.length > 0 || s.places.hits.length > 0)) ? 0 : 1;
}

export async function runSearch(flags: SearchFlags, io: Io): Promise<ExitCode> {
	return guarded(io, flags, () => {
		// Text that cannot be searched is refused before any store is opened.
		const query = queryOf(flags.text);
		const located = locate(flags, io);
		const stores = located.stores.map(location => searchOne(location, flags, query));
		for (const s of stores) {
			if (!s.ok) {
				io.err(s.line);
			}
		}

		const code = exitCodeOf(stores);
		const report: SearchReport = {
			query: query.text,
			terms: query.terms,
			match: query.match,
			limit: flags.limit,
			stores,
		};
		emit(io, flags, {json: () => searchJson(report, code), text: () => searchText(report)});
		return code;
	});
}
