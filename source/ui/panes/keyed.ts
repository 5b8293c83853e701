/**
 * Keyed lists: a pane's rows seen as identities (session id, session key, finding, event), so
 * that the selection follows a row through re-sorts instead of keeping its row number.
 */
import type {Pane} from '../pane-names.js';
import {type RowIds, cursorIn} from '../state.js';
import type {PaneContext} from './types.js';

/** A view of the rows' identities, in the rows' order (nothing copied). */
export function idsOf<T>(items: readonly T[], id: (item: T) => string): RowIds {
	return {
		length: items.length,
		at(index) {
			const item = items[index];
			return item === undefined ? undefined : id(item);
		},
		indexOf: target => items.findIndex(item => id(item) === target),
	};
}

/** The row a keyed pane's cursor is on now. */
export function keyedCursor(ctx: PaneContext, pane: Pane, ids: RowIds): number {
	return cursorIn(ctx.ui, pane, ids);
}
