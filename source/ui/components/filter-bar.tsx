/**
 * The filter line that replaces the footer while `/` is open: the text input and, for the fuzzy
 * filter, a live match count; Tab switches to a content search of the messages (⏎ searches).
 * It is one row whatever is typed (issue #28 point 3): the hint gives way to a long text, and a
 * text longer than the row shows its end (line-input.tsx).
 */
import type React from 'react';
import {useState} from 'react';
import {Box} from 'ink';
import {Text} from './text.js';
import {LineInput} from './line-input.js';

export type FilterBarProps = {
	text: string;
	matches: number;
	mode: 'fuzzy' | 'content';
	width: number;
	onChange: (text: string) => void;
	onSubmit: (text: string) => void;
};

export function FilterBar({text, matches, mode, width, onChange, onSubmit}: FilterBarProps): React.ReactElement {
	const content = mode === 'content';
	const [typed, setTyped] = useState(text);
	const lead = content ? ' / content: ' : ' / ';
	const placeholder = content ? 'words said in messages' : 'filter: id, title, key, chat, name';
	const hint = content ? '  ⏎ search · Tab fuzzy · Esc' : `  ${matches} match · ⏎ keep · Tab content`;
	// The input's width: what it shows (the text and its cursor, or the placeholder); the hint only while both fit.
	const shown = (typed === '' ? placeholder.length : [...typed].length) + 1;
	const withHint = lead.length + shown + hint.length <= width;
	const room = Math.max(1, withHint ? shown : width - lead.length);
	return (
		<Box width={width} height={1} overflow="hidden">
			<Text>{lead}</Text>
			<Box width={room} flexShrink={0}>
				<LineInput
					defaultValue={text}
					placeholder={placeholder}
					width={room}
					onChange={value => {
						setTyped(value);
						onChange(value);
					}}
					onSubmit={onSubmit}
				/>
			</Box>
			{withHint ? <Text wrap="truncate">{hint}</Text> : null}
		</Box>
	);
}
