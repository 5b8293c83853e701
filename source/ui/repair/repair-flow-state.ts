/**
 * The repair flow's own state as a pure reducer: the stage (planning, preview, confirm,
 * applying, done, error), the plan, the live checklist, the apply log, the outcome, and how far
 * the operator scrolled the flow's lines.
 */
import type {ApplyOutcome, Planned} from '../../repair/apply.js';
import type {Check} from '../../repair/write/preconditions.js';

export type Stage = 'planning' | 'preview' | 'confirm' | 'applying' | 'done' | 'error';

export type FlowState = {
	stage: Stage;
	planned: Planned | null;
	checks: Check[];
	log: string[];
	outcome: ApplyOutcome | null;
	error: string | null;
	notice: string | null;
	/** The first line shown of the flow's body (clamped where it is drawn). */
	scroll: number;
	/** Which of the candidate donors the operator's adoption is planned from. */
	donorAt: number;
	/** How many times the operator stepped to the next donor: each step re-plans, even back to the same one. */
	donorTurns: number;
};

export type FlowAction =
	| {type: 'planned'; planned: Planned}
	| {type: 'checks'; checks: Check[]}
	| {type: 'stage'; stage: Stage; notice?: string | null}
	| {type: 'log'; line: string}
	| {type: 'outcome'; outcome: ApplyOutcome}
	| {type: 'error'; error: string}
	/** Relative to where the flow is now (so keys of one burst add up); `bottom` is the last first line. */
	| {type: 'scroll'; by: number | 'top' | 'bottom'; bottom: number}
	/** The next of `count` candidate donors, from the one the flow is on now. */
	| {type: 'next-donor'; count: number};

export const INITIAL_FLOW: FlowState = {
	stage: 'planning',
	planned: null,
	checks: [],
	log: [],
	outcome: null,
	error: null,
	notice: null,
	scroll: 0,
	donorAt: 0,
	donorTurns: 0,
};

export function flowReducer(state: FlowState, action: FlowAction): FlowState {
	switch (action.type) {
		case 'planned': {
			return {...state, planned: action.planned, stage: state.stage === 'planning' ? 'preview' : state.stage};
		}

		case 'checks': {
			// Apply turned ready (or not) under a notice about it ("apply is disabled…"): the notice is stale, the footer
			// follows.
			const next = {...state, checks: action.checks};
			return readyToApply(next) === readyToApply(state) ? next : {...next, notice: null};
		}

		case 'stage': {
			// The log and the outcome are read from their start.
			const scroll = action.stage === 'applying' ? 0 : state.scroll;
			return {...state, stage: action.stage, notice: action.notice ?? null, scroll};
		}

		case 'log': {
			return {...state, log: [...state.log, action.line].slice(-12)};
		}

		case 'outcome': {
			return {...state, outcome: action.outcome, stage: 'done', scroll: 0};
		}

		case 'error': {
			return {...state, error: action.error, stage: 'error'};
		}

		case 'scroll': {
			const from = Math.min(state.scroll, action.bottom);
			const to = action.by === 'top' ? 0 : action.by === 'bottom' ? action.bottom : from + action.by;
			return {...state, scroll: Math.max(0, Math.min(action.bottom, to))};
		}

		case 'next-donor': {
			// Another donor is another plan: nothing of the previous one is shown or applied.
			return {
				...state,
				donorAt: (state.donorAt + 1) % Math.max(1, action.count),
				donorTurns: state.donorTurns + 1,
				planned: null,
				stage: 'planning',
				scroll: 0,
				notice: null,
			};
		}
	}
}

/** Apply may be pressed: a plan that adopts something, and every precondition checked and holding. */
export function readyToApply(state: FlowState): boolean {
	return (
		state.planned !== null &&
		state.planned.plan.adoptions.length > 0 &&
		state.checks.length > 0 &&
		state.checks.every(c => c.ok)
	);
}

/** The first line to show of `total` in a window of `view` lines: the scroll clamped so the window stays full. */
export function clampScroll(scroll: number, total: number, view: number): number {
	return Math.max(0, Math.min(scroll, total - view));
}

/** "lines 1–18 of 42" when the lines do not fit the window, else null. */
export function scrollIndicator(first: number, total: number, view: number): string | null {
	return total > view ? `lines ${first + 1}–${Math.min(total, first + view)} of ${total}` : null;
}
