/**
 * The streamed JSON document (issue #26): its pieces, joined, are byte for byte `safeJson(value, 2)`,
 * the whole-document string `hfx scan --json` printed before, and no piece holds a whole large array.
 */
import {describe, expect, it} from 'vitest';
import {eachStreamed, jsonChunks, thenFields} from '../../source/text/json-chunks.js';
import {safeJson} from '../../source/text/sanitize.js';
import {prng} from '../helpers/prng.js';

const joined = (value: unknown): string => [...jsonChunks(value)].join('');

/** Strings a store can hold: controls, C1, bidi and format characters, emoji sequences, a lone surrogate. */
const ODD = [
	'plain',
	'',
	'tab\tnew\nline\r',
	'\u001B[31mred\u001B[0m',
	'c1 \u009B2J',
	'rtl \u202Eevil\u202C',
	'line sep \u2028 para \u2029',
	'family 👨\u200D👩\u200D👧',
	'flag 🏴\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}',
	'\u200Dleading joiner',
	'മലയാളം\u200D',
	'lone \uD800 surrogate',
	'quote " backslash \\',
];

function randomValue(next: () => number, depth: number): unknown {
	const pick = Math.floor(next() * (depth > 3 ? 6 : 9));
	const leaves = [
		() => ODD[Math.floor(next() * ODD.length)],
		() => Math.floor(next() * 1e6) / 7,
		() => null,
		() => next() < 0.5,
		() => undefined,
		() => Number.NaN,
	];
	if (pick < leaves.length) {
		return leaves[pick]!();
	}

	const n = Math.floor(next() * 4);
	if (pick === 6) {
		return Array.from({length: n}, () => randomValue(next, depth + 1));
	}

	const entries = Array.from({length: n}, (_, i) => [`${ODD[i % ODD.length]}${i}`, randomValue(next, depth + 1)]);
	return pick === 7 ? Object.fromEntries(entries) : eachStreamed([Object.fromEntries(entries)]);
}

describe('jsonChunks', () => {
	it('joins to exactly safeJson(value, 2) for the shapes of the documents', () => {
		const cases: unknown[] = [
			{},
			[],
			null,
			'a string',
			42,
			{a: [], b: {}, c: [[], [{}]], d: {e: {f: [1, 'x', null]}}},
			{skipped: undefined, fn: () => 1, kept: 1, inArray: [undefined, () => 1, Symbol('s')]},
			{date: new Date(0), withToJSON: {toJSON: (key: string) => ({key})}, nested: [{toJSON: () => 'x'}]},
			{boxed: [new Number(1), new String('s'), new Boolean(false)], nan: Number.NaN, inf: -Infinity, zero: -0},
			{[ODD[3]!]: ODD, rows: ODD.map(text => ({text, list: [text, {deeper: text}]}))},
			{profiles: eachStreamed([{orphans: [{id: 'a'}, {id: 'b'}]}, {error: {line: ODD[4]}}]), exitCode: 2},
		];
		for (const value of cases) {
			expect(joined(value)).toBe(safeJson(value, 2));
		}
	});

	it('joins to exactly safeJson(value, 2) for 500 seeded random documents', () => {
		const next = prng(26);
		for (let i = 0; i < 500; i++) {
			const value = {top: randomValue(next, 0), list: [randomValue(next, 0), randomValue(next, 0)]};
			expect(joined(value), `document ${i}`).toBe(safeJson(value, 2));
		}
	});

	it('writes a large array in runs of elements: no piece holds the array', () => {
		const rows = Array.from({length: 5000}, (_, i) => ({orphanId: `row-${i}`, reason: 'keyless', candidates: [i]}));
		const pieces = [...jsonChunks({summary: {rows: rows.length}, orphans: rows})];
		const whole = safeJson(rows, 2).length;
		expect(pieces.length).toBeGreaterThan(rows.length / 256);
		expect(Math.max(...pieces.map(p => p.length))).toBeLessThan(whole / 15);
	});

	it('writes runs across their edges, toJSON elements (given their index) and thenFields ones as before', () => {
		const list = Array.from({length: 900}, (_, i) => {
			if (i % 97 === 5) {
				return {toJSON: (key: string) => ({key, odd: ODD[i % ODD.length]})};
			}

			return i === 300 ? thenFields({at: i}, () => ({later: [i]})) : {i, text: ODD[i % ODD.length], nested: [[i]]};
		});
		const expected = list.map((item, i) => (i === 300 ? {at: 300, later: [300]} : item));
		expect(joined({deep: {list, tail: [undefined, () => 1]}})).toBe(
			safeJson({deep: {list: expected, tail: [null, null]}}, 2),
		);
		expect(joined(list.slice(0, 256))).toBe(safeJson(list.slice(0, 256), 2));
	});

	it('streams the elements of an array marked eachStreamed field by field, others whole', () => {
		const profile = {orphans: Array.from({length: 100}, (_, i) => ({id: i}))};
		const marked = [...jsonChunks({profiles: eachStreamed([profile])})];
		const unmarked = [...jsonChunks({profiles: [profile]})];
		expect(marked.some(p => p.includes('"orphans"') && p.includes('"id": 0'))).toBe(false);
		expect(unmarked.some(p => p.includes('"orphans"') && p.includes('"id": 99'))).toBe(true);
		expect(marked.join('')).toBe(unmarked.join(''));
	});

	it('writes a thenFields object as one object, its rest made only once its head is out, after an empty piece', () => {
		const made: string[] = [];
		const doc = thenFields({database: {path: 'a'}, rules: 'v30'}, () => {
			made.push('rest');
			return thenFields({summary: {orphans: 1}, skipped: undefined}, () => ({exitCode: 1}));
		});
		const pieces: string[] = [];
		for (const piece of jsonChunks(doc)) {
			if (made.length === 0) {
				pieces.push(piece);
			}
		}

		expect(made).toEqual(['rest']);
		// Before the rest was made: the head, then the empty piece that asks the writer to send it.
		expect(pieces.join('')).toBe('{\n  "database": {\n    "path": "a"\n  },\n  "rules": "v30"');
		expect(pieces.at(-1)).toBe('');
		const whole = {database: {path: 'a'}, rules: 'v30', summary: {orphans: 1}, exitCode: 1};
		expect(joined(doc)).toBe(safeJson(whole, 2));
	});

	it('chains a thenFields head with its own rest, and walks thenFields elements of any array', () => {
		const head = thenFields({a: 1}, () => ({b: [2]}));
		expect(joined(thenFields(head, () => ({c: 3})))).toBe(safeJson({a: 1, b: [2], c: 3}, 2));
		expect(joined({list: [thenFields({}, () => ({x: 'y'})), 4]})).toBe(safeJson({list: [{x: 'y'}, 4]}, 2));
		expect(joined(thenFields({}, () => ({})))).toBe('{}');
	});
});
