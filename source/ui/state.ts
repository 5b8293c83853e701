/**
 * The TUI's own state (what is selected, what is open), as a pure reducer: unit-testable
 * without Ink, and immune to the lost-keystroke race of closed-over state (ink-stack.md §1.3 E).
 */
import {PANES, type Pane} from './keymap.js';

export type Overlay = 'none' | 'help' | 'filter';

export type UiState = {
	pane: Pane;
	/** Panes visited, for Esc. */
	history: Pane[];
	/** Selected row index per pane. */
	cursor: Record<Pane, number>;
	/** The session the Detail and Lineage panes show. */
	selectedSession: string | null;
	overlay: Overlay;
	filterText: string;
	helpText: string;
	paused: boolean;
	showHidden: boolean;
	/** null = every source. */
	source: string | null;
	/** A transient line for the footer ("copied …"). */
	notice: string | null;
	yanked: string[];
	/** The orphan whose repair preview is open (drawn over the Findings pane). */
	repairOrphan: string | null;
};

export type UiAction =
	| {type: 'pane'; pane: Pane}
	| {type: 'cycle-pane'; delta: 1 | -1}
	| {type: 'move'; delta: number; rows: number; from?: number}
	| {type: 'move-to'; index: number; rows: number}
	| {type: 'open-session'; id: string}
	| {type: 'select-session'; id: string | null}
	| {type: 'back'}
	| {type: 'overlay'; overlay: Overlay}
	| {type: 'filter-text'; text: string}
	| {type: 'help-text'; text: string}
	| {type: 'toggle-pause'}
	| {type: 'toggle-hidden'}
	| {type: 'cycle-source'; sources: string[]}
	| {type: 'notice'; text: string | null}
	| {type: 'yank'; id: string}
	| {type: 'repair'; orphanId: string | null};

/** Cursor value meaning "where the pane says" (Detail: the newest message; Lineage: the focused session). */
export const FOLLOW = -1;

export function initialUiState(pane: Pane = 'sessions'): UiState {
	return {
		pane,
		history: [],
		cursor: {...Object.fromEntries(PANES.map(p => [p, 0])) as Record<Pane, number>, detail: FOLLOW, lineage: FOLLOW},
		selectedSession: null,
		overlay: 'none',
		filterText: '',
		helpText: '',
		paused: false,
		showHidden: false,
		source: null,
		notice: null,
		yanked: [],
		repairOrphan: null,
	};
}

function clamp(n: number, rows: number): number {
	return rows <= 0 ? 0 : Math.max(0, Math.min(rows - 1, n));
}

/** The focused session changed: Detail and Lineage follow it again. */
function refocus(state: UiState): UiState {
	return {...state, cursor: {...state.cursor, detail: FOLLOW, lineage: FOLLOW}};
}

function go(state: UiState, pane: Pane): UiState {
	if (pane === state.pane) {
		return state;
	}

	return {...state, pane, history: [...state.history, state.pane].slice(-20)};
}

export function uiReducer(state: UiState, action: UiAction): UiState {
	switch (action.type) {
		case 'pane': {
			return go(state, action.pane);
		}

		case 'cycle-pane': {
			const i = PANES.indexOf(state.pane);
			return go(state, PANES[(i + action.delta + PANES.length) % PANES.length]!);
		}

		case 'move': {
			const next = {...state, cursor: {...state.cursor, [state.pane]: clamp((action.from ?? state.cursor[state.pane]) + action.delta, action.rows)}};
			return state.pane === 'sessions' ? refocus({...next, selectedSession: null}) : next;
		}

		case 'move-to': {
			const next = {...state, cursor: {...state.cursor, [state.pane]: clamp(action.index, action.rows)}};
			return state.pane === 'sessions' ? refocus({...next, selectedSession: null}) : next;
		}

		case 'open-session': {
			return refocus({...go(state, 'detail'), selectedSession: action.id});
		}

		case 'select-session': {
			return state.selectedSession === action.id ? state : refocus({...state, selectedSession: action.id});
		}

		case 'back': {
			if (state.overlay === 'help') {
				return {...state, overlay: 'none', helpText: ''};
			}

			if (state.overlay === 'filter') {
				return {...state, overlay: 'none', filterText: ''};
			}

			if (state.filterText) {
				return {...state, filterText: ''};
			}

			const previous = state.history.at(-1);
			return previous ? {...state, pane: previous, history: state.history.slice(0, -1)} : state;
		}

		case 'overlay': {
			return {...state, overlay: action.overlay, helpText: action.overlay === 'help' ? '' : state.helpText};
		}

		case 'filter-text': {
			const next = {...state, filterText: action.text, cursor: {...state.cursor, [state.pane]: 0}};
			return state.pane === 'sessions' ? refocus({...next, selectedSession: null}) : next;
		}

		case 'help-text': {
			return {...state, helpText: action.text};
		}

		case 'toggle-pause': {
			return {...state, paused: !state.paused};
		}

		case 'toggle-hidden': {
			return refocus({...state, showHidden: !state.showHidden, selectedSession: null, cursor: {...state.cursor, sessions: 0}});
		}

		case 'cycle-source': {
			const order = [null, ...action.sources];
			const i = order.indexOf(state.source);
			return refocus({...state, source: order[(i + 1) % order.length] ?? null, selectedSession: null, cursor: {...state.cursor, sessions: 0}});
		}

		case 'notice': {
			return {...state, notice: action.text};
		}

		case 'yank': {
			return {...state, yanked: [...state.yanked, action.id], notice: `copied ${action.id}`};
		}

		case 'repair': {
			return {...state, repairOrphan: action.orphanId};
		}
	}
}
