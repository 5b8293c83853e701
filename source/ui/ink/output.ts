/**
 * A cheaper frame builder for Ink's `Output` (ink 6.8.0, pinned).
 *
 * Ink turns every frame into a grid of styled cells and back into ANSI text. Its `get()` spends
 * most of its time and garbage on the way back: for every cell it diffs the previous cell's styles
 * against this cell's with three fresh Sets, even when both are empty (the common case), and it
 * re-tokenizes every line of every frame. On a 140×40 screen that is ~10 ms and ~13 MB of
 * short-lived objects per frame; following a busy agent at ~10 frames/s that garbage dominated
 * the TUI's CPU and resident memory.
 *
 * `installFastOutput()` replaces `Output.prototype.get` with an implementation of the same contract
 * that (1) emits a style change only where the style actually changes, calling the same
 * `diffAnsiCodes`/`ansiCodesToString` Ink uses when it does, and (2) keeps the tokenized lines and
 * string widths across frames (two bounded generations). The result is byte-identical to Ink's own: a randomized
 * equivalence test (test/ui/ink-output.test.ts) compares the two on styled, clipped, transformed and
 * wide-character frames, and the golden frames are rendered through it. It installs only on the
 * Ink version it was written against (`FAST_OUTPUT_INK_VERSION`), compared with the version
 * injected at build time (version.ts); on any other it leaves Ink alone. Upgrading Ink: README.md
 * in this folder.
 */
import {ansiCodesToString, diffAnsiCodes, styledCharsFromTokens, tokenize} from '@alcalzone/ansi-tokenize';
import sliceAnsi from 'slice-ansi';
import InkOutput from 'ink/build/output.js';
import {NARROW_TEXT, textWidth} from '../../text/width.js';
import {INK_VERSION} from './version.js';

type StyledChar = ReturnType<typeof styledCharsFromTokens>[number];
type AnsiCode = StyledChar['styles'][number];
type Clip = {x1?: number; x2?: number; y1?: number; y2?: number};
type Operation =
	| {type: 'write'; x: number; y: number; text: string; transformers: Array<(line: string, index: number) => string>}
	| {type: 'clip'; clip: Clip}
	| {type: 'unclip'};
type OutputLike = {width: number; height: number; operations: Operation[]};
type Get = (this: OutputLike) => {output: string; height: number};

export const FAST_OUTPUT_INK_VERSION = '6.8.0';

/**
 * What is kept across frames, counted in characters of the cached texts: a 140×40 screen is 5,600.
 * Two generations, so what the last frames used stays and one-off texts (a counter that ticks) age
 * out instead of piling up. A cached cell is one small object (see `compact`), so this bounds the
 * cache near 2 × 30,000 × ~50 B ≈ 3 MB.
 */
const GENERATION_CHARS = 30_000;

const NO_STYLES: AnsiCode[] = [];
const BLANK: StyledChar = Object.freeze({type: 'char', value: ' ', fullWidth: false, styles: NO_STYLES}) as StyledChar;

class GenerationalCache<V> {
	private current = new Map<string, V>();
	private previous = new Map<string, V>();
	private chars = 0;

	get(key: string, make: (key: string) => V): V {
		let value = this.current.get(key);
		if (value === undefined) {
			value = this.previous.get(key) ?? make(key);
			if (this.chars + key.length > GENERATION_CHARS) {
				this.previous = this.current;
				this.current = new Map();
				this.chars = 0;
			}

			this.current.set(key, value);
			this.chars += key.length;
		}

		return value;
	}
}

const styledLines = new GenerationalCache<StyledChar[]>();
const widths = new GenerationalCache<number>();

/**
 * The tokenizer's cells are spread copies of its tokens, each with its own property backing store
 * and hidden class (~300 bytes apiece in a heap snapshot). Cached cells are rebuilt as plain
 * four-field literals, and unstyled cells share one empty styles array (cells are never mutated).
 */
function compact(cells: StyledChar[]): StyledChar[] {
	return cells.map(c => ({type: 'char', value: c.value, fullWidth: c.fullWidth, styles: c.styles.length === 0 ? NO_STYLES : c.styles}) as StyledChar);
}

/** A line of narrow text without escapes is one unstyled cell per character: no tokenizer (nor its grapheme segmenter) needed. */
function plainCells(line: string): StyledChar[] {
	const cells: StyledChar[] = [];
	for (const value of line) {
		cells.push({type: 'char', value, fullWidth: false, styles: NO_STYLES} as StyledChar);
	}

	return cells;
}

