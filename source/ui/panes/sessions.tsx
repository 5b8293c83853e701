import type React from 'react';
import {Box} from 'ink';
import {STATUS_GLYPH, type SessionStatus} from '../../forensics/analysis/status.js';
import {inWindow} from '../../forensics/time.js';
import {ago, count, pad, utc} from '../../text/format.js';
import {List} from '../components/list.js';
import {type Theme, useTheme} from '../theme.js';
import {type SessionRow, sessionRows, statusFor} from '../views.js';
import {idsOf, keyedCursor} from './keyed.js';
import {type ContentRow, contentRowId, contentRows} from '../search/content-rows.js';
import {ContentHitsView} from './content-hits.js';
import type {PaneContext, PaneSpec} from './types.js';

/** Rows changed within this many seconds are marked. */
export const CHANGE_HIGHLIGHT_S = 3;

/** A content search's rows (`/`, Tab, ⏎), or null when none is shown. */
function hitRowsOf(ctx: PaneContext): ContentRow[] | null {
	return ctx.ui.content ? contentRows({analysis: ctx.model.analysis, home: ctx.home}, ctx.ui.content) : null;
}

function rowsOf(ctx: PaneContext): {rows: readonly SessionRow[]; total: number; hidden: number} {
	const hits = hitRowsOf(ctx);
	return hits
		? {rows: hits, total: hits.length, hidden: 0}
		: sessionRows(ctx.model.analysis, {
				filterText: ctx.ui.filterText,
				showHidden: ctx.ui.showHidden,
				source: ctx.ui.source,
			});
}

const sessionId = (r: SessionRow) => r.session.id;

// A content search's rows on a root with profiles: the profile and the id (two stores may hold one id).
const rowIds = (ctx: PaneContext) => {
	const hits = hitRowsOf(ctx);
	return hits ? idsOf(hits, contentRowId) : idsOf(rowsOf(ctx).rows, sessionId);
};

/**
 * The content hit under the cursor when another profile than the focused one holds its row (⏎ focuses that profile
 * first).
 */
function hitElsewhere(ctx: PaneContext): {profile: string; id: string} | null {
	const row = hitRowsOf(ctx)?.[cursor(ctx)];
	return row?.profile !== undefined && row.profile !== ctx.home?.focused
		? {profile: row.profile, id: row.session.id}
		: null;
}

/**
 * The footer after the count: the status legend; while the first analysis runs (issue #26), what is shown instead: the
 * newest rows, no status yet.
 */
function footerTail(ctx: PaneContext): string {
	const analysing = ctx.model.analysing;
	return analysing
		? `newest ${analysing.shown} of ${analysing.total} rows read · analysing… (statuses follow)`
		: `${statusLegend(ctx.model.analysis.rollbacks.length > 0)}  * just changed`;
}

const cursor = (ctx: PaneContext) => keyedCursor(ctx, 'sessions', rowIds(ctx));

/** `head:id` in `width` columns, the tail of the id kept when cut. */
function chatTail(head: string, id: string, width: number): string {
	const whole = `${head}:${id}`;
	return whole.length <= width || width < head.length + 4 ? whole : `${head}:…${id.slice(-(width - head.length - 2))}`;
}

/** The chat of a row in `width` columns: chat type and id (the tail of the id kept when cut), then its name. */
function chatLabel(r: SessionRow, width: number): string {
	const s = r.session;
	if (s.chatId) {
		const chat = chatTail(s.chatType ?? '?', s.chatId, width);
		return `${chat}${s.displayName && chat.length + 2 <= width ? ` ${s.displayName}` : ''}`;
	}

	if (s.sessionKey) {
		const parts = s.sessionKey.split(':');
		return parts.length > 4 ? chatTail(parts[3]!, parts.slice(4).join(':'), width) : s.sessionKey;
	}

	return '—';
}

function tokens(r: SessionRow): string {
	return count(r.session.inputTokens + r.session.outputTokens);
}

/**
 * A column: its cell of a row is `value(row, now, status, width)`. The values are functions made once, and the columns
 * of a width are made once (issue #26: a callback made per render loses its optimised code at each mark-compact, and
 * TurboFan compiles it again; test/live/optimised-code.test.ts).
 */
type Col = {
	key: string;
	title: string;
	width: number;
	value: (r: SessionRow, now: number, status: SessionStatus, width: number) => string;
	align?: 'right';
	priority?: number;
};

