/**
 * The typed answer of the repair's confirmation, kept in a ref as each key arrives (and mirrored in
 * state to draw it): Enter submits what was typed even when it arrives in the same tick as the
 * typing, and a pasted answer ending in a newline submits itself.
 */
import {type MutableRefObject, useRef, useState} from 'react';

export type TypedAnswer = {
	text: string;
	/** Adds typed text; a newline in it submits what came before. */
	type: (text: string) => void;
	erase: () => void;
	submit: () => void;
	reset: () => void;
};

export function useTypedAnswer(onSubmit: MutableRefObject<(answer: string) => void>): TypedAnswer {
	const answer = useRef('');
	const [text, setText] = useState('');
	const set = (value: string) => {
		answer.current = value;
		setText(value);
	};

	const submit = () => {
		const value = answer.current;
		set('');
		onSubmit.current(value);
	};

	return {
		text,
		type(input) {
			for (const ch of input) {
				if (ch === '\r' || ch === '\n') {
					submit();
					return;
				}

				if (ch >= ' ' && ch !== '\u007F') {
					set(answer.current + ch);
				}
			}
		},
		erase: () => set(answer.current.slice(0, -1)),
		submit,
		reset: () => set(''),
	};
}