type Token = ReturnType<typeof tokenize>[number];
const SGR = /\u001B\[[0-9;]*m/g;

/**
 * The tokenizer's tokens for a line whose escapes are all SGR codes and whose text is narrow, or
 * null: each character is an ordinary one-column char token, so only the codes go through the
 * tokenizer (which looks up every character's width and grapheme otherwise).
 */
function narrowStyledTokens(line: string): Token[] | null {
	const tokens: Token[] = [];
	let last = 0;
	const text = (to: number): boolean => {
		const run = line.slice(last, to);
		if (!NARROW_TEXT.test(run)) {
			return false;
		}

		for (const value of run) {
			tokens.push({type: 'char', value, fullWidth: false});
		}

		return true;
	};

	for (const match of line.matchAll(SGR)) {
		if (!text(match.index)) {
			return null;
		}

		tokens.push(...tokenize(match[0]));
		last = match.index + match[0].length;
	}

	return text(line.length) ? tokens : null;
}

function makeStyledChars(line: string): StyledChar[] {
	if (NARROW_TEXT.test(line)) {
		return plainCells(line);
	}

	return compact(styledCharsFromTokens(narrowStyledTokens(line) ?? tokenize(line)));
}

const styledChars = (line: string): StyledChar[] => styledLines.get(line, makeStyledChars);
const widthOf = (text: string): number => widths.get(text, textWidth);

function widestLine(lines: readonly string[]): number {
	let widest = 0;
	for (const line of lines) {
		widest = Math.max(widest, widthOf(line));
	}

	return widest;
}

function sameStyles(a: readonly AnsiCode[], b: readonly AnsiCode[]): boolean {
	if (a === b) {
		return true;
	}

	if (a.length !== b.length) {
		return false;
	}

	for (let i = 0; i < a.length; i++) {
		if (a[i]!.code !== b[i]!.code || a[i]!.endCode !== b[i]!.endCode) {
			return false;
		}
	}

	return true;
}

/** One grid row as ANSI text: style codes only where the style changes, reset at the end. */
export function rowText(cells: ReadonlyArray<StyledChar | undefined>): string {
	let text = '';
	let current: AnsiCode[] = NO_STYLES;
	let any = false;
	for (const cell of cells) {
		if (cell === undefined) {
			continue;
		}

		if (!sameStyles(current, cell.styles)) {
			text += ansiCodesToString(any ? diffAnsiCodes(current, cell.styles) : cell.styles);
		}

		any = true;
		current = cell.styles;
		text += cell.value;
	}

	if (current.length > 0) {
		text += ansiCodesToString(diffAnsiCodes(current, []));
	}

	return text.trimEnd();
}

/** Places one write operation's lines on the grid, clipped by the innermost clip. */
function place(grid: Array<Array<StyledChar | undefined>>, op: Extract<Operation, {type: 'write'}>, clip: Clip | undefined): void {
	let {x, y} = op;
	let lines = op.text.split('\n');
	if (clip) {
		const horizontal = typeof clip.x1 === 'number' && typeof clip.x2 === 'number';
		const vertical = typeof clip.y1 === 'number' && typeof clip.y2 === 'number';
		if (horizontal && (x + widestLine(lines) < clip.x1! || x > clip.x2!)) {
			return;
		}

		if (vertical && (y + lines.length < clip.y1! || y > clip.y2!)) {
			return;
		}

		if (horizontal) {
			const left = clip.x1!;
			const right = clip.x2!;
			lines = lines.map(line => {
				const width = widthOf(line);
				return sliceAnsi(line, x < left ? left - x : 0, x + width > right ? right - x : width);
			});
			x = Math.max(x, left);
		}

		if (vertical) {
			const top = clip.y1!;
			const bottom = clip.y2!;
			lines = lines.slice(y < top ? top - y : 0, y + lines.length > bottom ? bottom - y : lines.length);
			y = Math.max(y, top);
		}
	}

	for (let index = 0; index < lines.length; index++) {
		const row = grid[y + index];
		if (!row) {
			// Rows below the grid: Ink draws nothing there either.
			return;
		}

		let line = lines[index]!;
		for (const transform of op.transformers) {
			line = transform(line, index);
		}

		let column = x;
		for (const cell of styledChars(line)) {
			row[column] = cell;
			const width = Math.max(1, widthOf(cell.value));
			// A wide character owns the next columns: blank them so nothing stale shows through.
			for (let k = 1; k < width; k++) {
				row[column + k] = {type: 'char', value: '', fullWidth: false, styles: cell.styles} as StyledChar;
			}

			column += width;
		}
	}
}

const fastGet: Get = function (this: OutputLike) {
	const grid: Array<Array<StyledChar | undefined>> = [];
	for (let y = 0; y < this.height; y++) {
		grid.push(Array.from<StyledChar | undefined>({length: this.width}).fill(BLANK));
	}

	const clips: Clip[] = [];
	for (const op of this.operations) {
		if (op.type === 'clip') {
			clips.push(op.clip);
		} else if (op.type === 'unclip') {
			clips.pop();
		} else {
			place(grid, op, clips.at(-1));
		}
	}

	return {output: grid.map(row => rowText(row)).join('\n'), height: grid.length};
};

type OutputClass = {prototype: {get: Get}};

let original: Get | undefined;

// Ink exports its Output class only through our patch (ink+6.8.0.patch, beside this file, adds the
// export): a static import, so that the bundle (dist/hfx.js) and plain Node both get the very
// module instance Ink's renderer uses.
const Output = InkOutput as unknown as OutputClass;

/** Ink's own `get`, for the equivalence test (undefined until `installFastOutput` has run). */
export function originalOutputGet(): Get | undefined {
	return original;
}

/**
 * Installs the fast frame builder once; returns false (and changes nothing) on another Ink
 * version. `inkVersion` is the build's (version.ts); a test passes others to check the refusal.
 */
export async function installFastOutput({inkVersion}: {inkVersion: string | undefined} = {inkVersion: INK_VERSION}): Promise<boolean> {
	if (inkVersion !== FAST_OUTPUT_INK_VERSION) {
		return false;
	}

	if (Output.prototype.get !== fastGet) {
		original = Output.prototype.get;
		Output.prototype.get = fastGet;
	}

	return true;
}
