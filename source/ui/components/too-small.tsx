/**
 * The screen shown instead of the app when the terminal is below the minimum size.
 */
import type React from 'react';
import {Box} from 'ink';
import {Text} from './text.js';
import {MIN_COLUMNS, MIN_ROWS} from '../terminal.js';

export function TooSmall({columns, rows}: {columns: number; rows: number}): React.ReactElement {
	return (
		<Box flexDirection="column">
			<Text bold>hfx: terminal too small</Text>
			<Text>{`${columns}x${rows}, need at least ${MIN_COLUMNS}x${MIN_ROWS}.`}</Text>
			<Text>Enlarge the window, or use: hfx scan</Text>
		</Box>
	);
}
