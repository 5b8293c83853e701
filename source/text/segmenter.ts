/**
 * Grapheme segmenters built on first need. Ink's text modules (string-width, slice-ansi,
 * ansi-tokenize) each build an `Intl.Segmenter` when they load; the first one costs ~15 ms of ICU
 * data, and the frame builder tokenizes every coloured line through one. The bundle hands those
 * modules this instead (scripts/bundle.mjs), and format.ts's truncate uses it too, so that:
 *
 * - a text made only of characters that are each a grapheme of their own (printable ASCII, tab,
 *   line feed, ESC and the narrow symbols hfx draws: see SIMPLE) is split one UTF-16 unit per
 *   segment, as ICU would split it, without ICU;
 * - anything else goes to a real `Intl.Segmenter`, built on its first use.
 *
 * Why those characters stand alone (Unicode UAX #29): none is Extend, ZWJ, SpacingMark, Prepend or
 * a regional indicator, and the only pair rule among controls joins CR LF (CR is left out). All are
 * in the BMP, so one code point is one UTF-16 unit. test/text/segmenter.test.ts compares both ways.
 */
import {NARROW_CHARS} from './width.js';

const SIMPLE = new RegExp(`^[\\t\\n\\u001B${NARROW_CHARS}]*$`);

type Segment = {segment: string; index: number; input: string};

/** The same iteration and `containing()` as Intl's Segments, one UTF-16 unit per segment. */
class UnitSegments implements Iterable<Segment> {
	constructor(private readonly text: string) {}

	containing(index = 0): Segment | undefined {
		// ToIntegerOrInfinity, as Intl does: NaN is 0.
		const n = Number(index);
		const i = Number.isNaN(n) ? 0 : Math.trunc(n);
		return i >= 0 && i < this.text.length ? {segment: this.text[i]!, index: i, input: this.text} : undefined;
	}

	*[Symbol.iterator](): Iterator<Segment> {
		const {text} = this;
		for (let i = 0; i < text.length; i++) {
			yield {segment: text[i]!, index: i, input: text};
		}
	}
}

export type LazySegmenter = {
	segment(text: string): Iterable<Segment> & {containing(index?: number): Segment | undefined};
};

export function lazySegmenter(locales?: string | string[], options?: Intl.SegmenterOptions): LazySegmenter {
	let built: Intl.Segmenter | undefined;
	const graphemes = (options?.granularity ?? 'grapheme') === 'grapheme';
	return {
		segment(text: string) {
			const input = String(text);
			if (graphemes && SIMPLE.test(input)) {
				return new UnitSegments(input);
			}

			built ??= new Intl.Segmenter(locales, options);
			return built.segment(input);
		},
	};
}
