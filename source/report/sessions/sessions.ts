/**
 * What `hfx sessions` prints: the session table, newest activity first, with the status legend;
 * and the --json document, one object per session.
 */
import type {Analysis} from '../../forensics/analysis/analyze.js';
import {STATUS_GLYPH, statusOf, type StatusIndex} from '../../forensics/analysis/status.js';
import {inWindow, lastActive} from '../../forensics/time.js';
import type {SessionRecord} from '../../forensics/types.js';
import type {DatabaseFacts} from '../../store/read/load.js';
import {table, utc} from '../../text/format.js';

export function sessionJson(s: SessionRecord, analysis: Analysis, index: StatusIndex) {
	const edge = analysis.lineage.parentEdge.get(s.id);
	return {
		id: s.id,
		status: statusOf(s, index),
		source: s.source,
		title: s.title,
		sessionKey: s.sessionKey,
		chatId: s.chatId,
		chatType: s.chatType,
		threadId: s.threadId,
		userId: s.userId,
		displayName: s.displayName,
		profileName: s.profileName,
		parentSessionId: edge?.parentId ?? s.parentSessionId,
		lineageKind: edge?.kind ?? null,
		startedAt: inWindow(s.startedAtRaw),
		endedAt: inWindow(s.endedAtRaw),
		endReason: s.endReason,
		lastActive: lastActive(s),
		newestMessageAt: s.newestMessageAt,
		messageCount: s.messageRows ?? s.messageCountColumn,
		toolCallCount: s.toolCallCount,
		model: s.model,
		tokens: {
			input: s.inputTokens,
			output: s.outputTokens,
			cacheRead: s.cacheReadTokens,
			cacheWrite: s.cacheWriteTokens,
			reasoning: s.reasoningTokens,
		},
	};
}

/** `hfx sessions --json`: the store, how many sessions were selected, and the rows shown. */
export function sessionsJson(
	facts: DatabaseFacts,
	total: number,
	rows: readonly SessionRecord[],
	analysis: Analysis,
	index: StatusIndex,
) {
	return {
		database: facts.path,
		owner: facts.owner,
		ownerSource: facts.ownerSource,
		ruleSet: facts.ruleSet,
		total,
		sessions: rows.map(s => sessionJson(s, analysis, index)),
	};
}

export function sessionLines(
	rows: readonly SessionRecord[],
	total: number,
	analysis: Analysis,
	index: StatusIndex,
	limit: number,
): string[] {
	const lines = table(rows, [
		{header: ' ', value: s => STATUS_GLYPH[statusOf(s, index)]},
		{header: 'id', value: s => s.id},
		{header: 'source', value: s => s.source, max: 10},
		{header: 'chat', value: s => s.sessionKey ?? (s.chatId ? `${s.chatType ?? '?'}:${s.chatId}` : '—'), max: 34},
		{header: 'title', value: s => s.title ?? '', max: 24},
		{header: 'started', value: s => utc(inWindow(s.startedAtRaw))},
		{header: 'last active', value: s => utc(lastActive(s))},
		{header: 'msgs', value: s => String(s.messageRows ?? s.messageCountColumn), align: 'right'},
		{header: 'end reason', value: s => s.endReason ?? '', max: 20},
	]);
	const hidden = analysis.snapshot.sessions.length - total;
	return [
		...lines,
		'',
		`${rows.length} of ${total} sessions ` +
			`shown${hidden > 0 ? ` (${hidden} tool/delegate rows hidden: --all)` : ''}` +
			`${rows.length < total ? ` (--limit ${limit}; --limit 0 for all)` : ''}. ` +
			`Status: Z zombie  O orphan  ! newest activity a restart would skip  R ` +
			`resumed stale (a restart resumed it: rolled back)  S stranded (the ` +
			`conversation that restart skipped)  ● live  · ended`,
	];
}
