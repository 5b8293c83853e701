/**
 * A rollback that already happened, in words (forensics/rollbacks/rollback-finding.ts): the
 * finding's title, its story and the next step (adopt a keyless row with hfx's guarded repair, or
 * /resume a passed-over same-key row).
 */
import {describe, expect, it} from 'vitest';
import {
	rollbackAdoptCommand,
	rollbackHappenedFinding,
	rollbackNextStep,
	rollbackStory,
	utcMinute,
} from '../../../source/forensics/rollbacks/rollback-finding.js';
import type {Rollback} from '../../../source/forensics/rollbacks/rollbacks.js';
import {T0, dmKey} from '../../helpers/records.js';

const DAY = 86_400;

function rollback(partial: Partial<Rollback> = {}): Rollback {
	return {
		sessionKey: dmKey(),
		resumedId: '20231114_221320_aaaabbbb',
		jumpedFrom: T0 + 300,
		resumedAt: T0 + 300 + 2.5 * DAY,
		after: {messages: 4, userTurns: 1, lastAt: T0 + 3 * DAY},
		skipped: {
			id: '20231114_222000_04c1d6c6',
			kind: 'keyless',
			messages: 798,
			firstAt: T0 + 420,
			lastAt: T0 + DAY,
			forkSeconds: 120,
			certainty: 'strong',
			evidence: ['fork 2 minutes after', 'gateway id'],
		},
		alsoSkipped: [],
		certainty: 'strong',
		routedTo: null,
		routingRewriteAt: null,
		...partial,
	};
}

describe('rollback-finding', () => {
	it('words an instant to the minute in UTC', () => {
		expect(utcMinute(T0)).toBe('2023-11-14 22:13 UTC');
	});

	it('adopts the skipped row from the resumed one by their id suffixes', () => {
		expect(rollbackAdoptCommand(rollback())).toBe('hfx repair --only 04c1d6c6 --donor aaaabbbb');
		expect(rollbackNextStep(rollback())).toBe(
			'the skipped conversation is safe; preview its adoption with: hfx repair --only 04c1d6c6 ' +
				'--donor aaaabbbb (then stop the gateway and add --apply); the 4 messages written since stay in ' +
				'20231114_221320_aaaabbbb, out of the resumed context',
		);
	});

	it('a passed-over same-key row: /resume switches back, no repair', () => {
		const r = rollback({skipped: {...rollback().skipped, kind: 'same-key', forkSeconds: null}});
		const next = rollbackNextStep(r);
		expect(next).toContain('`/resume 20231114_222000_04c1d6c6` switches back');
		expect(next).not.toContain('hfx repair');
		expect(rollbackStory(r)).toContain('in the newer same-key row 20231114_222000_04c1d6c6');
	});

	it('tells the story: the jump back, the skipped row and its evidence, the turns since, older rows', () => {
		const story = rollbackStory(rollback({alsoSkipped: [{id: 'o2', messages: 3, lastAt: T0 + 400}]}));
		expect(story).toBe(
			'at 2023-11-17 10:18 UTC the chat resumed 20231114_221320_aaaabbbb, whose last message before was at ' +
				'2023-11-14 22:18 UTC (2.5 days earlier); the conversation it skipped is in the keyless ' +
				'20231114_222000_04c1d6c6: 798 messages, 2023-11-14 22:20 UTC to 2023-11-15 22:13 UTC ' +
				'(strong: fork 2 minutes after; gateway id); 1 user turn (4 messages) were written into ' +
				'20231114_221320_aaaabbbb since, the last at 2023-11-17 22:13 UTC; older keyless rows in the same ' +
				'gap: o2 (3 messages)',
		);
	});

	it('is a critical finding on the chat, titled with how old the resumed context is', () => {
		expect(rollbackHappenedFinding(rollback())).toMatchObject({
			severity: 'critical',
			kind: 'rollback-happened',
			subject: dmKey(),
			title: `ROLLED BACK ${dmKey()}: a restart resumed a context 2.5 days old`,
			next: rollbackNextStep(rollback()),
		});
	});
});
