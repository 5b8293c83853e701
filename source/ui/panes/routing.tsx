/**
 * Routing: per chat, the gateway_routing entry, every candidate with the rule that admits or
 * excludes it, what a restart resumes, where the newest message is, and a loud banner when
 * they differ, or when a restart already rolled the chat back.
 */
import type React from 'react';
import {Box} from 'ink';
import type {ChatRouting} from '../../forensics/routing/routing.js';
import type {Rollback} from '../../forensics/rollbacks/rollbacks.js';
import {utcMinute} from '../../forensics/rollbacks/rollback-finding.js';
import {utc} from '../../text/format.js';
import {duration} from '../../forensics/duration.js';
import {FittedLines, type PaneLine, detailWraps} from '../components/fitted-lines.js';
import {List} from '../components/list.js';
import {type Theme, useTheme} from '../theme.js';
import {routingRows} from '../views.js';
import {keyedList} from './keyed.js';
import type {PaneContext, PaneSpec} from './types.js';

/** The chats, each known by its session key. */
const list = keyedList(
	'routing',
	(ctx: PaneContext) => routingRows(ctx.model.analysis, ctx.ui.filterText),
	(c: ChatRouting) => c.sessionKey,
);

/** A chat's mark in the list: a rollback that happened above a risk (a chat that rolled back is no "✓"). */
function mark(c: ChatRouting, rolledBack: ReadonlyMap<string, Rollback>): string {
	if (rolledBack.has(c.sessionKey)) {
		return '✗ ROLLED';
	}

	return c.rollbackRisk ? '✗ RISK  ' : c.routingEntryStale ? '! stale ' : '✓       ';
}

/** A rollback that happened, the risk of one (or why there is none): the chat's loudest lines first. */
function rollbackLines(chat: ChatRouting, rollback: Rollback | undefined, theme: Theme): PaneLine[] {
	const lag =
		chat.newestActivityAt !== null && chat.resolvesToActivityAt !== null
			? chat.newestActivityAt - chat.resolvesToActivityAt
			: null;
	const lines: PaneLine[] = [];
	if (rollback) {
		lines.push({
			text:
				` ✗ ROLLED BACK ${duration(rollback.resumedAt - rollback.jumpedFrom)}: a ` +
				`restart resumed ${rollback.resumedId} ` +
				`at ${utcMinute(rollback.resumedAt)}; the ${rollback.skipped.messages} ` +
				`messages it skipped are stranded in ${rollback.skipped.id} (5 Findings)`,
			color: theme.danger,
			bold: true,
		});
	}

	if (chat.rollbackRisk) {
		const resumes =
			chat.restartResolvesTo === null
				? 'a restart starts a fresh, empty session'
				: `a restart resumes ${chat.restartResolvesTo}`;
		lines.push({
			text:
				` ✗ ROLLBACK RISK: ${resumes}, but the newest message is ` +
				`in ${chat.newestActivityIn}${lag !== null && lag > 0 ? ` (${duration(lag)} newer)` : ''}`,
			color: theme.danger,
			bold: true,
		});
	} else if (chat.rollbackRiskReason) {
		lines.push({text: ` ${chat.rollbackRiskReason}`});
	}

	return lines;
}

function ChatDetail({
	chat,
	rollback,
	after,
	width,
	height,
	wrap,
}: {
	chat: ChatRouting;
	rollback: Rollback | undefined;
	after: string | undefined;
	width: number;
	height: number;
	wrap: boolean;
}): React.ReactElement {
	const theme = useTheme();
	const lines: PaneLine[] = rollbackLines(chat, rollback, theme);
	if (after) {
		lines.push({text: ` ${after}`, color: theme.warn});
	}

	lines.push(
		{
			text:
				` routing entry  ` +
				` ${chat.routingEntry ?? '(none)'}${chat.routingEntryNote ? ` — ${chat.routingEntryNote}` : ''}`,
			color: chat.routingEntryStale ? theme.warn : undefined,
		},
		{
			text:
				` restart resumes ${chat.restartResolvesTo ?? '(a new, empty session)'} ` +
				`via ${chat.resolution.via} (rule set ${chat.resolution.ruleSet}), last ` +
				`message ${utc(chat.resolvesToActivityAt)}`,
		},
		{
			text:
				` newest message  ${chat.newestActivityIn ?? '(none)'} ` +
				`at ${utc(chat.newestActivityAt)}` +
				`${chat.adoptableOrphans.includes(chat.newestActivityIn ?? '') ? ' (an adoptable orphan)' : ''}`,
		},
	);
	for (const c of chat.resolution.candidates) {
		const mark = c.sessionId === chat.restartResolvesTo ? '▶' : c.admitted ? '+' : '-';
		lines.push({text: `   ${mark} ${c.sessionId} ${c.query}: ${c.rule}`, color: c.admitted ? undefined : theme.muted});
	}

	for (const n of chat.resolution.notes) {
		lines.push({text: `   note: ${n}`, color: theme.muted});
	}

	return <FittedLines lines={lines} width={width} height={height} wrap={wrap} />;
}

function RoutingView({ctx}: {ctx: PaneContext}): React.ReactElement {
	const theme = useTheme();
	const items = list.rows(ctx);
	const selected = list.selected(ctx);
	const listHeight = Math.max(3, Math.min(items.length + 1, Math.floor(ctx.height * 0.4)));
	const keyWidth = Math.min(48, Math.max(0, ...items.map(c => c.sessionKey.length)));
	const rolledBack = new Map(ctx.model.analysis.rollbacks.map(r => [r.sessionKey, r]));
	return (
		<Box flexDirection="column">
			<List
				{...list.props(ctx)}
				height={listHeight}
				header={
					ctx.model.analysing
						? 'chats (analysing…)'
						: `chats (${items.length})${ctx.ui.filterText ? ` matching "${ctx.ui.filterText}"` : ''}`
				}
				empty={
					ctx.model.analysing
						? 'analysing… the chats and what a restart resumes follow once the store has been read whole'
						: 'no session keys in this store'
				}
				line={c => `${mark(c, rolledBack)} ${c.sessionKey.padEnd(keyWidth)}  → ${c.restartResolvesTo ?? 'new session'}`}
				color={c =>
					c.rollbackRisk || rolledBack.has(c.sessionKey) ? theme.danger : c.routingEntryStale ? theme.warn : undefined
				}
			/>
			{selected ? (
				<ChatDetail
					chat={selected}
					rollback={rolledBack.get(selected.sessionKey)}
					after={ctx.model.analysis.upgradeChanges.bySubject.get(selected.sessionKey)}
					width={ctx.width}
					height={ctx.height - listHeight}
					wrap={detailWraps(ctx.width, ctx.ui.wrap.routing)}
				/>
			) : null}
		</Box>
	);
}

export const routingPane: PaneSpec = {
	rowCount: list.rowCount,
	cursor: list.cursor,
	rowIds: list.rowIds,
	selectedId: ctx => {
		const chat = list.selected(ctx);
		return chat ? (chat.newestActivityIn ?? chat.restartResolvesTo) : null;
	},
	yankText: ctx => list.selected(ctx)?.sessionKey ?? null,
	View: RoutingView,
};
