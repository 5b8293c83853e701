/**
 * The pane tabs: one line, never wrapped: "[1 Sessions]  2 Detail  …", compact below 100 columns.
 */
import type React from 'react';
import {Text} from './text.js';
import {PANES, PANE_TITLES, type Pane} from '../pane-names.js';
import {useTheme} from '../theme.js';

export function Tabs({
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