/** Columns that are not shown first drop, highest `priority` first. */
const END_REASON_MIN = 11;

const endReasonValue = (r: SessionRow) => r.session.endReason ?? (r.session.endedAtRaw === null ? 'live' : '');

/** The end reason column: what is left of the row. */
function endReason(width: number): Col {
	return {key: 'end', title: 'end reason', width, value: endReasonValue, priority: 2};
}

/** The messages, exact when they fit the column, else as 746k (at 80 columns, 746,012 was cut to "7460…"). */
const messages = (r: SessionRow, _now: number, _status: SessionStatus, width: number) => {
	const n = r.session.messageRows ?? r.session.messageCountColumn;
	const exact = String(n);
	return n === null || exact.length <= width ? exact : count(n);
};

/** Every column, in display order, at its narrowest. */
function allColumns(narrow: boolean): Col[] {
	return [
		{key: 'status', title: ' ', width: 2, value: (_r, _now, status) => STATUS_GLYPH[status]},
		{key: 'id', title: 'id', width: 24, value: sessionId},
		{key: 'source', title: 'source', width: 9, value: r => r.session.source, priority: 3},
		{key: 'title', title: 'title', width: 18, value: r => r.session.title ?? '', priority: 6},
		{key: 'chat', title: 'chat', width: narrow ? 9 : 10, value: (r, _now, _status, width) => chatLabel(r, width)},
		{key: 'started', title: 'started', width: 16, value: r => utc(inWindow(r.session.startedAtRaw)), priority: 4},
		{
			key: 'last',
			title: narrow ? 'active' : 'last active',
			width: narrow ? 10 : 11,
			value: (r, now) => ago(r.lastActive, now),
		},
		{key: 'msgs', title: 'msgs', width: narrow ? 5 : 6, value: messages, align: 'right', priority: 1},
		{key: 'tokens', title: 'tokens', width: 7, value: tokens, align: 'right', priority: 5},
		endReason(END_REASON_MIN),
	];
}

const cost = (cols: readonly Col[]) => cols.reduce((n, c) => n + c.width, 0) + cols.length - 1;

/** The columns of `width`, worked out (sessionColumns keeps them by width). */
function columnsOf(width: number): Col[] {
	const all = allColumns(width < 100);
	const chat = all.find(c => c.key === 'chat')!;
	// The row is drawn after "› " and may end in " *" (just changed).
	const budget = width - 4;
	const chosen = new Set(all.filter(c => c.priority === undefined).map(c => c.key));
	for (const c of all.filter(c => c.priority !== undefined).sort((a, b) => a.priority! - b.priority!)) {
		if (cost(all.filter(x => chosen.has(x.key) || x === c)) <= budget) {
			chosen.add(c.key);
		}
	}

	const cols = all.filter(c => chosen.has(c.key));
	let left = budget - cost(cols);
	const grow = Math.min(left, (width >= 130 ? 22 : 14) - chat.width);
	chat.width += grow;
	left -= grow;
	const end = cols.findIndex(c => c.key === 'end');
	if (end !== -1) {
		cols[end] = endReason(cols[end]!.width + left);
	}

	return cols;
}

type Layout = {cols: readonly Col[]; header: string};

/** The layouts of the widths drawn lately (a terminal has a few). */
const layouts = new Map<number, Layout>();

function layoutOf(width: number): Layout {
	let layout = layouts.get(width);
	if (!layout) {
		const cols = columnsOf(width);
		layout = {cols, header: cols.map(c => pad(c.title, c.width, c.align)).join(' ')};
		if (layouts.size >= 8) {
			layouts.clear();
		}

		layouts.set(width, layout);
	}

	return layout;
}

/**
 * Columns in display order. The status, id, chat (its key's tail) and last activity always
 * show; the others join by priority while they fit (message count, end reason, source,
 * start, tokens, title), and the room left widens the chat column, then the end reason.
 */
export function sessionColumns(width: number): readonly Col[] {
	return layoutOf(width).cols;
}

/**
 * The status legend: the rollback's own statuses, first, only when one happened (the narrow footer keeps its head; `?`
 * lists them all).
 */
export function statusLegend(rolledBack: boolean): string {
	const rest = 'Z zombie  O orphan  ! skipped by restart  ● live  · ended';
	return rolledBack ? `R resumed stale  S stranded  ${rest}` : rest;
}

