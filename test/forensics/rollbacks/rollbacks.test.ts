/**
 * A rollback that already happened, decided from the pairs' message timelines (plain data): the
 * primary signature of hermes-incidents.md §1.3, its certainty (§7), and what it is not.
 */
import {describe, expect, it} from 'vitest';
import {
	detectRollbacks,
	hasGatewaySuffix,
	routingRewriteBetween,
	skippedRowOf,
} from '../../../source/forensics/rollbacks/rollbacks.js';
import {rollbackNextStep} from '../../../source/forensics/rollbacks/rollback-finding.js';
import type {RestartProbe, RoutingEntry, SessionRecord} from '../../../source/forensics/types.js';
import {T0, dmKey, session} from '../../helpers/records.js';

const DAY = 86_400;
const K = '20231114_221320_aaaabbbb';
const O = '20231114_222000_04c1d6c6';
const KEY = dmKey('777001');

function rows(): Map<string, SessionRecord> {
	return new Map([
		[K, session({id: K, sessionKey: KEY, chatId: '777001', userId: 'u1', newestMessageAt: T0 + 3 * DAY})],
		[O, session({id: O, startedAtRaw: T0 + 400, newestMessageAt: T0 + DAY})],
	]);
}

/** The #82616 shape after the restart: K quiet from T0+300, O from T0+420 to T0+1 day, K again from T0+3 days. */
function probe(overrides: Partial<RestartProbe> = {}): RestartProbe {
	return {
		orphanId: O,
		keyedId: K,
		orphan: {firstAt: T0 + 420, lastAt: T0 + DAY, messages: 798, firstPlatformId: null, lastPlatformId: null},
		before: {at: T0 + 300, messages: 30, platformId: null},
		lastBefore: T0 + 300,
		inside: 0,
		after: {at: T0 + 3 * DAY, lastAt: T0 + 3 * DAY + 65, messages: 4, userTurns: 2, platformId: null},
		...overrides,
	};
}

const context = (routing: RoutingEntry[] = []) => ({byId: rows(), routing, maxGapSeconds: 900});

