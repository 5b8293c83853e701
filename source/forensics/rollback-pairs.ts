/**
 * Which (orphan, keyed row) pairs could be a rollback that already happened, from the rows alone,
 * before any message is read (hermes-incidents.md §1.3, the primary signature, terms 1, 2 and 5,
 * plus "the keyed row was written after the orphan fell silent"). The store then reads each
 * pair's message timeline (store/restart-probes.ts) and rollbacks.ts decides. Pure.
 */
import {isOrphanCandidate} from './orphans.js';
import {inWindow} from './time.js';
import type {SessionRecord} from './types.js';

/** A pair to read, with both rows. */
export type RowPair = {orphan: SessionRecord; keyed: SessionRecord};

/** The lazy token-accounting writer creates gateway rows with this source (hermes-incidents.md §1.3). */
export const UNKNOWN_SOURCE = 'unknown';

/** A row Hermes' own orphan predicate lists, from a gateway source (not a local surface, not a tool row). */
export function isSkippedCandidate(s: SessionRecord, localSurfaces: ReadonlySet<string>): boolean {
	return isOrphanCandidate(s) && !localSurfaces.has(s.source) && s.newestMessageAt !== null;
}

/** Term 2: the same source, or the orphan was created by the accounting writer. */
export function sameSourceOrUnknown(orphan: SessionRecord, keyed: SessionRecord): boolean {
	return keyed.source === orphan.source || orphan.source === UNKNOWN_SOURCE;
}

/** Term 5: the same user (or one side has none) and the same profile (or one side has none). */
export function compatibleIdentity(orphan: SessionRecord, keyed: SessionRecord): boolean {
	const users = !orphan.userId || !keyed.userId || orphan.userId === keyed.userId;
	const profiles = !orphan.profileName || !keyed.profileName || orphan.profileName === keyed.profileName;
	return users && profiles;
}

/** The keyed row started before the orphan and has a message newer than the orphan's newest. */
function writtenAround(orphan: SessionRecord, keyed: SessionRecord): boolean {
	const keyedStart = inWindow(keyed.startedAtRaw);
	const orphanStart = inWindow(orphan.startedAtRaw);
	const beforeOrphan = keyedStart === null || orphanStart === null || keyedStart <= orphanStart;
	return beforeOrphan && keyed.newestMessageAt !== null && orphan.newestMessageAt !== null && keyed.newestMessageAt > orphan.newestMessageAt;
}

/**
 * Every pair worth reading: each keyless gateway row with messages against each keyed row of its
 * source and user that was written after it fell silent. Keyed rows are grouped by source once, so
 * a store with thousands of chats and no orphan costs one pass.
 */
export function rollbackProbePairs(sessions: readonly SessionRecord[], localSurfaces: ReadonlySet<string>): RowPair[] {
	const orphans = sessions.filter(s => isSkippedCandidate(s, localSurfaces));
	if (orphans.length === 0) {
		return [];
	}

	const keyedBySource = new Map<string, SessionRecord[]>();
	for (const s of sessions) {
		if (s.sessionKey !== null && s.newestMessageAt !== null) {
			const list = keyedBySource.get(s.source) ?? [];
			list.push(s);
			keyedBySource.set(s.source, list);
		}
	}

	const pairs: RowPair[] = [];
	for (const o of orphans) {
		const keyed = o.source === UNKNOWN_SOURCE ? [...keyedBySource.values()].flat() : (keyedBySource.get(o.source) ?? []);
		for (const k of keyed) {
			if (k.id !== o.id && sameSourceOrUnknown(o, k) && compatibleIdentity(o, k) && writtenAround(o, k)) {
				pairs.push({orphan: o, keyed: k});
			}
		}
	}

	return pairs;
}
