/**
 * source/ui/ink/ink+8.0.0.patch gives Ink's Output a cheaper frame builder (get()) and keeps Ink's
 * own as getInk(). These compare the two byte for byte; on an unpatched Ink there is no getInk and
 * they fail.
 */
import {createRequire} from 'node:module';
import path from 'node:path';
import {pathToFileURL} from 'node:url';
import {beforeAll, describe, expect, it} from 'vitest';
import {prng} from '../helpers/prng.js';

type Output = {
	write(
		x: number,
		y: number,
		text: string,
		options: {transformers: Array<(line: string, index: number) => string>},
	): void;
	clip(clip: {x1?: number; x2?: number; y1?: number; y2?: number}): void;
	unclip(): void;
	get(): {output: string; height: number};
	getInk(): {output: string; height: number};
	operations: Array<{type: string}>;
};
type OutputClass = new (options: {width: number; height: number}) => Output;

let Output: OutputClass;

beforeAll(async () => {
	const entry = createRequire(import.meta.url).resolve('ink');
	Output = ((await import(pathToFileURL(path.join(path.dirname(entry), 'output.js')).href)) as {default: OutputClass})
		.default;
});

const STYLES: Array<[string, string]> = [
	['\u001B[31m', '\u001B[39m'],
	['\u001B[36m', '\u001B[39m'],
	['\u001B[1m', '\u001B[22m'],
	['\u001B[2m', '\u001B[22m'],
	['\u001B[7m', '\u001B[27m'],
	['\u001B[4m', '\u001B[24m'],
	['\u001B[44m', '\u001B[49m'],
	['\u001B[38;5;208m', '\u001B[39m'],
	['\u001B[38;2;10;200;30m', '\u001B[39m'],
];
// Wide (CJK, emoji), narrow non-ASCII, hfx's box and status symbols, and default-ignorable
// characters (zero-width space, soft hyphen, variation selector, word joiner) that take no cell.
const WORDS = [
	'session',
	'telegram:dm:42',
	'798',
	'界面',
	'🙂',
	'zombie',
	' ',
	'  ',
	'ok',
	'—',
	'é',
	'│ ● ✓',
	'a\u200Bb',
	'\u00AD',
	'x\uFE0F',
	'\u2060',
	'👩‍💻',
];

function text(rand: () => number): string {
	const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
	let out = '';
	const parts = 1 + Math.floor(rand() * 8);
	for (let i = 0; i < parts; i++) {
		const word = pick(WORDS);
		const roll = rand();
		if (roll < 0.3) {
			const [open, close] = pick(STYLES);
			out += open + word + close;
		} else if (roll < 0.45) {
			// Nested and unclosed styles: the end-of-row reset must match Ink's.
			const [a] = pick(STYLES);
			const [b, bClose] = pick(STYLES);
			out += a + word + b + pick(WORDS) + bClose;
		} else if (roll < 0.5) {
			out += '\n';
		} else {
			out += word;
		}
	}

	return out;
}

function frame(seed: number): Output {
	const rand = prng(seed);
	const width = 5 + Math.floor(rand() * 60);
	const height = 1 + Math.floor(rand() * 12);
	const output = new Output({width, height});
	const ops = Math.floor(rand() * 25);
	let depth = 0;
	for (let i = 0; i < ops; i++) {
		const roll = rand();
		if (roll < 0.15) {
			const maybe = (n: number) => (rand() < 0.8 ? n : undefined);
			output.clip({
				x1: maybe(Math.floor(rand() * width)),
				x2: maybe(Math.floor(rand() * (width + 5))),
				y1: maybe(Math.floor(rand() * height)),
				y2: maybe(Math.floor(rand() * (height + 3))),
			});
			depth++;
		} else if (roll < 0.25 && depth > 0) {
			output.unclip();
			depth--;
		} else {
			// One function for every frame, as a text node Ink leaves alone keeps its transform from frame to frame.
			const transformers = rand() < 0.2 ? [UPPER] : [];
			output.write(Math.floor(rand() * (width + 4)) - 2, Math.floor(rand() * (height + 2)) - 1, text(rand), {
				transformers,
			});
		}
	}

	return output;
}

