/**
 * The repair flow of the Findings pane: preview (the before/after table, the restart before and
 * after), the preconditions as a live checklist, an apply key that stays disabled until every
 * precondition holds, a typed confirmation, and the result with the post-repair routing.
 * Nothing is written before the typed confirmation. Long values wrap, and the lines between the
 * title and the footer scroll (j/k, C-d/C-u, g/G) with an indicator of where the window is.
 */
import type React from 'react';
import {useReducer, useRef} from 'react';
import {Box, useStdin} from 'ink';
import {Text} from '../components/text.js';
import type {Planned} from '../../repair/apply.js';
import {confirmationFor, confirmationMatches, confirmationWord} from '../../repair/plan/confirmation.js';
import {errorMessage} from '../../ground/errors.js';
import {useLatestInput} from '../hooks.js';
import {press} from '../keys/binding.js';
import {type KeyEvent, splitBurst} from '../keys/key-event.js';
import type {RepairKeys} from '../keys/contexts.js';
import {footerHints, repairBinding} from '../keys/lookup.js';
import {
	type FlowAction,
	type FlowState,
	INITIAL_FLOW,
	clampScroll,
	flowReducer,
	readyToApply,
	scrollIndicator,
} from './repair-flow-state.js';
import {flowLines, flowTitle} from './repair-flow-lines.js';
import type {RepairService} from './repair-service.js';
import {useTheme} from '../theme.js';
import {type TypedAnswer, useTypedAnswer} from './typed-answer.js';
import {useRepairChecks, useRepairPlan} from './use-repair-plan.js';

export type RepairFlowProps = {
	orphanId: string;
	service: RepairService;
	/** Changes when the store changed: the preview re-plans, so what is applied is what is shown. */
	revision: number;
	width: number;
	height: number;
	onClose: (applied: boolean) => void;
	/** How often the holder checklist is refreshed. */
	checkEveryMs?: number;
	/** Called once a repair was applied (the screen re-reads the store: its header shows the new version). */
	onApplied?: () => void;
	/** An orphan repair-routing refuses: the candidate donors the operator may adopt it from (d steps through them). */
	donors?: readonly string[];
	/** Opens the undo of the repair applied here (its audit entry). */
	onUndo?: (seq: number) => void;
};

type Dispatch = (action: FlowAction) => void;

/** The flow's window: its body lines between the title and the footer. */
type Window = {total: number; view: number};

type KeyParts = {
	state: FlowState;
	dispatch: Dispatch;
	onClose: (applied: boolean) => void;
	window: Window;
	donors: number;
	answer: TypedAnswer;
	onUndo?: (seq: number) => void;
};

function repairKeys({state, dispatch, onClose, window, donors, answer, onUndo}: KeyParts): RepairKeys {
	const bottom = Math.max(0, window.total - window.view);
	return {
		stage: state.stage,
		ready: readyToApply(state),
		applied: state.outcome?.result === 'applied',
		donors,
		nextDonor: () => dispatch({type: 'next-donor', count: donors}),
		half: Math.max(1, Math.floor(window.view / 2)),
		scroll: by => dispatch({type: 'scroll', by, bottom}),
		// A notice goes back to the preview (where every notice of the flow is shown).
		notice: text => dispatch({type: 'stage', stage: 'preview', notice: text}),
		close: () => onClose(state.outcome?.result === 'applied'),
		confirm() {
			answer.reset();
			dispatch({type: 'stage', stage: 'confirm'});
		},
		answer,
		undo() {
			const seq = state.outcome?.audit?.seq;
			if (seq === undefined) {
				dispatch({type: 'stage', stage: 'done', notice: 'no audit entry was recorded: nothing to undo here'});
			} else if (onUndo) {
				onUndo(seq);
			} else {
				dispatch({type: 'stage', stage: 'done', notice: `undo with: hfx repair --undo ${seq}`});
			}
		},
	};
}

/**
 * A keypress, or the keys of a typed burst (keys typed faster than a read arrive as one input:
 * `jjj` is three lines down). Only scrolling continues a burst (`continuesBurst` in the key
 * table): after any other key the rest was typed for a screen not drawn yet, and is dropped, but
 * for a burst that opens the confirmation (`a`, then the suffix typed before the prompt showed),
 * whose rest is typed into the answer up to a newline and not submitted: Enter does that, once
 * the prompt shows what was typed. In the confirmation a burst is typed text.
 */
function pressFlowKeys(event: KeyEvent, parts: KeyParts): void {
	const confirming = parts.state.stage === 'confirm';
	const keys = confirming ? [event] : splitBurst(event);
	const c = repairKeys(parts);
	let opened = false;
	const flowKeys: RepairKeys = {
		...c,
		confirm() {
			c.confirm();
			opened = true;
		},
	};
	for (const [i, k] of keys.entries()) {
		const binding = repairBinding(k, confirming ? 'confirm' : 'repair');
		if (binding) {
			press(binding, flowKeys, k);
		}

		if (opened) {
			const rest = keys
				.slice(i + 1)
				.map(x => x.input)
				.join('')
				.split(/[\r\n]/)[0];
			if (rest) {
				parts.answer.type(rest);
			}

			return;
		}

		if (!binding?.continuesBurst) {
			return;
		}
	}
}

async function apply(
	service: RepairService,
	planned: Planned,
	dispatch: Dispatch,
	onApplied?: () => void,
): Promise<void> {
	dispatch({type: 'stage', stage: 'applying'});
	try {
		const outcome = await service.apply(planned, line => dispatch({type: 'log', line}));
		dispatch({type: 'outcome', outcome});
		if (outcome.result === 'applied') {
			onApplied?.();
		}
	} catch (error) {
		dispatch({type: 'error', error: errorMessage(error)});
	}
}