describe('a rollback that already happened', () => {
	it('names the chat, the resumed row, the jump, the skipped row and the turns written since', () => {
		const [r, ...rest] = detectRollbacks([probe()], context());
		expect(rest).toEqual([]);
		expect(r).toMatchObject({
			sessionKey: KEY,
			resumedId: K,
			jumpedFrom: T0 + 300,
			resumedAt: T0 + 3 * DAY,
			after: {messages: 4, userTurns: 2},
			certainty: 'strong',
			routedTo: null,
		});
		expect(r!.skipped).toMatchObject({id: O, messages: 798, firstAt: T0 + 420, lastAt: T0 + DAY, forkSeconds: 120});
		expect(r!.skipped.evidence.join('\n')).toMatch(/8-hex suffix[\s\S]*120 s after/);
	});

	it('is not one before the restart: the keyed row got nothing after the orphan', () => {
		expect(detectRollbacks([probe({after: null})], context())).toEqual([]);
	});

	it("is not one when the keyed row wrote inside the orphan's span (an interleaved replay, two live rows)", () => {
		expect(detectRollbacks([probe({inside: 1})], context())).toEqual([]);
	});

	it("is not one when the keyed row has nothing before the orphan (a reset promotion's fresh row)", () => {
		expect(detectRollbacks([probe({before: null})], context())).toEqual([]);
	});

	it('is weak on the gap alone: a 6-hex id and a fork far from the last message', () => {
		const far = '20231114_222000_04c1d6';
		const byId = new Map([...rows(), [far, session({id: far, startedAtRaw: T0 + DAY / 2})]]);
		const [r] = detectRollbacks(
			[
				probe({
					orphanId: far,
					orphan: {firstAt: T0 + DAY / 2, lastAt: T0 + DAY, messages: 5, firstPlatformId: null, lastPlatformId: null},
				}),
			],
			{byId, routing: [], maxGapSeconds: 900},
		);
		expect(r!.certainty).toBe('weak');
		expect(r!.skipped.evidence.at(-1)).toMatch(/silent for days/);
	});

	it('is weak on one signal besides the gap: a gateway id whose fork is a day after the last message', () => {
		const [r] = detectRollbacks(
			[
				probe({
					orphan: {firstAt: T0 + DAY / 2, lastAt: T0 + DAY, messages: 5, firstPlatformId: null, lastPlatformId: null},
				}),
			],
			context(),
		);
		expect(r!.certainty).toBe('weak');
	});

	it('platform message ids inside the gap tie the orphan to the chat; outside it, they weaken the tie', () => {
		const inside = probe({
			orphan: {...probe().orphan, firstPlatformId: 101, lastPlatformId: 900},
			before: {at: T0 + 300, messages: 30, platformId: 100},
			after: {...probe().after!, platformId: 901},
		});
		expect(detectRollbacks([inside], context())[0]!.skipped.evidence.join(' ')).toMatch(/101\.\.900 lie between/);
		const outside = {...inside, after: {...inside.after!, platformId: 500}};
		const [r] = detectRollbacks([outside], context());
		expect(r!.certainty).toBe('weak');
		expect(r!.skipped.evidence.join(' ')).toMatch(/do not lie between/);
	});

	it('an orphan whose gap fits two keyed rows goes to the closest fork, weakly', () => {
		const K2 = '20231114_221000_ccccdddd';
		const byId = new Map([...rows(), [K2, session({id: K2, sessionKey: dmKey('555'), newestMessageAt: T0 + 4 * DAY})]]);
		const far = {...probe(), keyedId: K2, before: {at: T0 + 10, messages: 3, platformId: null}};
		const found = detectRollbacks([far, probe()], {byId, routing: [], maxGapSeconds: 900});
		expect(found.map(r => r.resumedId)).toEqual([K]);
		expect(found[0]!.certainty).toBe('weak');
		expect(found[0]!.skipped.evidence.at(-1)).toContain(K2);
	});

	it('several orphans in one gap: the newest is the skipped conversation, the others are listed', () => {
		const O2 = '20231114_221000_0badcafe';
		const byId = new Map([...rows(), [O2, session({id: O2, startedAtRaw: T0 + 350})]]);
		const older = probe({
			orphanId: O2,
			orphan: {firstAt: T0 + 350, lastAt: T0 + 400, messages: 6, firstPlatformId: null, lastPlatformId: null},
		});
		const [r] = detectRollbacks([older, probe()], {byId, routing: [], maxGapSeconds: 900});
		expect(r!.skipped.id).toBe(O);
		expect(r!.alsoSkipped).toEqual([{id: O2, messages: 6, lastAt: T0 + 400}]);
	});

	it("reads the routing entry and a full rewrite of its scope between the orphan's end and the resume", () => {
		const rewrite = T0 + 3 * DAY - 30;
		const routing: RoutingEntry[] = [
			{scope: '/h/sessions', sessionKey: KEY, sessionId: K, updatedAt: T0 + 3 * DAY + 65, problem: null},
			{scope: '/h/sessions', sessionKey: dmKey('1'), sessionId: 'x', updatedAt: rewrite, problem: null},
			{scope: '/h/sessions', sessionKey: dmKey('2'), sessionId: 'y', updatedAt: rewrite, problem: null},
			{scope: '/other', sessionKey: dmKey('3'), sessionId: 'z', updatedAt: T0 + 2 * DAY, problem: null},
			{scope: '/other', sessionKey: dmKey('4'), sessionId: 'w', updatedAt: T0 + 2 * DAY, problem: null},
		];
		const [r] = detectRollbacks([probe()], {...context(routing), routingScope: '/h/sessions'});
		expect(r!.routedTo).toBe(K);
		expect(r!.routingRewriteAt).toBe(rewrite);
		// One key alone is its own upsert, not a structural rewrite.
		expect(routingRewriteBetween(routing.slice(0, 2), '/h/sessions', T0, T0 + 4 * DAY)).toBeNull();
		// Another scope is another gateway's: its entry and its rewrites say nothing of this one.
		const [elsewhere] = detectRollbacks([probe()], {...context(routing), routingScope: '/other'});
		expect(elsewhere!.routedTo).toBeNull();
		expect(elsewhere!.routingRewriteAt).toBe(T0 + 2 * DAY);
	});

	it("skippedRowOf holds the signature's bounds inclusive (§1.3: tA ≤ min, max ≤ tR)", () => {
		const edge = probe({
			before: {at: T0 + 420, messages: 30, platformId: null},
			after: {...probe().after!, at: T0 + DAY},
		});
		expect(skippedRowOf(edge, context())).not.toBeNull();
		expect(skippedRowOf({...edge, before: {at: T0 + 421, messages: 30, platformId: null}}, context())).toBeNull();
	});

	it('tells gateway ids (8 hex) from CLI ids (6 hex)', () => {
		expect(hasGatewaySuffix('20260806_161836_04c1d6c6')).toBe(true);
		expect(hasGatewaySuffix('20260807_001820_283fef')).toBe(false);
	});

	it(
		'a passed-over newer row of the same key is the secondary signature: ' + 'certain chat, /resume as the way back',
		() => {
			const N = '20231114_222000_0e0e0e0e';
			// The legacy finder's shape: the resumed row started later than the sibling but fell quiet earlier.
			const byId = new Map([
				...rows(),
				[N, session({id: N, sessionKey: KEY, startedAtRaw: T0 - 100, newestMessageAt: T0 + DAY})],
			]);
			const sibling = probe({
				orphanId: N,
				orphan: {firstAt: T0 - 90, lastAt: T0 + DAY, messages: 50, firstPlatformId: null, lastPlatformId: null},
				before: null,
				inside: 7,
			});
			const [r] = detectRollbacks([sibling], {byId, routing: [], maxGapSeconds: 900});
			expect(r).toMatchObject({resumedId: K, jumpedFrom: T0 + 300, resumedAt: T0 + 3 * DAY});
			expect(r!.skipped).toMatchObject({id: N, kind: 'same-key', certainty: 'strong', forkSeconds: null});
			expect(r!.skipped.evidence.join(' ')).toContain('started_at');
			expect(rollbackNextStep(r!)).toContain(`/resume ${N}`);
			expect(rollbackNextStep(detectRollbacks([probe()], context())[0]!)).toContain(
				'hfx repair --only 04c1d6c6 --donor aaaabbbb',
			);
			// A sibling that started after the resumed row: a /resume looks the same, so weak.
			byId.set(N, session({id: N, sessionKey: KEY, startedAtRaw: T0 + 400, newestMessageAt: T0 + DAY}));
			expect(detectRollbacks([sibling], {byId, routing: [], maxGapSeconds: 900})[0]!.certainty).toBe('weak');
			// The resumed row got nothing after the sibling's newest message: no rollback.
			expect(detectRollbacks([{...sibling, after: null}], {byId, routing: [], maxGapSeconds: 900})).toEqual([]);
		},
	);
});
