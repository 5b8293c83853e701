/**
 * The TUI's own state (what is selected, what is open), as a pure reducer: unit-testable
 * without Ink, and immune to the lost-keystroke race of closed-over state (two keys in one input chunk
 * would both read the same stale state in a handler that closed over it).
 */
import type {Overlay} from './keys/binding.js';
import {PANES, type Pane} from './pane-names.js';

/** The overlays the main screen draws itself (the repair flow keeps its own stages). */
export type ScreenOverlay = 'none' | Extract<Overlay, 'help' | 'filter'>;

export type UiState = {
	pane: Pane;
	/** Panes visited, for Esc. */
	history: Pane[];
	/** Selected row index per pane (in a keyed list, where the anchor was last seen). */
	cursor: Record<Pane, number>;
	/**
	 * The identity of the selected row per keyed list (session id, session key, finding, event):
	 * the cursor follows it when the rows re-sort; null = the row at `cursor`.
	 */
	anchor: Record<Pane, string | null>;
	/** The session the Detail and Lineage panes show. */
	selectedSession: string | null;
	overlay: ScreenOverlay;
	filterText: string;
	helpText: string;
	/** The first help row shown (the help scrolls: more keys than rows at 80x24). */
	helpScroll: number;
	paused: boolean;
	showHidden: boolean;
	/** null = every source. */
	source: string | null;
	/** A transient line for the footer ("copied …"). */
	notice: string | null;
	/** The notice clears itself after a moment (a confirmation like "copied …", not a reason to read). */
	noticeFades: boolean;
	yanked: string[];
	/** The orphan whose repair preview is open (drawn over the Findings pane). */
	repairOrphan: string | null;
	/** The undo flow, when open over the Findings pane: on the audit entry `seq`, or (null) the newest undoable one. */
	undo: {seq: number | null} | null;
	/** Per pane: long lines wrap (w) instead of being cut, so a cut line can be read whole. */
	wrap: Record<Pane, boolean>;
	/**
	 * The candidate donors the operator may adopt a refused orphan from (first shown first); empty for repair-routing's
	 * own adoption.
	 */
	repairDonors: string[];
	/** The chat (a session key, or a session id of one of its rows) whose timeline is open over the pane. */
	timelineChat: string | null;
	/** What the filter line does: the fuzzy filter of the lists, or a search of message content (Tab switches). */
	filterMode: 'fuzzy' | 'content';
	/** The last content search: the Sessions pane lists its hits' rows until Esc. */
	content: ContentResult | null;
};

/** One hit of a content search, as the Sessions pane lists it. */
export type ContentHit = {
	sessionId: string;
	messageId: number;
	snippet: string;
	/** On a root with profiles: the profile whose store holds the row. */
	profile?: string;
};

/**
 * A content search: its text, its hits (in each store's order, the focused profile's first), and what it says of how it
 * searched.
 */
export type ContentResult = {
	text: string;
	hits: ContentHit[];
	notes: string[];
	/** How many stores were searched (several on a root with profiles). */
	profiles?: number;
};

/**
 * The identities of a keyed list's rows as it shows them now, in order (a string array is one;
 * a pane passes a view over its rows so that twenty thousand sessions are not copied per key).
 */
export type RowIds = {
	readonly length: number;
	at: (index: number) => string | undefined;
	indexOf: (id: string) => number;
};

export type UiAction =
	| {type: 'pane'; pane: Pane}
	| {type: 'cycle-pane'; delta: 1 | -1}
	| {type: 'move'; delta: number; rows: number; from?: number; ids?: RowIds; wrap?: boolean}
	| {type: 'move-to'; index: number; rows: number; ids?: RowIds}
	/** `cursor`: the pane's cursor when the row was shown (a pin from an older frame, after a key moved it, is stale). */
	| {type: 'pin'; pane: Pane; id: string; cursor: number}
	| {type: 'follow'; pane: Pane}
	| {type: 'open-session'; id: string}
	| {type: 'select-session'; id: string | null}
	| {type: 'back'}
	| {type: 'overlay'; overlay: ScreenOverlay}
	| {type: 'filter-text'; text: string}
	| {type: 'help-text'; text: string}
	| {type: 'help-scroll'; to: number}
	| {type: 'toggle-pause'}
	| {type: 'toggle-hidden'}
	| {type: 'toggle-wrap'}
	| {type: 'cycle-source'; sources: string[]}
	| {type: 'notice'; text: string | null}
	| {type: 'notice-faded'; text: string}
	| {type: 'yank'; id: string}
	| {type: 'repair'; orphanId: string | null; donors?: string[]}
	| {type: 'undo'; undo: {seq: number | null} | null}
	| {type: 'timeline'; chat: string | null}
	| {type: 'filter-mode'}
	| {type: 'content-result'; result: ContentResult};

