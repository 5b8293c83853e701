/**
 * The TUI's content search (`/`, then Tab): the stores the screen follows (on a root with
 * profiles, every profile's, as `hfx search` does; the focused one's hits first), each searched
 * read-only as `hfx search` does (store/search/search.ts) on a connection of its own, opened and closed
 * here, between the followers' reads. Never throws: a store's refusal is one note, naming its
 * profile, and the other stores are still searched.
 */
import {asRefusal} from '../../ground/errors.js';
import {type SearchQuery, parseSearchQuery} from '../../forensics/search/search-query.js';
import {snippetText} from '../../report/sessions/search.js';
import {readStore} from '../../store/open/immutable-read.js';
import {detectSchema} from '../../store/open/schema.js';
import {searchStore} from '../../store/search/search.js';
import type {ContentHit, ContentResult} from '../state.js';

/** Hits listed at most per store (rows of the Sessions pane). */
export const CONTENT_HITS = 200;

/** A store to search: its path, and its profile on a root with profiles (null for a lone store). */
export type SearchedStore = {profile: string | null; path: string};

function searchOne(store: SearchedStore, query: SearchQuery): {hits: ContentHit[]; notes: string[]} {
	const said = (note: string) => (store.profile === null ? note : `[${store.profile}] ${note}`);
	try {
		// A stopped store is read in place as an immutable file, never copied (store/open/immutable-read.ts).
		const found = readStore(store.path, opened => searchStore(opened, detectSchema(opened), query, CONTENT_HITS));
		const profile = store.profile === null ? {} : {profile: store.profile};
		return {
			hits: found.hits.map(h => ({
				sessionId: h.sessionId,
				messageId: h.messageId,
				snippet: snippetText(h.snippet),
				...profile,
			})),
			notes: found.notes.map(said),
		};
	} catch (error) {
		const refusal = asRefusal(error);
		if (!refusal) {
			throw error;
		}

		return {hits: [], notes: [said(refusal.line())]};
	}
}

export function searchContent(stores: readonly SearchedStore[], text: string): ContentResult {
	const query = parseSearchQuery(text.slice(0, 1000));
	if (query === null) {
		return {text, hits: [], notes: ['nothing to search: type some words']};
	}

	const found = stores.map(s => searchOne(s, query));
	return {
		text: query.text,
		hits: found.flatMap(f => f.hits),
		notes: found.flatMap(f => f.notes),
		profiles: stores.length,
	};
}
