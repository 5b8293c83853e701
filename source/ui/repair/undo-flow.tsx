/**
 * The undo flow, over the Findings pane: `hfx repair --undo SEQ` in the TUI. It lists the audit
 * trail's applied repairs that can be undone (the newest first, or the repair just applied), shows
 * the columns the chosen one's undo puts back and the live holder checklist, keeps its undo key
 * disabled until every precondition holds, asks a typed confirmation (`undo`, as the CLI does),
 * and then pauses hfx's own reads of the store for the guarded write (the CLI's: snapshot,
 * holders again, intent, one transaction that refuses if any column changed since, outcome).
 */
import type React from 'react';
import {useEffect, useReducer, useRef} from 'react';
import {Box, useStdin} from 'ink';
import {Text} from '../components/text.js';
import {errorMessage} from '../../ground/errors.js';
import {useLatestInput} from '../hooks.js';
import {press} from '../keys/binding.js';
import {type KeyEvent, splitBurst} from '../keys/key-event.js';
import type {UndoKeys} from '../keys/contexts.js';
import {footerHints, undoBinding} from '../keys/lookup.js';
import {clampScroll, scrollIndicator} from './repair-flow-state.js';
import type {RepairService} from './repair-service.js';
import {useTheme} from '../theme.js';
import {type TypedAnswer, useTypedAnswer} from './typed-answer.js';
import {
	type UndoAction,
	type UndoState,
	INITIAL_UNDO,
	chosenEntry,
	readyToUndo,
	undoReducer,
} from './undo-flow-state.js';
import {undoLines, undoTitle} from './undo-flow-lines.js';
import {useRepairChecks} from './use-repair-plan.js';

export type UndoFlowProps = {
	service: RepairService;
	/** The entry to show first (the repair just applied); null: the newest undoable one. */
	seq: number | null;
	auditPath: string;
	width: number;
	height: number;
	onClose: () => void;
	/** Pauses hfx's own reads of the store; the function returned resumes them. */
	holdReads: () => () => void;
	/** Called once the undo was written (the screen re-reads the store). */
	onUndone?: () => void;
	checkEveryMs?: number;
};

type Dispatch = (action: UndoAction) => void;

/** The word the operator types, as `hfx repair --undo` asks it. */
export const UNDO_WORD = 'undo';

function undoKeys(
	state: UndoState,
	dispatch: Dispatch,
	props: UndoFlowProps,
	window: {total: number; view: number},
	answer: TypedAnswer,
): UndoKeys {
	const bottom = Math.max(0, window.total - window.view);
	return {
		stage: state.stage,
		ready: readyToUndo(state),
		entries: state.entries?.length ?? 0,
		undone: state.outcome?.result === 'applied',
		nextEntry: () => dispatch({type: 'next-entry'}),
		close: () => props.onClose(),
		confirm() {
			answer.reset();
			dispatch({type: 'stage', stage: 'confirm'});
		},
		scroll: by => dispatch({type: 'scroll', by, bottom}),
		half: Math.max(1, Math.floor(window.view / 2)),
		notice: text => dispatch({type: 'stage', stage: 'preview', notice: text}),
		answer,
	};
}

/**
 * A keypress, or a typed burst: in the confirmation every key is typed text; elsewhere only scrolling continues a
 * burst.
 */
function pressUndoKeys(event: KeyEvent, c: UndoKeys): void {
	const confirming = c.stage === 'confirm';
	for (const k of confirming ? [event] : splitBurst(event)) {
		const binding = undoBinding(k, confirming ? 'undo-confirm' : 'undo');
		if (binding) {
			press(binding, c, k);
		}

		if (!binding?.continuesBurst) {
			return;
		}
	}
}

/** The guarded write, with hfx's own reads of the store paused from before the snapshot to after the outcome. */
async function runUndo(props: UndoFlowProps, seq: number, dispatch: Dispatch): Promise<void> {
	dispatch({type: 'stage', stage: 'undoing'});
	const resume = props.holdReads();
	try {
		const outcome = await props.service.undo!(seq, line => dispatch({type: 'log', line}));
		dispatch({type: 'outcome', outcome});
		if (outcome.result === 'applied') {
			props.onUndone?.();
		}
	} catch (error) {
		dispatch({type: 'error', error: errorMessage(error)});
	} finally {
		resume();
	}
}

