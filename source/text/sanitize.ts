/**
 * Text from outside hfx (a title, a display name, a session key, a file or archive member name,
 * another process's command line) made safe for a terminal and for a one-line message.
 *
 * A terminal acts on control characters: ESC starts a sequence that can clear the screen, move
 * the cursor and paint a fake verdict (CSI `ESC [`, OSC `ESC ]` … BEL, DCS `ESC P`); a C1 control
 * (U+0080–U+009F) is CSI/OSC/DCS in one character on terminals that honour them; CR and LF move the
 * cursor or split a one-line refusal in two. Bidi overrides and isolates (U+202A–U+202E,
 * U+2066–U+2069) reorder what follows them, and the other invisible format characters (zero-width
 * space, word joiner, soft hyphen, BOM, tags) hide text or make two names look alike.
 *
 * `safeText` replaces each such character with a visible escape of its code point (`\x1b`, `\n`,
 * `\x9b`, `\u202e`): the sequence it started becomes inert text the operator can read, and the
 * result is one line. Everything else is kept as it is: letters of every script, CJK, combining
 * marks, emoji with their variation selectors and modifiers; a zero-width joiner inside an emoji
 * sequence (👩‍💻) or after a letter of a script that writes with it (Devanagari, Persian, Malayalam:
 * not Latin, Greek or Cyrillic, where it would only hide a spoof), and the tag characters of a
 * subdivision flag (🏴 + tags + cancel tag). The result only ever holds printable text, so it is
 * idempotent: the sinks may apply it again without harm.
 *
 * A literal backslash is kept: a title that spells `\x1b` looks like an escaped ESC, and does nothing.
 *
 * `safeJson` is JSON.stringify for a terminal: JSON.stringify already escapes C0 controls (and lone
 * surrogates) in strings; this escapes the rest of what `safeText` would touch (DEL, C1, format
 * characters, U+2028/U+2029) as `\uXXXX`, so the document parses back to the exact strings and its
 * lines pass through `safeText` unchanged (the kept sequences stay as they are in both).
 */

/** Sequences that look unsafe character by character but are text (kept whole, in this order). */
const KEEP = [
	// A subdivision flag: black flag, tag letters/digits, cancel tag.
	'\\u{1F3F4}[\\u{E0020}-\\u{E007E}]+\\u{E007F}',
	// A zero-width joiner between two emoji (an optional variation selector or skin tone before it).
	'(?<=\\p{Extended_Pictographic}[\\u{FE0F}\\u{1F3FB}-\\u{1F3FF}]?)\\u200D(?=\\p{Extended_Pictographic})',
	// ZWNJ / ZWJ after a letter (or mark) of a script that shapes with them (a Malayalam chillu ends a word with one).
	'(?<=[\\p{L}\\p{M}])' +
		'(?<![\\p{Script=Latin}\\p{Script=Greek}\\p{Script=Cyrillic}\\p{Script=Inherited}\\p{Script=Common}])' +
		'[\\u200C\\u200D]',
].join('|');

/** One character a terminal would act on, or that hides or reorders text. */
const UNSAFE_CHAR = '[\\u0000-\\u001F\\u007F-\\u009F\\u2028\\u2029\\p{Cf}\\p{Cs}]';

const SCAN = new RegExp(`(${KEEP})|${UNSAFE_CHAR}`, 'gu');
const ANY_UNSAFE = new RegExp(UNSAFE_CHAR, 'u');
/** The same without C0 controls, which JSON.stringify escapes in strings (and its indentation uses). */
const JSON_UNSAFE_CHAR = '[\\u007F-\\u009F\\u2028\\u2029\\p{Cf}\\p{Cs}]';
const JSON_SCAN = new RegExp(`(${KEEP})|${JSON_UNSAFE_CHAR}`, 'gu');
const JSON_ANY_UNSAFE = new RegExp(JSON_UNSAFE_CHAR, 'u');

const NAMED: Record<string, string> = {'\t': '\\t', '\n': '\\n', '\r': '\\r'};

function hex(n: number, digits: number): string {
	return n.toString(16).padStart(digits, '0');
}

/** The visible escape of one unsafe code point: \n, \x1b, \u202e, \u{e0001}. */
export function escapeCodePoint(char: string): string {
	const named = NAMED[char];
	if (named) {
		return named;
	}

	const cp = char.codePointAt(0)!;
	if (cp < 0x1_00) {
		return `\\x${hex(cp, 2)}`;
	}

	return cp < 0x1_00_00 ? `\\u${hex(cp, 4)}` : `\\u{${hex(cp, 5)}}`;
}

/** `text` with every control, bidi and invisible format character made a visible escape: one safe line. */
export function safeText(text: string): string {
	if (!ANY_UNSAFE.test(text)) {
		return text;
	}

	return text.replace(SCAN, (match: string, kept: string | undefined) => kept ?? escapeCodePoint(match));
}

function jsonEscape(char: string): string {
	let out = '';
	for (let i = 0; i < char.length; i++) {
		out += `\\u${hex(char.charCodeAt(i), 4)}`;
	}

	return out;
}

/**
 * JSON.stringify whose output a terminal shows as it is: DEL, C1, format characters and
 * U+2028/U+2029 are escaped too (`\u009b`), only inside strings (nowhere else can they occur), so
 * JSON.parse gives back the exact original.
 */
export function safeJson(value: unknown, indent?: number): string {
	const text = JSON.stringify(value, null, indent) as string | undefined;
	if (text === undefined || !JSON_ANY_UNSAFE.test(text)) {
		return text ?? 'null';
	}

	// JSON.stringify left no C0 control (nor lone surrogate) raw, and its own syntax is ASCII: what
	// SCAN finds is inside a string. A kept sequence's neighbours are the string's own characters
	// (an escape such as \n ends in a Latin letter or a digit, which keeps nothing).
	return text.replace(JSON_SCAN, (match: string, kept: string | undefined) => kept ?? jsonEscape(match));
}
