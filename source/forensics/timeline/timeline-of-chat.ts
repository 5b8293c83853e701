/**
 * From an analysis to one chat's timeline, in the two steps between which the store reads the
 * rows' messages: which chat a name (a session key, or a session id or suffix of one of its rows)
 * means and which rows it has; then the timeline of those rows. Pure.
 */
import type {Analysis} from '../analysis/analyze.js';
import {type ChatRow, chatOfSession, chatRows} from './chat-rows.js';
import {resolutionProblem, resolveChat, resolveSessionId} from '../resolve.js';
import {buildTimeline, spanGapFor} from './timeline.js';
import type {MessageSpan, TimedLogLine, Timeline} from './timeline-types.js';

export type TimelineAnalysis = Pick<Analysis, 'byId' | 'lineage' | 'rollbacks' | 'orphans' | 'routing'> & {
	snapshot: Pick<Analysis['snapshot'], 'sessions' | 'routing' | 'routingScope' | 'legacyRouting'>;
};

export type ChatName =
	| {ok: true; sessionKey: string; rows: ChatRow[]; spanGapSeconds: number}
	| {ok: false; reason: string; next: string};

/** The chats' keys: every routed chat and every key a row carries. */
function keysOf(a: TimelineAnalysis): string[] {
	return a.routing.map(c => c.sessionKey);
}

/** The chat a name means, and its rows; or why it means none. */
export function chatNamed(a: TimelineAnalysis, name: string): ChatName {
	const chat = resolveChat(keysOf(a), name);
	let key: string | null = chat.ok ? chat.key : null;
	if (key === null) {
		const session = resolveSessionId(a.byId.keys(), name);
		if (!session.ok) {
			const suggestion = chat.ok ? null : chat.suggestion;
			return session.problem === 'ambiguous'
				? {ok: false, reason: resolutionProblem(session), next: 'give more of the id'}
				: {
						ok: false,
						reason: `no chat or session ${JSON.stringify(name)}`,
						next: suggestion ? `did you mean: hfx timeline ${suggestion}` : 'list the chats with: hfx routing',
					};
		}

		key = chatOfSession(session.id, {
			byId: a.byId,
			lineage: a.lineage,
			rollbacks: a.rollbacks,
			orphans: a.orphans,
			routing: a.routing,
		});
		if (key === null) {
			return {
				ok: false,
				reason:
					`session ${session.id} belongs to no chat: it has no session key, and no ` +
					`rollback, adoption or lineage ties it to one`,
				next: `see where it came from with: hfx lineage ${session.id}`,
			};
		}
	}

	const rows = chatRows({
		sessionKey: key,
		chat: a.routing.find(c => c.sessionKey === key),
		sessions: a.snapshot.sessions,
		byId: a.byId,
		lineage: a.lineage,
		rollbacks: a.rollbacks,
		orphans: a.orphans,
	});
	return {ok: true, sessionKey: key, rows, spanGapSeconds: spanGapFor(a.rollbacks.filter(r => r.sessionKey === key))};
}

/** The timeline of a chat named by chatNamed, once the store read its rows' spans and the logs. */
export function timelineOfChat(
	a: TimelineAnalysis,
	named: Extract<ChatName, {ok: true}>,
	spans: readonly MessageSpan[],
	logs: readonly TimedLogLine[],
	now: number,
): Timeline {
	return buildTimeline({
		sessionKey: named.sessionKey,
		rows: named.rows,
		byId: a.byId,
		lineage: a.lineage,
		spans,
		spanGapSeconds: named.spanGapSeconds,
		rollbacks: a.rollbacks,
		chat: a.routing.find(c => c.sessionKey === named.sessionKey),
		routing: a.snapshot.routing,
		routingScope: a.snapshot.routingScope,
		legacyRouting: a.snapshot.legacyRouting,
		logs,
		now,
	});
}
