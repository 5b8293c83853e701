/**
 * Lines of a pane outside its list (a finding's detail, a chat's resolution, a session's card),
 * fitted to the width: cut without splitting an id (text/fit.ts), or wrapped (by default on a
 * narrow terminal, else when the operator turned wrapping on for the pane with w), so a cut line
 * can be read whole.
 */
import type React from 'react';
import {Box} from 'ink';
import {Text} from './text.js';
import {cutKeepingIds, wrapLine} from '../../text/fit.js';

export type PaneLine = {text: string; color?: string; bold?: boolean};

/**
 * Below this width a pane's detail and explanation lines wrap by default (issue #28 point 6): cut, nearly each ended in
 * `…`.
 */
export const WRAP_DETAIL_BELOW = 120;

/**
 * Whether a pane's detail area wraps: always on a narrow terminal, else when the operator turned wrapping on (w, which
 * stays for the lists).
 */
export function detailWraps(width: number, wrapOn: boolean): boolean {
	return wrapOn || width < WRAP_DETAIL_BELOW;
}

/** Each line cut to `width`, or wrapped into as many lines as it takes. */
export function fitLines(lines: readonly PaneLine[], width: number, wrap: boolean): PaneLine[] {
	return lines.flatMap(l =>
		(wrap ? wrapLine(l.text, width, '   ') : [cutKeepingIds(l.text, width)]).map(text => ({...l, text})),
	);
}

/** The fitted lines, at most `height` of them. */
export function FittedLines({
	lines,
	width,
	height,
	wrap,
}: {
	lines: readonly PaneLine[];
	width: number;
	height?: number;
	wrap: boolean;
}): React.ReactElement {
	const shown = fitLines(lines, width, wrap).slice(0, height);
	return (
		<Box flexDirection="column" height={height} width={width}>
			{shown.map((l, i) => (
				<Text key={i} wrap="truncate" color={l.color} bold={l.bold}>
					{l.text}
				</Text>
			))}
		</Box>
	);
}
