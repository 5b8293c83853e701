/**
 * What every pane gets, and what the App needs from each pane to route keys: how many rows it
 * has and which session (if any) the cursor is on.
 */
import type React from 'react';
import type {LiveModel} from '../../live/live.js';
import type {SessionDetail} from '../../store/read/detail.js';
import type {RowIds, UiState} from '../state.js';
import type {FilesModel} from '../sources/files-model.js';
import type {BackupsModel} from '../sources/backups-model.js';
import type {HomeView} from '../sources/home-model.js';

export type PaneContext = {
	model: LiveModel;
	ui: UiState;
	width: number;
	height: number;
	/** Seconds since the epoch (injected: frames are reproducible in tests). */
	now: number;
	detail: (sessionId: string) => SessionDetail | null;
	files: FilesModel | null;
	backups: BackupsModel | null;
	/** The session the Detail and Lineage panes are about. */
	focusSession: string | null;
	/** On a root with profiles, every profile's model (Findings lists them all); null for one store. */
	home?: HomeView | null;
};

export type PaneSpec = {
	rowCount: (ctx: PaneContext) => number;
	/** The cursor row, resolving FOLLOW or the anchor (defaults to ui.cursor[pane]). */
	cursor?: (ctx: PaneContext) => number;
	/** A keyed list's row identities: the selection follows them through re-sorts. */
	rowIds?: (ctx: PaneContext) => RowIds;
	/** The session id under the cursor (for Enter, y, Detail). */
	selectedId: (ctx: PaneContext) => string | null;
	/**
	 * In a list that spans profiles: the session under the cursor when another profile than the focused one holds it (⏎
	 * focuses that profile first).
	 */
	selectedElsewhere?: (ctx: PaneContext) => {profile: string; id: string} | null;
	/** Text to copy with y (defaults to selectedId). */
	yankText?: (ctx: PaneContext) => string | null;
	View: (props: {ctx: PaneContext}) => React.ReactElement;
};
