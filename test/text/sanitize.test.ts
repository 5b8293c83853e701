import stringWidth from 'string-width';
import {describe, expect, it} from 'vitest';
import {pad, table, truncate} from '../../source/text/format.js';
import {escapeCodePoint, safeJson, safeText} from '../../source/text/sanitize.js';
import {textWidth} from '../../source/text/width.js';
import {prng} from '../helpers/prng.js';

/** What must never reach a terminal raw: C0, DEL, C1, line/paragraph separators, format characters, lone surrogates. */
const RAW = /[\u0000-\u001F\u007F-\u009F\u2028\u2029\p{Cf}\p{Cs}]/u;

/** The same, with what safeText deliberately keeps taken out (emoji ZWJ, flag tags, script joiners). */
function rawOutsideKept(text: string): boolean {
	const stripped = text
		.replaceAll(/\u{1F3F4}[\u{E0020}-\u{E007E}]+\u{E007F}/gu, '')
		.replaceAll(/(?<=\p{Extended_Pictographic}[\u{FE0F}\u{1F3FB}-\u{1F3FF}]?)\u200D(?=\p{Extended_Pictographic})/gu, '')
		.replaceAll(
			/(?<=[\p{L}\p{M}])(?<![\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}\p{Script=Inherited}\p{Script=Common}])[\u200C\u200D]/gu,
			'',
		);
	return RAW.test(stripped);
}

describe('safeText', () => {
	it('makes every C0 control, DEL and C1 control a visible escape of its code point', () => {
		for (let cp = 0; cp <= 0x9f; cp++) {
			if (cp >= 0x20 && cp < 0x7f) {
				continue;
			}

			const c = String.fromCodePoint(cp);
			const shown = safeText(`a${c}b`);
			const expected = {9: '\\t', 10: '\\n', 13: '\\r'}[cp] ?? `\\x${cp.toString(16).padStart(2, '0')}`;
			expect([cp, shown]).toEqual([cp, `a${expected}b`]);
		}
	});

	it('defuses CSI, OSC, DCS and C1 sequences: no ESC, BEL or C1 left, the rest readable', () => {
		expect(safeText('\u001B[2J\u001B[Hfake')).toBe('\\x1b[2J\\x1b[Hfake');
		expect(safeText('\u001B]0;title\u0007')).toBe('\\x1b]0;title\\x07');
		expect(safeText('\u001BP+q\u001B\\')).toBe('\\x1bP+q\\x1b\\');
		expect(safeText('\u009B31mred')).toBe('\\x9b31mred');
		expect(safeText('\u009D0;t\u009C')).toBe('\\x9d0;t\\x9c');
	});

	it('makes a one-line refusal stay one line (CR, LF, VT, FF, NEL, LS, PS)', () => {
		const shown = safeText('a\rb\nc\u000Bd\u000Ce\u0085f\u2028g\u2029h');
		expect(shown).toBe('a\\rb\\nc\\x0bd\\x0ce\\x85f\\u2028g\\u2029h');
		expect(shown.split(/[\n\r\v\f\u0085\u2028\u2029]/)).toHaveLength(1);
	});

	it('shows bidi overrides, isolates and marks, and invisible format characters', () => {
		for (const cp of [
			0x20_2a, 0x20_2b, 0x20_2c, 0x20_2d, 0x20_2e, 0x20_66, 0x20_67, 0x20_68, 0x20_69, 0x20_0e, 0x20_0f, 0x06_1c,
			0x20_0b, 0x20_60, 0xfe_ff, 0x00_ad, 0x18_0e,
		]) {
			const c = String.fromCodePoint(cp);
			expect(safeText(`x${c}y`)).toBe(`x${escapeCodePoint(c)}y`);
			expect(escapeCodePoint(c)).toMatch(/^\\(x|u)[0-9a-f]{2,4}$/);
		}

		expect(safeText('invoice\u202Efdp.exe')).toBe('invoice\\u202efdp.exe');
		expect(safeText('tag\u{E0001}\u{E0041}')).toBe('tag\\u{e0001}\\u{e0041}');
		expect(safeText('lone \uD800 and \uDC00')).toBe('lone \\ud800 and \\udc00');
	});

	it('keeps letters of every script, CJK, combining marks and emoji exactly', () => {
		for (const text of [
			'plain ascii · ✓ ✗ → …',
			'中文标题 日本語 한국어',
			'café',
			'e\u0301 a\u0308',
			'Ελληνικά Кириллица',
			'עברית العربية',
			'👩‍💻 dev',
			'👨‍👩‍👧‍👦',
			'🏳️‍🌈',
			'👍🏽',
			'❤️',
			'#️⃣',
			'🇯🇵',
			'🏴󠁧󠁢󠁥󠁮󠁧󠁿',
			'می‌خواهم',
			'क्‍ष',
			'ക്‍',
			'path/with spaces\\and backslash',
		]) {
			expect(safeText(text)).toBe(text);
		}
	});

	it('shows a zero-width joiner that would hide a spoof (between Latin letters, alone, at an end)', () => {
		expect(safeText('ad\u200Dmin')).toBe('ad\\u200dmin');
		expect(safeText('pay\u200Cpal')).toBe('pay\\u200cpal');
		expect(safeText('e\u0301\u200Dx')).toBe('e\u0301\\u200dx');
		expect(safeText('\u200D')).toBe('\\u200d');
		expect(safeText('👍🏽\u200D')).toBe('👍🏽\\u200d');
	});

	it('is idempotent, leaves nothing raw and measures as the text it shows (random texts, fixed seed)', () => {
		const random = prng(17);
		const pool = [
			'\u001B',
			'[',
			'2',
			'J',
			'\u0007',
			'\r',
			'\n',
			'\t',
			'\u007F',
			'\u0085',
			'\u009B',
			'\u202E',
			'\u2066',
			'\u200B',
			'\u200D',
			'\uFEFF',
			'\uD800',
			'a',
			'Z',
			' ',
			'中',
			'😀',
			'👩',
			'e\u0301',
			'\u{E0041}',
			'ش',
			'\\',
		];
		for (let i = 0; i < 3000; i++) {
			const text = Array.from(
				{length: 1 + Math.floor(random() * 12)},
				() => pool[Math.floor(random() * pool.length)],
			).join('');
			const shown = safeText(text);
			expect(safeText(shown), JSON.stringify(text)).toBe(shown);
			expect(rawOutsideKept(shown), JSON.stringify(text)).toBe(false);
			expect(shown.includes('\n') || shown.includes('\u001B'), JSON.stringify(text)).toBe(false);
			expect(textWidth(shown)).toBe(stringWidth(shown));
		}
	});
});

