/**
 * `hfx routing --json`: the store, its rule set, and per chat shown every restart candidate (the
 * chat shape `hfx scan --json` has) and the rollbacks that already happened.
 */
import type {Analysis} from '../../forensics/analysis/analyze.js';
import type {Rollback} from '../../forensics/rollbacks/rollbacks.js';
import type {ChatRouting} from '../../forensics/routing/routing.js';
import type {DatabaseFacts} from '../../store/read/load.js';
import {rollbackJson} from './rollbacks.js';
import {ruleSetJson} from './rule-set-lines.js';
import {routingJson} from './scan-json.js';

export function routingReportJson(
	facts: DatabaseFacts,
	analysis: Analysis,
	chats: readonly ChatRouting[],
	rolledBack: readonly Rollback[],
) {
	return {
		database: facts.path,
		owner: facts.owner,
		ownerSource: facts.ownerSource,
		ruleSet: facts.ruleSet,
		rules: ruleSetJson(facts, analysis.buildRules),
		routingScope: facts.routingScope,
		routing: chats.map(r => routingJson(r, analysis.upgradeChanges)),
		rollbacks: rolledBack.map(rollbackJson),
	};
}
