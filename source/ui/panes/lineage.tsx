/**
 * Lineage: the parent/child tree around the selected session, each edge labelled with its kind.
 */
import type React from 'react';
import {Box} from 'ink';
import {Text} from '../components/text.js';
import {type TreeLine, flattenTree, lineageTree} from '../../forensics/lineage/lineage.js';
import {STATUS_GLYPH, statusIndex, statusOf} from '../../forensics/analysis/status.js';
import {lastActive} from '../../forensics/time.js';
import {ago} from '../../text/format.js';
import {List} from '../components/list.js';
import {useTheme} from '../theme.js';
import {FOLLOW} from '../state.js';
import {keyedList} from './keyed.js';
import type {PaneContext, PaneSpec} from './types.js';

const treeCache = new WeakMap<object, Map<string, TreeLine[]>>();

function lines(ctx: PaneContext): TreeLine[] {
	const id = ctx.focusSession;
	if (!id) {
		return [];
	}

	const analysis = ctx.model.analysis;
	let perModel = treeCache.get(analysis);
	if (!perModel) {
		perModel = new Map();
		treeCache.set(analysis, perModel);
	}

	let out = perModel.get(id);
	if (!out) {
		out = flattenTree(lineageTree(id, analysis.lineage));
		perModel.set(id, out);
	}

	return out;
}

function LineageView({ctx}: {ctx: PaneContext}): React.ReactElement {
	const theme = useTheme();
	if (!ctx.focusSession) {
		return <Text color={theme.muted}>{'  Select a session (Sessions pane, 1) to see its lineage.'}</Text>;
	}

	const a = ctx.model.analysis;
	const index = statusIndex(a);
	return (
		<Box flexDirection="column">
			<List
				{...list.props(ctx)}
				height={ctx.height - 1}
				header={`lineage of ${ctx.focusSession}${ctx.model.analysing ? ' (analysing…: its edges follow)' : ''}`}
				line={({node, prefix}) => {
					const s = a.byId.get(node.id);
					const edge = node.edge ? `[${node.edge.kind}] ` : '';
					const label = s
						? `${STATUS_GLYPH[statusOf(s, index)]} ${node.id} ${s.source} ${s.sessionKey ?? 'no key'} ` +
							`· ${s.endReason ?? 'live'} · ${ago(lastActive(s), ctx.now)}`
						: `? ${node.id} (not in this store)`;
					return `${prefix}${edge}${label}${node.id === ctx.focusSession ? '  ◀' : ''}`;
				}}
				color={({node}) =>
					node.id === ctx.focusSession ? theme.accent : node.edge?.kind === 'repair' ? theme.ok : undefined
				}
			/>
			<Text color={theme.muted} wrap="truncate">
				{'  edges: compression · branch · reset · delegate · repair   ⏎ open the session under the cursor'}
			</Text>
		</Box>
	);
}

/** On the focused session until the operator moves. */
function lineageCursor(ctx: PaneContext): number {
	return ctx.ui.cursor.lineage === FOLLOW
		? Math.max(
				0,
				lines(ctx).findIndex(l => l.node.id === ctx.focusSession),
			)
		: ctx.ui.cursor.lineage;
}

/** The tree's lines, each known by its session; the cursor by row number (the tree is redrawn per focus). */
const list = keyedList('lineage', lines, (l: TreeLine) => l.node.id, lineageCursor);

export const lineagePane: PaneSpec = {
	rowCount: list.rowCount,
	cursor: list.cursor,
	selectedId: ctx => list.selected(ctx)?.node.id ?? null,
	View: LineageView,
};
