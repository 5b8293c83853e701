/**
 * Detail: the selected session in the shape of Hermes' own session card, then its latest
 * messages (scrollable, role-coloured).
 */
import type React from 'react';
import {Box} from 'ink';
import {Text} from '../components/text.js';
import {inWindow, lastActive} from '../../forensics/time.js';
import {statusIndex, statusOf} from '../../forensics/analysis/status.js';
import {duration} from '../../forensics/duration.js';
import {rollbackAdoptCommand, utcMinute} from '../../forensics/rollbacks/rollback-finding.js';
import {ago, count, utc} from '../../text/format.js';
import type {MessageRow, SessionDetail} from '../../store/read/detail.js';
import {detailWraps, fitLines} from '../components/fitted-lines.js';
import {List} from '../components/list.js';
import {useTheme, type Theme} from '../theme.js';
import {FOLLOW} from '../state.js';
import type {PaneContext, PaneSpec} from './types.js';

function roleColor(theme: Theme, role: string): string | undefined {
	return role === 'user'
		? theme.user
		: role === 'assistant'
			? theme.assistant
			: role === 'tool'
				? theme.tool
				: theme.muted;
}

function messageLine(m: MessageRow): string {
	const time = m.timestamp === null ? '--:--' : new Date(m.timestamp * 1000).toISOString().slice(11, 16);
	const who = m.role === 'tool' && m.toolName ? `tool ${m.toolName}` : m.role;
	return `${time} ${who.padEnd(9).slice(0, 9)} ${m.inactive ? '(compacted) ' : ''}${m.text.replaceAll(/\s+/g, ' ')}`;
}

/**
 * What a rollback that already happened made of this row: the one a restart resumed, or the one holding what it
 * skipped.
 */
function rollbackLine(a: PaneContext['model']['analysis'], id: string): string | null {
	for (const r of a.rollbacks) {
		if (r.resumedId === id) {
			return (
				`RESUMED STALE: a restart resumed this row of ${r.sessionKey} ` +
				`at ${utcMinute(r.resumedAt)}, ${duration(r.resumedAt - r.jumpedFrom)} ` +
				`after its last message; the conversation it skipped is ` +
				`in ${r.skipped.id} (${r.skipped.messages} messages)`
			);
		}

		if (r.skipped.id === id) {
			return (
				`STRANDED: the conversation of ${r.sessionKey} a restart skipped ` +
				`at ${utcMinute(r.resumedAt)} (${r.certainty}); preview its adoption ` +
				`with: ${rollbackAdoptCommand(r)}`
			);
		}

		if (r.alsoSkipped.some(s => s.id === id)) {
			return (
				`STRANDED: an older branch of the conversation of ${r.sessionKey} a ` +
				`restart skipped at ${utcMinute(r.resumedAt)}; its newest part is ` +
				`in ${r.skipped.id}`
			);
		}
	}

	return null;
}

/** Where a branch left its parent, when the card knows it. */
function branchedAt(detail: SessionDetail | null): string {
	const turn = detail?.branchedAtTurn;
	return turn === null || turn === undefined ? '' : `, branched at turn ${turn}`;
}

/** The session's parent (and where a branch left it) and its children. */
function lineageLine(a: PaneContext['model']['analysis'], id: string, detail: SessionDetail | null): string {
	const edge = a.lineage.parentEdge.get(id);
	const children = a.lineage.children.get(id) ?? [];
	const parent = edge
		? `parent ${edge.parentId} (${edge.kind}${branchedAt(detail)}${edge.parentMissing ? ', not in store' : ''})`
		: 'no parent';
	const childList = children.map(c => `${c.childId} (${c.kind})`).join(', ');
	return `lineage ${parent} · ${children.length === 0 ? 'no children' : `children ${childList}`}`;
}

