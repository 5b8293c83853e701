/**
 * Plain-text formatting shared by the non-interactive commands (and the TUI's cells).
 */

import {safeText} from './sanitize.js';
import {lazySegmenter} from './segmenter.js';
import {NARROW_TEXT, textWidth} from './width.js';

export function utc(epoch: number | null | undefined): string {
	if (epoch === null || epoch === undefined || !Number.isFinite(epoch)) {
		return '—';
	}

	return new Date(epoch * 1000).toISOString().slice(0, 16).replace('T', ' ');
}

/** "3m", "5h", "2.7d" between two epochs (seconds). */
export function span(seconds: number | null | undefined): string {
	if (seconds === null || seconds === undefined || !Number.isFinite(seconds)) {
		return '—';
	}

	const s = Math.abs(seconds);
	if (s < 90) {
		return `${Math.round(s)}s`;
	}

	if (s < 5400) {
		return `${Math.round(s / 60)}m`;
	}

	if (s < 172_800) {
		return `${(s / 3600).toFixed(1)}h`;
	}

	return `${(s / 86_400).toFixed(1)}d`;
}

export function ago(epoch: number | null | undefined, now: number): string {
	if (epoch === null || epoch === undefined || !Number.isFinite(epoch)) {
		return '—';
	}

	const d = now - epoch;
	if (d < 5 && d > -60) {
		// Writers stamp a reply a moment ahead, and clocks drift by seconds: that is "now".
		return 'just now';
	}

	return d < 0 ? `in ${span(d)}` : `${span(d)} ago`;
}

export function bytes(n: number | null | undefined): string {
	if (n === null || n === undefined) {
		return '—';
	}

	if (n < 1024) {
		return `${n} B`;
	}

	const units = ['KiB', 'MiB', 'GiB', 'TiB'];
	let v = n / 1024;
	let i = 0;
	while (v >= 1024 && i < units.length - 1) {
		v /= 1024;
		i++;
	}

	return `${v.toFixed(v < 10 ? 1 : 0)} ${units[i]}`;
}

/**
 * A number with its thousands grouped, as `n.toLocaleString('en-US')` writes it (746,012; -1,234.5), without ICU.
 * `toLocaleString` builds an ICU number formatter, and the first one makes V8 look up every locale ICU ships: ~5 MB
 * of ICU's data (in the node binary) stays resident for the life of the process, a third of what the following TUI
 * was over its 150 MB target (issue #26; /proc/PID/pagemap of `node -e "(1).toLocaleString('en-US')"`: RssFile
 * 40.4 MB against 34.5 MB). As ICU does: the shortest decimal that reads back as `n`, at most 3 fraction digits,
 * half away from zero.
 */
export function grouped(n: number): string {
	if (!Number.isFinite(n)) {
		return Number.isNaN(n) ? 'NaN' : n > 0 ? '∞' : '-∞';
	}

	const [whole, fraction] = rounded(shortestDecimal(Math.abs(n)));
	const text = whole.replace(/\B(?=(\d{3})+$)/g, ',') + (fraction ? `.${fraction}` : '');
	return n < 0 || Object.is(n, -0) ? `-${text}` : text;
}

/** The shortest decimal digits of a non-negative finite number, as [whole, fraction], never in exponent form. */
function shortestDecimal(abs: number): [string, string] {
	const [mantissa = '0', exponent = '0'] = String(abs).split('e');
	const [head = '0', tail = ''] = mantissa.split('.');
	const shift = Number(exponent);
	const digits = head + tail;
	const point = head.length + shift;
	if (point <= 0) {
		return ['0', '0'.repeat(-point) + digits];
	}

	return point >= digits.length
		? [digits + '0'.repeat(point - digits.length), '']
		: [digits.slice(0, point), digits.slice(point)];
}

/** [whole, fraction] rounded half away from zero to 3 fraction digits, trailing zeros dropped. */
function rounded([whole, fraction]: [string, string]): [string, string] {
	let kept = BigInt(whole + fraction.slice(0, 3).padEnd(3, '0'));
	if ((fraction[3] ?? '0') >= '5') {
		kept += 1n;
	}

	const text = kept.toString().padStart(4, '0');
	return [text.slice(0, -3), text.slice(-3).replace(/0+$/, '')];
}

const graphemes = lazySegmenter();

/** A count in at most five characters: 999, 1.5k, 746k, 1.2M (999,500 is 1.0M, not 1000k). */
export function count(n: number): string {
	if (n >= 999_500) {
		return `${(n / 1_000_000).toFixed(1)}M`;
	}

	if (n >= 9_950) {
		return `${Math.round(n / 1000)}k`;
	}

	return n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(n);
}

/**
 * Cuts a text to `width` terminal columns (an ellipsis marks the cut); wide characters count two.
 * A cell is display text: a control or bidi character in it is made a visible escape first
 * (text/sanitize.ts), so it is measured as it will be shown.
 */
export function truncate(raw: string, width: number): string {
	const text = NARROW_TEXT.test(raw) ? raw : safeText(raw);
	if (width <= 0) {
		return '';
	}

	if (textWidth(text) <= width) {
		return text;
	}

	if (width === 1) {
		return '…';
	}

	if (NARROW_TEXT.test(text)) {
		return `${text.slice(0, width - 1)}…`;
	}

	let out = '';
	let used = 0;
	for (const {segment} of graphemes.segment(text)) {
		const w = textWidth(segment);
		if (used + w > width - 1) {
			break;
		}

		out += segment;
		used += w;
	}

	return `${out}…`;
}

/** Pads (or cuts) a text to exactly `width` terminal columns. */
export function pad(text: string, width: number, align: 'left' | 'right' = 'left'): string {
	const t = truncate(text, width);
	const fill = ' '.repeat(Math.max(0, width - textWidth(t)));
	return align === 'left' ? t + fill : fill + t;
}

export type TableColumn<T> = {
	header: string;
	value: (row: T) => string;
	align?: 'left' | 'right';
	/** Max width; the column shrinks to its content. */
	max?: number;
};

/** A plain text table: header, rule, rows. Columns are sized to content (capped by max), as shown (made safe). */
export function table<T>(rows: readonly T[], columns: ReadonlyArray<TableColumn<T>>): string[] {
	const cells = rows.map(r => columns.map(c => safeText(c.value(r))));
	const widths = columns.map((c, i) =>
		Math.min(c.max ?? 80, Math.max(textWidth(c.header), ...cells.map(row => textWidth(row[i]!)))),
	);
	const line = (values: string[]) =>
		values
			.map((v, i) => pad(v, widths[i]!, columns[i]!.align))
			.join('  ')
			.trimEnd();
	return [line(columns.map(c => c.header)), line(widths.map(w => '─'.repeat(w))), ...cells.map(line)];
}

export function plural(n: number, word: string, many = `${word}s`): string {
	return `${n} ${n === 1 ? word : many}`;
}
