/**
 * The Sessions pane during a content search: the rows of the hits, in the search's order, each
 * once, with its chat ("keyless: orphan" for the row a restart skipped) and its first hit's
 * snippet. A hit whose row the live analysis does not hold (written since) is left out.
 */
import type {Analysis} from '../forensics/analyze.js';
import {chatOf, orphanChats} from '../forensics/search-hits.js';
import {lastActive} from '../forensics/time.js';
import type {ContentResult} from './state.js';
import type {SessionRow} from './views.js';

export type ContentRow = SessionRow & {chat: string; snippet: string; hits: number};

const cache = new WeakMap<Analysis, WeakMap<ContentResult, ContentRow[]>>();

export function contentRows(analysis: Analysis, result: ContentResult): ContentRow[] {
	let perResult = cache.get(analysis);
	const hit = perResult?.get(result);
	if (hit) {
		return hit;
	}

	const orphans = orphanChats(analysis);
	const byRow = new Map<string, ContentRow>();
	for (const h of result.hits) {
		const known = byRow.get(h.sessionId);
		const session = analysis.byId.get(h.sessionId);
		if (known) {
			known.hits++;
		} else if (session) {
			byRow.set(h.sessionId, {session, lastActive: lastActive(session), chat: chatOf(session, orphans).label, snippet: h.snippet, hits: 1});
		}
	}

	const rows = [...byRow.values()];
	perResult ??= new WeakMap();
	perResult.set(result, rows);
	cache.set(analysis, perResult);
	return rows;
}
