/**
 * The TUI's reducer on its own, without Ink: pane history and Esc, cursor clamping and the
 * FOLLOW cursors of Detail and Lineage, the filter, help and source cycling, notices and yanks.
 */
import {describe, expect, it} from 'vitest';
import {FOLLOW, type UiAction, type UiState, cursorIn, initialUiState, uiReducer} from '../../source/ui/state.js';

const run = (state: UiState, ...actions: UiAction[]): UiState => actions.reduce(uiReducer, state);

describe('uiReducer', () => {
	it('starts on the given pane with Detail and Lineage following the focused session', () => {
		const s = initialUiState('findings');
		expect(s.pane).toBe('findings');
		expect(s.cursor.detail).toBe(FOLLOW);
		expect(s.cursor.lineage).toBe(FOLLOW);
		expect(s.cursor.sessions).toBe(0);
		expect(s.overlay).toBe('none');
	});

	it('switches panes, remembers the way back, and Esc walks it back one pane at a time', () => {
		let s = run(
			initialUiState(),
			{type: 'pane', pane: 'routing'},
			{type: 'pane', pane: 'routing'},
			{type: 'pane', pane: 'files'},
		);
		expect(s.pane).toBe('files');
		expect(s.history).toEqual(['sessions', 'routing']);
		s = run(s, {type: 'back'});
		expect(s.pane).toBe('routing');
		s = run(s, {type: 'back'}, {type: 'back'});
		expect(s.pane).toBe('sessions');
		expect(s.history).toEqual([]);
	});

	it('keeps at most 20 panes of history', () => {
		let s = initialUiState();
		for (let i = 0; i < 30; i++) {
			s = run(s, {type: 'pane', pane: i % 2 ? 'sessions' : 'detail'});
		}

		expect(s.history).toHaveLength(20);
	});

	it('cycles panes both ways, wrapping around', () => {
		expect(run(initialUiState(), {type: 'cycle-pane', delta: -1}).pane).toBe('backups');
		expect(run(initialUiState('backups'), {type: 'cycle-pane', delta: 1}).pane).toBe('sessions');
		expect(run(initialUiState(), {type: 'cycle-pane', delta: 1}).pane).toBe('detail');
	});

	it('clamps moves to the rows there are, and starts a move from `from` when given', () => {
		const s = initialUiState('routing');
		expect(run(s, {type: 'move', delta: 5, rows: 3}).cursor.routing).toBe(2);
		expect(run(s, {type: 'move', delta: -1, rows: 3}).cursor.routing).toBe(0);
		expect(run(s, {type: 'move', delta: 1, rows: 0}).cursor.routing).toBe(0);
		expect(run(s, {type: 'move', delta: 1, rows: 10, from: 4}).cursor.routing).toBe(5);
		expect(run(s, {type: 'move-to', index: 99, rows: 7}).cursor.routing).toBe(6);
		expect(run(s, {type: 'move', delta: 1, rows: 3}, {type: 'move', delta: 1, rows: 3}).cursor.routing).toBe(2);
	});

	it('lets the Sessions cursor pick the focus again: a move clears the selection and re-follows', () => {
		let s = run(
			initialUiState(),
			{type: 'open-session', id: 'a'},
			{type: 'move', delta: 3, rows: 10, from: 2},
			{type: 'pane', pane: 'sessions'},
		);
		expect(s.selectedSession).toBe('a');
		expect(s.cursor.detail).toBe(5);
		s = run(s, {type: 'move', delta: 1, rows: 10});
		expect(s.selectedSession).toBeNull();
		expect(s.cursor.detail).toBe(FOLLOW);
		expect(s.cursor.sessions).toBe(1);
	});

	it('opens a session in Detail; selecting the same one again changes nothing', () => {
		const s = run(initialUiState(), {type: 'open-session', id: 'x'});
		expect(s.pane).toBe('detail');
		expect(s.selectedSession).toBe('x');
		expect(s.history).toEqual(['sessions']);
		expect(uiReducer(s, {type: 'select-session', id: 'x'})).toBe(s);
		const moved = run(s, {type: 'move', delta: 1, rows: 4, from: 0});
		expect(run(moved, {type: 'select-session', id: 'y'}).cursor.detail).toBe(FOLLOW);
	});

	it('backs out one level at a time: help, then the filter line, then the filter text, then the pane', () => {
		let s = run(
			initialUiState(),
			{type: 'pane', pane: 'routing'},
			{type: 'overlay', overlay: 'filter'},
			{type: 'filter-text', text: 'tele'},
		);
		expect(s.filterText).toBe('tele');
		s = run(s, {type: 'back'});
		expect(s.overlay).toBe('none');
		expect(s.filterText).toBe('');
		s = run(s, {type: 'filter-text', text: 'dm'}, {type: 'overlay', overlay: 'help'}, {type: 'help-text', text: 'co'});
		s = run(s, {type: 'back'});
		expect(s.overlay).toBe('none');
		expect(s.helpText).toBe('');
		expect(s.filterText).toBe('dm');
		s = run(s, {type: 'back'});
		expect(s.filterText).toBe('');
		expect(s.pane).toBe('routing');
		expect(run(s, {type: 'back'}).pane).toBe('sessions');
	});

	it('resets the cursor of the pane being filtered, and opening help clears its old query', () => {
		const s = run(initialUiState('findings'), {type: 'move', delta: 3, rows: 9}, {type: 'filter-text', text: 'orphan'});
		expect(s.cursor.findings).toBe(0);
		expect(run(s, {type: 'help-text', text: 'q'}, {type: 'overlay', overlay: 'help'}).helpText).toBe('');
		expect(run(s, {type: 'help-text', text: 'q'}, {type: 'overlay', overlay: 'filter'}).helpText).toBe('q');
	});

	it('cycles the source filter through every source and back to all', () => {
		const sources = ['cli', 'telegram'];
		let s = run(initialUiState(), {type: 'move', delta: 2, rows: 5});
		s = run(s, {type: 'cycle-source', sources});
		expect(s.source).toBe('cli');
		expect(s.cursor.sessions).toBe(0);
		s = run(s, {type: 'cycle-source', sources});
		expect(s.source).toBe('telegram');
		expect(run(s, {type: 'cycle-source', sources}).source).toBeNull();
	});

	it('toggles pause and the hidden rows (which resets the Sessions cursor)', () => {
		const s = run(initialUiState(), {type: 'move', delta: 2, rows: 5}, {type: 'toggle-pause'}, {type: 'toggle-hidden'});
		expect(s.paused).toBe(true);
		expect(s.showHidden).toBe(true);
		expect(s.cursor.sessions).toBe(0);
		expect(run(s, {type: 'toggle-pause'}, {type: 'toggle-hidden'})).toMatchObject({paused: false, showHidden: false});
	});

	it('records yanks with a notice, clears notices, and opens and closes the repair flow', () => {
		const s = run(initialUiState(), {type: 'yank', id: 'a'}, {type: 'yank', id: 'b'});
		expect(s.yanked).toEqual(['a', 'b']);
		expect(s.notice).toBe('copied b');
		expect(run(s, {type: 'notice', text: null}).notice).toBeNull();
		const open = run(s, {type: 'repair', orphanId: 'o1'});
		expect(open.repairOrphan).toBe('o1');
		expect(run(open, {type: 'repair', orphanId: null}).repairOrphan).toBeNull();
	});

	it("keeps a keyed list's selection on its row through 20 re-sorts, and moves from where that row is now", () => {
		const ids = ['a', 'b', 'c', 'd', 'e'];
		let s = run(initialUiState('sessions'), {type: 'move', delta: 2, rows: 5, ids});
		expect(s.anchor.sessions).toBe('c');
		let order = [...ids];
		for (let i = 0; i < 20; i++) {
			// The row that was written last goes on top, as the Sessions list sorts.
			const top = order[(i * 3 + 1) % order.length]!;
			order = [top, ...order.filter(id => id !== top)];
			expect(order[cursorIn(s, 'sessions', order)]).toBe('c');
		}

		// A move starts from the anchored row's place now, not from the remembered index.
		const at = order.indexOf('c');
		s = run(s, {type: 'move', delta: 1, rows: 5, ids: order});
		expect(s.anchor.sessions).toBe(order[at + 1] ?? 'c');
		s = run(s, {type: 'move-to', index: 0, rows: 5, ids: order});
		expect(s.anchor.sessions).toBe(order[0]);
	});

	it(
		'falls back to the remembered index when the anchored row leaves, pins ' +
			'the row shown, and forgets on a new filter',
		() => {
			let s = run(initialUiState('findings'), {type: 'move', delta: 3, rows: 5, ids: ['a', 'b', 'c', 'd', 'e']});
			expect(cursorIn(s, 'findings', ['a', 'b', 'c'])).toBe(2);
			expect(cursorIn(s, 'findings', [] as string[])).toBe(0);
			s = run(s, {type: 'pin', pane: 'findings', id: 'c', cursor: 3});
			expect(s.anchor.findings).toBe('c');
			expect(uiReducer(s, {type: 'pin', pane: 'findings', id: 'c', cursor: 3})).toBe(s);
			// A pin from a frame drawn before a key moved the cursor is stale: the move's own anchor stays.
			expect(uiReducer(s, {type: 'pin', pane: 'findings', id: 'a', cursor: 0})).toBe(s);
			s = run(s, {type: 'filter-text', text: 'x'});
			expect(s.anchor.findings).toBeNull();
			expect(cursorIn(s, 'findings', ['c', 'd'])).toBe(0);
			const sessions = run(initialUiState(), {type: 'move', delta: 1, rows: 3, ids: ['a', 'b', 'c']});
			expect(run(sessions, {type: 'toggle-hidden'}).anchor.sessions).toBeNull();
			expect(run(sessions, {type: 'cycle-source', sources: ['cli']}).anchor.sessions).toBeNull();
			expect(run(sessions, {type: 'pane', pane: 'routing'}).anchor.sessions).toBe('b');
		},
	);

	it('wraps a stepping move (n/N) around either end of a keyed list', () => {
		const ids = ['a', 'b', 'c'];
		let s = run(initialUiState('findings'), {type: 'move', delta: -1, rows: 3, ids, wrap: true});
		expect(s.anchor.findings).toBe('c');
		s = run(s, {type: 'move', delta: 1, rows: 3, ids, wrap: true});
		expect(s.anchor.findings).toBe('a');
		expect(run(s, {type: 'move', delta: -1, rows: 3, ids}).anchor.findings).toBe('a');
		expect(run(s, {type: 'move', delta: 1, rows: 0, ids: [] as string[], wrap: true}).cursor.findings).toBe(0);
	});

	it('lets a confirmation notice fade by itself, but never a newer or a sticky one', () => {
		const s = run(initialUiState(), {type: 'yank', id: 'a'});
		expect(s.noticeFades).toBe(true);
		expect(run(s, {type: 'notice-faded', text: 'copied a'}).notice).toBeNull();
		expect(run(s, {type: 'yank', id: 'b'}, {type: 'notice-faded', text: 'copied a'}).notice).toBe('copied b');
		const sticky = run(initialUiState(), {type: 'notice', text: 'copied a'});
		expect(run(sticky, {type: 'notice-faded', text: 'copied a'}).notice).toBe('copied a');
	});

	it('never changes the state it was given', () => {
		const s = initialUiState();
		const before = JSON.stringify(s);
		run(
			s,
			{type: 'pane', pane: 'files'},
			{type: 'move', delta: 1, rows: 3},
			{type: 'yank', id: 'z'},
			{type: 'toggle-hidden'},
		);
		expect(JSON.stringify(s)).toBe(before);
	});

	it(
		'Activity follows its newest row from the start: no pin takes it, a move ' +
			'pauses it, follow resumes it (issue #28 point 8)',
		() => {
			let s = initialUiState('activity');
			expect(s.cursor.activity).toBe(FOLLOW);
			expect(uiReducer(s, {type: 'pin', pane: 'activity', id: 'x', cursor: FOLLOW})).toBe(s);
			s = run(s, {type: 'move', delta: 1, rows: 2, from: 0, ids: ['x', 'y']});
			expect(s.cursor.activity).toBe(1);
			expect(s.anchor.activity).toBe('y');
			s = run(s, {type: 'follow', pane: 'activity'});
			expect(s.cursor.activity).toBe(FOLLOW);
			expect(s.anchor.activity).toBeNull();
			expect(cursorIn(s, 'activity', ['z', 'x', 'y'])).toBe(0);
		},
	);
});
