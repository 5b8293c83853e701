/**
 * A normal compression is not a rollback risk: the exact shapes of a compression rotation, commit
 * by commit (the parent ends `compression`; the continuation is written without a message; the
 * routing entry moves to it), for every rule set, while the newest message is still in the parent.
 * An end that is neither a compression nor the user's boundary stays a risk.
 */
import {describe, expect, it} from 'vitest';
import {analyze, hasFindings} from '../../../source/forensics/analysis/analyze.js';
import type {OrphanVerdict} from '../../../source/forensics/routing/orphans.js';
import {
	analyzeRouting,
	analyzeRoutingSteps,
	buildKeyIndex,
	messageActivity,
	tupleFinder,
	tupleKey,
	unanimousKey,
} from '../../../source/forensics/routing/routing.js';
import {buildLineage} from '../../../source/forensics/lineage/lineage.js';
import {rulesFor} from '../../../source/forensics/generations.js';
import type {RuleSet, SessionRecord} from '../../../source/forensics/types.js';
import {T0, dmKey, routingEntry, session, snapshot} from '../../helpers/records.js';

const K = dmKey('42');
const RULE_SETS: RuleSet[] = ['v30', 'v25', 'legacy-v21'];
const keyed = (id: string, partial: Partial<SessionRecord> = {}) =>
	session({id, sessionKey: K, userId: 'u1', chatId: '42', chatType: 'dm', ...partial});
/** Yesterday's row, ended by the daily reset. */
const yesterday = keyed('o', {
	startedAtRaw: T0 - 90_000,
	endReason: 'daily',
	endedAtRaw: T0 - 80_000,
	newestMessageAt: T0 - 85_000,
});
/** The parent, whose newest message is the chat's newest. */
const parent = (endReason: string | null) =>
	keyed('p', {startedAtRaw: T0, endReason, endedAtRaw: endReason ? T0 + 200 : null, newestMessageAt: T0 + 150});
const continuation = keyed('c', {parentSessionId: 'p', startedAtRaw: T0 + 201, hasMessageRows: false});

/** The store at each commit of a rotation, as the gateway writes it (and a store whose chat has no routing entry). */
function moments(endReason: string, ruleSet: RuleSet) {
	return {
		'parent ended, continuation not written, entry on the parent': snapshot([yesterday, parent(endReason)], {
			ruleSet,
			routing: [routingEntry(K, 'p')],
		}),
		'continuation written without a message, entry on the parent': snapshot(
			[yesterday, parent(endReason), continuation],
			{ruleSet, routing: [routingEntry(K, 'p')]},
		),
		'entry moved to the continuation': snapshot([yesterday, parent(endReason), continuation], {
			ruleSet,
			routing: [routingEntry(K, 'c')],
		}),
		'parent ended, continuation not written, no entry': snapshot([yesterday, parent(endReason)], {ruleSet}),
		...(ruleSet === 'legacy-v21'
			? {}
			: {'continuation written, no entry': snapshot([yesterday, parent(endReason), continuation], {ruleSet})}),
	};
}

