/**
 * The repair flow of the Findings pane: preview (the before/after table, the restart before and
 * after), the preconditions as a live checklist, an apply key that stays disabled until every
 * precondition holds, a typed confirmation, and the result with the post-repair routing.
 * Nothing is written before the typed confirmation.
 */
import React, {useEffect, useReducer, useRef} from 'react';
import {Box, Text, useStdin} from 'ink';
import {TextInput} from '@inkjs/ui';
import type {ApplyOutcome, Planned} from '../repair/apply.js';
import type {Check} from '../repair/preconditions.js';
import {confirmationMatches} from '../repair/confirmation.js';
import {adoptionLines} from '../report/repair.js';
import {errorMessage} from '../errors.js';
import {footerHints, resolveAction} from './keymap.js';
import type {RepairService} from './repair-service.js';
import {useTheme} from './theme.js';
import {useLatestInput} from './hooks.js';

type Stage = 'planning' | 'preview' | 'confirm' | 'applying' | 'done' | 'error';

type FlowState = {
	stage: Stage;
	planned: Planned | null;
	checks: Check[];
	log: string[];
	outcome: ApplyOutcome | null;
	error: string | null;
	notice: string | null;
};

type FlowAction =
	| {type: 'planned'; planned: Planned}
	| {type: 'checks'; checks: Check[]}
	| {type: 'stage'; stage: Stage; notice?: string | null}
	| {type: 'log'; line: string}
	| {type: 'outcome'; outcome: ApplyOutcome}
	| {type: 'error'; error: string};

export function flowReducer(state: FlowState, action: FlowAction): FlowState {
	switch (action.type) {
		case 'planned': {
			return {...state, planned: action.planned, stage: state.stage === 'planning' ? 'preview' : state.stage};
		}

		case 'checks': {
			return {...state, checks: action.checks};
		}

		case 'stage': {
			return {...state, stage: action.stage, notice: action.notice ?? null};
		}

		case 'log': {
			return {...state, log: [...state.log, action.line].slice(-12)};
		}

		case 'outcome': {
			return {...state, outcome: action.outcome, stage: 'done'};
		}

		case 'error': {
			return {...state, error: action.error, stage: 'error'};
		}
	}
}

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
};

