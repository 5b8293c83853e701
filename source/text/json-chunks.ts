/**
 * A JSON document in pieces, as it is made (issue #26: `hfx scan --json` streamed): joined, the
 * pieces are exactly `safeJson(value, 2)` (text/sanitize.ts), so the output is byte for byte the
 * whole-document string it replaces, while no string of the whole document is ever held.
 *
 * A plain object is written field by field and an array element by element; each array element
 * is written whole (one `safeJson` of it, its lines indented to where it sits), unless the array
 * was marked with `eachStreamed` (its elements are documents of their own, such as the profiles
 * of `hfx scan --json`). A value with `toJSON` is replaced by its answer first, as JSON.stringify
 * does, and what JSON leaves out is left out (null in an array). The pieces are made safe one
 * by one: `safeJson` escapes character by character inside strings, and a string is never split
 * between two pieces.
 *
 * An object made with `thenFields(head, rest)` is written as one object, head's fields and then rest's, and `rest`
 * is called only when the writer reaches it: what hangs on a long computation (`hfx scan`'s analysis) comes after
 * the fields known before it, and an empty piece ('') just before the call tells the writer to send what it holds
 * first (ground/io.ts), so the first bytes are out while the rest is computed.
 */
import {safeJson} from './sanitize.js';

const INDENT = '  ';

/** Arrays whose elements are written field by field too, not whole. */
const STREAMED = new WeakSet<object>();

/** Marks an array whose elements are large documents of their own: each is streamed, not written whole. */
export function eachStreamed<T>(items: T[]): T[] {
	STREAMED.add(items);
	return items;
}

/** The fields of a `thenFields` object made when the writer reaches them (a symbol: JSON.stringify never sees it). */
const REST = Symbol('rest');

type Fields = Record<string, unknown>;

/**
 * One object for the writer: `head`'s fields, then those of `rest()` (called once, when the writer has written the
 * head). `head` and what `rest` returns may be `thenFields` objects themselves: their tails are put off in turn.
 */
export function thenFields(head: Fields, rest: () => Fields): Fields {
	const headRest = restOf(head);
	// A head that is a thenFields object itself: its own rest, then this one.
	const after = headRest ? () => thenFields(headRest(), rest) : rest;
	return Object.defineProperty({...head}, REST, {value: after, enumerable: false});
}

function restOf(value: object): (() => Fields) | undefined {
	return (value as {[REST]?: () => Fields})[REST];
}

/** What JSON.stringify writes for `value` under `key`: its toJSON's answer when it has one. */
function resolved(value: unknown, key: string): unknown {
	const toJSON = (value as {toJSON?: unknown} | null | undefined)?.toJSON;
	return typeof value === 'object' && value !== null && typeof toJSON === 'function'
		? (toJSON as (key: string) => unknown).call(value, key)
		: value;
}

/** An object or array JSON.stringify walks key by key (a boxed primitive it writes as its value). */
function walkable(value: unknown): value is Record<string, unknown> | unknown[] {
	return (
		typeof value === 'object' &&
		value !== null &&
		!(value instanceof Number || value instanceof String || value instanceof Boolean)
	);
}

/** What JSON leaves out of an object (and writes as null in an array). */
function omitted(value: unknown): boolean {
	return value === undefined || typeof value === 'function' || typeof value === 'symbol';
}

/**
 * One value written whole at `at` (the indentation of its line), already resolved. Inside `at.length / 2` arrays of
 * one element, JSON.stringify indents its lines already: the wrapper's brackets are cut off instead of re-indenting
 * the text with a replaceAll of '\n' (issue #26: ~100 ms of CPU for the bench store's 6.9 MB, measured). A value with
 * a toJSON of its own takes the old path, since inside a wrapper its toJSON would get the key '0', not ''.
 */
function whole(value: unknown, at: string): string {
	if (at === '') {
		return safeJson(value, 2);
	}

	if (typeof (value as {toJSON?: unknown} | null)?.toJSON === 'function') {
		return safeJson(value, 2).replaceAll('\n', `\n${at}`);
	}

	const depth = at.length / INDENT.length;
	let wrapped = value;
	for (let i = 0; i < depth; i++) {
		wrapped = [wrapped];
	}

	// Before the value, for each level j from 1: `[`, `\n` and 2j spaces; after it, from the deepest: `\n`, 2(j - 1)
	// spaces and `]`.
	const text = safeJson(wrapped, 2);
	return text.slice(depth * (depth + 1) + 2 * depth, text.length - depth * (depth - 1) - 2 * depth);
}

/**
 * Elements of an array written whole by one `safeJson` of up to this many of them (issue #26: one stringify, one
 * unsafe-character test and one re-indentation per run instead of per element).
 */
const RUN = 256;

/** An element JSON.stringify writes as the per-element path does: no toJSON (it gets its index), no rest. */
function plain(element: unknown): boolean {
	return (
		typeof element !== 'object' ||
		element === null ||
		(typeof (element as {toJSON?: unknown}).toJSON !== 'function' && restOf(element) === undefined)
	);
}

/** Where the run of plain elements starting at `from` ends (at most RUN of them). */
function runEnd(value: unknown[], from: number): number {
	let end = from;
	while (end < value.length && end - from < RUN && plain(value[end])) {
		end++;
	}

	return end;
}

function* objectChunks(value: Fields, at: string): Generator<string> {
	const inner = at + INDENT;
	let first = true;
	for (let fields: Fields | undefined = value; fields !== undefined; ) {
		for (const key of Object.keys(fields)) {
			const field = resolved(fields[key], key);
			if (omitted(field)) {
				continue;
			}

			yield `${first ? '{' : ','}\n${inner}${safeJson(key)}: `;
			first = false;
			yield* valueChunks(field, inner, false);
		}

		const rest = restOf(fields);
		if (rest) {
			// What is made goes out before the rest is computed.
			yield '';
		}

		fields = rest?.();
	}

	yield first ? '{}' : `\n${at}}`;
}

function* arrayChunks(value: unknown[], at: string): Generator<string> {
	if (value.length === 0) {
		yield '[]';
		return;
	}

	const inner = at + INDENT;
	const streamed = STREAMED.has(value);
	for (let i = 0; i < value.length; ) {
		const end = streamed ? i : runEnd(value, i);
		if (end > i) {
			// `[\n<inner>a,\n<inner>b\n<at>]`: the run's elements as they sit in the whole array, without its brackets.
			const text = whole(i === 0 && end === value.length ? value : value.slice(i, end), at);
			yield (i === 0 ? '[' : ',') + text.slice(1, text.length - at.length - 2);
			i = end;
			continue;
		}

		yield `${i === 0 ? '[' : ','}\n${inner}`;
		yield* valueChunks(resolved(value[i], String(i)), inner, !streamed);
		i++;
	}

	yield `\n${at}]`;
}

function* valueChunks(value: unknown, at: string, asWhole: boolean): Generator<string> {
	if (omitted(value)) {
		yield 'null';
	} else if (!walkable(value) || (asWhole && restOf(value) === undefined)) {
		yield whole(value, at);
	} else if (Array.isArray(value)) {
		yield* arrayChunks(value, at);
	} else {
		yield* objectChunks(value, at);
	}
}

/**
 * The pieces of `safeJson(value, 2)`, in order (no final newline); an empty piece where a `thenFields` object's
 * rest is about to be computed.
 */
export function jsonChunks(value: unknown): Generator<string> {
	return valueChunks(resolved(value, ''), '', false);
}
