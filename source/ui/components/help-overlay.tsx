/**
 * The `?` help: every key from the keymap with where it applies, filtered as the operator types.
 */
import React from 'react';
import {Box} from 'ink';
import {Text} from './text.js';
import {helpRows} from '../keys/lookup.js';
import {useTheme} from '../theme.js';

export function HelpOverlay({query, width, height}: {query: string; width: number; height: number}): React.ReactElement {
	const theme = useTheme();
	const rows = helpRows(query);
	return (
		<Box flexDirection="column" height={height} width={width}>
			<Text bold>{` Keys — type to filter: ${query}▏  (Esc closes)`}</Text>
			{rows.slice(0, Math.max(0, rows.length > height - 1 ? height - 2 : height - 1)).map(r => (
				<Text key={`${r.label}-${r.description}`} wrap="truncate">{` ${r.label.padEnd(7)} ${r.description}`}<Text color={theme.muted}>{`  [${r.where}]`}</Text></Text>
			))}
			{rows.length > height - 1 ? <Text color={theme.muted}>{` … ${rows.length - (height - 2)} more: type to filter`}</Text> : null}
			{rows.length === 0 ? <Text color={theme.muted}>{` no key matches "${query}"`}</Text> : null}
		</Box>
	);
}
