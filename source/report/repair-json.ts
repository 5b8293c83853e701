/**
 * `hfx repair --json`: a dry run's plan (bound to the store: its hash and basis) with every
 * adoption, refusal and orphan not selected; an apply's or undo's outcome.
 */
import type {ApplyOutcome, Planned} from '../repair/apply.js';
import type {StoreLocation} from '../store/locate.js';
import {upgradeNotice} from '../store/read/load.js';

export function repairPlanJson(location: StoreLocation, planned: Planned, exitCode: number) {
	const {plan, analysis} = planned;
	return {
		database: location.path,
		owner: location.owner,
		ownerSource: location.ownerSource ?? null,
		ruleSet: analysis.ruleSet,
		upgrade: upgradeNotice(planned.schema),
		repairRoutingCrash: analysis.repairRoutingCrash,
		dryRun: true,
		planHash: planned.hash,
		binding: planned.basis,
		adoptions: plan.adoptions,
		refused: plan.refused,
		notSelected: plan.notSelected,
		unknownOnly: plan.unknownOnly,
		exitCode,
	};
}

/** An apply's outcome names its store first; an undo's is the outcome alone (its entry names the store). */
export function repairOutcomeJson(outcome: ApplyOutcome, database?: string) {
	return database === undefined ? outcome : {database, ...outcome};
}
