/**
 * The regular expressions of meow's case helpers (camelcase, decamelize), made cheap for ASCII
 * text. scripts/meow-plugin.mjs rewrites every `\p{…}` regex of meow's dependencies.js, and every
 * `new RegExp(…)` there, into a call of meowRegExp below; only the bin (dist/hfx.js) carries the
 * rewrite.
 *
 * Why (measured): V8 builds a Unicode property class (`\p{Lu}`, `\p{Alpha}`…) from ICU tables,
 * looking each property name up and canonicalising thousands of ranges, each time it parses or
 * compiles one, and it parses a regex literal twice (with the script, and when it runs). For
 * camelcase's and decamelize's nine such regexes (eleven with the two built from `.source`)
 * that was a third of what meow adds to every start, for flag names that are all ASCII:
 * callgrind on `hfx --version` counted 54 M instructions more than the same bin without meow
 * before this rewrite and 37 M after (median of 3 runs each); `npm run bench -- --only startup`
 * measured meow's share at 16–19 ms before and 10–11 ms after.
 *
 * What it keeps: on a text made only of ASCII characters, `\p{Lu}` matches exactly what `A-Z`
 * matches, `\p{Ll}` `a-z`, `\p{Alpha}` and `\p{L}` `A-Za-z`, `\p{N}` and `\p{Nd}` `0-9`, and
 * `\p{M}` nothing: no ASCII character has another of these properties, and a match only ever
 * looks at characters of the text. So each such regex runs as its ASCII twin on ASCII text
 * (the twin is compiled, cheaply, on first use) and as the Unicode original, built on first need,
 * on any other text. A property this table does not name, or a negated `\P{…}`, keeps the
 * original for every text, as does a pattern without the u flag (there `\p{Lu}` is plain text)
 * or with v. `source` stays the original's, so regexes built from `.source` are rewritten the
 * same way. test/build/meow-regexp.test.ts checks every rewritten regex of meow against the
 * original on ASCII and non-ASCII text, and meow's parse of the same words with and without the
 * rewrite.
 *
 * What it does not cover, none of which meow's code does (its regexes never leave
 * dependencies.js): code that bypasses `exec` (RegExp.prototype.exec.call, `new RegExp(regex)`
 * outside the rewrite, structuredClone) reaches the ASCII twin; `source` is the pattern as
 * given, where V8 would escape a `/` or a line break in it; a frozen regex cannot take back
 * lastIndex from the Unicode original; and an invalid pattern throws when it first meets
 * non-ASCII text, not when it is built (the test above builds each of meow's as the original).
 */

const ASCII_ONLY = /^[\u0000-\u007F]*$/;

/** Each property's members among the ASCII characters, as class ranges ('' for none). */
export const ASCII_MEMBERS = new Map([
	['Lu', 'A-Z'], ['Uppercase_Letter', 'A-Z'],
	['Ll', 'a-z'], ['Lowercase_Letter', 'a-z'],
	['L', 'A-Za-z'], ['Letter', 'A-Za-z'], ['Alpha', 'A-Za-z'], ['Alphabetic', 'A-Za-z'],
	['N', '0-9'], ['Number', '0-9'], ['Nd', '0-9'], ['Decimal_Number', '0-9'],
	['M', ''], ['Mark', ''],
]);

/**
 * The pattern with each `\p{Name}` replaced by its ASCII members (inside a class, the ranges;
 * outside, a class of them), or null when a property has no entry above or is negated.
 */
export function asciiTwin(source) {
	let twin = '';
	let inClass = false;
	for (let at = 0; at < source.length; at++) {
		const char = source[at];
		if (char === '\\') {
			const property = /^\\([pP])\{([^}]*)\}/.exec(source.slice(at, at + 64));
			if (property) {
				const members = ASCII_MEMBERS.get(property[2]);
				if (property[1] === 'P' || members === undefined) {
					return null;
				}

				twin += inClass ? members : `[${members}]`;
				at += property[0].length - 1;
				continue;
			}

			twin += source.slice(at, at + 2);
			at++;
			continue;
		}

		if (char === '[' && !inClass) {
			inClass = true;
		} else if (char === ']' && inClass) {
			inClass = false;
		}

		twin += char;
	}

	return twin;
}

/** A regex that runs as its ASCII twin on ASCII text and as its Unicode original on any other. */
class AsciiFirstRegExp extends RegExp {
	#original;
	#unicode;

	constructor(twin, original, flags) {
		super(twin, flags);
		this.#original = original;
	}

	/** The original pattern: what code that builds regexes from `.source` must see. */
	get source() {
		return this.#original;
	}

	/** RegExp.prototype's test, replace, replaceAll and match all run through exec. */
	exec(text) {
		const string = `${text}`;
		if (ASCII_ONLY.test(string)) {
			return super.exec(string);
		}

		this.#unicode ??= new RegExp(this.#original, this.flags);
		this.#unicode.lastIndex = this.lastIndex;
		try {
			return this.#unicode.exec(string);
		} finally {
			this.lastIndex = this.#unicode.lastIndex;
		}
	}

	/** split and matchAll build a copy through the species: the copy is the Unicode original. */
	static get [Symbol.species]() {
		return function UnicodeOriginal(regex, flags) {
			return new RegExp(regex.source, flags);
		};
	}
}

/** What `new RegExp(pattern, flags)` gives, for meow's dependencies.js as the plugin rewrites it. */
export function meowRegExp(pattern, flags) {
	const source = pattern instanceof RegExp ? pattern.source : pattern;
	if (typeof source !== 'string' || !/\\[pP]\{/.test(source)) {
		return new RegExp(pattern, flags);
	}

	const resolvedFlags = flags ?? (pattern instanceof RegExp ? pattern.flags : '');
	// Without the u flag `\p{Lu}` is the text "p{Lu}"; with v, classes may hold set operations.
	const twin = resolvedFlags.includes('u') && !resolvedFlags.includes('v') ? asciiTwin(source) : null;
	return twin === null ? new RegExp(source, resolvedFlags) : new AsciiFirstRegExp(twin, source, resolvedFlags);
}
