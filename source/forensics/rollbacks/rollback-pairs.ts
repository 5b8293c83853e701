/**
 * Which (orphan, keyed row) pairs could be a rollback that already happened, from the rows alone,
 * before any message is read (hermes-incidents.md §1.3, the primary signature, terms 1, 2 and 5,
 * plus "the keyed row was written after the orphan fell silent"). The store then reads each
 * pair's message timeline (store/read/restart-probes.ts) and rollbacks.ts decides. Pure.
 */
import {RECOVERABLE_END_REASONS} from '../end-reasons.js';
import {isOrphanCandidate} from '../routing/orphans.js';
import {buildKeyIndex} from '../routing/routing.js';
import {inWindow} from '../time.js';
import type {SessionRecord} from '../types.js';

/**
 * A pair to read, with both rows: `orphan` is the row that may have been skipped (keyless, or a passed-over keyed
 * sibling).
 */
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
export function writtenAround(orphan: SessionRecord, keyed: SessionRecord): boolean {
	const keyedStart = inWindow(keyed.startedAtRaw);
	const orphanStart = inWindow(orphan.startedAtRaw);
	const beforeOrphan = keyedStart === null || orphanStart === null || keyedStart <= orphanStart;
	return (
		beforeOrphan &&
		keyed.newestMessageAt !== null &&
		orphan.newestMessageAt !== null &&
		keyed.newestMessageAt > orphan.newestMessageAt
	);
}

/**
 * The secondary signature (§1.3): a newer keyed row of the same session key, live or ended with a
 * reason restart recovery reopens, that the restart passed over for an older one.
 */
export function passedOver(newer: SessionRecord, older: SessionRecord): boolean {
	const open = newer.endReason === null || RECOVERABLE_END_REASONS.has(newer.endReason);
	// No start order: the legacy finder's bug resumes a row that started later but fell quiet earlier.
	// But the resumed row must have been there before the sibling fell quiet (a message before it):
	// one that started after it is a later conversation, not a jump back (and not worth reading).
	const writtenAfter =
		older.newestMessageAt !== null && newer.newestMessageAt !== null && older.newestMessageAt > newer.newestMessageAt;
	const olderStart = inWindow(older.startedAtRaw);
	const thereBefore = olderStart === null || newer.newestMessageAt === null || olderStart < newer.newestMessageAt;
	return open && newer.sessionKey === older.sessionKey && newer.id !== older.id && writtenAfter && thereBefore;
}

/** Pairs of keyed rows of one session key: each newer, open row against each older row written after it. */
function siblingPairs(sessions: readonly SessionRecord[]): RowPair[] {
	const byKey = buildKeyIndex(sessions);
	const pairs: RowPair[] = [];
	for (const [key, rows] of byKey) {
		if (key === '') {
			// The empty key is no chat: Hermes' finder returns nothing for it, so no restart resumes such a row.
			continue;
		}

		// Few rows of a key are open (one live row, as a rule): a chat of 10,000 rows stays linear.
		const open =
			rows.length > 1 ? rows.filter(s => s.endReason === null || RECOVERABLE_END_REASONS.has(s.endReason)) : [];
		for (const newer of open) {
			pairs.push(...rows.filter(older => passedOver(newer, older)).map(older => ({orphan: newer, keyed: older})));
		}
	}

	return pairs;
}

/**
 * Every pair worth reading: each keyless gateway row with messages against each keyed row of its
 * source and user that was written after it fell silent, and each passed-over keyed sibling.
 * Keyed rows are grouped once, so a store with thousands of chats costs two passes.
 */
export function rollbackProbePairs(sessions: readonly SessionRecord[], localSurfaces: ReadonlySet<string>): RowPair[] {
	const orphans = sessions.filter(s => isSkippedCandidate(s, localSurfaces));
	const keyedBySource = new Map<string, SessionRecord[]>();
	for (const s of sessions) {
		// A row keyed '' is no chat's: no restart resumes it (its finder returns nothing for the empty key).
		if (s.sessionKey !== null && s.sessionKey !== '' && s.newestMessageAt !== null) {
			const list = keyedBySource.get(s.source) ?? [];
			list.push(s);
			keyedBySource.set(s.source, list);
		}
	}

	const pairs: RowPair[] = siblingPairs(sessions);
	for (const o of orphans) {
		const keyed =
			o.source === UNKNOWN_SOURCE ? [...keyedBySource.values()].flat() : (keyedBySource.get(o.source) ?? []);
		for (const k of keyed) {
			if (k.id !== o.id && sameSourceOrUnknown(o, k) && compatibleIdentity(o, k) && writtenAround(o, k)) {
				pairs.push({orphan: o, keyed: k});
			}
		}
	}

	return pairs;
}