const UPPER = (line: string, index: number) => `${index}>${line.toUpperCase()}`;

describe('the patched frame builder for Ink', () => {
	it("is Ink's get(), with Ink's own kept as getInk()", () => {
		const output = new Output({width: 4, height: 2});
		expect(output.getInk).toBeTypeOf('function');
		expect(output.get).not.toBe(output.getInk);
		output.write(0, 0, '\u001B[31mab\u001B[39m\ncd', {transformers: []});
		expect(output.get()).toEqual({output: '\u001B[31mab\u001B[39m\ncd', height: 2});
		expect(output.getInk()).toEqual(output.get());
	});

	it(
		"builds byte-identical frames to Ink's on 3,000 random styled, clipped, " + 'transformed and wide-character frames',
		() => {
			let styled = 0;
			let nested = 0;
			for (let seed = 1; seed <= 3000; seed++) {
				const expected = frame(seed).getInk();
				// Twice: the second frame is built from the caches the first one filled.
				for (const actual of [frame(seed).get(), frame(seed).get()]) {
					if (actual.output !== expected.output || actual.height !== expected.height) {
						expect({seed, ...actual}).toEqual({seed, ...expected});
					}
				}

				styled += expected.output.includes('\u001B[') ? 1 : 0;
				nested += frame(seed).operations.filter(o => o.type === 'clip').length > 1 ? 1 : 0;
			}

			// The generator exercises styles and nested clips in many frames, not just plain text.
			expect(styled).toBeGreaterThan(1500);
			expect(nested).toBeGreaterThan(500);
		},
	);

	it('emits a style once per run of equally styled cells and resets at the end of the row', () => {
		const output = new Output({width: 6, height: 1});
		output.write(0, 0, '\u001B[31ma\u001B[39m\u001B[31mb\u001B[39mc', {transformers: []});
		expect(output.get().output).toBe('\u001B[31mab\u001B[39mc');
	});

	it('takes a write repeated in the next frame as it was, and colours a changed one again (issue #26)', () => {
		let calls = 0;
		const colour = (line: string) => {
			calls++;
			return `\u001B[36m${line}\u001B[39m`;
		};
		const rows = Array.from({length: 30}, (_, i) => `row ${i} ${'·'.repeat(40)} ● the tail past the clip`);
		const build = (changed: number, clipX2: number) => {
			const output = new Output({width: 60, height: 30});
			output.clip({x1: 0, x2: clipX2, y1: 0, y2: 30});
			rows.forEach((row, y) => {
				output.write(0, y, y === changed ? `${row} changed` : row, {transformers: [colour]});
			});
			output.unclip();
			return output;
		};

		const first = build(-1, 50);
		expect(first.get()).toEqual(first.getInk());
		calls = 0;
		const next = build(7, 50);
		const frame = next.get();
		// Only the changed row's line was coloured again: the other 29 writes were taken from the last frame.
		expect(calls).toBe(1);
		calls = 0;
		expect(frame).toEqual(next.getInk());
		const cut = build(7, 40);
		calls = 0;
		const narrower = cut.get();
		expect(calls).toBe(30);
		calls = 0;
		expect(narrower).toEqual(cut.getInk());
	});

	it("gives transformers the line's index in the write, also below a clip", () => {
		const output = new Output({width: 10, height: 3});
		output.clip({y1: 1, y2: 3});
		output.write(0, 0, 'a\nb\nc', {transformers: [(line, index) => `${index}${line}`]});
		expect(output.get().output).toBe('\n1b\n2c');
		expect(output.getInk().output).toBe('\n1b\n2c');
	});
});
