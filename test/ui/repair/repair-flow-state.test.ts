/**
 * The repair flow's reducer: the moves of one burst of keys add up, and each step to the next
 * donor is a new plan, even when it comes back to the same donor.
 */
import {describe, expect, it} from 'vitest';
import {INITIAL_FLOW, flowReducer} from '../../../source/ui/repair/repair-flow-state.js';

describe('the repair flow reducer', () => {
	it('scrolls from where the flow is now, within 0 … bottom', () => {
		const moved = [1, 1, 1].reduce((s, by) => flowReducer(s, {type: 'scroll', by, bottom: 10}), INITIAL_FLOW);
		expect(moved.scroll).toBe(3);
		expect(flowReducer(moved, {type: 'scroll', by: -5, bottom: 10}).scroll).toBe(0);
		expect(flowReducer(moved, {type: 'scroll', by: 'bottom', bottom: 10}).scroll).toBe(10);
		expect(flowReducer(moved, {type: 'scroll', by: 20, bottom: 10}).scroll).toBe(10);
		// A window that shrank under the scroll: the next move starts from its bottom.
		expect(flowReducer({...moved, scroll: 30}, {type: 'scroll', by: -1, bottom: 10}).scroll).toBe(9);
		expect(flowReducer(moved, {type: 'scroll', by: 'top', bottom: 10}).scroll).toBe(0);
	});

	it('steps through the donors in turn; two steps among two come back to the first, as a new plan', () => {
		const planned = {...INITIAL_FLOW, stage: 'preview' as const, scroll: 4};
		const once = flowReducer(planned, {type: 'next-donor', count: 2});
		expect(once).toMatchObject({donorAt: 1, donorTurns: 1, planned: null, stage: 'planning', scroll: 0});
		const twice = flowReducer(once, {type: 'next-donor', count: 2});
		expect(twice).toMatchObject({donorAt: 0, donorTurns: 2, stage: 'planning'});
		expect(flowReducer(twice, {type: 'next-donor', count: 3}).donorAt).toBe(1);
	});
});
