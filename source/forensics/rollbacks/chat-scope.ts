/**
 * The rows whose analysis decides the chat of a keyless gateway row of some sources: what `hfx
 * search` reads to label its hits (`keyless: orphan of KEY`) instead of the whole store. Pure.
 *
 * Why these rows are enough, term by term (the label is `orphanChats` of the analysis):
 * - repair-routing's donor for a keyless row is a keyed row of the row's own source (contiguity) or
 *   its parent of the same source (lineage), and a contested donor is contested by rows of that
 *   source; a parent of another source is refused as one missing would be (kept anyway, so the
 *   refusal reads the same);
 * - a rollback pairs a keyless row with keyed rows of its source (rollback-pairs.ts) and names the
 *   resumed row's own key;
 * - the whole scan fails on any row v25's repair-routing fails on (repair-routing-crash.ts): every
 *   row that may is kept;
 * - a keyless row of source 'unknown' pairs with keyed rows of every source and competes for them:
 *   then, and for sourceless rows, the answer is null (read everything).
 * test/forensics/rollbacks/chat-scope.test.ts checks the labels against the whole store's on random stores
 * with cross-source keys, lineage, routing entries and rollbacks.
 */
import {UNKNOWN_SOURCE} from './rollback-pairs.js';
import type {SessionRecord} from '../types.js';

/** What the scope is computed from: five columns of every row and whether repair-routing may fail on it. */
export type ScopeRow = Pick<SessionRecord, 'id' | 'source' | 'sessionKey' | 'parentSessionId' | 'userId'> & {
	mayFailScan: boolean;
};

/**
 * A row on which some generation's repair-routing may fail before listing anything (a superset of
 * repair-routing-crash.ts's rows): keyless, not a tool row, and a model_config that is not JSON or a
 * started_at that is a non-empty TEXT or BLOB. store/read/chat-scope-where.ts asks SQLite the same.
 */
export function mayFailScan(
	r: Pick<SessionRecord, 'sessionKey' | 'source' | 'modelConfigInvalid' | 'startedAtRaw'>,
): boolean {
	if (r.sessionKey !== null || r.source === 'tool') {
		return false;
	}

	const started = r.startedAtRaw;
	return (
		r.modelConfigInvalid ||
		(typeof started === 'string' && started !== '') ||
		(Buffer.isBuffer(started) && started.length > 0)
	);
}

/** The scope's view of a session record. */
export function scopeRow(s: SessionRecord): ScopeRow {
	return {
		id: s.id,
		source: s.source,
		sessionKey: s.sessionKey,
		parentSessionId: s.parentSessionId,
		userId: s.userId,
		mayFailScan: mayFailScan(s),
	};
}

/**
 * The ids of the rows that decide the chat of every keyless row whose source is in `sources`, or
 * null when only the whole store can (a source that is '' or 'unknown', or an 'unknown' or
 * sourceless row in the store: it may pair with a keyed row of any source).
 */
export function chatScope(rows: readonly ScopeRow[], sources: ReadonlySet<string>): Set<string> | null {
	if (
		sources.has('') ||
		sources.has(UNKNOWN_SOURCE) ||
		rows.some(r => r.source === UNKNOWN_SOURCE || r.source === '')
	) {
		return null;
	}

	const scope = new Set<string>();
	for (const r of rows) {
		if (sources.has(r.source) || r.mayFailScan) {
			scope.add(r.id);
			// The parent, so a refusal names it as the whole store does ("a slack row", not "not in this store").
			if (r.sessionKey === null && r.parentSessionId !== null) {
				scope.add(r.parentSessionId);
			}
		}
	}

	return scope;
}

/** repair-routing's and the rollback pairs' user test: either side has none, or both the same. */
function usersMayMatch(a: string | null, b: string | null): boolean {
	return !a || !b || a === b;
}

/**
 * The ids of the rows that decide the chat of the keyless rows `hits` (their ids), or null as
 * chatScope answers null for their sources. Narrower than chatScope: only what can change a hit's
 * own label (`orphanChats`, then chatOf), term by term:
 * - the hit itself, and the row its parent_session_id names (lineage: its key, source and fence);
 * - the keyed rows of the hit's source whose user may match the hit's (contiguity's candidates are
 *   filtered by compatibleUsers, a rollback pair by compatibleIdentity, which asks the same and more);
 * - every row repair-routing may fail on (the crash lists nothing).
 * Other orphans are left out: a contested donor refuses a verdict but keeps its session key, which
 * is what names the chat, and a rollback names the chat of every orphan of its group by the resumed
 * row's key alone (rollbacks.ts rollbackOf), whichever orphan is its primary. Any superset of these rows
 * labels the hits the same.
 */
export function hitScope(rows: readonly ScopeRow[], hits: ReadonlySet<string>): Set<string> | null {
	const hitRows = rows.filter(r => hits.has(r.id));
	if (chatScope(rows, new Set(hitRows.map(r => r.source))) === null) {
		return null;
	}

	const scope = new Set<string>();
	for (const h of hitRows) {
		scope.add(h.id);
		if (h.parentSessionId !== null) {
			scope.add(h.parentSessionId);
		}
	}

	for (const r of rows) {
		const donor =
			r.sessionKey !== null && hitRows.some(h => h.source === r.source && usersMayMatch(r.userId, h.userId));
		if (donor || r.mayFailScan) {
			scope.add(r.id);
		}
	}

	return scope;
}
