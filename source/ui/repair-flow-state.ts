/**
 * The repair flow's own state as a pure reducer: the stage (planning, preview, confirm,
 * applying, done, error), the plan, the live checklist, the apply log and the outcome.
 */
import type {ApplyOutcome, Planned} from '../repair/apply.js';
import type {Check} from '../repair/preconditions.js';

export type Stage = 'planning' | 'preview' | 'confirm' | 'applying' | 'done' | 'error';

export type FlowState = {
	stage: Stage;
	planned: Planned | null;
	checks: Check[];
	log: string[];
	outcome: ApplyOutcome | null;
	error: string | null;
	notice: string | null;
};

export type FlowAction =
	| {type: 'planned'; planned: Planned}
	| {type: 'checks'; checks: Check[]}
	| {type: 'stage'; stage: Stage; notice?: string | null}
	| {type: 'log'; line: string}
	| {type: 'outcome'; outcome: ApplyOutcome}
	| {type: 'error'; error: string};

export const INITIAL_FLOW: FlowState = {stage: 'planning', planned: null, checks: [], log: [], outcome: null, error: null, notice: null};

export function flowReducer(state: FlowState, action: FlowAction): FlowState {
	switch (action.type) {
		case 'planned': {
			return {...state, planned: action.planned, stage: state.stage === 'planning' ? 'preview' : state.stage};
		}

		case 'checks': {
			return {...state, checks: action.checks};
		}

		case 'stage': {
			return {...state, stage: action.stage, notice: action.notice ?? null};
		}

		case 'log': {
			return {...state, log: [...state.log, action.line].slice(-12)};
		}

		case 'outcome': {
			return {...state, outcome: action.outcome, stage: 'done'};
		}

		case 'error': {
			return {...state, error: action.error, stage: 'error'};
		}
	}
}

/** Apply may be pressed: a plan that adopts something, and every precondition checked and holding. */
export function readyToApply(state: FlowState): boolean {
	return state.planned !== null && state.planned.plan.adoptions.length > 0 && state.checks.length > 0 && state.checks.every(c => c.ok);
}