describe('a compression rotation', () => {
	for (const ruleSet of RULE_SETS) {
		it(
			`is one conversation at every commit of the rotation (${ruleSet}): no ` +
				`rollback risk, no red finding, nothing for scan to exit 1 on`,
			() => {
				for (const [moment, snap] of Object.entries(moments('compression', ruleSet))) {
					const a = analyze(snap);
					const chat = a.routing.find(r => r.sessionKey === K)!;
					expect(chat.newestActivityIn, moment).toBe('p');
					expect(chat.rollbackRisk, `${moment}: ${chat.rollbackRiskReason}`).toBe(false);
					expect(chat.rollbackRiskReason ?? '', moment).toMatch(/one conversation/);
					expect(
						a.findings.filter(f => f.severity === 'critical'),
						moment,
					).toEqual([]);
					expect(hasFindings(a), moment).toBe(false);
				}
			},
		);
	}

	it(
		"says the rotation is under way, and keeps the legacy finder's real gap " +
			'(an empty continuation it cannot resume, no entry) a risk',
		() => {
			const ended = analyze(
				moments('compression', 'v30')['parent ended, continuation not written, entry on the parent'],
			).routing[0]!;
			expect(ended.restartResolvesTo).toBeNull();
			expect(ended.rollbackRiskReason).toBe(
				'a compression rotation is under way: p ended compression and its ' +
					'continuation is not written yet: one conversation',
			);
			// docs' scenario R12 under v21: a restart starts fresh while the continuation waits for its first message.
			const legacy = analyze(snapshot([yesterday, parent('compression'), continuation], {ruleSet: 'legacy-v21'}))
				.routing[0]!;
			expect(legacy).toMatchObject({restartResolvesTo: null, newestActivityIn: 'p', rollbackRisk: true});
		},
	);

	it('still calls a risk where the newest conversation ended otherwise and a restart starts fresh', () => {
		const a = analyze(moments('cron_complete', 'v30')['parent ended, continuation not written, entry on the parent']);
		const chat = a.routing[0]!;
		expect(chat.restartResolvesTo).toBeNull();
		expect(chat.rollbackRisk).toBe(true);
		expect(a.findings.map(f => f.kind)).toContain('rollback-risk');
		expect(hasFindings(a)).toBe(true);
	});

	it(
		'still calls a risk where a restart resumes an older live row of the ' +
			'chat while the compression parent holds the newest message',
		() => {
			const stray = keyed('s', {startedAtRaw: T0 - 500, newestMessageAt: T0 - 400});
			const a = analyze(snapshot([stray, parent('compression')], {routing: [routingEntry(K, 's')]}));
			expect(a.routing[0]).toMatchObject({restartResolvesTo: 's', newestActivityIn: 'p', rollbackRisk: true});
		},
	);
});

describe('routing.ts, its own helpers', () => {
	it("a session's message activity is its newest message, else its last activity when it has rows, else none", () => {
		expect(messageActivity(session({id: 'a', newestMessageAt: T0 + 500}))).toBe(T0 + 500);
		// Rows whose every timestamp is unusable: the row's own activity stands in.
		const unusable = session({id: 'b', newestMessageAt: null, lastActivityAtRaw: T0 + 900});
		expect(messageActivity(unusable)).toBe(T0 + 900);
		expect(messageActivity(session({id: 'c', hasMessageRows: false, lastActivityAtRaw: T0 + 900}))).toBeNull();
	});

	it('a chat tuple compares NULL as the empty string, column by column, never across columns', () => {
		expect(tupleKey('telegram', null, '42', 'dm', null)).toBe(tupleKey('telegram', '', '42', 'dm', ''));
		expect(tupleKey('telegram', 'u', '42', null, null)).not.toBe(tupleKey('telegram', null, 'u42', null, null));
		expect(tupleKey('slack', 'u', '42', 'dm', null)).not.toBe(tupleKey('telegram', 'u', '42', 'dm', null));
	});

	it('an ambiguous orphan has a unanimous key only when every candidate donor carries the same one', () => {
		const byId = new Map([
			['p', session({id: 'p', sessionKey: K})],
			['t', session({id: 't', sessionKey: K})],
			['o', session({id: 'o', sessionKey: dmKey('43')})],
			['n', session({id: 'n'})],
		]);
		const ambiguous = (candidateDonors: string[]) =>
			({reasonKind: 'ambiguous_predecessor', candidateDonors}) as unknown as OrphanVerdict;
		expect(unanimousKey(ambiguous(['p', 't']), byId)).toBe(K);
		expect(unanimousKey(ambiguous(['p', 'o']), byId)).toBeNull();
		expect(unanimousKey(ambiguous(['n', 'n']), byId)).toBeNull();
		expect(unanimousKey(ambiguous(['p']), byId)).toBeNull();
		const other = {reasonKind: 'no_predecessor', candidateDonors: ['p', 't']} as unknown as OrphanVerdict;
		expect(unanimousKey(other, byId)).toBeNull();
	});

	it('indexes sessions by key in their order, and leaves keyless rows out', () => {
		const rows = [
			session({id: 'a', sessionKey: K}),
			session({id: 'b'}),
			session({id: 'c', sessionKey: dmKey('43')}),
			session({id: 'd', sessionKey: K}),
		];
		const byKey = buildKeyIndex(rows);
		expect([...byKey.keys()]).toEqual([K, dmKey('43')]);
		expect(byKey.get(K)!.map(s => s.id)).toEqual(['a', 'd']);
	});
});

