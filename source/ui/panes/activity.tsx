/**
 * Activity: a live timeline of what changed, newest first. Routine commits (messages appended)
 * fold into one line per burst, updated while it lasts; rotations, findings appearing and
 * clearing, and repairs stand out by a mark and a word (colour adds to them, NO_COLOR keeps them).
 */
import type React from 'react';
import {Box} from 'ink';
import {Text} from '../components/text.js';
import type {ActivityEvent, ActivityKind} from '../../forensics/analysis/activity.js';
import {List} from '../components/list.js';
import {type Theme, useTheme} from '../theme.js';
import {activityRows} from '../views.js';
import {keyedList} from './keyed.js';
import type {PaneContext, PaneSpec} from './types.js';
import {FOLLOW} from '../state.js';

/** The events, each known by when hfx saw it, what and about what (a burst: when it began, as it grows). */
const list = keyedList(
	'activity',
	(ctx: PaneContext) => activityRows(ctx.model.activity, ctx.ui.filterText),
	(e: ActivityEvent) => (e.burst ? `${e.at}\u0000burst` : `${e.at}\u0000${e.kind}\u0000${e.subject}\u0000${e.text}`),
);

function clock(at: number): string {
	return new Date(at * 1000).toISOString().slice(11, 19);
}

type Tone = 'danger' | 'warn' | 'ok' | 'accent' | 'muted' | undefined;

/** Each kind's mark and word (what tells it apart without colour) and its tone. */
const LOOK: Record<ActivityKind, {mark: string; word: string; tone: Tone}> = {
	messages: {mark: '·', word: '', tone: 'muted'},
	rotated: {mark: '▶', word: 'ROTATED', tone: 'accent'},
	created: {mark: '+', word: 'new session', tone: undefined},
	ended: {mark: '·', word: 'ended', tone: undefined},
	routing: {mark: '▶', word: 'ROUTING', tone: 'accent'},
	orphan: {mark: '!', word: 'ORPHAN', tone: 'warn'},
	'rolled-back': {mark: '✗', word: 'ROLLED BACK', tone: 'danger'},
	'rollback-risk': {mark: '✗', word: 'ROLLBACK RISK', tone: 'danger'},
	resolved: {mark: '✓', word: 'CLEARED', tone: 'ok'},
	repaired: {mark: '✓', word: 'REPAIRED', tone: 'ok'},
	removed: {mark: '-', word: 'removed', tone: 'warn'},
	reopened: {mark: '■', word: 'STORE', tone: 'warn'},
};

/** A keyed session created is a new session for its chat: it stands out as a rotation does. */
function look(e: ActivityEvent): {mark: string; word: string; tone: Tone} {
	return e.kind === 'created' && !e.text.includes('no routing identity')
		? {mark: '▶', word: 'NEW SESSION', tone: 'accent'}
		: LOOK[e.kind];
}

export function activityLine(e: ActivityEvent): string {
	if (e.burst) {
		return `${clock(e.at)}${e.burst.until > e.at ? `–${clock(e.burst.until)}` : ''}  · ${e.text}`;
	}

	const {mark, word} = look(e);
	if (e.repeated) {
		// Counted before the text, which a narrow terminal cuts.
		const span = `${clock(e.at)}–${clock(e.repeated.until)}`;
		return `${span}  ${mark} ${`${word} ×${e.repeated.times}`.padEnd(13)} ${e.text}`;
	}

	return `${clock(e.at)}  ${mark} ${word.padEnd(13)} ${e.text}`;
}

function tone(theme: Theme, e: ActivityEvent): string | undefined {
	const t = look(e).tone;
	return t === undefined ? undefined : theme[t];
}

function ActivityView({ctx}: {ctx: PaneContext}): React.ReactElement {
	const theme = useTheme();
	return (
		<Box flexDirection="column">
			<List
				{...list.props(ctx)}
				height={ctx.height - 1}
				header={
					`activity since hfx started (${ctx.model.commits} commits) ` +
					`· ${ctx.ui.cursor.activity === FOLLOW ? 'following newest' : 'paused: f follows newest'}`
				}
				empty="waiting for the agent to write… (nothing has changed since hfx started)"
				line={activityLine}
				color={e => tone(theme, e)}
			/>
			<Text color={theme.muted} wrap="truncate">
				{'  · messages (one line per burst)  ▶ rotation/routing  ! orphan  ✗ rollback risk  ✓ cleared/repaired'}
			</Text>
		</Box>
	);
}

export const activityPane: PaneSpec = {
	rowCount: list.rowCount,
	cursor: list.cursor,
	rowIds: list.rowIds,
	selectedId: ctx => {
		const e = list.selected(ctx);
		return e && ctx.model.analysis.byId.has(e.subject) ? e.subject : null;
	},
	View: ActivityView,
};
