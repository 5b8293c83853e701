/**
 * The pane tabs: one line, never wrapped: "[1 Sessions]  2 Detail  …", compact below 100 columns.
 */
import type React from 'react';
import {memo} from 'react';
import {Text} from './text.js';
import {PANES, PANE_TITLES, type Pane} from '../pane-names.js';
import {useTheme} from '../theme.js';

function TabsLine({
	pane,
	counts,
	width,
}: {
	pane: Pane;
	counts: Partial<Record<Pane, number>>;
	width: number;
}): React.ReactElement {
	const theme = useTheme();
	const wide = width >= 100;
	return (
		<Text wrap="truncate">
			{PANES.map((p, i) => {
				const label = `${i + 1}${wide ? ' ' : ''}${PANE_TITLES[p]}${counts[p] ? `(${counts[p]})` : ''}`;
				const sep = i === 0 ? '' : wide ? ' ' : '';
				return p === pane ? (
					<Text key={p}>
						{sep}
						<Text bold color={theme.accent} inverse={theme.color}>{`[${label}]`}</Text>
					</Text>
				) : (
					<Text key={p} color={theme.muted}>{`${sep} ${label}${wide ? ' ' : ''}`}</Text>
				);
			})}
		</Text>
	);
}

const sameCounts = (a: Partial<Record<Pane, number>>, b: Partial<Record<Pane, number>>) =>
	PANES.every(p => a[p] === b[p]);

/** Memoised: a refresh that changes no count draws no new tabs (the screen passes a fresh counts object every time). */
export const Tabs = memo(
	TabsLine,
	(a, b) => a.pane === b.pane && a.width === b.width && sameCounts(a.counts, b.counts),
);
