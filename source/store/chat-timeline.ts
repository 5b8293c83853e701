/**
 * The messages of a chat's rows as spans (hfx timeline): one statement for every row at once, a
 * window over `idx_messages_session(session_id, timestamp)` that starts a new span wherever a row's
 * messages fall silent longer than the gap, grouped to (row, span) → first, last, count. Reads
 * only the index (session_id and timestamp are both in it); one read transaction.
 */
import {EPOCH_MAX, EPOCH_MIN} from '../forensics/time.js';
import type {MessageSpan} from '../forensics/timeline-types.js';
import type {ReadOnlyStore} from './open.js';
import type {SchemaInfo} from './schema.js';

const SPANS = `
WITH m AS (
	SELECT session_id, timestamp,
		CASE WHEN timestamp - lag(timestamp) OVER (PARTITION BY session_id ORDER BY timestamp) > @gap THEN 1 ELSE 0 END AS brk
	FROM messages
	WHERE session_id IN (SELECT value FROM json_each(@ids)) AND timestamp >= ${EPOCH_MIN} AND timestamp <= ${EPOCH_MAX}
), g AS (
	SELECT session_id, timestamp, sum(brk) OVER (PARTITION BY session_id ORDER BY timestamp ROWS UNBOUNDED PRECEDING) AS span FROM m
)
SELECT session_id, min(timestamp), max(timestamp), count(*) FROM g GROUP BY session_id, span`;

/** Every span of the rows' messages (no order promised); [] where messages has no timestamp column. */
export function readMessageSpans(store: ReadOnlyStore, schema: Pick<SchemaInfo, 'messageColumns'>, sessionIds: readonly string[], gapSeconds: number): MessageSpan[] {
	if (sessionIds.length === 0 || !schema.messageColumns.has('timestamp')) {
		return [];
	}

	return store.read(() => {
		const rows = store.prepare(SPANS).raw(true).all({ids: JSON.stringify(sessionIds), gap: gapSeconds}) as Array<[string, number, number, number]>;
		return rows.map(([sessionId, firstAt, lastAt, messages]) => ({sessionId: String(sessionId), firstAt: Number(firstAt), lastAt: Number(lastAt), messages: Number(messages)}));
	});
}
