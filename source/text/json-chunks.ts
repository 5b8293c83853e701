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

/** One value written whole at `at` (the indentation of its line), already resolved. */
function whole(value: unknown, at: string): string {
	return safeJson(value, 2).replaceAll('\n', `\n${at}`);
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
	const inner = at + INDENT;
	const streamed = STREAMED.has(value);
	for (const [i, element] of value.entries()) {
		yield `${i === 0 ? '[' : ','}\n${inner}`;
		yield* valueChunks(resolved(element, String(i)), inner, !streamed);
	}

	yield value.length === 0 ? '[]' : `\n${at}]`;
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
