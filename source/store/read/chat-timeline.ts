/**
 * The messages of a chat's rows as spans (hfx timeline), in two statements over every row at once,
 * both reading only `idx_messages_session(session_id, timestamp)`: a GROUP BY gives each row's
 * first, last and count; only the rows whose first and last lie further apart than the gap can hold
 * a silence, and for those a window starts a new span wherever the messages fall silent longer than
 * the gap, grouped to (row, span) → first, last, count. One read transaction.
 */
import {EPOCH_MAX, EPOCH_MIN} from '../../forensics/time.js';
import type {MessageSpan} from '../../forensics/timeline/timeline-types.js';
import type {ReadOnlyStore} from '../open/open.js';
import type {SchemaInfo} from '../open/schema.js';

const WINDOW = `timestamp >= ${EPOCH_MIN} AND timestamp <= ${EPOCH_MAX}`;

/** Each row's first and last message and count. */
export const WHOLE_SQL =
	`SELECT session_id, min(timestamp), max(timestamp), count(*) FROM ` +
	`messages WHERE session_id IN (SELECT value FROM json_each(@ids)) ` +
	`AND ${WINDOW} GROUP BY session_id`;

/** Each (row, span) of the rows asked about, a span ending at a silence longer than @gap. */
export const SPANS_SQL =
	`
WITH m AS (
	SELECT session_id, timestamp,
		CASE WHEN timestamp - lag(timestamp) OVER (PARTITION BY session_id ORDER BY timestamp) > @gap THEN ` +
	`1 ELSE 0 END AS brk
	FROM messages
	WHERE session_id IN (SELECT value FROM json_each(@ids)) AND ${WINDOW}
), g AS (
	SELECT session_id, timestamp, sum(brk) OVER (PARTITION BY session_id ORDER BY timestamp ROWS ` +
	`UNBOUNDED PRECEDING) AS span FROM m
)
SELECT session_id, min(timestamp), max(timestamp), count(*) FROM g GROUP BY session_id, span`;

/** Every span of the rows' messages (no order promised); [] where messages has no timestamp column. */
export function readMessageSpans(
	store: ReadOnlyStore,
	schema: Pick<SchemaInfo, 'messageColumns'>,
	sessionIds: readonly string[],
	gapSeconds: number,
): MessageSpan[] {
	if (sessionIds.length === 0 || !schema.messageColumns.has('timestamp')) {
		return [];
	}

	return store.read(() => {
		const spans = (ids: readonly string[], sql: string, gap?: number) =>
			(
				store
					.prepare(sql)
					.raw(true)
					.all({ids: JSON.stringify(ids), ...(gap === undefined ? {} : {gap})}) as Array<
					[string, number, number, number]
				>
			).map(([sessionId, firstAt, lastAt, messages]) => ({
				sessionId: String(sessionId),
				firstAt: Number(firstAt),
				lastAt: Number(lastAt),
				messages: Number(messages),
			}));
		const whole = spans(sessionIds, WHOLE_SQL);
		const split = new Set(whole.filter(w => w.lastAt - w.firstAt > gapSeconds).map(w => w.sessionId));
		return split.size === 0
			? whole
			: [...whole.filter(w => !split.has(w.sessionId)), ...spans([...split], SPANS_SQL, gapSeconds)];
	});
}
