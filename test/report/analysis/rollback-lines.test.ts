/**
 * report/analysis/rollback-lines.ts: a rollback that already happened as the Findings pane's detail lines, from a plain
 * Rollback value: the story (what a restart resumed, what it stranded and how sure, what was written since), then each
 * fact of the evidence, the routing rewrite and the other rows stranded in the same gap.
 */
import {describe, expect, it} from 'vitest';
import type {Rollback} from '../../../source/forensics/rollbacks/rollbacks.js';
import {rollbackDetailLines} from '../../../source/report/analysis/rollback-lines.js';

/** 2026-07-31 06:00:00 UTC. */
const T = 1_785_477_600;
const HOUR = 3600;

function rollback(partial: Partial<Rollback> = {}): Rollback {
	return {
		sessionKey: 'agent:main:telegram:dm:1',
		resumedId: '20260728_101500_aaaaaaaa',
		jumpedFrom: T - 65 * HOUR,
		resumedAt: T,
		after: {messages: 12, userTurns: 6, lastAt: T + 2 * HOUR},
		skipped: {
			id: '20260728_103000_bbbbbbbb',
			kind: 'keyless',
			messages: 798,
			firstAt: T - 64 * HOUR,
			lastAt: T - HOUR,
			forkSeconds: 3600,
			certainty: 'certain',
			evidence: ['no routing identity (session_key NULL)', 'forked 1 hour after the keyed row went quiet'],
		},
		alsoSkipped: [],
		certainty: 'certain',
		routedTo: null,
		routingRewriteAt: null,
		...partial,
	} as Rollback;
}

describe('rollbackDetailLines', () => {
	it('tells what was resumed, what was stranded and what was written since, in UTC minutes', () => {
		const {story, evidence} = rollbackDetailLines(rollback());
		expect(story).toEqual([
			'resumed: 20260728_101500_aaaaaaaa at 2026-07-31 06:00 UTC; its last message before was at ' +
				'2026-07-28 13:00 UTC, 2.7 days earlier',
			'stranded: 20260728_103000_bbbbbbbb, 798 messages, 2026-07-28 14:00 UTC to 2026-07-31 05:00 UTC · ' +
				'certainty certain',
			'since: 6 user turns (12 messages) written into 20260728_101500_aaaaaaaa, the last at 2026-07-31 08:00 UTC',
		]);
		expect(evidence).toEqual([
			'  evidence: no routing identity (session_key NULL)',
			'  evidence: forked 1 hour after the keyed row went quiet',
		]);
	});

	it('says the routing index names the resumed row when it does, and one user turn in the singular', () => {
		const {story} = rollbackDetailLines(
			rollback({routedTo: '20260728_101500_aaaaaaaa', after: {messages: 2, userTurns: 1, lastAt: T + 60}}),
		);
		expect(story[0]).toMatch(/earlier \(the routing index names it now\)$/);
		expect(story[2]).toMatch(/^since: 1 user turn \(2 messages\) written/);
	});

	it('adds the routing rewrite and the other rows stranded in the same gap to the evidence', () => {
		const {evidence} = rollbackDetailLines(
			rollback({
				routingRewriteAt: T - 60,
				alsoSkipped: [
					{id: 'o2', messages: 40, lastAt: T - 2 * HOUR},
					{id: 'o3', messages: 3, lastAt: T - 3 * HOUR},
				],
			}),
		);
		expect(evidence.slice(2)).toEqual([
			"  evidence: the routing index was rewritten whole at 2026-07-31 05:59 UTC (a restart's structural save)",
			'also stranded in the same gap: o2 (40 messages), o3 (3 messages)',
		]);
	});
});
