/**
 * Reads the keymap: which binding a key presses in a scope, the footer's hints and the help's
 * rows. All three come from the same table.
 */
import {PANE_TITLES} from '../pane-names.js';
import {BINDINGS, LISTS, REPAIR_BINDINGS, SCREEN_BINDINGS, TIMELINE_BINDINGS, UNDO_BINDINGS} from '../keymap.js';
import type {AnyBinding, Binding, FooterState, Overlay, Scope} from './binding.js';
import type {RepairKeys, ScreenKeys, TimelineKeys, UndoKeys} from './contexts.js';
import {type KeyEvent, keyMatches} from './key-event.js';

function inScope<B extends AnyBinding>(bindings: readonly B[], scope: Scope): B[] {
	return scope.overlay
		? bindings.filter(b => b.overlay === scope.overlay)
		: bindings.filter(b => !b.overlay && (!b.panes || b.panes.includes(scope.pane)));
}

function find<C>(bindings: ReadonlyArray<Binding<C>>, key: KeyEvent, scope: Scope): Binding<C> | undefined {
	return inScope(bindings, scope).find(b => b.keys.some(spec => keyMatches(spec, key)));
}

/** The main screen's binding for a key: in a pane, or in the help or filter overlay over it. */
export function screenBinding(
	key: KeyEvent,
	scope: Scope & {overlay?: Extract<Overlay, 'help' | 'filter'>},
): Binding<ScreenKeys> | undefined {
	return find(SCREEN_BINDINGS, key, scope);
}

/** The repair flow's binding for a key, in its preview or its confirmation. */
export function repairBinding(
	key: KeyEvent,
	overlay: Extract<Overlay, 'repair' | 'confirm'>,
): Binding<RepairKeys> | undefined {
	return find(REPAIR_BINDINGS, key, {pane: 'findings', overlay});
}

/** The undo flow's binding for a key, in its preview or its confirmation. */
export function undoBinding(
	key: KeyEvent,
	overlay: Extract<Overlay, 'undo' | 'undo-confirm'>,
): Binding<UndoKeys> | undefined {
	return find(UNDO_BINDINGS, key, {pane: 'findings', overlay});
}

/** The timeline view's binding for a key. */
export function timelineBinding(key: KeyEvent): Binding<TimelineKeys> | undefined {
	return find(TIMELINE_BINDINGS, key, {pane: 'routing', overlay: 'timeline'});
}

export type Hint = {text: string; pinned: boolean};

/**
 * Footer hints for a scope, in order (lower `footer` first). With the live context a disabled
 * binding says so, and with the screen's state a hint says what its key does now; without them
 * the hints are the table's alone.
 */
export function footerHints<C>(scope: Scope, c?: C, state?: FooterState): Hint[] {
	return (
		inScope(BINDINGS as ReadonlyArray<Binding<C>>, scope)
			// With the live context, a key that means nothing now is not offered (say, apply once applied).
			.filter(b => b.footer !== undefined && (c === undefined || !b.active || b.active(c)))
			.sort((a, b) => a.footer! - b.footer!)
			.map(b => {
				const text =
					(state && b.hintNow?.(state)) ??
					(c === undefined ? null : b.hintIn?.(c)) ??
					b.hint ??
					`${b.label} ${b.description.split(/[:(;,]/)[0]!.trim()}`;
				return {
					text: c !== undefined && b.disabledReason?.(c) ? `${text} (disabled)` : text,
					pinned: Boolean(b.pinned),
				};
			})
	);
}

export type HelpRow = {label: string; description: string; where: string};

function where(b: AnyBinding): string {
	if (b.overlay) {
		return b.overlay === 'timeline' ? 'timeline view' : `${b.overlay} preview`;
	}

	if (!b.panes) {
		return 'everywhere';
	}

	return b.panes.length === LISTS.length ? 'lists' : b.panes.map(p => PANE_TITLES[p]).join(', ');
}

/** Help rows, optionally filtered by a query matched against label, description and scope. */
export function helpRows(query: string): HelpRow[] {
	const q = query.trim().toLowerCase();
	return BINDINGS.filter(b => b.help !== false)
		.map(b => ({...(b.help || {label: b.label, description: b.description}), where: where(b)}))
		.filter(r => !q || `${r.label} ${r.description} ${r.where}`.toLowerCase().includes(q));
}
