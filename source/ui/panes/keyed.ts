/**
 * Keyed lists: a pane's rows seen as identities (session id, session key, finding, event), so
 * that the selection follows a row through re-sorts instead of keeping its row number.
 */
import type {Pane} from '../pane-names.js';
import {type RowIds, cursorIn} from '../state.js';
import type {PaneContext} from './types.js';

/**
 * A view of the rows' identities, in the rows' order (nothing copied). A class, not an object of closures made per
 * call: its scan runs over every row at each frame, and a closure made per call loses its optimised code at each
 * mark-compact (issue #26, test/e2e/tui-optimised-code-tmux.test.ts).
 */
class IdsOf<T> implements RowIds {
	constructor(
		private readonly items: readonly T[],
		private readonly id: (item: T) => string,
	) {}

	get length(): number {
		return this.items.length;
	}

	at(index: number): string | undefined {
		const item = this.items[index];
		return item === undefined ? undefined : this.id(item);
	}

	indexOf(target: string): number {
		for (let i = 0; i < this.items.length; i++) {
			if (this.id(this.items[i]!) === target) {
				return i;
			}
		}

		return -1;
	}
}

export function idsOf<T>(items: readonly T[], id: (item: T) => string): RowIds {
	return new IdsOf(items, id);
}

/** The row a keyed pane's cursor is on now. */
export function keyedCursor(ctx: PaneContext, pane: Pane, ids: RowIds): number {
	return cursorIn(ctx.ui, pane, ids);
}

/** What a pane's List takes from its keyed list: the rows, their identities, the cursor, the width, the wrap mode. */
export type KeyedListProps<T> = {
	items: readonly T[];
	id: (item: T) => string;
	cursor: number;
	width: number;
	wrap: boolean;
};

/** A pane's keyed list: its rows, each row's identity, the cursor on them and the row under it. */
export type KeyedList<T> = {
	rows: (ctx: PaneContext) => readonly T[];
	rowIds: (ctx: PaneContext) => RowIds;
	cursor: (ctx: PaneContext) => number;
	rowCount: (ctx: PaneContext) => number;
	selected: (ctx: PaneContext) => T | undefined;
	/** The List's rows, keys, cursor, width and wrap (`w`) in this pane; the pane adds its height and lines. */
	props: (ctx: PaneContext) => KeyedListProps<T>;
};

/**
 * The list block the Activity, Lineage, Findings and Routing panes share. The cursor follows the row's identity
 * (the pane's anchor) unless the pane resolves it its own way (`cursor`).
 */
export function keyedList<T>(
	pane: Pane,
	rows: (ctx: PaneContext) => readonly T[],
	id: (item: T) => string,
	cursor?: (ctx: PaneContext) => number,
): KeyedList<T> {
	const rowIds = (ctx: PaneContext) => idsOf(rows(ctx), id);
	const at = cursor ?? ((ctx: PaneContext) => keyedCursor(ctx, pane, rowIds(ctx)));
	return {
		rows,
		rowIds,
		cursor: at,
		rowCount: ctx => rows(ctx).length,
		selected: ctx => rows(ctx)[at(ctx)],
		props: ctx => ({items: rows(ctx), id, cursor: at(ctx), width: ctx.width, wrap: ctx.ui.wrap[pane]}),
	};
}
