/**
 * A windowed list: only the rows that fit are rendered (twenty thousand sessions cost what a
 * screenful costs), the cursor row is marked with › (visible without colour) and a position
 * indicator says where the window is: at the end of the header row (the header cut before
 * it), or on the list's own status line (`footer`) where the header is a table's column titles. A row too long is cut
 * without splitting an id
 * (text/fit.ts), or, with `wrap`, wrapped onto the lines below it. Rows are keyed by their identity (`id`), so
 * a row keeps its node while the live model inserts rows above it.
 */
import type React from 'react';
import {Fragment, memo, useRef} from 'react';
import {Box} from 'ink';
import {Text} from './text.js';
import {windowStart} from '../views.js';
import {type Theme, useTheme} from '../theme.js';
import {cutKeepingIds, wrapLine} from '../../text/fit.js';

export type ListProps<T> = {
	items: readonly T[];
	cursor: number;
	height: number;
	width: number;
	/** One line of text per row (cut to width - 2 here). */
	line: (item: T, index: number) => string;
	/** Optional colour per row. */
	color?: (item: T, index: number) => string | undefined;
	header?: string;
	empty?: string;
	/** A status line under the rows; the position indicator goes there, before its text. */
	footer?: string;
	/** Wrap long rows instead of cutting them. */
	wrap?: boolean;
	/** A row's identity (session id, session key, finding, event): its key, not its row number. */
	id?: (item: T) => string;
};

type Shown = {index: number; key: string; lines: string[]};

/**
 * Each shown row's key: its identity (the index without one), a repeat of it numbered so keys stay unique. This file's
 * per-frame work is in functions made once, not callbacks made per frame (issue #26: a callback made per call loses its
 * optimised code at each mark-compact, and TurboFan compiles it again; test/live/optimised-code.test.ts).
 */
function keyed<T>(props: ListProps<T>, shown: readonly Omit<Shown, 'key'>[]): Shown[] {
	const seen = new Map<string, number>();
	const out: Shown[] = [];
	for (const row of shown) {
		const id = props.id ? props.id(props.items[row.index]!) : String(row.index);
		const repeat = seen.get(id) ?? 0;
		seen.set(id, repeat + 1);
		out.push({index: row.index, lines: row.lines, key: repeat === 0 ? id : `${id}\u0000${repeat}`});
	}

	return out;
}

/** The rows that fit `height` lines, the cursor's among them; each row as its key and its lines. */
function windowOf<T>(props: ListProps<T>, height: number, inner: number, fitted: KeptLines): Shown[] {
	return keyed(props, linesWindow(props, height, fitted.frame(inner, props.wrap === true)));
}

/**
 * A row's lines by its text, kept from one frame to the next (issue #26: the render cost per refresh): a live refresh
 * changes a row or two, and the rest of the screenful is not measured and cut again (cutKeepingIds measured every
 * shown row of every frame: 141 ms of a 28 s profile of the bench follow). Two generations: what the last frame showed
 * stays, what it did not show ages out.
 */
export class KeptLines {
	private width = -1;
	private wrap = false;
	private last = new Map<string, string[]>();
	private current = new Map<string, string[]>();

	/** Starts a frame at `width` columns: the lines kept are dropped when the width or the wrapping changed. */
	frame(width: number, wrap: boolean): this {
		if (width !== this.width || wrap !== this.wrap) {
			this.width = width;
			this.wrap = wrap;
			this.last = new Map();
		} else {
			this.last = this.current;
		}

		this.current = new Map();
		return this;
	}

	/** The lines of one row's text in this frame's width. */
	lines(text: string): string[] {
		const kept = this.current.get(text) ?? this.last.get(text);
		const lines = kept ?? (this.wrap ? wrapLine(text, this.width) : [cutKeepingIds(text, this.width)]);
		this.current.set(text, lines);
		return lines;
	}
}

/** The lines of the row at `index`. */
function linesOf<T>(props: ListProps<T>, fitted: KeptLines, index: number): string[] {
	return fitted.lines(props.line(props.items[index]!, index));
}

/** The rows from `from` on that fit `height` lines. */
function fill<T>(props: ListProps<T>, height: number, fitted: KeptLines, from: number): Omit<Shown, 'key'>[] {
	const out: Omit<Shown, 'key'>[] = [];
	let used = 0;
	for (let i = from; i < props.items.length && used < height; i++) {
		const lines = linesOf(props, fitted, i).slice(0, height - used);
		out.push({index: i, lines});
		used += lines.length;
	}

	return out;
}

