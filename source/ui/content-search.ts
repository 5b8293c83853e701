/**
 * The TUI's content search (`/`, then Tab): the store the screen follows, searched read-only as
 * `hfx search` does (store/search.ts) on a connection of its own, opened and closed here, between
 * the follower's reads. Never throws: a refusal is the result's one note.
 */
import {asRefusal} from '../errors.js';
import {parseSearchQuery} from '../forensics/search-query.js';
import {snippetText} from '../report/search.js';
import {ReadOnlyStore} from '../store/open.js';
import {detectSchema} from '../store/schema.js';
import {searchStore} from '../store/search.js';
import type {ContentResult} from './state.js';

/** Hits listed at most (rows of the Sessions pane). */
export const CONTENT_HITS = 200;

export function searchContent(dbPath: string, text: string): ContentResult {
	const query = parseSearchQuery(text.slice(0, 1000));
	if (query === null) {
		return {text, hits: [], notes: ['nothing to search: type some words']};
	}

	try {
		const store = ReadOnlyStore.open(dbPath);
		try {
			const found = searchStore(store, detectSchema(store), query, CONTENT_HITS);
			return {text: query.text, hits: found.hits.map(h => ({sessionId: h.sessionId, messageId: h.messageId, snippet: snippetText(h.snippet)})), notes: found.notes};
		} finally {
			store.close();
		}
	} catch (error) {
		const refusal = asRefusal(error);
		if (!refusal) {
			throw error;
		}

		return {text, hits: [], notes: [refusal.line()]};
	}
}