/**
 * Cursor value meaning "where the pane says" (Detail: the newest message; Lineage: the focused session; Activity: the
 * newest event, followed).
 */
export const FOLLOW = -1;

export function initialUiState(pane: Pane = 'sessions'): UiState {
	return {
		pane,
		history: [],
		// Activity follows the newest event until the cursor moves (issue #28 point 8); f follows it again.
		cursor: {
			...(Object.fromEntries(PANES.map(p => [p, 0])) as Record<Pane, number>),
			detail: FOLLOW,
			lineage: FOLLOW,
			activity: FOLLOW,
		},
		anchor: Object.fromEntries(PANES.map(p => [p, null])) as Record<Pane, string | null>,
		selectedSession: null,
		overlay: 'none',
		filterText: '',
		helpText: '',
		helpScroll: 0,
		paused: false,
		showHidden: false,
		source: null,
		notice: null,
		noticeFades: false,
		yanked: [],
		repairOrphan: null,
		undo: null,
		wrap: Object.fromEntries(PANES.map(p => [p, false])) as Record<Pane, boolean>,
		repairDonors: [],
		timelineChat: null,
		filterMode: 'fuzzy',
		content: null,
	};
}

function clamp(n: number, rows: number): number {
	return rows <= 0 ? 0 : Math.max(0, Math.min(rows - 1, n));
}

/** The row a keyed list's cursor is on: its anchor's row while it is listed, else the remembered index. */
export function cursorIn(state: UiState, pane: Pane, ids: RowIds): number {
	const anchor = state.anchor[pane];
	const at = anchor === null ? -1 : ids.indexOf(anchor);
	return at === -1 ? clamp(state.cursor[pane], ids.length) : at;
}

/** Puts the focused pane's cursor on `index`, and in a keyed list its anchor on that row. */
function place(state: UiState, index: number, rows: number, ids: RowIds | undefined): UiState {
	const pane = state.pane;
	const cursor = clamp(index, ids?.length ?? rows);
	const anchor = ids ? {...state.anchor, [pane]: ids.at(cursor) ?? null} : state.anchor;
	return {...state, cursor: {...state.cursor, [pane]: cursor}, anchor};
}

/** Where a move lands: from the anchored row (or `from`, or the cursor), `delta` on; around the end when it wraps. */
function moveTarget(state: UiState, a: Extract<UiAction, {type: 'move'}>): number {
	const start = a.from ?? (a.ids ? cursorIn(state, state.pane, a.ids) : state.cursor[state.pane]);
	const rows = a.ids?.length ?? a.rows;
	return a.wrap && rows > 0 ? (((start + a.delta) % rows) + rows) % rows : start + a.delta;
}

