/**
 * Fitting a line to a width without cutting an identifier in half: a session id is shown whole
 * or not at all; a session key is shortened keeping its platform, chat type and chat tail
 * (`agent:main:telegram:dm:…0042`); a line that must be read whole wraps at spaces.
 */
import {truncate} from './format.js';
import {safeText} from './sanitize.js';
import {NARROW_TEXT, textWidth} from './width.js';

/** A Hermes session id: YYYYMMDD_HHMMSS_ and a hex suffix (8 digits today, fewer in old rows). */
export const SESSION_ID = /\d{8}_\d{6}_[0-9a-f]{4,}/g;

/** A session key: agent:<agent>:<platform>:<chat type>:<chat id>[:<thread>]. */
export const SESSION_KEY = /agent:[\w.-]+:[\w.-]+(?::[^\s,;()'"]+)+/g;

/**
 * A session key in at most `max` columns: whole if it fits, else its head (agent, platform,
 * chat type) and the tail of its chat id; with less room, the platform and chat type, then the
 * platform alone, before that tail. Null when not even that fits.
 */
export function shortKey(key: string, max: number): string | null {
	if (key.length <= max) {
		return key;
	}

	const parts = key.split(':');
	const cut = Math.min(4, parts.length - 1);
	const tail = parts.slice(cut).join(':');
	// The key's own start; then platform and chat type (a leading … for the agent part dropped);
	// then the platform alone (a … for the chat type dropped). The tail of the chat id ends each.
	const forms = [
		['', parts.slice(0, cut).join(':'), ''],
		['…', parts.slice(2, cut).join(':'), ''],
		['', parts.slice(2, 3).join(':'), '…'],
	] as const;
	for (const [lead, head, mid] of forms) {
		if (head && lead.length + head.length + 1 + mid.length + tail.length <= max) {
			return `${lead}${head}:${mid}${tail}`;
		}

		const room = max - lead.length - head.length - 2;
		if (head && room >= Math.min(4, tail.length)) {
			return `${lead}${head}:…${tail.slice(-room)}`;
		}
	}

	return null;
}

type Token = {start: number; end: number; key: boolean};

function tokens(text: string): Token[] {
	const out: Token[] = [];
	for (const m of text.matchAll(SESSION_KEY)) {
		out.push({start: m.index, end: m.index + m[0].length, key: true});
	}

	for (const m of text.matchAll(SESSION_ID)) {
		if (!out.some(t => m.index < t.end && m.index + m[0].length > t.start)) {
			out.push({start: m.index, end: m.index + m[0].length, key: false});
		}
	}

	return out;
}

/**
 * Cuts a line to `width` columns (an ellipsis marks the cut) as format.ts truncate does, but a
 * session id the cut would split is left out whole, and a session key is shortened to fit.
 */
export function cutKeepingIds(raw: string, width: number): string {
	const text = NARROW_TEXT.test(raw) ? raw : safeText(raw);
	if (textWidth(text) <= width) {
		return text;
	}

	const cut = truncate(text, width);
	const kept = cut.length - 1;
	const split = tokens(text).find(t => t.start < kept && t.end > kept);
	if (!split) {
		return `${cut.slice(0, -1).trimEnd()}…`;
	}

	const before = text.slice(0, split.start);
	if (split.key) {
		// A key that ends the line needs no ellipsis after it: its own marks the cut.
		const last = split.end === text.length;
		const short = shortKey(text.slice(split.start, split.end), width - textWidth(before) - (last ? 0 : 1));
		if (short !== null) {
			return `${before}${short}${last ? '' : '…'}`;
		}
	}

	return `${before.trimEnd()}…`;
}

/** Splits a word longer than `width` into pieces of `width`. */
function pieces(word: string, width: number): string[] {
	const out: string[] = [];
	for (let i = 0; i < word.length; i += width) {
		out.push(word.slice(i, i + width));
	}

	return out;
}

/**
 * Wraps a line into lines of at most `width` columns, breaking at spaces (an id or key has
 * none, so it stays on one line when it fits one); continuation lines start with `indent`.
 */
export function wrapLine(raw: string, width: number, indent = '  '): string[] {
	const text = NARROW_TEXT.test(raw) ? raw : safeText(raw);
	if (textWidth(text) <= width || width <= indent.length + 1) {
		return [textWidth(text) <= width ? text : truncate(text, width)];
	}

	const lines: string[] = [];
	let line = '';
	for (const word of text.split(/(?<= )/)) {
		const room = width - textWidth(line);
		if (textWidth(word.trimEnd()) <= room) {
			line += word;
			continue;
		}

		const lead = lines.length === 0 && !line.trim() ? '' : indent;
		if (line.trim()) {
			lines.push(line.trimEnd());
		}

		const body = width - lead.length;
		const parts =
			textWidth(word.trimEnd()) > body && NARROW_TEXT.test(word)
				? pieces(word.trimEnd(), body)
				: [truncate(word.trimEnd(), body)];
		for (const [i, part] of parts.slice(0, -1).entries()) {
			lines.push((i === 0 ? lead : indent) + part);
		}

		line = (parts.length === 1 ? lead : indent) + parts.at(-1)! + (word.endsWith(' ') ? ' ' : '');
	}

	if (line.trim()) {
		lines.push(line.trimEnd());
	}

	return lines;
}

/**
 * A file path in at most `max` columns: whole if it fits, else its end (the file and the folders
 * just above it, which tell one store from another) after a leading `…`; a path's start
 * (`/home/…`) is the part every store shares. Empty when not even `…` fits.
 */
export function shortPath(raw: string, max: number): string {
	const p = safeText(raw);
	if (textWidth(p) <= max) {
		return p;
	}

	if (max < 1) {
		return '';
	}

	let tail = '';
	const chars = [...p];
	for (let i = chars.length - 1; i >= 0; i--) {
		if (textWidth(chars[i]! + tail) > max - 1) {
			break;
		}

		tail = chars[i]! + tail;
	}

	// Start at a folder boundary when one is in reach, so no folder name is shown cut.
	const slash = tail.indexOf('/');
	return `…${slash > 0 && slash < tail.length - 1 ? tail.slice(slash) : tail}`;
}