describe('the cells of format.ts measure what they show', () => {
	it('truncate and pad escape first, then cut to the columns', () => {
		expect(truncate('\u001B[2Jx', 20)).toBe('\\x1b[2Jx');
		expect(truncate('\u001B[2Jx', 5)).toBe('\\x1b…');
		expect(pad('a\nb', 6)).toBe('a\\nb  ');
		expect(textWidth(pad('中\u202E文', 10))).toBe(10);
		expect(pad('👩‍💻', 4)).toBe('👩‍💻  ');
	});

	it('a table sizes its columns on the escaped cells, so the rows stay aligned', () => {
		const lines = table(
			[{t: 'ok'}, {t: '\u001B[2J'}],
			[
				{header: 'TITLE', value: r => r.t},
				{header: 'N', value: () => '1'},
			],
		);
		expect(lines[2]).toBe('ok       1');
		expect(lines[3]).toBe('\\x1b[2J  1');
		expect(new Set(lines.map(l => textWidth(l))).size).toBe(1);
	});
});

describe('safeJson', () => {
	it('parses back to the exact strings, and no line holds a raw control, C1 or format character', () => {
		const random = prng(8);
		const pool = [
			'\u001B',
			'\u0007',
			'\r',
			'\n',
			'\u007F',
			'\u009B',
			'\u0085',
			'\u2028',
			'\u2029',
			'\u202E',
			'\u2069',
			'\u200B',
			'\u200D',
			'\uFEFF',
			'\u{E0001}',
			'a',
			'中',
			'👩',
			'💻',
			'"',
			'\\',
			'ش',
		];
		for (let i = 0; i < 1000; i++) {
			const s = Array.from(
				{length: 1 + Math.floor(random() * 10)},
				() => pool[Math.floor(random() * pool.length)],
			).join('');
			const doc = {title: s, nested: [{key: s}], n: i};
			const text = safeJson(doc, 2);
			expect(JSON.parse(text)).toEqual(doc);
			for (const line of text.split('\n')) {
				expect(safeText(line), JSON.stringify(s)).toBe(line);
			}
		}
	});

	it('is JSON.stringify where there is nothing to escape, and null for undefined', () => {
		const doc = {a: [1, 'b', null], c: '中文 👩‍💻 café'};
		expect(safeJson(doc, 2)).toBe(JSON.stringify(doc, null, 2));
		expect(safeJson(doc)).toBe(JSON.stringify(doc));
		expect(safeJson(undefined)).toBe('null');
		// JSON.stringify alone leaves these raw: the reason safeJson exists.
		expect(JSON.stringify('\u009B\u202E')).toBe('"\u009B\u202E"');
		expect(safeJson('\u009B\u202E')).toBe('"\\u009b\\u202e"');
	});
});
