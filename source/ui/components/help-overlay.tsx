/**
 * The `?` help: every key from the keymap with where it applies, filtered as the operator types,
 * scrolled with ↑/↓, PgUp/PgDn and Home/End (help-view.ts).
 */
import type React from 'react';
import {Box} from 'ink';
import {Text} from './text.js';
import {helpRows} from '../keys/lookup.js';
import {helpView} from '../help-view.js';
import {useTheme} from '../theme.js';

export function HelpOverlay({
	query,
	scroll,
	width,
	height,
}: {
	query: string;
	scroll: number;
	width: number;
	height: number;
}): React.ReactElement {
	const theme = useTheme();
	const rows = helpRows(query);
	const view = helpView(rows.length, height, scroll);
	const more = view.above + view.below > 0;
	return (
		<Box flexDirection="column" height={height} width={width}>
			<Text
				bold
				wrap="truncate"
			>{` Keys — type to filter: ${query}▏  (${more ? '↑/↓ PgUp/PgDn scroll · ' : ''}Esc closes)`}</Text>
			{rows.slice(view.top, view.top + view.shown).map(r => (
				<Text key={`${r.label}-${r.description}`} wrap="truncate">
					{` ${r.label.padEnd(7)} ${r.description}`}
					<Text color={theme.muted}>{`  [${r.where}]`}</Text>
				</Text>
			))}
			{more ? (
				<Text color={theme.muted} wrap="truncate">
					{` ${view.above > 0 ? `↑ ${view.above} above` : ''}` +
						`${view.above > 0 && view.below > 0 ? ' · ' : ''}${view.below > 0 ? `↓ ${view.below} more` : ''} ` +
						`(${view.top + 1}–${view.top + view.shown} of ${rows.length})`}
				</Text>
			) : null}
			{rows.length === 0 ? <Text color={theme.muted}>{` no key matches "${query}"`}</Text> : null}
		</Box>
	);
}
