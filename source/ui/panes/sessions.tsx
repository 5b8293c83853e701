import React from 'react';
import {Box} from 'ink';
import {Text} from '../components/text.js';
import {STATUS_GLYPH, type SessionStatus} from '../../forensics/status.js';
import {inWindow} from '../../forensics/time.js';
import {ago, pad, utc} from '../../text/format.js';
import {List} from '../components/list.js';
import {useTheme} from '../theme.js';
import {type SessionRow, sessionRows, statusFor} from '../views.js';
import {idsOf, keyedCursor} from './keyed.js';
import type {PaneContext, PaneSpec} from './types.js';

/** Rows changed within this many seconds are marked. */
export const CHANGE_HIGHLIGHT_S = 3;

function rowsOf(ctx: PaneContext) {
	return sessionRows(ctx.model.analysis, {filterText: ctx.ui.filterText, showHidden: ctx.ui.showHidden, source: ctx.ui.source});
}

const rowIds = (ctx: PaneContext) => idsOf(rowsOf(ctx).rows, r => r.session.id);
const cursor = (ctx: PaneContext) => keyedCursor(ctx, 'sessions', rowIds(ctx));

function chatLabel(r: SessionRow): string {
	const s = r.session;
	if (s.chatId) {
		return `${s.chatType ?? '?'}:${s.chatId}${s.displayName ? ` ${s.displayName}` : ''}`;
	}

	if (s.sessionKey) {
		return s.sessionKey.split(':').slice(3).join(':') || s.sessionKey;
	}

	return '—';
}

function tokens(r: SessionRow): string {
	const n = r.session.inputTokens + r.session.outputTokens;
	return n >= 1_000_000 ? `${(n / 1_000_000).toFixed(1)}M` : (n >= 1000 ? `${Math.round(n / 1000)}k` : String(n));
}

type Col = {title: string; width: number; value: (r: SessionRow, now: number, status: SessionStatus) => string; align?: 'right'};

/** Columns in display order; optional ones join by priority while the end reason keeps 12 columns. */
function columns(width: number): Col[] {
	const all: Array<Col & {key: string; optional?: number}> = [
		{key: 'status', title: ' ', width: 2, value: (_r, _now, status) => STATUS_GLYPH[status]},
		{key: 'id', title: 'id', width: 24, value: r => r.session.id},
		{key: 'source', title: 'source', width: 9, value: r => r.session.source},
		{key: 'title', title: 'title', width: 18, value: r => r.session.title ?? '', optional: 3},
		{key: 'chat', title: 'chat', width: width >= 130 ? 22 : 14, value: chatLabel},
		{key: 'started', title: 'started', width: 16, value: r => utc(inWindow(r.session.startedAtRaw)), optional: 1},
		{key: 'last', title: 'last active', width: 11, value: (r, now) => ago(r.lastActive, now)},
		{key: 'msgs', title: 'msgs', width: 6, value: r => String(r.session.messageRows ?? r.session.messageCountColumn), align: 'right'},
		{key: 'tokens', title: 'tokens', width: 7, value: tokens, align: 'right', optional: 2},
	];
	const budget = width - 2 - 13;
	const cost = (cols: typeof all) => cols.reduce((n, c) => n + c.width + 1, 0);
	const chosen = new Set(all.filter(c => c.optional === undefined).map(c => c.key));
	for (const c of all.filter(c => c.optional !== undefined).sort((a, b) => a.optional! - b.optional!)) {
		if (cost(all.filter(x => chosen.has(x.key) || x.key === c.key)) <= budget) {
			chosen.add(c.key);
		}
	}

	const cols: Col[] = all.filter(c => chosen.has(c.key));
	const used = cost(all.filter(c => chosen.has(c.key))) + 2;
	cols.push({title: 'end reason', width: Math.max(4, width - used - 2), value: r => r.session.endReason ?? (r.session.endedAtRaw === null ? 'live' : '')});
	return cols;
}

function SessionsView({ctx}: {ctx: PaneContext}): React.ReactElement {
	const theme = useTheme();
	const {rows, total, hidden} = rowsOf(ctx);
	const cols = columns(ctx.width);
	const header = cols.map(c => pad(c.title, c.width, c.align)).join(' ');
	const scope = [ctx.ui.source ? `source ${ctx.ui.source}` : '', ctx.ui.filterText ? `filter "${ctx.ui.filterText}" ${rows.length}/${total} match` : '', hidden > 0 && !ctx.ui.showHidden ? `${hidden} tool/delegate hidden (t)` : ''].filter(Boolean).join(' · ');
	const changed = (r: SessionRow) => {
		const at = ctx.model.changedAt.get(r.session.id);
		return at !== undefined && ctx.now - at <= CHANGE_HIGHLIGHT_S;
	};

	return (
		<Box flexDirection="column">
			<List
				items={rows}
				cursor={cursor(ctx)}
				height={ctx.height - 1}
				width={ctx.width}
				header={header}
				empty={ctx.ui.filterText ? `no session matches "${ctx.ui.filterText}"` : 'no sessions'}
				line={r => {
					const status = statusFor(ctx.model.analysis, r.session);
					return `${cols.map(c => pad(c.value(r, ctx.now, status), c.width, c.align)).join(' ')}${changed(r) ? ' *' : ''}`;
				}}
				color={r => {
					const status = statusFor(ctx.model.analysis, r.session);
					return status === 'zombie' || status === 'at-risk' ? theme.danger : (status === 'orphan' ? theme.warn : (changed(r) ? theme.highlight : undefined));
				}}
			/>
			<Text color={theme.muted} wrap="truncate">{`  ${total} sessions${scope ? ` · ${scope}` : ''} · Z zombie  O orphan  ! skipped by restart  ● live  · ended  * just changed`}</Text>
		</Box>
	);
}

export const sessionsPane: PaneSpec = {
	rowCount: ctx => rowsOf(ctx).rows.length,
	cursor,
	rowIds,
	selectedId: ctx => rowsOf(ctx).rows[cursor(ctx)]?.session.id ?? null,
	View: SessionsView,
};
