/**
 * The repair plan (source/repair/plan/plan.ts), pure: Hermes' writes per adoptable orphan as a
 * before/after table, the warnings, --only, the generations hold-back, the restart prediction and
 * the plan's identity hash. Analyses come from records; rows are built to match them.
 */
import {describe, expect, it} from 'vitest';
import {analyze} from '../../../source/forensics/analysis/analyze.js';
import type {RuleSet, SessionRecord} from '../../../source/forensics/types.js';
import {
	AT_APPLY,
	type Adoption,
	type PlanInput,
	applyToRecords,
	canonical,
	fromValue,
	heldBack,
	planHash,
	planRepair,
	rowsHash,
	toValue,
} from '../../../source/repair/plan/plan.js';
import {T0, dmKey, routingEntry, session, snapshot} from '../../helpers/records.js';

const K = dmKey('42');
const KD = dmKey('9', 'discord');
const NOW = T0 + 200_000;
const ALL_COLUMNS: ReadonlySet<string> = new Set([
	'id',
	'source',
	'session_key',
	'chat_id',
	'chat_type',
	'thread_id',
	'user_id',
	'origin_json',
	'display_name',
	'parent_session_id',
	'started_at',
	'ended_at',
	'end_reason',
	'profile_name',
]);
const ORIGIN = '{"platform":"telegram","chat_id":"42"}';

/** The zombie: keyed telegram row of chat 42, quiet since T0. */
function zombie(partial: Partial<SessionRecord> = {}): SessionRecord {
	return session({
		id: 'zombie-0001',
		sessionKey: K,
		userId: 'u1',
		chatId: '42',
		chatType: 'dm',
		displayName: 'Ann',
		startedAtRaw: T0 - 3600,
		newestMessageAt: T0,
		...partial,
	});
}

/** The orphan: keyless, started 60 s after the zombie went quiet, holding the newest messages. */
function orphan(partial: Partial<SessionRecord> = {}): SessionRecord {
	return session({id: 'orphan-0001', startedAtRaw: T0 + 60, newestMessageAt: T0 + 86_400, messageRows: 12, ...partial});
}

/** The full sessions row of a record, as `SELECT *` gives it. */
function rowOf(s: SessionRecord, extra: Record<string, unknown> = {}): Record<string, unknown> {
	return {
		id: s.id,
		source: s.source,
		session_key: s.sessionKey,
		chat_id: s.chatId,
		chat_type: s.chatType,
		thread_id: s.threadId,
		user_id: s.userId,
		origin_json: null,
		display_name: s.displayName,
		parent_session_id: s.parentSessionId,
		started_at: s.startedAtRaw,
		ended_at: s.endedAtRaw,
		end_reason: s.endReason,
		profile_name: s.profileName,
		...extra,
	};
}

type Case = {
	sessions: SessionRecord[];
	extra?: Record<string, Record<string, unknown>>;
	ruleSet?: RuleSet;
	owner?: string;
	routing?: ReturnType<typeof routingEntry>[];
};

function input(c: Case, options: Partial<PlanInput> = {}): PlanInput {
	const analysis = analyze(snapshot(c.sessions, {ruleSet: c.ruleSet, owner: c.owner, routing: c.routing}));
	const rows = new Map(c.sessions.map(s => [s.id, rowOf(s, c.extra?.[s.id])]));
	return {analysis, rows, sessionColumns: ALL_COLUMNS, now: NOW, ...options};
}

function plan(c: Case, options: Partial<PlanInput> = {}) {
	return planRepair(input(c, options));
}

function only(p: ReturnType<typeof planRepair>): Adoption {
	expect(p.adoptions).toHaveLength(1);
	return p.adoptions[0]!;
}

const INCIDENT: Case = {sessions: [zombie(), orphan()], extra: {'zombie-0001': {origin_json: ORIGIN}}};

