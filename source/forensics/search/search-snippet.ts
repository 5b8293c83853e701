/**
 * A hit's snippet as parts, each match marked: from FTS5's `snippet()` (its open and close
 * markers turned into parts) or cut from the message text around the first match (a LIKE scan
 * has no snippet()). Bounded: a message of a megabyte on one line gives a snippet of a line.
 * Pure.
 */

export type SnippetPart = {text: string; match: boolean};

/** Characters kept on each side of the first match (a cut snippet). */
export const SNIPPET_CONTEXT = 60;
/** At most this many characters of a snippet, whatever the index returned. */
export const SNIPPET_MAX = 240;
export const ELLIPSIS = '…';

function escapeRegExp(term: string): string {
	return term.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Splits snippet() output at its markers (chosen so that no message holds them). */
export function splitMarked(snippet: string, open: string, close: string): SnippetPart[] {
	const parts: SnippetPart[] = [];
	let rest = snippet;
	while (rest !== '') {
		const at = rest.indexOf(open);
		const end = at < 0 ? -1 : rest.indexOf(close, at + open.length);
		if (at < 0 || end < 0) {
			parts.push({text: rest.replaceAll(open, '').replaceAll(close, ''), match: false});
			break;
		}

		parts.push({text: rest.slice(0, at), match: false}, {text: rest.slice(at + open.length, end), match: true});
		rest = rest.slice(end + close.length);
	}

	return capParts(trimContext(parts.filter(p => p.text !== '')));
}

/**
 * Keeps at most SNIPPET_CONTEXT characters of text around the matches (snippet() counts tokens,
 * and one token can be a line of thousands of characters): the end of what comes before the first
 * match, the start of what follows.
 */
export function trimContext(parts: readonly SnippetPart[]): SnippetPart[] {
	const first = parts.findIndex(p => p.match);
	return parts.map((p, i) => {
		if (p.match || p.text.length <= SNIPPET_CONTEXT) {
			return p;
		}

		return i < first
			? {text: `${ELLIPSIS}${p.text.slice(-SNIPPET_CONTEXT)}`, match: false}
			: {text: `${p.text.slice(0, SNIPPET_CONTEXT)}${ELLIPSIS}`, match: false};
	});
}

/** Keeps a snippet to SNIPPET_MAX characters (a match is cut too, never dropped silently). */
export function capParts(parts: readonly SnippetPart[]): SnippetPart[] {
	const out: SnippetPart[] = [];
	let room = SNIPPET_MAX;
	for (const p of parts) {
		if (room <= 0) {
			out.push({text: ELLIPSIS, match: false});
			break;
		}

		out.push(p.text.length > room ? {text: `${p.text.slice(0, room)}${ELLIPSIS}`, match: p.match} : p);
		room -= p.text.length;
	}

	return out;
}

/**
 * The text around the first match of any term (case-insensitive), every match in it marked; null when no term occurs.
 */
export function snippetAround(text: string, terms: readonly string[], context = SNIPPET_CONTEXT): SnippetPart[] | null {
	if (terms.length === 0) {
		return null;
	}

	const pattern = new RegExp(
		terms
			.map(escapeRegExp)
			.sort((a, b) => b.length - a.length)
			.join('|'),
		'giu',
	);
	const first = pattern.exec(text);
	if (!first) {
		return null;
	}

	const from = Math.max(0, first.index - context);
	const to = Math.min(text.length, first.index + first[0].length + context);
	const window = text.slice(from, to);
	const parts: SnippetPart[] = from > 0 ? [{text: ELLIPSIS, match: false}] : [];
	let last = 0;
	for (const m of window.matchAll(new RegExp(pattern.source, 'giu'))) {
		parts.push({text: window.slice(last, m.index), match: false}, {text: m[0], match: true});
		last = m.index + m[0].length;
	}

	parts.push({text: window.slice(last), match: false});
	if (to < text.length) {
		parts.push({text: ELLIPSIS, match: false});
	}

	return capParts(parts.filter(p => p.text !== ''));
}
