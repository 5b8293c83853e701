/**
 * The Sessions pane during a content search: the rows of the hits, in the search's order, each
 * once, with its chat ("keyless: orphan" for the row a restart skipped), its status and its first
 * hit's snippet, each read from the analysis of the store holding it (on a root with profiles,
 * its profile's: the row names it). A hit whose row that analysis does not hold (written since)
 * is left out.
 */
import type {Analysis} from '../../forensics/analysis/analyze.js';
import {chatOf, orphanChats} from '../../forensics/search/search-hits.js';
import type {SessionStatus} from '../../forensics/analysis/status.js';
import {lastActive} from '../../forensics/time.js';
import type {HomeView} from '../sources/home-model.js';
import type {ContentResult} from '../state.js';
import {type SessionRow, statusFor} from '../views.js';

export type ContentRow = SessionRow & {
	chat: string;
	snippet: string;
	hits: number;
	status: SessionStatus;
	profile?: string;
};

/** Where the hits' rows are read: the one store's analysis, or every profile's (by the hit's profile). */
export type ContentStores = {analysis: Analysis; home?: HomeView | null};

const cache = new WeakMap<object, WeakMap<ContentResult, ContentRow[]>>();

/** A row's identity in the list: its profile and its id (two profiles' stores may hold the same id). */
export function contentRowId(r: ContentRow): string {
	return r.profile === undefined ? r.session.id : `${r.profile}\u0000${r.session.id}`;
}

function analysisOf(stores: ContentStores, profile: string | undefined): Analysis | undefined {
	return profile === undefined || !stores.home
		? stores.analysis
		: stores.home.profiles.find(p => p.name === profile)?.model.analysis;
}

export function contentRows(stores: ContentStores, result: ContentResult): ContentRow[] {
	const key = stores.home ?? stores.analysis;
	let perResult = cache.get(key);
	const hit = perResult?.get(result);
	if (hit) {
		return hit;
	}

	const orphans = new Map<Analysis, Map<string, string | null>>();
	const byRow = new Map<string, ContentRow>();
	for (const h of result.hits) {
		const analysis = analysisOf(stores, h.profile);
		const id = h.profile === undefined ? h.sessionId : `${h.profile}\u0000${h.sessionId}`;
		const known = byRow.get(id);
		const session = analysis?.byId.get(h.sessionId);
		if (known) {
			known.hits++;
		} else if (analysis && session) {
			const chats = orphans.get(analysis) ?? orphanChats(analysis);
			orphans.set(analysis, chats);
			const profile = h.profile === undefined ? {} : {profile: h.profile};
			byRow.set(id, {
				session,
				lastActive: lastActive(session),
				chat: chatOf(session, chats).label,
				snippet: h.snippet,
				hits: 1,
				status: statusFor(analysis, session),
				...profile,
			});
		}
	}

	const rows = [...byRow.values()];
	perResult ??= new WeakMap();
	perResult.set(result, rows);
	cache.set(key, perResult);
	return rows;
}