/** Forgets a list's selection (its rows changed meaning: a new filter, source or hidden set). */
function unanchor(state: UiState, pane: Pane): UiState {
	// A list that follows its newest row keeps following.
	return {
		...state,
		cursor: {...state.cursor, [pane]: state.cursor[pane] === FOLLOW ? FOLLOW : 0},
		anchor: {...state.anchor, [pane]: null},
	};
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

type Reducers = {[T in UiAction['type']]: (state: UiState, action: Extract<UiAction, {type: T}>) => UiState};

/** The Sessions cursor moved or its rows changed: the focused session follows the cursor again. */
function onSessions(state: UiState, next: UiState): UiState {
	return state.pane === 'sessions' ? refocus({...next, selectedSession: null}) : next;
}

function back(state: UiState): UiState {
	if (state.overlay === 'help') {
		return {...state, overlay: 'none', helpText: ''};
	}

	if (state.overlay === 'filter') {
		return {...state, overlay: 'none', filterText: ''};
	}

	if (state.filterText) {
		return {...state, filterText: ''};
	}

	// The hits are listed on Sessions: Esc there goes back to every session (from a hit's Detail, Esc returns to the hits
	// first).
	if (state.content && state.pane === 'sessions') {
		return refocus({...unanchor(state, 'sessions'), content: null, selectedSession: null});
	}

	const previous = state.history.at(-1);
	return previous ? {...state, pane: previous, history: state.history.slice(0, -1)} : state;
}

function cycleSource(state: UiState, sources: string[]): UiState {
	const order = [null, ...sources];
	const i = order.indexOf(state.source);
	return refocus({
		...unanchor(state, 'sessions'),
		source: order[(i + 1) % order.length] ?? null,
		selectedSession: null,
	});
}

const REDUCERS: Reducers = {
	pane: (state, a) => go(state, a.pane),
	'cycle-pane': (state, a) => go(state, PANES[(PANES.indexOf(state.pane) + a.delta + PANES.length) % PANES.length]!),
	move: (state, a) => onSessions(state, place(state, moveTarget(state, a), a.rows, a.ids)),
	'move-to': (state, a) => onSessions(state, place(state, a.index, a.rows, a.ids)),
	// A list following its newest row pins nothing: the next new row takes the cursor.
	pin: (state, a) =>
		state.anchor[a.pane] === a.id || state.cursor[a.pane] === FOLLOW || state.cursor[a.pane] !== a.cursor
			? state
			: {...state, anchor: {...state.anchor, [a.pane]: a.id}},
	follow: (state, a) => ({
		...state,
		cursor: {...state.cursor, [a.pane]: FOLLOW},
		anchor: {...state.anchor, [a.pane]: null},
	}),
	'open-session': (state, a) => refocus({...go(state, 'detail'), selectedSession: a.id}),
	'select-session': (state, a) => (state.selectedSession === a.id ? state : refocus({...state, selectedSession: a.id})),
	back: back,
	overlay: (state, a) => ({
		...state,
		overlay: a.overlay,
		helpText: a.overlay === 'help' ? '' : state.helpText,
		helpScroll: 0,
	}),
	'filter-text': (state, a) => onSessions(state, {...unanchor(state, state.pane), filterText: a.text}),
	'help-text': (state, a) => ({...state, helpText: a.text, helpScroll: 0}),
	'help-scroll': (state, a) => ({...state, helpScroll: Math.max(0, a.to)}),
	'toggle-pause': state => ({...state, paused: !state.paused}),
	'toggle-hidden': state =>
		refocus({...unanchor(state, 'sessions'), showHidden: !state.showHidden, selectedSession: null}),
	'cycle-source': (state, a) => cycleSource(state, a.sources),
	'toggle-wrap': state => ({...state, wrap: {...state.wrap, [state.pane]: !state.wrap[state.pane]}}),
	notice: (state, a) => ({...state, notice: a.text, noticeFades: false}),
	'notice-faded': (state, a) =>
		state.noticeFades && state.notice === a.text ? {...state, notice: null, noticeFades: false} : state,
	yank: (state, a) => ({...state, yanked: [...state.yanked, a.id], notice: `copied ${a.id}`, noticeFades: true}),
	repair: (state, a) => ({...state, repairOrphan: a.orphanId, repairDonors: a.donors ?? []}),
	// The undo of a repair just applied replaces its result on screen.
	undo: (state, a) => ({...state, undo: a.undo, repairOrphan: a.undo ? null : state.repairOrphan}),
	timeline: (state, a) => ({...state, timelineChat: a.chat}),
	'filter-mode': state => ({...state, filterMode: state.filterMode === 'fuzzy' ? 'content' : 'fuzzy', filterText: ''}),
	// The hits are listed on the Sessions pane (its rows, the hits' rows): ⏎ there opens one.
	'content-result': (state, a) =>
		refocus({
			...unanchor(go(state, 'sessions'), 'sessions'),
			overlay: 'none',
			filterText: '',
			content: a.result,
			selectedSession: null,
		}),
};

export function uiReducer(state: UiState, action: UiAction): UiState {
	return (REDUCERS[action.type] as (state: UiState, action: UiAction) => UiState)(state, action);
}
