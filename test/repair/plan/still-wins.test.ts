/**
 * stillWinsWhy (source/repair/plan/still-wins.ts): why a restart still resumes another row than the
 * adopted orphan, in the words of the restart's candidate list: the routing entry's note, the
 * orphan's exclusion, no admitted row at all, or the winner's rule and the order that ranks it first
 * (the legacy order and the current one, an orderKey cell cut to 40 characters).
 */
import {describe, expect, it} from 'vitest';
import type {CandidateVerdict, Resolution} from '../../../source/forensics/routing/restart.js';
import type {ChatRouting} from '../../../source/forensics/routing/routing.js';
import {stillWinsWhy} from '../../../source/repair/plan/still-wins.js';

const ORPHAN = '20260101_120000_orphan';
const WINNER = '20260101_100000_winner';

function candidate(sessionId: string, over: Partial<CandidateVerdict> = {}): CandidateVerdict {
	return {
		sessionId,
		query: 'exact-key',
		admitted: true,
		rule: 'its session_key is the chat key',
		hasMessages: true,
		orderKey: 1_700_000_000,
		...over,
	};
}

/** Only the resolution is read: the rest of the chat's routing is not needed to say why. */
function chat(resolution: Partial<Resolution>): ChatRouting {
	return {
		resolution: {
			sessionId: WINNER,
			via: 'exact-key',
			ruleSet: 'v30',
			candidates: [],
			notes: [],
			...resolution,
		} as Resolution,
	} as ChatRouting;
}

describe('stillWinsWhy', () => {
	it('a routing entry: its first note, or that the entry names it', () => {
		expect(stillWinsWhy(chat({via: 'routing-entry', notes: ['the entry points at X', 'more']}), ORPHAN)).toBe(
			'the entry points at X',
		);
		expect(stillWinsWhy(chat({via: 'routing-entry'}), ORPHAN)).toBe('the routing entry names it');
	});

	it('an orphan the query does not admit: its query and the rule that excludes it', () => {
		const c = chat({candidates: [candidate(ORPHAN, {admitted: false, query: 'tuple-fallback', rule: 'no user_id'})]});
		expect(stillWinsWhy(c, ORPHAN)).toBe(`${ORPHAN} is not admitted by the tuple-fallback query: no user_id`);
	});

	it('no admitted winner: says so with the way the restart went', () => {
		const c = chat({via: 'new-session', sessionId: WINNER, candidates: [candidate(WINNER, {admitted: false})]});
		expect(stillWinsWhy(c, 'someone-else')).toBe('no row of the chat is admitted (new-session)');
	});

	it('the current order, against the orphan’s own key', () => {
		const c = chat({
			candidates: [candidate(WINNER, {orderKey: 1_700_000_500}), candidate(ORPHAN, {orderKey: 1_700_000_100})],
		});
		expect(stillWinsWhy(c, ORPHAN)).toBe(
			'exact-key: its session_key is the chat key; it ranks first by rows with messages first, then the newest ' +
				`COALESCE(last_activity_at, started_at) (1700000500 against 1700000100 for ${ORPHAN})`,
		);
	});

	it('the legacy order; a text cell quoted and cut to 40 characters; no orphan among the candidates', () => {
		const long = `2026-01-01 ${'x'.repeat(60)}`;
		const c = chat({ruleSet: 'legacy-v21', candidates: [candidate(WINNER, {orderKey: long})]});
		const why = stillWinsWhy(c, ORPHAN);
		expect(why).toBe(
			'exact-key: its session_key is the chat key; it ranks first by newest started_at ' +
				`(${JSON.stringify(long).slice(0, 40)})`,
		);
		expect(why).not.toContain(' against ');
	});
});