function submitAnswer(answer: string, state: UndoState, props: UndoFlowProps, dispatch: Dispatch): void {
	const entry = chosenEntry(state);
	if (state.stage !== 'confirm' || !entry) {
		return;
	}

	if (answer.trim() === UNDO_WORD) {
		void runUndo(props, entry.seq, dispatch);
	} else {
		dispatch({type: 'stage', stage: 'preview', notice: 'the confirmation did not match: nothing was written'});
	}
}

/** The audit trail, read when the flow opens (a trail that cannot be read is said, never guessed). */
function useUndoEntries(props: UndoFlowProps, dispatch: Dispatch): void {
	useEffect(() => {
		try {
			dispatch({type: 'entries', entries: props.service.undoable?.() ?? [], seq: props.seq});
		} catch (error) {
			dispatch({type: 'error', error: `the audit trail could not be read: ${errorMessage(error)}`});
		}
	}, [props.service, props.seq, dispatch]);
}

function Footer({
	state,
	hint,
	where,
	width,
	answer,
}: {
	state: UndoState;
	hint: string;
	where: string | null;
	width: number;
	answer: string;
}): React.ReactElement {
	const theme = useTheme();
	if (state.stage === 'confirm') {
		return (
			<Box height={1} flexShrink={0} overflow="hidden">
				<Text bold>{` to undo entry ${chosenEntry(state)?.seq ?? '?'}, type ${UNDO_WORD}: `}</Text>
				<Text>{answer}</Text>
				<Text inverse> </Text>
			</Box>
		);
	}

	return (
		<Box width={width} height={1} flexShrink={0}>
			<Box flexGrow={1} flexShrink={1} flexBasis={0}>
				<Text wrap="truncate" color={state.notice ? theme.warn : theme.muted}>{` ${state.notice ?? hint}`}</Text>
			</Box>
			{where ? (
				<Box flexShrink={0}>
					<Text wrap="truncate" color={theme.muted}>{` ${where} `}</Text>
				</Box>
			) : null}
		</Box>
	);
}

export function UndoFlow(props: UndoFlowProps): React.ReactElement {
	const theme = useTheme();
	const {isRawModeSupported} = useStdin();
	const [state, dispatch] = useReducer(undoReducer, INITIAL_UNDO);
	const current = useRef(state);
	current.current = state;
	const onSubmit = useRef((answer: string) => submitAnswer(answer, current.current, props, dispatch));
	onSubmit.current = answer => submitAnswer(answer, current.current, props, dispatch);
	const answer = useTypedAnswer(onSubmit);
	useUndoEntries(props, dispatch);
	useRepairChecks(props.service, props.checkEveryMs, dispatch);
	const view = Math.max(1, props.height - 2);
	const lines = undoLines(state, props.auditPath, theme, props.width);
	const window = {total: lines.length, view};
	const windowRef = useRef(window);
	windowRef.current = window;
	useLatestInput(
		(input, key) => {
			pressUndoKeys({...key, input}, undoKeys(current.current, dispatch, props, windowRef.current, answer));
		},
		{isActive: isRawModeSupported},
	);

	const first = clampScroll(state.scroll, lines.length, view);
	const hint = footerHints({pane: 'findings', overlay: 'undo'}, undoKeys(state, dispatch, props, window, answer))
		.map(h => h.text)
		.join('  ');
	return (
		<Box flexDirection="column" width={props.width} height={props.height} overflow="hidden">
			<Box height={1} flexShrink={0}>
				<Text wrap="truncate" bold color={state.outcome?.result === 'applied' ? theme.ok : undefined}>
					{undoTitle(state)}
				</Text>
			</Box>
			{lines.slice(first, first + view).map((l, i) => (
				<Text key={i} wrap="truncate" color={l.color} bold={l.bold}>
					{l.text}
				</Text>
			))}
			<Box flexGrow={1} />
			<Footer
				state={state}
				hint={hint}
				where={scrollIndicator(first, lines.length, view)}
				width={props.width}
				answer={answer.text}
			/>
		</Box>
	);
}
