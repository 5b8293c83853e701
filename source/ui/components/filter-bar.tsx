/**
 * The filter line that replaces the footer while `/` is open: the text input and, for the fuzzy
 * filter, a live match count; Tab switches to a content search of the messages (⏎ searches).
 */
import React from 'react';
import {Box} from 'ink';
import {Text} from './text.js';
import {TextInput} from '@inkjs/ui';

export type FilterBarProps = {
	text: string;
	matches: number;
	mode: 'fuzzy' | 'content';
	onChange: (text: string) => void;
	onSubmit: (text: string) => void;
};

export function FilterBar({text, matches, mode, onChange, onSubmit}: FilterBarProps): React.ReactElement {
	const content = mode === 'content';
	return (
		<Box>
			<Text>{content ? ' / content: ' : ' / '}</Text>
			<TextInput
				key={mode}
				defaultValue={text}
				placeholder={content ? 'words said in messages' : 'filter: id, title, key, chat, name'}
				onChange={onChange}
				onSubmit={onSubmit}
			/>
			<Text wrap="truncate">{content ? '  ⏎ search · Tab fuzzy · Esc' : `  ${matches} match · ⏎ keep · Tab content`}</Text>
		</Box>
	);
}
