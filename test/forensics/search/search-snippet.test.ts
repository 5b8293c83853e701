/**
 * The snippet cut from a scanned message (forensics/search/search-snippet.ts): around the first
 * match, every match in the window marked, bounded whatever the message's size.
 */
import {describe, expect, it} from 'vitest';
import {
	ELLIPSIS,
	SNIPPET_CONTEXT,
	SNIPPET_MAX,
	capParts,
	snippetAround,
	splitMarked,
	trimContext,
} from '../../../source/forensics/search/search-snippet.js';

describe('snippets', () => {
	it('cuts around the first match, marks every match in the window, case-insensitively', () => {
		const parts = snippetAround(`${'a '.repeat(100)}the PR got Merged and merged again${' b'.repeat(100)}`, [
			'merged',
		])!;
		expect(parts[0]).toEqual({text: '…', match: false});
		expect(parts.filter(p => p.match).map(p => p.text)).toEqual(['Merged', 'merged']);
		expect(parts.at(-1)).toEqual({text: '…', match: false});
	});

	it('a megabyte on one line gives a bounded snippet', () => {
		const parts = snippetAround(`merged${'z'.repeat(1_000_000)}`, ['merged'])!;
		expect(parts.reduce((n, p) => n + p.text.length, 0)).toBeLessThanOrEqual(SNIPPET_MAX + 2);
	});

	it('a token of thousands of characters around a match is cut to its context', () => {
		const parts = splitMarked(`${'y'.repeat(5000)} <<merged>> ${'z'.repeat(5000)}`, '<<', '>>');
		expect(parts.map(p => p.text.length)).toEqual([61, 6, 61]);
		expect(parts[1]).toEqual({text: 'merged', match: true});
	});

	it('splits snippet() output at its markers only', () => {
		expect(splitMarked('x <<a>> y <<b', '<<', '>>')).toEqual([
			{text: 'x ', match: false},
			{text: 'a', match: true},
			{text: ' y b', match: false},
		]);
	});

	it('no term, or none in the text, is no snippet; a term is matched literally and the longest first', () => {
		expect(snippetAround('anything', [])).toBeNull();
		expect(snippetAround('nothing here', ['merged'])).toBeNull();
		expect(snippetAround('cost (a+b)* here', ['(a+b)*'])).toEqual([
			{text: 'cost ', match: false},
			{text: '(a+b)*', match: true},
			{text: ' here', match: false},
		]);
		expect(snippetAround('the merged PR', ['merge', 'merged'])!.filter(p => p.match)).toEqual([
			{text: 'merged', match: true},
		]);
	});

	it('trimContext keeps the end of the text before the first match and the start of any after', () => {
		const long = 'x'.repeat(SNIPPET_CONTEXT + 5);
		expect(
			trimContext([
				{text: long, match: false},
				{text: 'm', match: true},
				{text: long, match: false},
			]),
		).toEqual([
			{text: `${ELLIPSIS}${'x'.repeat(SNIPPET_CONTEXT)}`, match: false},
			{text: 'm', match: true},
			{text: `${'x'.repeat(SNIPPET_CONTEXT)}${ELLIPSIS}`, match: false},
		]);
	});

	it('capParts cuts a match too, never drops it silently, and says what it left out', () => {
		const capped = capParts([
			{text: 'a'.repeat(SNIPPET_MAX - 2), match: false},
			{text: 'match', match: true},
			{text: 'after', match: false},
		]);
		expect(capped).toEqual([
			{text: 'a'.repeat(SNIPPET_MAX - 2), match: false},
			{text: `ma${ELLIPSIS}`, match: true},
			{text: ELLIPSIS, match: false},
		]);
	});
});
