/**
 * The operator's search text, made safe for an FTS5 `MATCH` and for a `LIKE` scan. Hermes'
 * `_sanitize_fts5_query` (hermes-incidents.md §5.2) keeps balanced "quoted phrases", strips the
 * unmatched FTS5 specials and quotes dotted or hyphenated terms, but lets AND/OR/NOT, `*` and
 * `col:` through as syntax. An investigator's text is evidence to find, not a query language, so
 * here every term is one FTS5 string (`"…"`, an inner quote doubled): no operator, column filter,
 * prefix or NEAR in the text can make the MATCH fail or mean anything but "these words, in this
 * order within a phrase". Pure.
 */

/** At most this many characters of search text (a longer one is refused in one line). */
export const MAX_QUERY_CHARS = 1000;
/** At most this many terms (the rest would only narrow a search nobody can read back). */
export const MAX_TERMS = 32;
/** The trigram tokenizer matches substrings of 3 characters and more. */
export const TRIGRAM_MIN_CHARS = 3;

export type SearchQuery = {
	/** The text as searched: terminal sequences and control characters replaced by spaces, runs of spaces collapsed. */
	text: string;
	/** Each literal term: a quoted phrase whole, else one word (for LIKE and for marking a snippet). */
	terms: string[];
	/** The FTS5 MATCH expression; null when no term holds a letter or digit (the index cannot find it). */
	match: string | null;
	/** Holds Chinese, Japanese or Korean text: the word index (unicode61) cannot find a part of a run of it. */
	cjk: boolean;
	/** The length of the shortest term, in characters (the trigram index needs 3). */
	shortest: number;
};

/**
 * A whole terminal sequence (CSI `ESC [` or C1 CSI, OSC `ESC ]` … BEL/ST): pasted from a terminal, it is no text to
 * find.
 */
const SEQUENCE =
	/(?:\u001B\[|\u009B)[0-?]*[ -/]*[@-~]|(?:\u001B\]|\u009D)[^\u0007\u001B\u009C]*(?:\u0007|\u001B\\|\u009C)?/gu;
/** Control characters, line and paragraph separators, bidi overrides and isolates. */
const CONTROL = /[\u0000-\u001F\u007F-\u009F\u2028\u2029\u202A-\u202E\u2066-\u2069]/gu;
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
const WORDLIKE = /[\p{L}\p{N}]/u;

/** One FTS5 string: the text between double quotes, an inner quote doubled. */
export function ftsString(term: string): string {
	return `"${term.replaceAll('"', '""')}"`;
}

/** The terms of the text: balanced "quoted phrases" whole, the rest split on spaces, stray quotes dropped. */
export function searchTerms(text: string): string[] {
	const terms: string[] = [];
	const rest = text.replace(/"([^"]*)"/g, (_, phrase: string) => {
		terms.push(phrase.trim());
		return ' ';
	});
	for (const word of rest.split(' ')) {
		terms.push(word.replaceAll('"', ''));
	}

	return [...new Set(terms.filter(t => t !== ''))].slice(0, MAX_TERMS);
}

/** The operator's text as hfx searches it (null when nothing searchable is left). */
export function parseSearchQuery(raw: string): SearchQuery | null {
	const text = raw.replace(SEQUENCE, ' ').replace(CONTROL, ' ').replace(/\s+/gu, ' ').trim();
	const terms = searchTerms(text);
	if (terms.length === 0) {
		return null;
	}

	const indexed = terms.filter(t => WORDLIKE.test(t));
	return {
		text,
		terms,
		match: indexed.length === 0 ? null : indexed.map(ftsString).join(' '),
		cjk: CJK.test(text),
		shortest: Math.min(...terms.map(t => [...t].length)),
	};
}
