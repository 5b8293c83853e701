/**
 * A one-row text input: typed text goes at the end, ⌫ erases, ⏎ submits. It never wraps: a text
 * longer than its width shows its end, where the cursor is (a wrapped input grew the frame by a
 * row and pushed the header off screen at 80x24, issue #28 point 3). Arrows, Tab, Esc and control
 * keys are left to the screen's keymap.
 */
import type React from 'react';
import {useState} from 'react';
import {useInput} from 'ink';
import {Text} from './text.js';

export type LineInputProps = {
	defaultValue: string;
	placeholder: string;
	width: number;
	onChange: (value: string) => void;
	onSubmit: (value: string) => void;
};

/** The part of `value` that fits in `width` with the cursor after it: its end. */
export function inputTail(value: string, width: number): string {
	const chars = [...value];
	return chars.slice(Math.max(0, chars.length - Math.max(0, width - 1))).join('');
}

export function LineInput({defaultValue, placeholder, width, onChange, onSubmit}: LineInputProps): React.ReactElement {
	const [value, setValue] = useState(defaultValue);
	useInput((input, key) => {
		if (key.return) {
			onSubmit(value);
			return;
		}

		if (
			key.upArrow ||
			key.downArrow ||
			key.leftArrow ||
			key.rightArrow ||
			key.tab ||
			key.escape ||
			key.ctrl ||
			key.meta ||
			key.pageUp ||
			key.pageDown
		) {
			return;
		}

		const next =
			key.backspace || key.delete ? [...value].slice(0, -1).join('') : `${value}${input.replaceAll(/[\r\n]/g, '')}`;
		if (next !== value) {
			setValue(next);
			onChange(next);
		}
	});
	if (value === '') {
		const shown = placeholder.slice(0, Math.max(1, width));
		return (
			<Text wrap="truncate">
				<Text inverse>{shown.slice(0, 1) || ' '}</Text>
				<Text dimColor>{shown.slice(1)}</Text>
			</Text>
		);
	}

	return (
		<Text wrap="truncate">
			{inputTail(value, width)}
			<Text inverse> </Text>
		</Text>
	);
}
