/**
 * The main screen's keyboard: picks the scope (a pane, or the help or filter over it), looks the
 * key up in the keymap and presses the binding with the screen's handler context. Silent while
 * the repair flow or a timeline is open: they take their own keys.
 */
import type React from 'react';
import {useApp, useStdin, useStdout} from 'ink';
import type {AppProps} from '../app-props.js';
import {useLatestInput} from '../hooks.js';
import {press, type Scope} from '../keys/binding.js';
import type {ScreenKeys} from '../keys/contexts.js';
import {type KeyEvent, splitBurst} from '../keys/key-event.js';
import {helpRows, screenBinding} from '../keys/lookup.js';
import {FOLLOW, type UiAction, type UiState} from '../state.js';
import {osc52} from '../terminal.js';
import type {ScreenModel} from './use-screen-model.js';

type Dispatch = React.Dispatch<UiAction>;

function screenKeys(
	props: AppProps,
	ui: UiState,
	dispatch: Dispatch,
	shown: ScreenModel,
	leave: {exit: () => void; write: (text: string) => void},
): ScreenKeys {
	const {ctx, spec} = shown;
	return {
		ui,
		dispatch,
		notice: text => dispatch({type: 'notice', text}),
		model: shown.model,
		rows: () => spec.rowCount(ctx),
		ids: () => spec.rowIds?.(ctx),
		// Relative moves come from the reducer's current state (fast key sequences never see a stale
		// cursor); only a FOLLOW cursor is resolved here first.
		from: () => (ui.cursor[ui.pane] === FOLLOW ? spec.cursor?.(ctx) : undefined),
		half: Math.max(1, Math.floor(shown.bodyHeight / 2)),
		body: shown.bodyHeight,
		helpRows: () => helpRows(ui.helpText).length,
		selectedId: () => spec.selectedId(ctx),
		selectedElsewhere: () => spec.selectedElsewhere?.(ctx) ?? null,
		yankText: () => spec.yankText?.(ctx) ?? null,
		quit() {
			props.onExit?.(ui.yanked);
			leave.exit();
		},
		copy: text => leave.write(osc52(text)),
		live: props.live,
		home: props.home,
		backupsModel: shown.backups,
		backups: props.backups,
		repair: props.repair,
	};
}

/**
 * The scope a key is pressed in, and the keypresses it stands for (a pane splits a typed burst; an overlay takes it
 * whole).
 */
function keypresses(ui: UiState, key: KeyEvent): {scope: Scope & {overlay?: 'help' | 'filter'}; keys: KeyEvent[]} {
	return ui.overlay === 'none'
		? {scope: {pane: ui.pane}, keys: splitBurst(key)}
		: {scope: {pane: ui.pane, overlay: ui.overlay}, keys: [key]};
}

export function useScreenKeys(props: AppProps, ui: UiState, dispatch: Dispatch, shown: ScreenModel): void {
	const {exit} = useApp();
	const {isRawModeSupported} = useStdin();
	const {stdout} = useStdout();
	useLatestInput(
		(input, key) => {
			if (ui.repairOrphan || ui.undo || ui.timelineChat) {
				return;
			}

			if (ui.notice) {
				dispatch({type: 'notice', text: null});
			}

			const c = screenKeys(props, ui, dispatch, shown, {exit, write: text => stdout.write(text)});
			const {scope, keys} = keypresses(ui, {...key, input});
			for (const [i, k] of keys.entries()) {
				const binding = screenBinding(k, scope);
				if (binding) {
					press(binding, c, k);
				}

				if (binding && OPENS_TEXT[binding.id]) {
					// `/abc` typed in one burst: the keys after `/` are the filter's text, not keys of the pane
					// (they were pressed there before the overlay was drawn, and lost; a `q` among them quit).
					const rest = keys
						.slice(i + 1)
						.map(x => x.input)
						.join('');
					if (rest) {
						dispatch(OPENS_TEXT[binding.id]!(ui, rest));
					}

					break;
				}
			}
		},
		{isActive: isRawModeSupported},
	);
}

/** Bindings that open an overlay taking typed text, and the action that types the rest of a burst into it. */
const OPENS_TEXT: Record<string, ((ui: UiState, rest: string) => UiAction) | undefined> = {
	filter: (ui, rest) => ({type: 'filter-text', text: `${ui.filterText}${rest}`}),
	help: (_ui, rest) => ({type: 'help-text', text: rest}),
};
