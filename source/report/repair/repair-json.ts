/**
 * `hfx repair --json`: a dry run's plan (bound to the store: its hash and basis) with every
 * adoption, refusal and orphan not selected; an apply's or undo's outcome.
 */
import type {ApplyOutcome, Planned} from '../../repair/apply.js';
import type {StoreLocation} from '../../store/locate.js';
import {upgradeNotice} from '../../store/read/load.js';
import {ruleSetJson} from '../analysis/rule-set-lines.js';

/** The rules the plan used and the installed build they came from (issue #27), as `hfx scan --json` says them. */
export function repairRulesJson(planned: Pick<Planned, 'analysis'>) {
	return ruleSetJson(planned.analysis, planned.analysis.buildRules);
}

export function repairPlanJson(location: StoreLocation, planned: Planned, exitCode: number) {
	const {plan, analysis} = planned;
	return {
		database: location.path,
		owner: location.owner,
		ownerSource: location.ownerSource ?? null,
		ruleSet: analysis.ruleSet,
		rules: repairRulesJson(planned),
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
export function repairOutcomeJson(outcome: ApplyOutcome, database?: string, planned?: Pick<Planned, 'analysis'>) {
	const rules = planned === undefined ? {} : {rules: repairRulesJson(planned)};
	return database === undefined ? outcome : {database, ...rules, ...outcome};
}
