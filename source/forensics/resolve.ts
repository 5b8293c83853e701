/**
 * One way to name a session and one way to name a chat, for every command and pane.
 *
 * A session id (Hermes: `YYYYMMDD_HHMMSS_<random>`) is named by itself, by a unique prefix, or by
 * its random suffix (or a unique start of it, 4 characters or more): the date part is shared by
 * every session of a day, the suffix is the session's own. An ambiguous name lists what it matches.
 *
 * A chat (its session key, `agent:main:telegram:dm:777001`) is named exactly: routing is about one
 * chat, so hfx never guesses one. A name that is the end of exactly one key (`777001`,
 * `dm:777001`) gets that key as a suggestion.
 */

export type Resolution =
	| {ok: true; id: string}
	| {ok: false; problem: 'none' | 'ambiguous'; query: string; matches: string[]};

/** The random suffix of a Hermes session id (after its last `_`), or the whole id when it has none. */
export function suffixOf(id: string): string {
	const at = id.lastIndexOf('_');
	return at < 0 ? id : id.slice(at + 1);
}

export function resolveSessionId(ids: Iterable<string>, query: string): Resolution {
	const all = [...ids];
	if (all.includes(query)) {
		return {ok: true, id: query};
	}

	const matches =
		query === '' ? [] : all.filter(id => id.startsWith(query) || (query.length >= 4 && suffixOf(id).startsWith(query)));
	return matches.length === 1
		? {ok: true, id: matches[0]!}
		: {ok: false, problem: matches.length === 0 ? 'none' : 'ambiguous', query, matches: matches.sort()};
}

/** Why a session name did not resolve, in words (at most three matches named). */
export function resolutionProblem(r: Extract<Resolution, {ok: false}>, what = 'session'): string {
	if (r.problem === 'none') {
		return `no ${what} ${JSON.stringify(r.query)}`;
	}

	const named = r.matches.slice(0, 3).join(', ');
	return (
		`${JSON.stringify(r.query)} names ${r.matches.length} ${what}s ` +
		`(${named}${r.matches.length > 3 ? ', …' : ''}): give more of the id, or ` +
		`its random suffix`
	);
}

export type ChatResolution = {ok: true; key: string} | {ok: false; query: string; suggestion: string | null};

export function resolveChat(keys: Iterable<string>, query: string): ChatResolution {
	const all = [...new Set(keys)];
	if (all.includes(query)) {
		return {ok: true, key: query};
	}

	const ends = query === '' ? [] : all.filter(k => k.endsWith(`:${query}`));
	return {ok: false, query, suggestion: ends.length === 1 ? ends[0]! : null};
}