type Drawn = {width: number; now: number; status: SessionStatus; changed: boolean; text: string};

/**
 * Each row's line as last drawn, by its row object (views.ts reuses a row while its session is unchanged): a refresh
 * that changed one session formats that row again, not the screenful (issue #26: the render cost per refresh).
 */
const drawnRows = new WeakMap<SessionRow, Drawn>();

/** What a frame of the pane draws its rows with. */
export type SessionsDraw = {ctx: PaneContext; cols: readonly Col[]; theme: Theme};

function changedLately(ctx: PaneContext, r: SessionRow): boolean {
	const at = ctx.model.changedAt.get(r.session.id);
	return at !== undefined && ctx.now - at <= CHANGE_HIGHLIGHT_S;
}

function formatRow(cols: readonly Col[], r: SessionRow, now: number, status: SessionStatus): string {
	let text = '';
	for (let i = 0; i < cols.length; i++) {
		const c = cols[i]!;
		text += `${i === 0 ? '' : ' '}${pad(c.value(r, now, status, c.width), c.width, c.align)}`;
	}

	return text;
}

function drawnRow(draw: SessionsDraw, r: SessionRow): Drawn {
	const {ctx} = draw;
	const status = statusFor(ctx.model.analysis, r.session);
	const changed = changedLately(ctx, r);
	const last = drawnRows.get(r);
	if (last && last.width === ctx.width && last.now === ctx.now && last.status === status && last.changed === changed) {
		return last;
	}

	const text = `${formatRow(draw.cols, r, ctx.now, status)}${changed ? ' *' : ''}`;
	const next = {width: ctx.width, now: ctx.now, status, changed, text};
	drawnRows.set(r, next);
	return next;
}

/** A row's line (the List's `line`, bound to the frame's draw). */
export function sessionLine(draw: SessionsDraw, r: SessionRow): string {
	return drawnRow(draw, r).text;
}

/** A row's colour (the List's `color`, bound to the frame's draw). */
export function sessionColor(draw: SessionsDraw, r: SessionRow): string | undefined {
	const {status, changed} = drawnRow(draw, r);
	const theme = draw.theme;
	return status === 'zombie' || status === 'at-risk' || status === 'resumed-stale' || status === 'stranded'
		? theme.danger
		: status === 'orphan'
			? theme.warn
			: changed
				? theme.highlight
				: undefined;
}

function SessionsView({ctx}: {ctx: PaneContext}): React.ReactElement {
	const theme = useTheme();
	if (ctx.ui.content) {
		return <ContentHitsView ctx={ctx} rows={hitRowsOf(ctx)!} cursor={cursor(ctx)} content={ctx.ui.content} />;
	}

	const {rows, total, hidden} = rowsOf(ctx);
	const {cols, header} = layoutOf(ctx.width);
	const scope = [
		ctx.ui.source ? `source ${ctx.ui.source}` : '',
		ctx.ui.filterText ? `filter "${ctx.ui.filterText}" ${rows.length}/${total} match` : '',
		hidden > 0 && !ctx.ui.showHidden ? `${hidden} tool/delegate hidden (t)` : '',
	]
		.filter(Boolean)
		.join(' · ');
	// The row's line and colour are functions made once, bound to this frame's draw (see Col).
	const draw: SessionsDraw = {ctx, cols, theme};
	return (
		<Box flexDirection="column">
			<List
				items={rows}
				id={sessionId}
				cursor={cursor(ctx)}
				height={ctx.height}
				width={ctx.width}
				wrap={ctx.ui.wrap.sessions}
				header={header}
				footer={`${total} sessions${scope ? ` · ${scope}` : ''} · ${footerTail(ctx)}`}
				empty={ctx.ui.filterText ? `no session matches "${ctx.ui.filterText}"` : 'no sessions'}
				line={sessionLine.bind(null, draw)}
				color={sessionColor.bind(null, draw)}
			/>
		</Box>
	);
}

export const sessionsPane: PaneSpec = {
	rowCount: ctx => rowsOf(ctx).rows.length,
	cursor,
	rowIds,
	// A hit of another profile: its row is not in the focused store.
	selectedId: ctx => (hitElsewhere(ctx) ? null : (rowsOf(ctx).rows[cursor(ctx)]?.session.id ?? null)),
	selectedElsewhere: hitElsewhere,
	View: SessionsView,
};
