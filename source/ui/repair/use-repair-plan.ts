/**
 * The repair flow's live inputs: the plan, re-made whenever the store changes until the
 * operator commits to applying, and the holder checklist, re-checked on a timer.
 */
import {type MutableRefObject, useEffect} from 'react';
import {errorMessage} from '../../ground/errors.js';
import type {Check} from '../../repair/write/preconditions.js';
import type {RepairService} from './repair-service.js';
import type {FlowAction, FlowState} from './repair-flow-state.js';

type Dispatch = (action: FlowAction) => void;

/**
 * (Re)plans the orphan's repair on every new revision, and on every step to the next donor
 * (`donorTurns`), while the flow is planning or previewing.
 */
export function useRepairPlan(
	service: RepairService,
	orphanId: string,
	donor: {id: string | undefined; turns: number},
	revision: number,
	current: MutableRefObject<FlowState>,
	dispatch: Dispatch,
): void {
	const {id: donorId, turns} = donor;
	// biome-ignore lint/correctness/useExhaustiveDependencies: dispatch, the stage ref are stable; turns re-plan
	useEffect(() => {
		const stage = current.current.stage;
		if (stage !== 'planning' && stage !== 'preview') {
			return;
		}

		let live = true;
		service.plan(orphanId, donorId).then(
			planned => {
				if (live) {
					dispatch({type: 'planned', planned});
				}
			},
			(error: unknown) => {
				if (live) {
					dispatch({type: 'error', error: errorMessage(error)});
				}
			},
		);
		return () => {
			live = false;
		};
		// The stage is read when the effect runs, not a reason to re-plan.
	}, [orphanId, donorId, turns, revision, service]);
}

/** What the checklist tells its flow (the repair's, or the undo's). */
type ChecksDispatch = (action: {type: 'checks'; checks: Check[]} | {type: 'error'; error: string}) => void;

/** The holder checklist is live: it turns green as the gateway stops. */
export function useRepairChecks(service: RepairService, everyMs: number | undefined, dispatch: ChecksDispatch): void {
	useEffect(() => {
		const refresh = () => {
			try {
				dispatch({type: 'checks', checks: service.checks()});
			} catch (error) {
				dispatch({type: 'error', error: errorMessage(error)});
			}
		};

		refresh();
		const timer = setInterval(refresh, everyMs ?? 1000);
		return () => clearInterval(timer);
	}, [service, everyMs, dispatch]);
}