function cardLines(ctx: PaneContext, id: string): Array<{text: string; color?: string}> {
	const a = ctx.model.analysis;
	const s = a.byId.get(id);
	if (!s) {
		return [{text: `${id}: not in this store`}];
	}

	const status = statusOf(s, statusIndex(a));
	const detail = ctx.detail(id);
	const orphan = a.orphans.find(o => o.orphanId === id);
	const chat = s.sessionKey ? a.routing.find(r => r.sessionKey === s.sessionKey) : undefined;
	const lines: Array<{text: string; color?: string}> = [];
	lines.push({
		text: `${s.id}  ${status.toUpperCase()} · ${s.source || '(no source)'}${s.title ? ` · "${s.title}"` : ''}`,
	});
	lines.push({
		text:
			`created ${utc(inWindow(s.startedAtRaw))} UTC · last ` +
			`touch ${utc(lastActive(s))} UTC (${ago(lastActive(s), ctx.now)}) ` +
			`· ${s.endedAtRaw === null ? 'live' : `ended ${utc(inWindow(s.endedAtRaw))} ${s.endReason ?? ''}`}`,
	});
	lines.push({
		text:
			`tokens in ${count(s.inputTokens)} out ${count(s.outputTokens)} cache ` +
			`r/w ${count(s.cacheReadTokens)}/${count(s.cacheWriteTokens)} · ` +
			`turns ${detail?.turns ?? '?'} · ` +
			`messages ${detail?.messageRows ?? s.messageCountColumn} · tool ` +
			`calls ${s.toolCallCount}`,
	});
	const models = detail?.models.length
		? detail.models
				.map(m => `${m.model} turns ${m.firstTurn ?? '?'}–${m.lastTurn ?? '?'} (${m.calls} calls)`)
				.join(' · ')
		: (s.model ?? '—');
	lines.push({text: `model ${models}`});
	lines.push({text: lineageLine(a, id, detail)});
	lines.push({
		text:
			`routing key ${s.sessionKey ?? 'NULL'} · ` +
			`chat ${s.chatType ?? '—'}:${s.chatId ?? '—'}${s.displayName ? ` "${s.displayName}"` : ''} ` +
			`· user ${s.userId ?? '—'} · ` +
			`thread ${s.threadId ?? '—'}${s.profileName ? ` · profile ${s.profileName}` : ''}`,
	});
	const after = a.upgradeChanges.bySubject.get(id);
	if (orphan) {
		lines.push({
			text:
				orphan.verdict === 'adoptable'
					? `orphan: adoptable into ${orphan.sessionKey} from ${orphan.donorId} (evidence ${orphan.evidence})`
					: `orphan: refused (${orphan.reasonKind}): ${orphan.reason}`,
			color: 'warn',
		});
	} else if (a.listedRefusedLocal.some(o => o.orphanId === id)) {
		lines.push({text: `keyless by design (${s.source}): repair-routing lists it and refuses it; not a finding`});
	} else if (chat?.rollbackRisk && chat.restartResolvesTo === id) {
		lines.push({
			text: `ZOMBIE: a restart resumes this row, but the chat's newest message is in ${chat.newestActivityIn}`,
			color: 'danger',
		});
	}

	const rolledBack = rollbackLine(a, id);
	if (rolledBack) {
		lines.push({text: rolledBack, color: 'danger'});
	}

	if (after) {
		lines.push({text: after, color: 'warn'});
	}

	return lines;
}

/** How many of the session's messages the list shows, when not all. */
function shownOf(detail: SessionDetail | null, shown: number): string {
	return detail && detail.messageRows > shown ? ` (last ${shown} of ${detail.messageRows})` : '';
}

function DetailView({ctx}: {ctx: PaneContext}): React.ReactElement {
	const theme = useTheme();
	const id = ctx.focusSession;
	if (!id) {
		return <Text color={theme.muted}>{'  Select a session in the Sessions pane (1) and press Enter.'}</Text>;
	}

	const wrap = ctx.ui.wrap.detail;
	// The card takes the lines it needs (wrapped: up to half the pane); the messages the rest.
	const cardWrap = detailWraps(ctx.width, wrap);
	const card = fitLines(
		cardLines(ctx, id).map((l, i) => ({
			text: ` ${l.text}`,
			bold: i === 0,
			color: l.color === 'warn' ? theme.warn : l.color === 'danger' ? theme.danger : undefined,
		})),
		ctx.width,
		cardWrap,
	).slice(0, cardWrap ? Math.max(8, Math.floor(ctx.height / 2)) : undefined);
	const detail = ctx.detail(id);
	const messages = detail?.messages ?? [];
	const cursor = detailCursor(ctx);
	return (
		<Box flexDirection="column">
			{card.map((l, i) => (
				<Text key={i} wrap="truncate" bold={l.bold} color={l.color}>
					{l.text}
				</Text>
			))}
			<List
				wrap={wrap}
				items={messages}
				cursor={cursor}
				height={Math.max(2, ctx.height - card.length)}
				width={ctx.width}
				header={`latest messages${shownOf(detail, messages.length)}`}
				empty="no messages"
				line={messageLine}
				color={m => roleColor(theme, m.role)}
			/>
		</Box>
	);
}

/** The newest message until the operator scrolls. */
function detailCursor(ctx: PaneContext): number {
	const shown = ctx.focusSession ? (ctx.detail(ctx.focusSession)?.messages.length ?? 0) : 0;
	return ctx.ui.cursor.detail === FOLLOW
		? Math.max(0, shown - 1)
		: Math.min(ctx.ui.cursor.detail, Math.max(0, shown - 1));
}

export const detailPane: PaneSpec = {
	rowCount: ctx => (ctx.focusSession ? (ctx.detail(ctx.focusSession)?.messages.length ?? 0) : 0),
	cursor: detailCursor,
	selectedId: ctx => ctx.focusSession,
	View: DetailView,
};
