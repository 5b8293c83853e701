/**
 * What a key handler may touch: on the main screen (its panes, the help and the filter line) and
 * in the repair flow (its preview and typed confirmation), and in the undo flow. The screens build these; the keymap's
 * handlers use nothing else.
 */
import type {LiveModel} from '../../live/live.js';
import type {BackupsModel, BackupsSource} from '../sources/backups-model.js';
import type {LiveSource} from '../sources/live-source.js';
import type {HomeSource} from '../sources/home-source.js';
import type {RepairService} from '../repair/repair-service.js';
import type {Stage} from '../repair/repair-flow-state.js';
import type {UndoStage} from '../repair/undo-flow-state.js';
import type {RowIds, UiAction, UiState} from '../state.js';
import type {KeyContext} from './binding.js';

export type ScreenKeys = KeyContext & {
	ui: UiState;
	dispatch: (action: UiAction) => void;
	/** The model on screen (the frozen one while paused). */
	model: LiveModel;
	/** How many rows the focused pane has. */
	rows: () => number;
	/** A keyed list's row identities (the selection follows its row), else undefined. */
	ids: () => RowIds | undefined;
	/** Where a relative move starts: the pane's FOLLOW cursor resolved, else undefined (the reducer's own). */
	from: () => number | undefined;
	/** Half the body's height, at least 1: one page move. */
	half: number;
	/** The rows the body shows (the help's room). */
	body: number;
	/** How many rows the help lists for its query. */
	helpRows: () => number;
	/** The session under the cursor of the focused pane. */
	selectedId: () => string | null;
	/** In a list that spans profiles: the session under the cursor when another profile holds it (else null). */
	selectedElsewhere: () => {profile: string; id: string} | null;
	/** What y copies in the focused pane. */
	yankText: () => string | null;
	/** Reports what was copied and leaves. */
	quit: () => void;
	/** Writes text to the clipboard (OSC 52). */
	copy: (text: string) => void;
	live: LiveSource;
	/** On a root with profiles: every profile's store (P moves the focus). */
	home?: HomeSource;
	backupsModel: BackupsModel | null;
	backups?: BackupsSource;
	repair?: RepairService;
};

export type TimelineKeys = KeyContext & {
	/** Closes the timeline (back to the pane it was opened from). */
	close: () => void;
	/** Leaves hfx. */
	quit: () => void;
	/** Scrolls the timeline's lines by a number of lines, or to their top or bottom. */
	scroll: (by: number | 'top' | 'bottom') => void;
	/** Half the window, at least 1: one page move. */
	half: number;
};

export type RepairKeys = KeyContext & {
	stage: Stage;
	/** Every precondition holds and the plan adopts something. */
	ready: boolean;
	/** Leaves the flow (reporting whether the repair was applied). */
	close: () => void;
	/** Asks for the typed confirmation. */
	confirm: () => void;
	/** Scrolls the flow's lines by a number of lines, or to their top or bottom. */
	scroll: (by: number | 'top' | 'bottom') => void;
	/** Half the flow's window, at least 1: one page move. */
	half: number;
	/** The repair was applied (the result is on screen). */
	applied: boolean;
	/** How many candidate donors the operator may choose from (0: repair-routing's own adoption). */
	donors: number;
	/** Plans the adoption from the next candidate donor. */
	nextDonor: () => void;
	/** The typed confirmation's answer: typing, erasing, submitting it. */
	answer: {type: (text: string) => void; erase: () => void; submit: () => void};
	/** Opens the undo of the applied repair on screen. */
	undo: () => void;
};

export type UndoKeys = KeyContext & {
	stage: UndoStage;
	/** An entry is chosen and every precondition holds. */
	ready: boolean;
	/** How many applied repairs of the audit trail can be undone. */
	entries: number;
	/** The undo was written (the result is on screen). */
	undone: boolean;
	nextEntry: () => void;
	close: () => void;
	confirm: () => void;
	scroll: (by: number | 'top' | 'bottom') => void;
	half: number;
	answer: {type: (text: string) => void; erase: () => void; submit: () => void};
};
