/**
 * One status per session, for lists: the words an operator scans a table for.
 */
import type {Analysis} from './analyze.js';
import type {SessionRecord} from './types.js';

export type SessionStatus = 'zombie' | 'orphan' | 'at-risk' | 'live' | 'ended';

export type StatusIndex = Map<string, SessionStatus>;

/**
 * zombie: the session a restart would resume for a chat whose newest message is elsewhere.
 * orphan: a keyless gateway row holding messages (repair-routing's target).
 * at-risk: a keyed session holding a chat's newest message that a restart would not resume.
 */
export function statusIndex(analysis: Pick<Analysis, 'orphans' | 'routing'>): StatusIndex {
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

	return index;
}

export function statusOf(s: SessionRecord, index: StatusIndex): SessionStatus {
	return index.get(s.id) ?? (s.endedAtRaw === null ? 'live' : 'ended');
}

export const STATUS_GLYPH: Record<SessionStatus, string> = {
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
