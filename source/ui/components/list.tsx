/**
 * A windowed list: only the rows that fit are rendered (twenty thousand sessions cost what a
 * screenful costs), the cursor row is marked with › (visible without colour) and a position
 * indicator says where the window is.
 */
import React from 'react';
import {Box} from 'ink';
import {Text} from './text.js';
import {windowStart} from '../views.js';
import {useTheme} from '../theme.js';

export type ListProps<T> = {
	items: readonly T[];
	cursor: number;
	height: number;
	width: number;
	/** One line of text per row (already fitted to width - 2). */
	line: (item: T, index: number) => string;
	/** Optional colour per row. */
	color?: (item: T, index: number) => string | undefined;
	header?: string;
	empty?: string;
};

export function List<T>(props: ListProps<T>): React.ReactElement {
	const theme = useTheme();
	const bodyHeight = Math.max(1, props.height - (props.header ? 1 : 0));
	const start = windowStart(props.cursor, bodyHeight, props.items.length);
	const visible = props.items.slice(start, start + bodyHeight);
	const more = props.items.length > bodyHeight ? ` ${start + 1}–${start + visible.length}/${props.items.length}` : '';
	const inner = Math.max(1, props.width - 2);
	return (
		<Box flexDirection="column" height={props.height} width={props.width}>
			{props.header === undefined ? null : <Text bold color={theme.muted}>{`  ${props.header}`.slice(0, Math.max(0, props.width - more.length)).padEnd(Math.max(0, props.width - more.length))}{more}</Text>}
			{visible.length === 0 ? <Text color={theme.muted}>{`  ${props.empty ?? 'nothing to show'}`}</Text> : null}
			{visible.map((item, i) => {
				const index = start + i;
				const selected = index === props.cursor;
				const text = props.line(item, index).slice(0, inner);
				return (
					<Text key={index} wrap="truncate" color={selected ? theme.accent : props.color?.(item, index)} bold={selected} inverse={selected && theme.color}>
						{selected ? '› ' : '  '}{text}
					</Text>
				);
			})}
		</Box>
	);
}
