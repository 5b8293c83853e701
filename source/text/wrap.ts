/**
 * Wrapping display text onto lines of a given width, never cutting it: a long value continues
 * on the next line. Prose breaks after a space or a separator (`,` `:` `/` `;` `-`) when one lies
 * in the second half of the line, else mid-word; a value (a table cell) breaks only after a
 * separator other than the space and keeps every character, so its lines joined are the value.
 * Wide characters count two.
 */
import {safeText} from './sanitize.js';
import {lazySegmenter} from './segmenter.js';
import {NARROW_TEXT, textWidth} from './width.js';

const graphemes = lazySegmenter();
const BREAK_AFTER = new Set([' ', ',', ':', '/', ';', '-']);
const VALUE_BREAK_AFTER = new Set([',', ':', '/', ';', '-']);

function segmentsOf(text: string): string[] {
	return NARROW_TEXT.test(text) ? [...text] : [...graphemes.segment(text)].map(s => s.segment);
}

/** How many of the segments fit one line of `room` columns, broken where a reader expects it. */
function fits(segments: readonly string[], from: number, room: number, breaks: ReadonlySet<string>): number {
	let used = 0;
	let at = from;
	while (at < segments.length && (at === from || used + textWidth(segments[at]!) <= room)) {
		used += textWidth(segments[at]!);
		at++;
	}

	if (at === segments.length) {
		return at - from;
	}

	let breakAt = -1;
	for (let i = at - 1; i > from; i--) {
		if (breaks.has(segments[i]!)) {
			breakAt = i;
			break;
		}
	}

	return breakAt >= from + Math.floor((at - from) / 2) ? breakAt + 1 - from : at - from;
}

/**
 * The text on lines of at most `width` columns (at least one line); continuation lines are
 * `continuation` columns narrower (for an indent the caller adds).
 */
export function wrapText(raw: string, width: number, continuation = 0, value = false): string[] {
	const text = NARROW_TEXT.test(raw) ? raw : safeText(raw);
	if (textWidth(text) <= Math.max(1, width)) {
		return [text];
	}

	const segments = segmentsOf(text);
	const lines: string[] = [];
	let from = 0;
	while (from < segments.length) {
		const room = Math.max(1, lines.length === 0 ? width : width - continuation);
		let n = fits(segments, from, room, value ? VALUE_BREAK_AFTER : BREAK_AFTER);
		// A value's space never ends a line (a terminal shows no trailing space): it starts the next.
		while (value && n > 1 && from + n < segments.length && segments[from + n - 1] === ' ') {
			n--;
		}

		const line = segments.slice(from, from + n).join('');
		lines.push(value ? line : line.trimEnd());
		from += n;
		while (!value && from < segments.length && segments[from] === ' ') {
			from++;
		}
	}

	return lines;
}

/**
 * Cells side by side, each wrapped as a value within its own width and padded to it, as many
 * lines as the tallest cell needs. The last cell is not padded.
 */
export function wrapRow(cells: ReadonlyArray<{text: string; width: number}>, gap = ' '): string[] {
	const wrapped = cells.map(c => wrapText(c.text, c.width, 0, true));
	const height = Math.max(...wrapped.map(w => w.length));
	const lines: string[] = [];
	for (let i = 0; i < height; i++) {
		lines.push(
			cells
				.map((c, j) => {
					const part = wrapped[j]![i] ?? '';
					return j === cells.length - 1 ? part : part + ' '.repeat(Math.max(0, c.width - textWidth(part)));
				})
				.join(gap)
				.trimEnd(),
		);
	}

	return lines;
}

/** A line wrapped at `width`, its continuation lines indented by `indent` spaces. */
export function wrapIndented(text: string, width: number, indent: number): string[] {
	return wrapText(text, width, indent).map((l, i) => (i === 0 ? l : ' '.repeat(indent) + l));
}
