/**
 * The footer line: the notice when there is one, else the pane's key hints from the keymap,
 * the pinned ones (help, quit) always at the right and the others filling what is left in order.
 */
import type React from 'react';
import {memo} from 'react';
import {Text} from './text.js';
import type {Pane} from '../pane-names.js';
import type {FooterState} from '../keys/binding.js';
import {footerHints} from '../keys/lookup.js';
import {useTheme} from '../theme.js';

/** The hints that fit in `width`, as one line (saying what a key does in the screen's state). */
export function fitHints(pane: Pane, width: number, state?: FooterState): string {
	const all = footerHints({pane}, undefined, state);
	const right = all
		.filter(h => h.pinned)
		.map(h => h.text)
		.join('  ');
	let left = '';
	for (const {text} of all.filter(h => !h.pinned)) {
		if (left.length + text.length + 2 + right.length + 2 > width - 1) {
			break;
		}

		left += `${left ? '  ' : ' '}${text}`;
	}

	return `${left}  ${right}`;
}

function FooterLine({
	pane,
	notice,
	width,
	paused = false,
}: {
	pane: Pane;
	notice: string | null;
	width: number;
	paused?: boolean;
}): React.ReactElement {
	const theme = useTheme();
	if (notice) {
		return <Text wrap="truncate" color={theme.accent}>{` ${notice}`}</Text>;
	}

	return (
		<Text wrap="truncate" color={theme.muted}>
			{fitHints(pane, width, {paused})}
		</Text>
	);
}

/** Memoised on its props: a refresh of the live model leaves the footer as it was. */
export const Footer = memo(FooterLine);
