/**
 * Column width of a text for layout. string-width is exact for all of Unicode, but its first call
 * on anything beyond ASCII costs ~50 ms (it compiles Unicode-property regexes and starts the
 * grapheme segmenter), and every frame measures hundreds of texts. Printable ASCII and the few
 * narrow symbols hfx draws are one column per character: those skip it.
 *
 * source/ui/ink/ink+8.0.0.patch gives Ink's frame builder (output.js) the same fast path with this
 * exact pattern; test/text/width.test.ts checks both that string-width agrees on every character
 * of it and that the patched Ink carries the same pattern.
 */
import stringWidth from 'string-width';

/** The characters of NARROW_TEXT, as a regex character-class body. */
export const NARROW_CHARS =
	'\\u0020-\\u007E\\u00A7\\u00B7\\u00D7\\u2013\\u2014\\u2026\\u203A\\u2191-\\u2193\\u2248\\u23CE' +
	'\\u2500\\u2502\\u2514\\u251C\\u258F\\u25A0\\u25A1\\u25B6\\u25B8\\u25BE\\u25C0\\u25CB\\u25CF\\u2713\\u2717';

export const NARROW_TEXT = new RegExp(`^[${NARROW_CHARS}]*$`);

export function textWidth(text: string): number {
	return NARROW_TEXT.test(text) ? text.length : stringWidth(text);
}

/**
 * The width of a text's widest line, as widest-line measures it (string-width per line), with the same fast path.
 * The bundle gives it to Ink's measure-text.js (source/ui/ink/bundle.mjs): Yoga measures every text node of the first
 * frame through it, and the sessions pane's rows (● and · marks) otherwise paid string-width's first non-ASCII call.
 */
export function widestLine(text: string): number {
	let widest = 0;
	for (const line of text.split('\n')) {
		widest = Math.max(widest, textWidth(line));
	}

	return widest;
}
