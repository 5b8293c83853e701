/**
 * The filter line that replaces the footer while `/` is open: the text input and a live match count.
 */
import React from 'react';
import {Box} from 'ink';
import {Text} from './text.js';
import {TextInput} from '@inkjs/ui';

export type FilterBarProps = {
	text: string;
	matches: number;
	onChange: (text: string) => void;
	onSubmit: () => void;
};

export function FilterBar({text, matches, onChange, onSubmit}: FilterBarProps): React.ReactElement {
	return (
		<Box>
			<Text>{' / '}</Text>
			<TextInput
				defaultValue={text}
				placeholder="filter: id, title, session key, chat, display name"
				onChange={onChange}
				onSubmit={onSubmit}
			/>
			<Text>{`  ${matches} match · ⏎ keep · Esc clear`}</Text>
		</Box>
	);
}
