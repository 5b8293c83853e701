/**
 * Text cells are measured in terminal columns, not UTF-16 code units: a CJK or emoji title
 * (Hermes titles are whatever the user wrote) must not push the next column out of line.
 */
import stringWidth from 'string-width';
import {describe, expect, it} from 'vitest';
import {count, grouped, pad, table, truncate} from '../../source/text/format.js';

describe('cells in terminal columns', () => {
	it('pads narrow text as before', () => {
		expect(pad('abc', 5)).toBe('abc  ');
		expect(pad('abc', 5, 'right')).toBe('  abc');
		expect(truncate('abcdef', 4)).toBe('abc…');
		expect(truncate('abcdef', 1)).toBe('…');
		expect(truncate('abc', 0)).toBe('');
	});

	it('pads and cuts wide characters by their display width', () => {
		const title = '🚀 部署 check';
		expect(stringWidth(title)).toBe(13);
		expect(pad(title, 19)).toBe(`${title}      `);
		expect(stringWidth(pad(title, 19))).toBe(19);
		expect(truncate('部署部署部署', 5)).toBe('部署…');
		expect(stringWidth(pad('部署部署部署', 6))).toBe(6);
		// A cut never splits a character cluster (a family emoji is one cluster of seven code points).
		expect(truncate('👨‍👩‍👧 family', 3)).toBe('👨‍👩‍👧…');
		expect(truncate('👨‍👩‍👧family', 2)).toBe('…');
		expect(pad('部署', 6, 'right')).toBe('  部署');
	});

	it('keeps table columns aligned around wide cells', () => {
		const lines = table(
			[
				{a: '部署 done', b: 'x'},
				{a: 'plain', b: 'y'},
			],
			[
				{header: 'what', value: r => r.a},
				{header: 'v', value: r => r.b},
			],
		);
		const at = (line: string, text: string) => stringWidth(line.slice(0, line.lastIndexOf(text)));
		expect(at(lines[2]!, 'x')).toBe(at(lines[0]!, 'v'));
		expect(at(lines[3]!, 'y')).toBe(at(lines[0]!, 'v'));
	});
});

describe('count', () => {
	it('writes a count in at most five characters, rounding up to the next unit rather than past it', () => {
		expect([0, 999, 1000, 1549, 9_949, 9_950, 746_012, 999_499, 999_500, 1_234_567, 12_345_678].map(count)).toEqual([
			'0',
			'999',
			'1.0k',
			'1.5k',
			'9.9k',
			'10k',
			'746k',
			'999k',
			'1.0M',
			'1.2M',
			'12.3M',
		]);
	});
});

describe('grouped', () => {
	// The reference is ICU itself, in this test process: grouped must write what toLocaleString('en-US') writes.
	const reference = (n: number) => n.toLocaleString('en-US');

	it("writes what toLocaleString('en-US') writes, edge cases", () => {
		const edges = [
			0,
			-0,
			1,
			-1,
			12,
			999,
			1000,
			-1000,
			1234,
			746_012,
			999_999,
			1e6,
			2 ** 53,
			2 ** 53 + 2,
			1e20,
			1e21,
			1.5e22,
			-1e21,
			0.1,
			1.5,
			2.0005,
			2.0004,
			0.0005,
			0.0004,
			-0.0004,
			1234.5678,
			999.9995,
			1e-7,
			-1e-7,
			5e-324,
			Number.MAX_VALUE,
			Number.NaN,
			Number.POSITIVE_INFINITY,
			Number.NEGATIVE_INFINITY,
		];
		expect(edges.map(n => grouped(n))).toEqual(edges.map(n => reference(n)));
	});

	it("writes what toLocaleString('en-US') writes, 20,000 seeded integers and fractions", () => {
		let seed = 26;
		const random = () => {
			seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
			return seed / 2 ** 31;
		};

		const values = Array.from({length: 10_000}, () => {
			const magnitude = 10 ** Math.floor(random() * 22);
			return [Math.floor(random() * magnitude) * (random() < 0.2 ? -1 : 1), random() * 10 ** Math.floor(random() * 16)];
		}).flat();
		const wrong = values.filter(n => grouped(n) !== reference(n));
		expect(wrong.map(n => [n, grouped(n), reference(n)])).toEqual([]);
	});
});
