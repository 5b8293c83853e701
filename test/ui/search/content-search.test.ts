/**
 * The content mode of `/` as state (ui/state.ts): Tab switches the filter line between the fuzzy
 * filter and a content search; a search's result lists on Sessions; ⏎ opens a hit's Detail, Esc
 * there returns to the hits, Esc on the hits returns to every session.
 */
import {describe, expect, it} from 'vitest';
import {type UiAction, type UiState, initialUiState, uiReducer} from '../../../source/ui/state.js';

const run = (state: UiState, ...actions: UiAction[]) => actions.reduce(uiReducer, state);
const result = {text: 'invoice', hits: [{sessionId: 's1', messageId: 7, snippet: '»invoice«'}], notes: []};

describe('the content mode of the filter line', () => {
	it('Tab switches the mode and starts its text afresh', () => {
		const s = run(
			initialUiState('routing'),
			{type: 'overlay', overlay: 'filter'},
			{type: 'filter-text', text: 'abc'},
			{type: 'filter-mode'},
		);
		expect(s).toMatchObject({filterMode: 'content', filterText: '', overlay: 'filter'});
		expect(run(s, {type: 'filter-mode'}).filterMode).toBe('fuzzy');
	});

	it('a result is listed on Sessions; ⏎ opens Detail, Esc returns to the hits, Esc again to every session', () => {
		const hits = run(
			initialUiState('findings'),
			{type: 'overlay', overlay: 'filter'},
			{type: 'filter-mode'},
			{type: 'content-result', result},
		);
		expect(hits).toMatchObject({pane: 'sessions', overlay: 'none', content: result});
		const detail = run(hits, {type: 'open-session', id: 's1'});
		expect(detail).toMatchObject({pane: 'detail', selectedSession: 's1'});
		const back = run(detail, {type: 'back'});
		expect(back).toMatchObject({pane: 'sessions', content: result});
		expect(run(back, {type: 'back'})).toMatchObject({pane: 'sessions', content: null});
	});
});
