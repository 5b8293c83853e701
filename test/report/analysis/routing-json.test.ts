/**
 * `hfx routing --json` (report/analysis/routing-json.ts): the store, its owner and scope, the rule set and
 * how it was decided, per chat shown its routing as `hfx scan --json` has it, and the rollbacks.
 */
import {describe, expect, it} from 'vitest';
import {analyze} from '../../../source/forensics/analysis/analyze.js';
import type {Rollback} from '../../../source/forensics/rollbacks/rollbacks.js';
import {rollbackJson} from '../../../source/report/analysis/rollbacks.js';
import {routingReportJson} from '../../../source/report/analysis/routing-json.js';
import {ruleSetJson} from '../../../source/report/analysis/rule-set-lines.js';
import {routingJson} from '../../../source/report/analysis/scan-json.js';
import {databaseFacts} from '../../helpers/database-facts.js';
import {T0, dmKey, routingEntry, session, snapshot} from '../../helpers/records.js';

const K = dmKey('42');
const K2 = dmKey('43');
const analysis = analyze(
	snapshot(
		[
			session({id: 'zombie-0001', sessionKey: K, userId: 'u1', chatId: '42', chatType: 'dm', newestMessageAt: T0}),
			session({id: 'orphan-0001', startedAtRaw: T0 + 60, newestMessageAt: T0 + 86_400, messageRows: 12}),
			session({
				id: 'other-0001',
				sessionKey: K2,
				userId: 'u2',
				chatId: '43',
				chatType: 'dm',
				startedAtRaw: T0 - 864_000,
			}),
		],
		{routing: [routingEntry(K, 'zombie-0001'), routingEntry(K2, 'other-0001')]},
	),
);

const ROLLBACK: Rollback = {
	sessionKey: K,
	resumedId: 'zombie-0001',
	jumpedFrom: T0,
	resumedAt: T0 + 90_000,
	after: {messages: 2, userTurns: 1, lastAt: T0 + 90_060},
	skipped: {
		id: 'orphan-0001',
		kind: 'keyless',
		messages: 12,
		firstAt: T0 + 60,
		lastAt: T0 + 86_400,
		forkSeconds: 60,
		certainty: 'strong',
		evidence: [],
	},
	alsoSkipped: [],
	certainty: 'strong',
	routedTo: 'zombie-0001',
	routingRewriteAt: null,
};

describe('routingReportJson', () => {
	it('names the store and rules, and carries only the chats shown and the rollbacks given', () => {
		const facts = databaseFacts({routingScope: '/home/u/.hermes/sessions'});
		const shown = analysis.routing.filter(r => r.sessionKey === K);
		const doc = routingReportJson(facts, analysis, shown, [ROLLBACK]);
		expect(doc).toEqual({
			database: '/home/u/.hermes/state.db',
			owner: 'default',
			ownerSource: 'the default home (~/.hermes)',
			ruleSet: 'v30',
			rules: ruleSetJson(facts, null),
			routingScope: '/home/u/.hermes/sessions',
			routing: [routingJson(shown[0]!, analysis.upgradeChanges)],
			rollbacks: [rollbackJson(ROLLBACK)],
		});
		expect(doc.routing[0]).toMatchObject({sessionKey: K, restartResolvesTo: 'zombie-0001', rollbackRisk: true});
		expect(analysis.routing).toHaveLength(2);
	});

	it('has empty lists when no chat is shown and nothing rolled back', () => {
		expect(routingReportJson(databaseFacts(), analysis, [], [])).toMatchObject({routing: [], rollbacks: []});
	});
});
