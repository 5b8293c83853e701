/**
 * One status per session, for lists: the words an operator scans a table for.
 */
import type {Analysis} from './analyze.js';
import type {SessionRecord} from '../types.js';

export type SessionStatus = 'resumed-stale' | 'stranded' | 'zombie' | 'orphan' | 'at-risk' | 'live' | 'ended';

export type StatusIndex = Map<string, SessionStatus>;

/**
 * zombie: the session a restart would resume for a chat whose newest message is elsewhere.
 * orphan: a keyless gateway row holding messages (repair-routing's target).
 * at-risk: a keyed session holding a chat's newest message that a restart would not resume.
 * After a rollback that already happened (analysis.rollbacks), above all of these:
 * resumed-stale: the keyed row a restart resumed, an older context the gateway has written into since.
 * stranded: the keyless row holding the conversation that restart skipped (Hermes' docs: "stranded
 * in a session row that lost its routing identity").
 */
export function statusIndex(
	analysis: Pick<Analysis, 'orphans' | 'routing'> & {rollbacks?: Analysis['rollbacks']},
): StatusIndex {
	const index: StatusIndex = new Map();
	for (const o of analysis.orphans) {
		index.set(o.orphanId, 'orphan');
	}

	for (const r of analysis.routing) {
		if (!r.rollbackRisk) {
			continue;
		}

		if (r.restartResolvesTo) {
			index.set(r.restartResolvesTo, 'zombie');
		}

		if (r.newestActivityIn && !index.has(r.newestActivityIn)) {
			index.set(r.newestActivityIn, 'at-risk');
		}
	}

	for (const r of analysis.rollbacks ?? []) {
		index.set(r.resumedId, 'resumed-stale');
		for (const id of [r.skipped.id, ...r.alsoSkipped.map(a => a.id)]) {
			index.set(id, 'stranded');
		}
	}

	return index;
}

export function statusOf(s: SessionRecord, index: StatusIndex): SessionStatus {
	return index.get(s.id) ?? (s.endedAtRaw === null ? 'live' : 'ended');
}

export const STATUS_GLYPH: Record<SessionStatus, string> = {
	'resumed-stale': 'R',
	stranded: 'S',
	zombie: 'Z',
	orphan: 'O',
	'at-risk': '!',
	live: '●',
	ended: '·',
};

/** Delegate/tool rows are hidden from listings by default, as Hermes hides them. */
export function isHiddenByDefault(s: SessionRecord): boolean {
	return s.source === 'tool' || Boolean(s.delegateFrom) || s.source === 'subagent';
}
