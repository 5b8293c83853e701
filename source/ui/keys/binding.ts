/**
 * What a key binding is (after lazygit's `Binding`): the keys, how they are written in hints
 * and help, where the binding applies, its handler and its reason to be disabled; and how a
 * press runs it.
 */
import type {Pane} from '../pane-names.js';
import type {KeyEvent, KeySpec} from './key-event.js';

/**
 * Screens drawn over a pane that take their own keys: the help, the filter line, the repair
 * preview, the repair's typed confirmation, a chat's timeline, and the undo of an applied repair
 * with its typed confirmation.
 */
export type Overlay = 'help' | 'filter' | 'repair' | 'confirm' | 'timeline' | 'undo' | 'undo-confirm';

/** Where a key is pressed: a pane, or an overlay drawn over it. */
export type Scope = {pane: Pane; overlay?: Overlay};

/** What the footer line knows of the screen: a hint may say what its key does now. */
export type FooterState = {paused: boolean};

/** What every handler context offers: a transient line in place of the footer. */
export type KeyContext = {notice: (text: string) => void};

export type Binding<C> = {
	/** A name for tests and messages; never parsed. */
	id: string;
	keys: KeySpec[];
	/** How the key is written in hints and help. */
	label: string;
	description: string;
	/** Panes where it applies; omitted = every pane (but not inside an overlay). */
	panes?: readonly Pane[];
	/** Applies only inside this overlay. */
	overlay?: Overlay;
	/** Shown in the footer (lower comes first); omitted = help only. */
	footer?: number;
	/** Footer text when it differs from the label + first words of the description. */
	hint?: string;
	/** Footer text for the screen's state now (say, `p resume` while paused), over `hint`. */
	hintNow?: (state: FooterState) => string;
	/** Footer text for the live context now (say, `Esc close` once a repair was applied), else null. */
	hintIn?: (c: C) => string | null;
	/** Kept at the footer's right end whatever the width. */
	pinned?: boolean;
	/** The help row: omitted = label and description; false = not listed (another row covers it). */
	help?: false | {label: string; description: string};
	/** Whether the key means anything now; when it does not, the press is swallowed. */
	active?: (c: C) => boolean;
	/**
	 * In a burst of keys typed faster than a read (they arrive as one input), whether the keys after
	 * this one still count. True for moves that only scroll; any other key ends the burst, because
	 * what follows it was typed for a screen the operator had not seen yet.
	 */
	continuesBurst?: boolean;
	/** Why the key cannot run now: shown instead of running, and as "(disabled)" in a live footer. */
	disabledReason?: (c: C) => string | null;
	run: (c: C, key: KeyEvent) => void;
};

/** A binding of any context, as the help and the footer read it. */
export type AnyBinding = Binding<never>;

/** Presses a binding: nothing when inactive, the disabled reason when there is one, else its handler. */
export function press<C extends KeyContext>(binding: Binding<C>, c: C, key: KeyEvent): void {
	if (binding.active && !binding.active(c)) {
		return;
	}

	const reason = binding.disabledReason?.(c);
	if (reason) {
		c.notice(reason);
		return;
	}

	binding.run(c, key);
}