/** The shown rows: from the window's start, or, when wrapped rows push the cursor's out, ending on the cursor row. */
export function linesWindow<T>(props: ListProps<T>, height: number, fitted: KeptLines): Omit<Shown, 'key'>[] {
	const shown = fill(props, height, fitted, windowStart(props.cursor, height, props.items.length));
	if (!props.wrap || props.cursor < 0 || props.cursor >= props.items.length) {
		return shown;
	}

	let atCursor: Omit<Shown, 'key'> | undefined;
	for (const r of shown) {
		if (r.index === props.cursor) {
			atCursor = r;
		}
	}

	if (atCursor && atCursor.lines.length >= linesOf(props, fitted, props.cursor).length) {
		return shown;
	}

	// Wrapped rows took more lines than rows: end the window on the cursor row.
	let from = props.cursor;
	let used = linesOf(props, fitted, from).length;
	while (from > 0 && used + linesOf(props, fitted, from - 1).length <= height) {
		from--;
		used += linesOf(props, fitted, from).length;
	}

	return fill(props, height, fitted, from);
}

/**
 * One line of a shown row. Memoised on its text, colour and selection: when the live model changes one row, the others
 * are not rendered again, and Ink's nodes for them are left as they were (issue #26: the render cost per refresh).
 */
const ListLine = memo(function ListLine({
	mark,
	text,
	color,
	selected,
	inverse,
}: {
	mark: string;
	text: string;
	color: string | undefined;
	selected: boolean;
	inverse: boolean;
}): React.ReactElement {
	return (
		<Text wrap="truncate" color={color} bold={selected} inverse={selected && inverse}>
			{mark}
			{text}
		</Text>
	);
});

/** The shown rows' lines, each a memoised ListLine, grouped by row. */
function rowElements<T>(props: ListProps<T>, shown: readonly Shown[], theme: Theme): React.ReactElement[] {
	const out: React.ReactElement[] = [];
	for (const {index, key, lines} of shown) {
		const selected = index === props.cursor;
		const color = selected ? theme.accent : props.color?.(props.items[index]!, index);
		const row: React.ReactElement[] = [];
		for (let j = 0; j < lines.length; j++) {
			row.push(
				<ListLine
					key={j}
					mark={j === 0 && selected ? '› ' : '  '}
					text={lines[j]!}
					color={color}
					selected={selected}
					inverse={theme.color}
				/>,
			);
		}

		out.push(<Fragment key={key}>{row}</Fragment>);
	}

	return out;
}

export function List<T>(props: ListProps<T>): React.ReactElement {
	const theme = useTheme();
	const bodyHeight = Math.max(
		1,
		props.height - (props.header === undefined ? 0 : 1) - (props.footer === undefined ? 0 : 1),
	);
	const inner = Math.max(1, props.width - 2);
	const kept = useRef<KeptLines | null>(null);
	kept.current ??= new KeptLines();
	const shown = windowOf(props, bodyHeight, inner, kept.current);
	const first = shown[0]?.index ?? 0;
	const last = shown.at(-1)?.index ?? -1;
	const more = shown.length < props.items.length ? `${first + 1}–${last + 1}/${props.items.length}` : '';
	const head = props.header === undefined ? '' : `  ${props.header}`;
	// Without a status line the indicator ends the header row, the header cut before it (ids whole).
	const inHeader = more !== '' && props.footer === undefined;
	const headText = inHeader
		? `${cutKeepingIds(head, props.width - more.length - 2).padEnd(props.width - more.length - 1)} ${more}`
		: cutKeepingIds(head, props.width);
	const footText = props.footer === undefined ? null : `  ${more ? `${more} · ` : ''}${props.footer}`;
	return (
		<Box flexDirection="column" height={props.height} width={props.width}>
			{props.header === undefined ? null : (
				<Text bold color={theme.muted}>
					{headText}
				</Text>
			)}
			<Box flexDirection="column" height={bodyHeight}>
				{shown.length === 0 ? <Text color={theme.muted}>{`  ${props.empty ?? 'nothing to show'}`}</Text> : null}
				{rowElements(props, shown, theme)}
			</Box>
			{footText === null ? null : (
				<Text color={theme.muted} wrap="truncate">
					{cutKeepingIds(footText, props.width)}
				</Text>
			)}
		</Box>
	);
}
