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

function* objectChunks(value: Record<string, unknown>, at: string): Generator<string> {
	const inner = at + INDENT;
	let first = true;
	for (const key of Object.keys(value)) {
		const field = resolved(value[key], key);
		if (omitted(field)) {
			continue;
		}

		yield `${first ? '{' : ','}\n${inner}${safeJson(key)}: `;
		first = false;
		yield* valueChunks(field, inner, false);
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
	} else if (asWhole || !walkable(value)) {
		yield whole(value, at);
	} else if (Array.isArray(value)) {
		yield* arrayChunks(value, at);
	} else {
		yield* objectChunks(value, at);
	}
}

/** The pieces of `safeJson(value, 2)`, in order (no final newline). */
export function jsonChunks(value: unknown): Generator<string> {
	return valueChunks(resolved(value, ''), '', false);
}