describe('the writes of one adoption (contiguity)', () => {
	it(
		"gives the orphan the donor's key, fills NULL identity columns from the " +
			'donor and points its parent at the donor',
		() => {
			const a = only(plan(INCIDENT));
			expect(a).toMatchObject({
				orphanId: 'orphan-0001',
				donorId: 'zombie-0001',
				sessionKey: K,
				evidence: 'contiguity',
				messageCount: 12,
			});
			expect(a.rows[0]).toEqual({
				sessionId: 'orphan-0001',
				role: 'orphan',
				columns: [
					{column: 'session_key', before: null, after: K, changes: true},
					{column: 'chat_id', before: null, after: '42', changes: true},
					{column: 'chat_type', before: null, after: 'dm', changes: true},
					{column: 'thread_id', before: null, after: null, changes: false},
					{column: 'user_id', before: null, after: 'u1', changes: true},
					{column: 'origin_json', before: null, after: ORIGIN, changes: true},
					{column: 'display_name', before: null, after: 'Ann', changes: true},
					{column: 'parent_session_id', before: null, after: 'zombie-0001', changes: true},
				],
			});
		},
	);

	it('ends an open donor at the time of the apply, with superseded_by_repair, and warns that it is still open', () => {
		const a = only(plan(INCIDENT));
		expect(a.rows[1]).toEqual({
			sessionId: 'zombie-0001',
			role: 'donor',
			columns: [
				{column: 'ended_at', before: null, after: AT_APPLY, changes: true},
				{column: 'end_reason', before: null, after: 'superseded_by_repair', changes: true},
			],
		});
		expect(a.warnings).toEqual([
			'the donor zombie-0001 is still open: the repair ends it now (it will never be resumed again)',
		]);
	});

	it("keeps an ended donor's ended_at and warns that its end reason is replaced", () => {
		const a = only(plan({sessions: [zombie({endReason: 'agent_close', endedAtRaw: T0 + 30}), orphan()]}));
		expect(a.rows[1].columns).toEqual([
			{column: 'ended_at', before: T0 + 30, after: T0 + 30, changes: false},
			{column: 'end_reason', before: 'agent_close', after: 'superseded_by_repair', changes: true},
		]);
		expect(a.warnings).toEqual(['the donor\'s end reason "agent_close" is replaced; its ended_at is kept']);
	});

	it('warns that a donor\'s "compression" end reason is overwritten', () => {
		const a = only(plan({sessions: [zombie({endReason: 'compression', endedAtRaw: T0 + 30}), orphan()]}));
		expect(a.warnings[0]).toBe(
			'the donor\'s end reason "compression" is overwritten with ' +
				'"superseded_by_repair": its continuation child is no longer classed as ' +
				'a compression continuation',
		);
		expect(a.rows[1].columns[0]).toEqual({column: 'ended_at', before: T0 + 30, after: T0 + 30, changes: false});
	});

	it("lets the orphan keep its own non-NULL columns, warning where they differ from the donor's", () => {
		const a = only(plan({sessions: [zombie(), orphan({chatId: '99', chatType: 'dm', userId: 'u1'})]}));
		const cols = Object.fromEntries(a.rows[0].columns.map(c => [c.column, c]));
		expect(cols.chat_id).toEqual({column: 'chat_id', before: '99', after: '99', changes: false});
		expect(cols.chat_type).toEqual({column: 'chat_type', before: 'dm', after: 'dm', changes: false});
		expect(cols.user_id).toEqual({column: 'user_id', before: 'u1', after: 'u1', changes: false});
		expect(a.warnings.filter(w => w.startsWith('the orphan keeps'))).toEqual([
			'the orphan keeps its own chat_id ("99"); the donor\'s is "42"',
		]);
	});

	it('writes only the filled columns the store has', () => {
		const a = only(
			plan(
				{
					sessions: [zombie(), orphan({threadId: 't1'})],
					extra: {'zombie-0001': {thread_id: 't2', origin_json: ORIGIN}},
				},
				{sessionColumns: new Set([...ALL_COLUMNS].filter(c => c !== 'origin_json' && c !== 'thread_id'))},
			),
		);
		expect(a.rows[0].columns.map(c => c.column)).toEqual([
			'session_key',
			'chat_id',
			'chat_type',
			'user_id',
			'display_name',
			'parent_session_id',
		]);
		expect(a.warnings.some(w => w.includes('thread_id'))).toBe(false);
	});

	it("keeps an orphan's own parent (lineage adoption)", () => {
		const a = only(
			plan({
				sessions: [
					zombie({endReason: 'agent_close', endedAtRaw: T0 + 30}),
					orphan({parentSessionId: 'zombie-0001', startedAtRaw: T0 + 50_000}),
				],
			}),
		);
		expect(a.evidence).toBe('lineage');
		expect(a.rows[0].columns.at(-1)).toEqual({
			column: 'parent_session_id',
			before: 'zombie-0001',
			after: 'zombie-0001',
			changes: false,
		});
	});
});

