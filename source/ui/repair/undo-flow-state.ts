/**
 * The undo flow's own state as a pure reducer: the audit trail's applied repairs that can be
 * undone (which one is chosen), the live checklist, the stage (preview, confirm, undoing, done,
 * error), the write's log and outcome, and how far the operator scrolled.
 */
import type {ApplyOutcome} from '../../repair/apply.js';
import type {Check} from '../../repair/write/preconditions.js';
import type {AuditEntry} from '../../store/audit-trail.js';

export type UndoStage = 'preview' | 'confirm' | 'undoing' | 'done' | 'error';

export type UndoState = {
	stage: UndoStage;
	/** The trail's undoable entries, newest first; null until read. */
	entries: AuditEntry[] | null;
	/** Which of them the preview shows. */
	at: number;
	checks: Check[];
	log: string[];
	outcome: ApplyOutcome | null;
	error: string | null;
	notice: string | null;
	scroll: number;
};

export type UndoAction =
	| {type: 'entries'; entries: AuditEntry[]; seq: number | null}
	| {type: 'checks'; checks: Check[]}
	| {type: 'stage'; stage: UndoStage; notice?: string | null}
	| {type: 'log'; line: string}
	| {type: 'outcome'; outcome: ApplyOutcome}
	| {type: 'error'; error: string}
	| {type: 'scroll'; by: number | 'top' | 'bottom'; bottom: number}
	/** The next (older) undoable entry, round to the newest. */
	| {type: 'next-entry'};

export const INITIAL_UNDO: UndoState = {
	stage: 'preview',
	entries: null,
	at: 0,
	checks: [],
	log: [],
	outcome: null,
	error: null,
	notice: null,
	scroll: 0,
};

export function undoReducer(state: UndoState, action: UndoAction): UndoState {
	switch (action.type) {
		case 'entries': {
			const at = action.entries.findIndex(e => e.seq === action.seq);
			return {...state, entries: action.entries, at: Math.max(0, at)};
		}

		case 'checks': {
			return {...state, checks: action.checks};
		}

		case 'stage': {
			return {
				...state,
				stage: action.stage,
				notice: action.notice ?? null,
				scroll: action.stage === 'undoing' ? 0 : state.scroll,
			};
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

		case 'next-entry': {
			return {
				...state,
				at: state.entries && state.entries.length > 0 ? (state.at + 1) % state.entries.length : 0,
				scroll: 0,
				notice: null,
			};
		}
	}
}

/** The entry the preview shows, if any. */
export function chosenEntry(state: UndoState): AuditEntry | null {
	return state.entries?.[state.at] ?? null;
}

/** Undo may be pressed: an entry chosen and every precondition checked and holding. */
export function readyToUndo(state: UndoState): boolean {
	return chosenEntry(state) !== null && state.checks.length > 0 && state.checks.every(c => c.ok);
}
