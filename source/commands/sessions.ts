/**
 * `hfx sessions`: the session table, newest activity first.
 */
import type {Analysis} from '../forensics/analyze.js';
import {STATUS_GLYPH, isHiddenByDefault, statusIndex, statusOf, type StatusIndex} from '../forensics/status.js';
import {inWindow, lastActive} from '../forensics/time.js';
import type {SessionRecord} from '../forensics/types.js';
import type {ExitCode} from '../errors.js';
import {type GlobalFlags, type Io, emit, guarded, loadOne} from './context.js';
import {table, utc} from '../text/format.js';

export type SessionsFlags = GlobalFlags & {source?: string; limit: number; all: boolean};

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

/** Newest activity first; sessions without a usable time last. */
export function byNewestActivity(a: SessionRecord, b: SessionRecord): number {
	return (lastActive(b) ?? -1) - (lastActive(a) ?? -1) || (a.id < b.id ? 1 : -1);
}

export function selectSessions(analysis: Analysis, options: {source?: string; all: boolean}): SessionRecord[] {
	return analysis.snapshot.sessions
		.filter(s => options.all || !isHiddenByDefault(s))
		.filter(s => !options.source || s.source === options.source)
		.sort(byNewestActivity);
}

export async function runSessions(flags: SessionsFlags, io: Io): Promise<ExitCode> {
	return guarded(io, flags, () => {
		const {result} = loadOne(flags, io);
		const {analysis} = result;
		const index = statusIndex(analysis);
		const all = selectSessions(analysis, flags);
		const rows = flags.limit > 0 ? all.slice(0, flags.limit) : all;
		emit(io, flags, {
			json: () => ({
				database: result.facts.path,
				owner: result.facts.owner,
				ownerSource: result.facts.ownerSource,
				ruleSet: result.facts.ruleSet,
				total: all.length,
				sessions: rows.map(s => sessionJson(s, analysis, index)),
			}),
			text: () => sessionLines(rows, all.length, analysis, index, flags.limit),
		});
		return 0;
	});
}

function sessionLines(
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