describe('the restart before and after', () => {
	it('on the incident: a restart resumes the zombie (rollback risk) before, the orphan (no risk) after', () => {
		const a = only(plan(INCIDENT));
		expect(a).toMatchObject({
			restartBefore: 'zombie-0001',
			rollbackRiskBefore: true,
			restartAfter: 'orphan-0001',
			rollbackRiskAfter: false,
		});
		expect(a.warnings.some(w => w.includes('would still resume'))).toBe(false);
	});

	it('warns when gateway_routing still names the donor', () => {
		const a = only(plan({...INCIDENT, routing: [routingEntry(K, 'zombie-0001')]}));
		expect(a.restartBefore).toBe('zombie-0001');
		expect(a.warnings).toContain(
			'gateway_routing still names the donor: the gateway drops that entry on ' +
				'the next message (the donor is ended) and finds orphan-0001 by its key',
		);
	});

	it("warns when a restart would still not resume the orphan's line after the repair", () => {
		// A newer keyed row of the chat, live, stays the restart target whatever the adoption does.
		const newer = zombie({id: 'newer-0001', startedAtRaw: T0 + 300_000, newestMessageAt: T0 + 300_060});
		const a = only(plan({sessions: [zombie(), orphan(), newer]}));
		expect(a.restartAfter).toBe('newer-0001');
		expect(a.warnings).toContain(
			`after the repair a restart would still resume newer-0001, not ` +
				`orphan-0001: check \`hfx routing ${K}\` before restarting`,
		);
	});
});

describe('selection and refusals', () => {
	const pair: Case = {
		sessions: [
			zombie({id: 'tgdonor-1'}),
			orphan({id: 'aaaa1111-tg'}),
			zombie({id: 'dcdonor-1', source: 'discord', sessionKey: KD, chatId: '9'}),
			orphan({id: 'bbbb2222-dc', source: 'discord'}),
			orphan({id: 'cccc3333-lost', source: 'slack', parentSessionId: 'gone'}),
		],
	};

	it('plans every adoptable orphan and lists the refused ones', () => {
		const p = plan(pair);
		expect(p.adoptions.map(a => [a.orphanId, a.donorId, a.sessionKey])).toEqual([
			['aaaa1111-tg', 'tgdonor-1', K],
			['bbbb2222-dc', 'dcdonor-1', KD],
		]);
		expect(p.refused.map(o => [o.orphanId, o.reasonKind])).toEqual([['cccc3333-lost', 'parent_not_keyed']]);
		expect(p).toMatchObject({notSelected: [], unknownOnly: [], maxGapSeconds: 900});
	});

	it.each([
		['an exact id', ['bbbb2222-dc']],
		['a unique prefix', ['bbbb2']],
	])('--only with %s selects that orphan; the other is not selected', (_name, ids) => {
		const p = plan(pair, {only: ids});
		expect(p.adoptions.map(a => a.orphanId)).toEqual(['bbbb2222-dc']);
		expect(p.notSelected).toEqual(['aaaa1111-tg']);
		expect(p.unknownOnly).toEqual([]);
	});

	it('--only that names no adoptable orphan says why, for each name: unknown, ambiguous, refused', () => {
		const two: Case = {
			sessions: [
				...pair.sessions,
				zombie({id: 'bbdonor-2', source: 'slack', sessionKey: 'agent:main:slack:dm:3', chatId: '3'}),
				orphan({id: 'bbbb9999-sl', source: 'slack'}),
			],
		};
		const p = plan(two, {only: ['nosuch', 'bbbb', 'cccc3333-lost']});
		expect(p.adoptions).toEqual([]);
		expect(p.unknownOnly).toEqual([
			'nosuch (no adoptable orphan "nosuch")',
			'bbbb ("bbbb" names 2 adoptable orphans (bbbb2222-dc, bbbb9999-sl): give more of the id, or its random suffix)',
			`cccc3333-lost (cccc3333-lost is not adoptable: ${p.refused.find(o => o.orphanId === 'cccc3333-lost')!.reason})`,
		]);
	});
});

