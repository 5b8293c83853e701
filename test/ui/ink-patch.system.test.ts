/**
 * source/ui/ink/ink+8.0.0.patch (applied by `npm install` through patch-package) gives Ink's Output
 * a cheaper frame builder: get(), with Ink's own kept as getInk() and chosen by HFX_INK_OUTPUT=ink.
 * Its byte-for-byte equivalence is test/ui/ink-output.test.ts; these check the switch and that its
 * caches, which outlive a frame, stay bounded. They fail on an unpatched Ink.
 */
import {spawnSync} from 'node:child_process';
import {createRequire} from 'node:module';
import path from 'node:path';
import {pathToFileURL} from 'node:url';
import v8 from 'node:v8';
import vm from 'node:vm';
import {beforeAll, describe, expect, it} from 'vitest';

type Output = {
	write(x: number, y: number, text: string, options: {transformers: []}): void;
	get(): {output: string; height: number};
	getInk(): {output: string; height: number};
};
type OutputClass = new (options: {width: number; height: number}) => Output;

const outputUrl = pathToFileURL(
	path.join(path.dirname(createRequire(import.meta.url).resolve('ink')), 'output.js'),
).href;
let Output: OutputClass;

beforeAll(async () => {
	Output = ((await import(outputUrl)) as {default: OutputClass}).default;
});

function collectGarbage(): void {
	v8.setFlagsFromString('--expose-gc');
	(vm.runInNewContext('gc') as () => void)();
}

/** Which builder get() runs in a fresh Node with `env`: getInk is replaced on the instance to tell. */
function builderUnder(env: NodeJS.ProcessEnv): string {
	const script = `const {default: Output} = await import(${JSON.stringify(outputUrl)});
const output = new Output({width: 3, height: 1});
output.write(0, 0, 'abc', {transformers: []});
output.getInk = () => ({output: 'ink', height: 1});
console.log(output.get().output);`;
	const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
		encoding: 'utf8',
		env: {...process.env, HFX_INK_OUTPUT: undefined, ...env},
	});
	expect(run.stderr).toBe('');
	return run.stdout.trim();
}

/**
 * The heap one frame of 200 lines keeps (after a full GC, before and after), in a fresh Node (empty caches): line `i`
 * is the JavaScript expression `line`; the frame must hold `last` (what line 199 draws), or the figure is no frame's.
 */
function heapKeptByFrame(line: string, width: number, last: string): number {
	const script = `const {default: Output} = await import(${JSON.stringify(outputUrl)});
const lines = Array.from({length: 200}, (_, i) => ${line});
gc();
const before = process.memoryUsage().heapUsed;
const output = new Output({width: ${width}, height: 200});
lines.forEach((line, y) => output.write(0, y, line, {transformers: []}));
const frame = output.get().output;
gc();
console.log(frame.includes(${JSON.stringify(last)}) ? process.memoryUsage().heapUsed - before : -1);`;
	const run = spawnSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], {
		encoding: 'utf8',
		env: {...process.env, HFX_INK_OUTPUT: undefined},
	});
	expect(run.stderr).toBe('');
	const grown = Number(run.stdout.trim());
	expect(grown).toBeGreaterThan(0);
	return grown;
}

/**
 * How much the heap grew, after a full GC, between frame 1,000 and frame 5,000 of an Ink render in a fresh Node (empty
 * caches) of a 140-column screen of 31 lines whose header and one row change at every frame, as hfx's header and busy
 * row do following a store. Each changed text is ~400 characters with a non-ASCII one (two bytes a character).
 */
