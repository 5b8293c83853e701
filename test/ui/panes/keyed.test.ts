/**
 * The keyed list the Activity, Lineage, Findings and Routing panes share (source/ui/panes/keyed.ts): the cursor stays
 * on its row's identity while rows are inserted above it, and the List gets the rows' identities as its keys, the
 * pane's width and the pane's wrap mode (w).
 */
import {describe, expect, it} from 'vitest';
import {keyedList} from '../../../source/ui/panes/keyed.js';
import type {PaneContext} from '../../../source/ui/panes/types.js';
import {initialUiState, uiReducer} from '../../../source/ui/state.js';

type Row = {id: string};
const rowsOf = (...ids: string[]): Row[] => ids.map(id => ({id}));

/** A pane's context as far as a list reads it: the UI state, the width and the rows of the moment. */
const contextOf = (ui: PaneContext['ui'], rows: Row[]) => ({ui, width: 60, rows}) as unknown as PaneContext;
const rowsIn = (ctx: PaneContext) => (ctx as unknown as {rows: Row[]}).rows;

describe('keyedList', () => {
	it('keeps the cursor on its row when rows are inserted above it', () => {
		const list = keyedList('routing', rowsIn, r => r.id);
		const before = contextOf(initialUiState('routing'), rowsOf('b', 'c', 'd'));
		const ui = uiReducer(before.ui, {type: 'move', delta: 1, rows: 3, ids: list.rowIds(before)});
		expect(list.selected(contextOf(ui, rowsOf('b', 'c', 'd')))?.id).toBe('c');
		const after = contextOf(ui, rowsOf('a', 'a2', 'b', 'c', 'd'));
		expect(list.cursor(after)).toBe(3);
		expect(list.selected(after)?.id).toBe('c');
		expect(list.rowCount(after)).toBe(5);
	});

	it("hands the List the rows' identities, the cursor, the pane's width and its wrap mode", () => {
		const list = keyedList('findings', rowsIn, r => `finding ${r.id}`);
		const ui = uiReducer(initialUiState('findings'), {type: 'toggle-wrap'});
		const props = list.props(contextOf(ui, rowsOf('x', 'y')));
		expect(props.items.map(props.id)).toEqual(['finding x', 'finding y']);
		expect(props).toMatchObject({cursor: 0, width: 60, wrap: true});
		expect(list.props(contextOf(initialUiState('findings'), rowsOf('x'))).wrap).toBe(false);
	});

	it("takes the pane's own cursor when it has one (Lineage: on the focused session)", () => {
		const list = keyedList(
			'lineage',
			rowsIn,
			r => r.id,
			() => 1,
		);
		const ctx = contextOf(initialUiState('lineage'), rowsOf('parent', 'focused', 'child'));
		expect(list.selected(ctx)?.id).toBe('focused');
		expect(list.props(ctx).cursor).toBe(1);
	});
});