describe('generations: what v25 adopts and v30 refuses is held back', () => {
	// Owner 'work'; the telegram orphan belongs to profile 'other', its donor to none (COALESCE → 'work').
	const sessions = [
		zombie({profileName: null}),
		orphan({profileName: 'other'}),
		zombie({id: 'dcdonor-1', source: 'discord', sessionKey: KD, chatId: '9'}),
		orphan({id: 'dc-orphan-1', source: 'discord', startedAtRaw: T0 + 61}),
	];

	it('v25 adopts across profiles, v30 does not: the plan refuses it (generations_disagree) and plans the other', () => {
		const i = input({sessions, ruleSet: 'v25', owner: 'work'});
		expect(i.analysis.orphans.map(o => [o.orphanId, o.verdict])).toEqual([
			['orphan-0001', 'adoptable'],
			['dc-orphan-1', 'adoptable'],
		]);
		expect(i.analysis.afterUpgrade!.orphans.map(o => [o.orphanId, o.verdict])).toEqual([
			['orphan-0001', 'refused'],
			['dc-orphan-1', 'adoptable'],
		]);
		const p = planRepair(i);
		expect(p.adoptions.map(a => a.orphanId)).toEqual(['dc-orphan-1']);
		expect(p.refused.map(o => [o.orphanId, o.verdict, o.reasonKind, o.donorId])).toEqual([
			['orphan-0001', 'refused', 'generations_disagree', 'zombie-0001'],
		]);
		expect(p.refused[0]!.reason).toBe(
			"held back: this store's Hermes (v25) would adopt it from zombie-0001, " +
				'but current Hermes (v30) refuses it (no_predecessor: no keyed ' +
				"predecessor fell quiet within 900s of this session's start); hfx writes " +
				'only what both agree on',
		);
		expect(p.unknownOnly).toEqual([]);
		expect(planRepair({...i, only: ['orphan-0001']})).toMatchObject({
			adoptions: [],
			unknownOnly: [`orphan-0001 (orphan-0001 is not adoptable: ${p.refused[0]!.reason})`],
		});
		// Naming its donor with --donor is that same adoption: held back too.
		expect(planRepair({...i, only: ['orphan-0001'], donor: 'zombie-0001'})).toMatchObject({
			adoptions: [],
			donorRefusal: p.refused[0]!.reason,
		});
	});

	it('heldBack returns null for an orphan both generations adopt from the same donor', () => {
		const {analysis} = input({sessions, ruleSet: 'v25', owner: 'work'});
		const byId = (id: string) => analysis.orphans.find(o => o.orphanId === id)!;
		expect(heldBack(byId('dc-orphan-1'), analysis)).toBeNull();
		expect(heldBack(byId('orphan-0001'), analysis)).toMatchObject({
			orphanId: 'orphan-0001',
			verdict: 'refused',
			reasonKind: 'generations_disagree',
		});
	});

	it('on a v30 store nothing is held back', () => {
		const {analysis} = input({sessions, ruleSet: 'v30', owner: 'work'});
		expect(analysis.afterUpgrade).toBeNull();
		for (const o of analysis.orphans) {
			expect(heldBack(o, analysis)).toBeNull();
		}

		const p = planRepair(input({sessions, ruleSet: 'v30', owner: 'work'}));
		expect(p.adoptions.map(a => a.orphanId)).toEqual(['dc-orphan-1']);
		expect(p.refused.map(o => [o.orphanId, o.reasonKind])).toEqual([['orphan-0001', 'no_predecessor']]);
	});
});