/**
 * The question of the typed confirmation: the orphan's suffix, and the donor's too for the operator's own choice; short
 * enough to leave room for the answer.
 */
function question(orphanId: string, planned: Planned, width: number): string {
	const a = planned.plan.adoptions[0];
	const wide = width >= 120;
	if (a?.evidence === 'operator') {
		return wide
			? ` your choice: type the orphan's and the donor's suffixes (${confirmationFor(a)}): `
			: ` type the orphan's, then the donor's suffix (${confirmationFor(a)}): `;
	}

	return wide
		? ` to adopt, type the random suffix (${confirmationWord(orphanId)}) of ${orphanId}: `
		: ` to adopt, type its random suffix (${confirmationWord(orphanId)}): `;
}

/** The typed confirmation: the orphan's random suffix applies exactly the previewed plan, anything else goes back. */
function submitAnswer(answer: string, state: FlowState, props: RepairFlowProps, dispatch: Dispatch): void {
	const {planned} = state;
	if (state.stage !== 'confirm' || !planned) {
		return;
	}

	if (confirmationMatches(answer.trim(), planned.plan.adoptions)) {
		void apply(props.service, planned, dispatch, props.onApplied);
	} else {
		dispatch({type: 'stage', stage: 'preview', notice: 'the confirmation did not match: nothing was written'});
	}
}

function Confirm({
	orphanId,
	planned,
	answer,
	width,
}: {
	orphanId: string;
	planned: Planned;
	answer: string;
	width: number;
}): React.ReactElement {
	return (
		<Box height={1} flexShrink={0} overflow="hidden">
			<Text bold>{question(orphanId, planned, width)}</Text>
			<Text>{answer}</Text>
			<Text inverse> </Text>
		</Box>
	);
}

/** The footer row: the notice (or the key hints) and the scroll indicator; nothing in it shrinks the indicator away. */
function FlowFooter({
	text,
	notice,
	where,
	width,
}: {
	text: string;
	notice: boolean;
	where: string | null;
	width: number;
}): React.ReactElement {
	const theme = useTheme();
	return (
		<Box width={width} height={1} flexShrink={0}>
			<Box flexGrow={1} flexShrink={1} flexBasis={0}>
				<Text wrap="truncate" color={notice ? theme.warn : theme.muted}>
					{text}
				</Text>
			</Box>
			{where ? (
				<Box flexShrink={0}>
					<Text wrap="truncate" color={theme.muted}>{` ${where} `}</Text>
				</Box>
			) : null}
		</Box>
	);
}

export function RepairFlow(props: RepairFlowProps): React.ReactElement {
	const theme = useTheme();
	const {isRawModeSupported} = useStdin();
	const [state, dispatch] = useReducer(flowReducer, INITIAL_FLOW);
	// Handlers read the current state through a ref: a keypress can arrive before Ink re-subscribes
	// the handler of the latest render.
	const current = useRef(state);
	current.current = state;
	const donors = props.donors ?? [];
	const onSubmit = useRef((answer: string) => submitAnswer(answer, current.current, props, dispatch));
	onSubmit.current = answer => submitAnswer(answer, current.current, props, dispatch);
	const answer = useTypedAnswer(onSubmit);
	useRepairPlan(
		props.service,
		props.orphanId,
		{id: donors[state.donorAt], turns: state.donorTurns},
		props.revision,
		current,
		dispatch,
	);
	useRepairChecks(props.service, props.checkEveryMs, dispatch);
	// The title and the footer stay; the lines between them scroll.
	const view = Math.max(1, props.height - 2);
	const lines = flowLines(state, props.orphanId, theme, props.width);
	const window: Window = {total: lines.length, view};
	const windowRef = useRef(window);
	windowRef.current = window;
	useLatestInput(
		(input, key) => {
			pressFlowKeys(
				{...key, input},
				{
					state: current.current,
					dispatch,
					onClose: props.onClose,
					window: windowRef.current,
					donors: donors.length,
					answer,
					onUndo: props.onUndo,
				},
			);
		},
		{isActive: isRawModeSupported},
	);

	const first = clampScroll(state.scroll, lines.length, view);
	const hint = footerHints(
		{pane: 'findings', overlay: 'repair'},
		repairKeys({state, dispatch, onClose: props.onClose, window, donors: donors.length, answer, onUndo: props.onUndo}),
	)
		.map(h => h.text)
		.join('  ');
	const where = scrollIndicator(first, lines.length, view);
	const footer = ` ${state.notice ?? hint}`;
	return (
		<Box flexDirection="column" width={props.width} height={props.height} overflow="hidden">
			{/* Nothing here shrinks: a long notice once made the indicator wrap to a second row, and the
			column shrank the title away (issue #28 point 2). */}
			<Box height={1} flexShrink={0}>
				<Text wrap="truncate" bold color={state.outcome?.result === 'applied' ? theme.ok : undefined}>
					{flowTitle(state, props.orphanId)}
				</Text>
			</Box>
			{lines.slice(first, first + view).map((l, i) => (
				<Text key={i} wrap="truncate" color={l.color} bold={l.bold}>
					{l.text}
				</Text>
			))}
			<Box flexGrow={1} />
			{state.stage === 'confirm' && state.planned ? (
				<Confirm orphanId={props.orphanId} planned={state.planned} answer={answer.text} width={props.width} />
			) : (
				<FlowFooter text={footer} notice={Boolean(state.notice)} where={where} width={props.width} />
			)}
		</Box>
	);
}