export function RepairFlow(props: RepairFlowProps): React.ReactElement {
	const theme = useTheme();
	const {isRawModeSupported} = useStdin();
	const [state, dispatch] = useReducer(flowReducer, {stage: 'planning', planned: null, checks: [], log: [], outcome: null, error: null, notice: null});
	// Handlers read the current state through a ref: a keypress can arrive before Ink re-subscribes
	// the handler of the latest render.
	const current = useRef(state);
	current.current = state;
	const stage = {get current() {
		return current.current.stage;
	}};

	// (Re)plan whenever the store changes, until the operator commits to applying.
	useEffect(() => {
		if (stage.current !== 'planning' && stage.current !== 'preview') {
			return;
		}

		let live = true;
		props.service.plan(props.orphanId).then(planned => {
			if (live) {
				dispatch({type: 'planned', planned});
			}
		}, (error: unknown) => {
			if (live) {
				dispatch({type: 'error', error: errorMessage(error)});
			}
		});
		return () => {
			live = false;
		};
	}, [props.orphanId, props.revision, props.service]);

	// The holder checklist is live: it turns green as the gateway stops.
	useEffect(() => {
		const refresh = () => {
			try {
				dispatch({type: 'checks', checks: props.service.checks()});
			} catch (error) {
				dispatch({type: 'error', error: errorMessage(error)});
			}
		};

		refresh();
		const timer = setInterval(refresh, props.checkEveryMs ?? 1000);
		return () => clearInterval(timer);
	}, [props.service, props.checkEveryMs]);

	const ready = state.planned !== null && state.planned.plan.adoptions.length > 0 && state.checks.length > 0 && state.checks.every(c => c.ok);
	const apply = async (planned: Planned) => {
		dispatch({type: 'stage', stage: 'applying'});
		try {
			const outcome = await props.service.apply(planned, line => dispatch({type: 'log', line}));
			dispatch({type: 'outcome', outcome});
		} catch (error) {
			dispatch({type: 'error', error: errorMessage(error)});
		}
	};

	useLatestInput((input, key) => {
		const state = current.current;
		const ready = state.planned !== null && state.planned.plan.adoptions.length > 0 && state.checks.length > 0 && state.checks.every(c => c.ok);
		if (state.stage === 'confirm') {
			if (key.escape) {
				dispatch({type: 'stage', stage: 'preview', notice: 'not confirmed: nothing was written'});
			}

			return;
		}

		const action = resolveAction({input, ...key}, 'findings', 'repair');
		if (action === 'back' && state.stage !== 'applying') {
			props.onClose(state.outcome?.result === 'applied');
		} else if (action === 'repair-apply' && state.stage === 'preview') {
			if (ready) {
				dispatch({type: 'stage', stage: 'confirm'});
			} else {
				dispatch({type: 'stage', stage: 'preview', notice: 'apply is disabled until every precondition holds (see the checklist)'});
			}
		}
	}, {isActive: isRawModeSupported});

	const lines: Array<{text: string; color?: string; bold?: boolean}> = [];
	lines.push({text: ` Repair ${props.orphanId}  (preview: nothing is written until you apply and confirm)`, bold: true});
	if (state.stage === 'planning') {
		lines.push({text: ' computing the plan…', color: theme.muted});
	}

	if (state.stage === 'error') {
		lines.push({text: ` ✗ ${state.error ?? 'error'}`, color: theme.danger});
	}

	if (state.planned && (state.stage === 'preview' || state.stage === 'confirm')) {
		const a = state.planned.plan.adoptions[0];
		if (a) {
			for (const l of adoptionLines(a)) {
				lines.push({text: ` ${l}`, color: l.trimStart().startsWith('!') ? theme.warn : undefined});
			}
		} else {
			lines.push({text: ` ${props.orphanId} is not adoptable now (the store changed, or repair-routing refuses it)`, color: theme.warn});
		}

		lines.push({text: ' preconditions', bold: true});
		for (const c of state.checks) {
			lines.push({text: `  ${c.ok ? '✓' : '✗'} ${c.label}${c.ok ? '' : `: ${c.detail}`}`, color: c.ok ? theme.ok : theme.danger});
			if (!c.ok && c.next) {
				lines.push({text: `    next: ${c.next}`, color: theme.muted});
			}
		}

		lines.push({text: '  · a verified snapshot is taken, and the plan re-checked inside BEGIN IMMEDIATE, when you apply', color: theme.muted});
	}

	if (state.stage === 'applying' || state.stage === 'done') {
		for (const l of state.log) {
			lines.push({text: `  ${l}`});
		}
	}

	if (state.stage === 'done' && state.outcome) {
		const o = state.outcome;
		if (o.result === 'applied') {
			for (const v of o.verification) {
				lines.push({text: ` ${v.ok ? '✓' : '✗'} ${v.orphanId} ${v.carriesKey ? 'now owns' : 'does NOT own'} ${v.sessionKey}; after a restart the gateway resumes ${v.restartResolvesTo ?? 'a new session'}`, color: v.ok ? theme.ok : theme.danger, bold: true});
			}
		} else {
			lines.push({text: ` ✗ ${o.reason ?? o.result}`, color: theme.danger, bold: true});
			if (o.next) {
				lines.push({text: `   next: ${o.next}`});
			}
		}

		if (o.snapshotDir) {
			lines.push({text: ` snapshot ${o.snapshotDir}`, color: theme.muted});
		}

		if (o.audit) {
			lines.push({text: ` audit entry ${o.audit.seq}${o.result === 'applied' ? ` · undo with: hfx repair --undo ${o.audit.seq}` : ''}`, color: theme.muted});
		}
	}

	const hint = footerHints('findings', 'repair').map(h => (h === 'a apply' && !ready ? 'a apply (disabled)' : h)).join('  ');
	return (
		<Box flexDirection="column" width={props.width} height={props.height}>
			{lines.slice(0, Math.max(1, props.height - 2)).map((l, i) => <Text key={i} wrap="truncate" color={l.color} bold={l.bold}>{l.text}</Text>)}
			<Box flexGrow={1} />
			{state.stage === 'confirm' && state.planned
				? (
					<Box>
						<Text bold>{` type the first 8 characters of ${props.orphanId} to adopt it: `}</Text>
						<TextInput
							placeholder="…"
							onSubmit={answer => {
								if (confirmationMatches(answer.trim(), state.planned!.plan.adoptions)) {
									void apply(state.planned!);
								} else {
									dispatch({type: 'stage', stage: 'preview', notice: 'the confirmation did not match: nothing was written'});
								}
							}}
						/>
					</Box>
				)
				: <Text wrap="truncate" color={state.notice ? theme.warn : theme.muted}>{` ${state.notice ?? hint}`}</Text>}
		</Box>
	);
}