describe('applyToRecords', () => {
	it('writes the adoption into copies of the records, leaving the input untouched', () => {
		const records = [zombie({threadId: 't1'}), orphan({chatId: '99'})];
		const snapshotOf = JSON.stringify(records);
		const a = only(plan({sessions: records}));
		const out = applyToRecords(records, [a], NOW);
		expect(JSON.stringify(records)).toBe(snapshotOf);
		const o = out.find(s => s.id === 'orphan-0001')!;
		const d = out.find(s => s.id === 'zombie-0001')!;
		expect(o).toMatchObject({
			sessionKey: K,
			chatId: '99',
			chatType: 'dm',
			threadId: 't1',
			userId: 'u1',
			displayName: 'Ann',
			parentSessionId: 'zombie-0001',
		});
		expect(d).toMatchObject({endedAtRaw: NOW, endReason: 'superseded_by_repair', sessionKey: K});
	});

	it("keeps an ended donor's ended_at; skips an adoption naming a missing row", () => {
		const records = [zombie({endReason: 'agent_close', endedAtRaw: T0 + 30}), orphan()];
		const a = only(plan({sessions: records}));
		expect(applyToRecords(records, [a], NOW).find(s => s.id === 'zombie-0001')).toMatchObject({
			endedAtRaw: T0 + 30,
			endReason: 'superseded_by_repair',
		});
		expect(applyToRecords(records, [{...a, donorId: 'gone'}], NOW)).toEqual(records);
	});
});

describe('planHash and rowsHash', () => {
	it('is stable for the same input and the same rows, whatever their order', () => {
		const i = input(INCIDENT);
		const h = rowsHash(i.rows);
		expect(planHash(planRepair(i), h)).toBe(planHash(planRepair(input(INCIDENT)), h));
		const reordered = new Map(
			[...i.rows.entries()].reverse().map(([id, r]) => [id, Object.fromEntries(Object.entries(r).reverse())]),
		);
		expect(rowsHash(reordered)).toBe(h);
		expect(h).toMatch(/^[0-9a-f]{64}$/);
	});

	it('changes when a planned column changes, or the rows hash does', () => {
		const i = input(INCIDENT);
		const h = rowsHash(i.rows);
		const base = planHash(planRepair(i), h);
		const rows = new Map(i.rows);
		rows.set('zombie-0001', {...rows.get('zombie-0001'), display_name: 'Bob'});
		const changed = planRepair({...i, rows});
		expect(changed.adoptions[0]!.rows[0].columns.find(c => c.column === 'display_name')!.after).toBe('Bob');
		expect(planHash(changed, h)).not.toBe(base);
		expect(rowsHash(rows)).not.toBe(h);
		expect(planHash(planRepair(i), rowsHash(rows))).not.toBe(base);
	});
});

describe('values: toValue, fromValue, canonical', () => {
	it('carries SQLite cells as JSON values and back', () => {
		expect(toValue(null)).toBeNull();
		expect(toValue(undefined)).toBeNull();
		expect(toValue('x')).toBe('x');
		expect(toValue(1.5)).toBe(1.5);
		expect(toValue(2n ** 64n)).toEqual({bigint: '18446744073709551616'});
		expect(toValue(Buffer.from([0, 255]))).toEqual({hex: '00ff'});
		expect(toValue(true)).toBe('true');
		for (const v of [null, 'x', 1.5]) {
			expect(fromValue(toValue(v))).toBe(v);
		}

		expect(fromValue({bigint: '18446744073709551616'})).toBe(2n ** 64n);
		expect(fromValue({hex: '00ff'})).toEqual(Buffer.from([0, 255]));
	});

	it('canonical sorts keys at every depth and writes bigints and Buffers as values', () => {
		expect(canonical({b: 1, a: {d: [3, 1], c: null}})).toBe('{"a":{"c":null,"d":[3,1]},"b":1}');
		expect(canonical({a: 1, b: 2})).toBe(canonical({b: 2, a: 1}));
		expect(canonical({n: 5n, buf: Buffer.from('hi')})).toBe('{"buf":{"hex":"6869"},"n":{"bigint":"5"}}');
	});
});

