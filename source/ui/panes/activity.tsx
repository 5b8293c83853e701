/**
 * Activity: a live timeline of what changed, newest first.
 */
import React from 'react';
import {Box} from 'ink';
import {Text} from '../components/text.js';
import type {ActivityEvent} from '../../forensics/activity.js';
import {List} from '../components/list.js';
import {useTheme} from '../theme.js';
import {activityRows} from '../views.js';
import {idsOf, keyedCursor} from './keyed.js';
import type {PaneContext, PaneSpec} from './types.js';

function rows(ctx: PaneContext): ActivityEvent[] {
	return activityRows(ctx.model.activity, ctx.ui.filterText);
}

/** An event's identity: when hfx saw it, what and about what. */
const rowIds = (ctx: PaneContext) => idsOf(rows(ctx), e => `${e.at}\u0000${e.kind}\u0000${e.subject}\u0000${e.text}`);
const cursor = (ctx: PaneContext) => keyedCursor(ctx, 'activity', rowIds(ctx));

function clock(at: number): string {
	return new Date(at * 1000).toISOString().slice(11, 19);
}

function ActivityView({ctx}: {ctx: PaneContext}): React.ReactElement {
	const theme = useTheme();
	const items = rows(ctx);
	return (
		<Box flexDirection="column">
			<List
				items={items}
				cursor={cursor(ctx)}
				height={ctx.height - 1}
				width={ctx.width}
				header={`activity since hfx started (${ctx.model.commits} commits seen)`}
				empty="waiting for the agent to write… (nothing has changed since hfx started)"
				line={e => `${clock(e.at)} ${e.kind.padEnd(13)} ${e.text}`}
				color={e => e.kind === 'rollback-risk' ? theme.danger : (e.kind === 'orphan' ? theme.warn : (e.kind === 'commit' ? theme.muted : (e.kind === 'resolved' ? theme.ok : undefined)))}
			/>
			<Text color={theme.muted} wrap="truncate">  commits, messages appended, sessions created/ended/rotated, routing changes, findings appearing and clearing</Text>
		</Box>
	);
}

export const activityPane: PaneSpec = {
	rowCount: ctx => rows(ctx).length,
	cursor,
	rowIds,
	selectedId: ctx => {
		const e = rows(ctx)[cursor(ctx)];
		return e && ctx.model.analysis.byId.has(e.subject) ? e.subject : null;
	},
	View: ActivityView,
};