function heapGrownOverFrames(): number {
	const require = createRequire(import.meta.url);
	const script = `const React = (await import(${JSON.stringify(pathToFileURL(require.resolve('react')).href)})).default;
const {render, Box, Text} = await import(${JSON.stringify(pathToFileURL(require.resolve('ink')).href)});
const {Writable} = await import('node:stream');
const h = React.createElement;
const stdout = Object.assign(new Writable({write: (_c, _e, done) => done()}), {columns: 140, rows: 40});
const row = '\u25CF ' + 'a session title, cut to the pane '.repeat(12);
const screen = i => h(Box, {flexDirection: 'column', width: 140},
  h(Text, {wrap: 'truncate'}, \`header \${i} \${row}\`),
  ...Array.from({length: 30}, (_, r) => h(Text, {key: r, wrap: 'truncate', color: r % 2 ? 'green' : undefined},
    r === 3 ? \`\${row}\${i}\` : \`\${row}row \${r}\`)));
const app = render(screen(0), {stdout, debug: true, patchConsole: false, exitOnCtrlC: false});
const heap = () => { gc(); gc(); return process.memoryUsage().heapUsed; };
let before = 0;
for (let i = 1; i <= 5000; i++) {
  app.rerender(screen(i));
  if (i % 10 === 0) await new Promise(resolve => setImmediate(resolve));
  if (i === 1000) before = heap();
}
console.log(heap() - before);
app.unmount();`;
	const run = spawnSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], {
		encoding: 'utf8',
		env: {...process.env, HFX_INK_OUTPUT: undefined, CI: undefined},
	});
	expect(run.stderr).toBe('');
	expect(run.stdout.trim()).toMatch(/^-?\d+$/);
	return Number(run.stdout.trim());
}

describe('the Ink patch', () => {
	it("builds frames with its own builder, and with Ink's own (getInk) under HFX_INK_OUTPUT=ink", () => {
		expect(builderUnder({})).toBe('abc');
		expect(builderUnder({HFX_INK_OUTPUT: 'ink'})).toBe('ink');
	});

	it('keeps one cell object per narrow character, not one per character of every line it caches', () => {
		// Issue #26: the caches hold up to 60,000 characters of lines; a cell object for each was ~46,000 objects (~2.5
		// MB) of hfx's heap following a busy store. 200 lines of 125 ASCII characters.
		const grown = heapKeptByFrame("String(i).padStart(5, '0') + 'abcdefghij'.repeat(12)", 125, '00199abc');
		// 25,000 characters cached: with a cell object each the frame kept 1.8 MB, with shared cells 0.4 MB (the lines'
		// arrays, the frame, the grid).
		expect(grown).toBeLessThan(25_000 * 32);
	});

	it('keeps one cell object per styled character and style, not one per character of each styled line cached', () => {
		// Issue #26: a styled line (a list row in colour) was ~140 cell objects and ~140 styles arrays of its own; cached
		// for seconds, they outlived two scavenges and were most of what the old generation gained between mark-compacts
		// following a busy store. 200 rows of 125 characters in two colours and bold.
		const line = [
			String.raw`'\u001B[32m'`,
			"String(i).padStart(5, '0')",
			String.raw`'\u001B[39m \u001B[1m'`,
			"'abcdefghij'.repeat(12)",
			String.raw`'\u001B[22m'`,
		].join(' + ');
		const grown = heapKeptByFrame(line, 126, '\u001B[32m00199');
		// 25,200 styled characters cached: a cell and a styles array each kept 3.6 MB; shared, 0.71-0.78 MB (Node 22 and
		// 24): the lines' arrays of shared cells, the rows' text, the frame and the grid.
		expect(grown).toBeLessThan(25_200 * 48);
	});

	it('bounds the caches its frames share', () => {
		collectGarbage();
		const before = process.memoryUsage().heapUsed;
		const filler = 'x'.repeat(10_000);
		for (let i = 0; i < 2000; i++) {
			// 2,000 frames of distinct 10 kB lines, plain and styled: ~300 MB of cells if every one were kept.
			const output = new Output({width: 40, height: 2});
			output.write(0, 0, `${i}${filler}`, {transformers: []});
			output.write(0, 1, `\u001B[31m${i}\u001B[39m${filler.slice(0, 2000)}é`, {transformers: []});
			expect(output.get().output.startsWith(String(i))).toBe(true);
		}

		collectGarbage();
		const grownMb = (process.memoryUsage().heapUsed - before) / 1e6;
		expect(grownMb).toBeLessThan(60);
	});
	it("keeps the heap level while a line changes at every frame (Ink's text caches bounded by what they hold)", () => {
		// Ink's measure-text, wrap-text and the builder's width cache were QuickLRUs of 4,096 entries (up to 8,192 kept):
		// 4,000 frames of two new texts each grew the heap 5.7-7.5 MB; bounded by characters, it did not grow (-1.6 MB).
		expect(heapGrownOverFrames() / 1e6).toBeLessThan(1.5);
	}, 60_000);
});
