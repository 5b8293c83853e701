/**
 * The analysis beyond state.db's own verdicts: the places beside the store judged
 * (place-verdicts.ts), each chat's newest message elsewhere (newest-elsewhere.ts), and the
 * findings of both and of the §4 session signatures (place-findings.ts, session-signatures.ts).
 */
import type {Finding} from '../finding.js';
import type {Lineage} from '../lineage/lineage.js';
import {type ChatElsewhere, newestElsewhere} from './newest-elsewhere.js';
import {placeFindings} from './place-findings.js';
import {type PlaceVerdicts, judgePlaces} from './place-verdicts.js';
import type {ChatRouting} from '../routing/routing.js';
import {signatureFindings} from '../signatures/session-signatures.js';
import type {SessionRecord, Snapshot} from '../types.js';

export type Elsewhere = {
	/** The places beside the store, judged; null when the store read none (a copy, an archive). */
	places: PlaceVerdicts | null;
	/** Per chat with turns outside state.db: how many, and which file holds the newest. */
	newestElsewhere: ChatElsewhere[];
	findings: Finding[];
};

/** The kinds that make a scan exit 1 (the phantom row is information: no routing harm). */
export const ELSEWHERE_ACTION_KINDS: ReadonlySet<Finding['kind']> = new Set([
	'write-halt',
	'unreplayed-turns',
	'keyed-null-chat-id',
	'stale-explicit-close',
	'foreign-profile-chats',
]);

export function elsewhereOf(
	snapshot: Pick<Snapshot, 'sessions' | 'routing' | 'owner' | 'places'>,
	context: {byId: ReadonlyMap<string, SessionRecord>; lineage: Lineage; routing: readonly ChatRouting[]},
	/** The §4 signature findings when the caller has them (an incremental analysis reuses the last ones). */
	known?: readonly Finding[],
): Elsewhere {
	const places = snapshot.places ? judgePlaces(snapshot.places, context.byId) : null;
	const chats = places ? newestElsewhere(context.routing, places.elsewhere) : [];
	const signatures =
		known ??
		signatureFindings(snapshot.sessions, {
			byId: context.byId,
			lineage: context.lineage,
			routing: snapshot.routing,
			owner: snapshot.owner,
		});
	return {places, newestElsewhere: chats, findings: [...(places ? placeFindings(places, chats) : []), ...signatures]};
}