describe('an operator-chosen donor (--donor) for an orphan repair-routing refuses', () => {
	// Two keyed rows of the chat fell quiet in the orphan's window: repair-routing refuses it as ambiguous.
	const tip = (partial: Partial<SessionRecord> = {}) =>
		zombie({id: 'tip-0002', startedAtRaw: T0 - 600, newestMessageAt: T0 + 30, ...partial});
	const AMBIGUOUS: Case = {sessions: [zombie(), tip(), orphan()]};

	it(
		"plans Hermes' own writes from that donor, says it is the operator's " + 'choice and why repair-routing refused',
		() => {
			const p = plan(AMBIGUOUS, {only: ['orphan-0001'], donor: 'tip-0002'});
			expect(p.donorRefusal).toBeNull();
			const a = only(p);
			expect(a).toMatchObject({
				orphanId: 'orphan-0001',
				donorId: 'tip-0002',
				sessionKey: K,
				evidence: 'operator',
				refusedBecause: {
					reasonKind: 'ambiguous_predecessor',
					reason: 'ambiguous: more than one keyed predecessor matches this window',
				},
			});
			expect(a.rows[0].columns.find(c => c.column === 'parent_session_id')).toEqual({
				column: 'parent_session_id',
				before: null,
				after: 'tip-0002',
				changes: true,
			});
			expect(a.rows[1]).toMatchObject({sessionId: 'tip-0002', role: 'donor'});
			expect(a.warnings[0]).toMatch(/^operator choice: repair-routing refuses orphan-0001 \(ambiguous_predecessor: /);
			expect(a.restartAfter).toBe('orphan-0001');
			// It is no longer listed among the refused, and its plan is bound to its own writes.
			expect(p.refused.map(o => o.orphanId)).not.toContain('orphan-0001');
			const other = plan(AMBIGUOUS, {only: ['orphan-0001'], donor: 'zombie-0001'});
			expect(planHash(other, 'h')).not.toBe(planHash(p, 'h'));
		},
	);

	it(
		'refuses, planning nothing: the orphan itself, an unkeyed donor, another ' +
			"source or chat, an earlier repair's donor, no single --only",
		() => {
			const cases: Array<[Case, string[], string, RegExp]> = [
				[AMBIGUOUS, ['orphan-0001'], 'orphan-0001', /is the orphan itself/],
				[
					{sessions: [...AMBIGUOUS.sessions, session({id: 'keyless-0003', hasMessageRows: false})]},
					['orphan-0001'],
					'keyless-0003',
					/is not keyed/,
				],
				[
					{sessions: [...AMBIGUOUS.sessions, session({id: 'discord-0004', source: 'discord', sessionKey: KD})]},
					['orphan-0001'],
					'discord-0004',
					/another source/,
				],
				[
					{sessions: [zombie(), tip({chatId: '43'}), orphan({chatId: '42'})]},
					['orphan-0001'],
					'tip-0002',
					/of chat 43, the orphan of chat 42: another chat/,
				],
				[
					{sessions: [zombie(), tip({endReason: 'superseded_by_repair', endedAtRaw: T0 + 40}), orphan()]},
					['orphan-0001'],
					'tip-0002',
					/already gave its identity in an earlier repair/,
				],
				[AMBIGUOUS, [], 'tip-0002', /needs exactly one --only ORPHAN \(the orphan it adopts\); none was given/],
				[AMBIGUOUS, ['tip-0002'], 'zombie-0001', /--only no orphan "tip-0002"/],
			];
			for (const [c, onlyIds, donor, reason] of cases) {
				const p = plan(c, {only: onlyIds, donor});
				expect(p.donorRefusal, donor).toMatch(reason);
				expect(p.adoptions).toEqual([]);
			}
		},
	);

	it(
		'leaves an orphan repair-routing adopts to repair-routing: its own donor ' +
			'is that adoption, another donor is refused',
		() => {
			const same = only(plan(INCIDENT, {only: ['orphan-0001'], donor: 'zombie-0001'}));
			expect(same.evidence).toBe('contiguity');
			const other = plan(
				{
					sessions: [
						...INCIDENT.sessions,
						zombie({id: 'old-0005', startedAtRaw: T0 - 90_000, newestMessageAt: T0 - 86_000}),
					],
				},
				{only: ['orphan-0001'], donor: 'old-0005'},
			);
			expect(other.donorRefusal).toBe(
				'repair-routing adopts orphan-0001 anyway, from zombie-0001 (evidence ' +
					'contiguity), not from old-0005: drop --donor to take that adoption',
			);
		},
	);
});