describe('the newest message in a chat, at a tie', () => {
	// Two ended rows whose newest messages share one second, and the open row a restart resumes with older ones: the
	// answer must not depend on the order the rows come in (an incremental refresh meets them in another order than a
	// full analysis, and named the other one: found by the incremental property test).
	const rows = [
		keyed('20260101_000002_b', {startedAtRaw: T0, endReason: 'session_reset', newestMessageAt: T0 + 500}),
		keyed('20260101_000001_a', {startedAtRaw: T0 + 1, endReason: 'session_reset', newestMessageAt: T0 + 500}),
		keyed('20260101_000003_r', {startedAtRaw: T0 + 600, newestMessageAt: T0 + 700 - 600}),
	];
	it.each(RULE_SETS)('%s: the greater id, in either order', ruleSet => {
		const newestIn = (order: SessionRecord[]) =>
			analyze(snapshot(order, {ruleSet})).routing.find(c => c.sessionKey === K)?.newestActivityIn;
		expect(newestIn(rows)).toBe('20260101_000002_b');
		expect(newestIn([...rows].reverse())).toBe('20260101_000002_b');
	});
});

describe('analyzeRoutingSteps (the live view answers keys between its steps, issue #26)', () => {
	it('judges a chunk of chats a step, one step a chunk, and ends with what analyzeRouting gives', () => {
		const sessions = Array.from({length: 23}, (_, i) =>
			session({id: `s${i}`, source: 'telegram', sessionKey: dmKey(String(i % 11)), startedAtRaw: T0 + i}),
		);
		const byId = new Map(sessions.map(s => [s.id, s]));
		const input = {
			sessions,
			byId,
			routing: [],
			lineage: buildLineage(sessions, byId),
			orphans: [],
			rules: rulesFor('v30'),
			owner: 'default',
		};
		const steps = analyzeRoutingSteps(input, 4);
		let yields = 0;
		let step = steps.next();
		for (; !step.done; step = steps.next()) {
			yields++;
		}

		// 11 chats, 4 a step: three steps, two yields between them.
		expect(yields).toBe(2);
		expect(step.value).toHaveLength(11);
		expect(step.value).toEqual(analyzeRouting(input));
	});
});

describe('tupleFinder', () => {
	/** A row that counts how often the tuple match reads its source (the first column matchesTuple compares). */
	function counted(partial: Partial<SessionRecord> & {id: string}, reads: {n: number}): SessionRecord {
		const row = session(partial);
		const {source} = row;
		return Object.defineProperty(row, 'source', {
			get: () => {
				reads.n++;
				return source;
			},
		});
	}

	it("a chat without a chat id is matched among the rows without one, not every row (COALESCE(chat_id, ''))", () => {
		const reads = {n: 0};
		const rows = [
			...Array.from({length: 50}, (_, i) => counted({id: `c${i}`, chatId: String(i), userId: 'u1'}, reads)),
			counted({id: 'n1', chatId: null, userId: 'u1'}, reads),
			counted({id: 'n2', chatId: '', userId: 'u1'}, reads),
			counted({id: 'n3', chatId: null, userId: 'u2'}, reads),
		];
		const find = tupleFinder(rows);
		const identity = {
			platform: 'telegram',
			namespace: 'main',
			userId: 'u1',
			chatId: null,
			chatType: null,
			threadId: null,
		};
		expect(find({...identity, chatId: '7'}).map(s => s.id)).toEqual(['c7']);
		reads.n = 0;
		expect(find(identity).map(s => s.id)).toEqual(['n1', 'n2']);
		expect(find({...identity, chatId: ''}).map(s => s.id)).toEqual(['n1', 'n2']);
		// Each lookup read the three rows without a chat id, not the fifty with one.
		expect(reads.n).toBe(6);
	});
});
