/**
 * The lazy segmenter the bundle gives Ink's text modules must split exactly as Intl.Segmenter
 * does: iteration (segment, index, input) and containing(), on plain and on any other text.
 */
import {describe, expect, it} from 'vitest';
import {lazySegmenter} from '../../source/text/segmenter.js';
import {NARROW_TEXT} from '../../source/text/width.js';
import {prng} from '../helpers/prng.js';

const intl = new Intl.Segmenter(undefined, {granularity: 'grapheme'});
const plain = (s: Iterable<{segment: string; index: number; input: string}>) =>
	[...s].map(({segment, index, input}) => ({segment, index, input}));

/** Every character the fast path takes, and some it must not (CR, combining marks, emoji, CJK). */
const SIMPLE_CHARS = [
	'\t',
	'\n',
	'\u001B',
	...Array.from({length: 0x3000}, (_, i) => String.fromCharCode(i)).filter(c => NARROW_TEXT.test(c)),
];
const OTHER = [
	'\r',
	'\r\n',
	'e\u0301',
	'\u0301',
	'👍🏽',
	'🇫🇷',
	'部署',
	'\u200D',
	'\uFE0F',
	'\u00AD',
	'\u0000',
	'\u007F',
	'\uD83D',
];

describe('lazySegmenter', () => {
	it('takes every printable ASCII character and every narrow symbol hfx draws', () => {
		// The fast path must cover what a frame is made of, or it never runs.
		expect(SIMPLE_CHARS.length).toBeGreaterThan(95 + 3);
		const s = lazySegmenter(undefined, {granularity: 'grapheme'});
		const line = `\u001B[1m› ●\u001B[22m ${SIMPLE_CHARS.join('')}`;
		expect(s.segment(line).constructor.name).toBe('UnitSegments');
		expect(s.segment(`a\rb`).constructor.name).not.toBe('UnitSegments');
	});

	it('splits random texts exactly as Intl.Segmenter does (iteration and containing)', () => {
		const random = prng(29);
		const s = lazySegmenter(undefined, {granularity: 'grapheme'});
		const pick = (list: readonly string[]) => list[Math.floor(random() * list.length)]!;
		for (let n = 0; n < 2000; n++) {
			let text = '';
			const length = Math.floor(random() * 40);
			const mixed = n % 3 === 0;
			for (let i = 0; i < length; i++) {
				text += mixed && random() < 0.2 ? pick(OTHER) : pick(SIMPLE_CHARS);
			}

			const ours = s.segment(text);
			const theirs = intl.segment(text);
			expect(plain(ours), JSON.stringify(text)).toEqual(plain(theirs));
			for (const index of [
				-1,
				0,
				Number.NaN,
				1.7,
				Math.floor(length / 2),
				text.length - 1,
				text.length,
				text.length + 3,
			]) {
				const a = ours.containing(index);
				const b = theirs.containing(index);
				expect(a && {segment: a.segment, index: a.index, input: a.input}, `${JSON.stringify(text)} @${index}`).toEqual(
					b && {segment: b.segment, index: b.index, input: b.input},
				);
			}
		}
	});

	it('hands word and sentence segmenters to Intl unchanged', () => {
		const words = lazySegmenter('en', {granularity: 'word'});
		expect(plain(words.segment('ab cd'))).toEqual(
			plain(new Intl.Segmenter('en', {granularity: 'word'}).segment('ab cd')),
		);
		expect(words.segment('ab cd').constructor.name).not.toBe('UnitSegments');
	});
});
