/**
 * Routing orphans and repair-routing evidence (docs/hermes-rules.md, orphans, repair-routing,
 * last-active).
 */
import {describe, expect, it} from 'vitest';
import {
	DEFAULT_MAX_GAP_SECONDS,
	LOCAL_SURFACES,
	type OrphanOptions,
	findOrphans,
	isListedRefusedLocal,
	isOrphanCandidate,
} from '../../../source/forensics/routing/orphans.js';
import type {SessionRecord} from '../../../source/forensics/types.js';
import {T0, dmKey, emptySession, session} from '../../helpers/records.js';

const K = dmKey('42');
const K2 = dmKey('43');
const NO_PREDECESSOR_900 = "no keyed predecessor fell quiet within 900s of this session's start";
const PARENT_NOT_KEYED = 'parent session carries no gateway identity of this source';
const AMBIGUOUS = 'ambiguous: more than one keyed predecessor matches this window';
const CONTESTED = 'ambiguous: more than one unkeyed session claims this predecessor';

/** A keyed donor whose windowed last_active is exactly `lastActive`. */
function donor(lastActive: number, partial: Partial<SessionRecord> & {id?: string} = {}): SessionRecord {
	return session({
		id: 'donor',
		sessionKey: K,
		startedAtRaw: lastActive - 3600,
		newestMessageAt: lastActive,
		...partial,
	});
}

/** A keyless telegram row started at T0 whose last_active is T0 + 600. */
function orphan(partial: Partial<SessionRecord> & {id?: string} = {}): SessionRecord {
	return session({id: 'orphan', startedAtRaw: T0, newestMessageAt: T0 + 600, ...partial});
}

function verdicts(sessions: SessionRecord[], options: Partial<OrphanOptions> = {}) {
	return findOrphans(sessions, {owner: null, ...options});
}

function verdictOf(sessions: SessionRecord[], id = 'orphan', options: Partial<OrphanOptions> = {}) {
	const v = verdicts(sessions, options).find(o => o.orphanId === id);
	if (!v) {
		throw new Error(`${id} was not reported as an orphan`);
	}

	return v;
}

describe('the orphan predicate (docs/hermes-rules.md, orphans)', () => {
	it('reports a keyless row with message rows', () => {
		expect(isOrphanCandidate(orphan())).toBe(true);
		expect(verdicts([orphan()]).map(o => o.orphanId)).toEqual(['orphan']);
	});

	it('needs session_key IS NULL: an empty-string key is a key', () => {
		expect(isOrphanCandidate(orphan({sessionKey: ''}))).toBe(false);
		expect(isOrphanCandidate(orphan({sessionKey: K}))).toBe(false);
	});

	it('needs at least one messages row; the message_count column does not count', () => {
		expect(isOrphanCandidate(orphan({hasMessageRows: false, messageCountColumn: 5}))).toBe(false);
		expect(isOrphanCandidate(orphan({hasMessageRows: true, messageCountColumn: 0}))).toBe(true);
	});

	it("excludes source 'tool'", () => {
		expect(isOrphanCandidate(orphan({source: 'tool'}))).toBe(false);
	});

	it('excludes /branch and delegate children by their model_config markers', () => {
		expect(isOrphanCandidate(orphan({branchedFrom: 'p'}))).toBe(false);
		expect(isOrphanCandidate(orphan({delegateFrom: 'p'}))).toBe(false);
		expect(isOrphanCandidate(orphan({delegateFrom: '__orphaned__'}))).toBe(false);
	});

	it('does NOT exclude _reset_from children', () => {
		expect(isOrphanCandidate(orphan({resetFrom: 'p'}))).toBe(true);
	});

	it('includes ended rows, whatever the end reason', () => {
		for (const endReason of ['agent_close', 'compression', 'session_reset', 'superseded_by_repair', 'cli_close']) {
			expect(isOrphanCandidate(orphan({endReason, endedAtRaw: T0 + 700}))).toBe(true);
		}
	});

	// Hermes: json_extract(...,'$._branched_from') IS NULL. A marker holding '' is not NULL, so Hermes
	// excludes the row; the engine tests the marker for truthiness and reports it.
	it("excludes a row whose _branched_from marker is the empty string (json_extract gives '', not NULL)", () => {
		expect(isOrphanCandidate(orphan({branchedFrom: ''}))).toBe(false);
	});

	describe('scope: every keyless row with messages that repair-routing lists, local surfaces included', () => {
		it('names the local surfaces; api_server is a gateway platform, not one', () => {
			expect([...LOCAL_SURFACES].sort()).toEqual([
				'acp',
				'cli',
				'cron',
				'desktop',
				'kanban',
				'oneshot',
				'recovered',
				'subagent',
				'tool',
				'tui',
			]);
		});

		it.each(['cli', 'tui', 'desktop', 'subagent', 'cron', 'kanban', 'acp', 'recovered', 'oneshot'])(
			'lists a keyless %s row and refuses it: keyless by design, not a finding',
			source => {
				expect(isOrphanCandidate(orphan({source}))).toBe(true);
				const [v] = verdicts([orphan({source}), donor(T0 - 60)]);
				expect(v).toMatchObject({
					orphanId: 'orphan',
					verdict: 'refused',
					reasonKind: 'no_predecessor',
					localSurface: true,
				});
				expect(isListedRefusedLocal(v!)).toBe(true);
			},
		);

		it('adopts an unkeyed api_server successor of a keyed api_server row (real --apply writes it)', () => {
			const v = verdictOf([orphan({source: 'api_server'}), donor(T0 - 60, {source: 'api_server'})]);
			expect(v).toMatchObject({verdict: 'adoptable', evidence: 'contiguity', donorId: 'donor', localSurface: false});
		});

		it('a local-surface row that real --apply would adopt is a finding, whatever its source', () => {
			const v = verdictOf([orphan({source: 'cli'}), donor(T0 - 60, {source: 'cli'})]);
			expect(v).toMatchObject({verdict: 'adoptable', localSurface: true});
			expect(isListedRefusedLocal(v)).toBe(false);
		});

		it('never lists a tool row', () => {
			expect(isOrphanCandidate(orphan({source: 'tool'}))).toBe(false);
			expect(verdicts([orphan({source: 'tool'}), donor(T0 - 60, {source: 'tool'})])).toEqual([]);
		});

		it.each(['unknown', 'telegram', 'discord', 'whatsapp', 'slack', 'signal', 'api_server', ''])(
			'examines source %j as a gateway row',
			source => {
				expect(isOrphanCandidate(orphan({source}))).toBe(true);
				expect(verdictOf([orphan({source})]).localSurface).toBe(false);
			},
		);
	});

	it('reports orphans in started_at order', () => {
		const rows = [
			orphan({id: 'late', startedAtRaw: T0 + 50}),
			orphan({id: 'early', startedAtRaw: T0 - 50}),
			orphan({id: 'mid'}),
		];
		expect(verdicts(rows).map(o => o.orphanId)).toEqual(['early', 'mid', 'late']);
	});
});

describe('record fields', () => {
	it('takes message_count from COUNT(*) of message rows, not the column', () => {
		expect(verdictOf([orphan({messageRows: 7, messageCountColumn: 3})]).messageCount).toBe(7);
	});

	it('falls back to the column (at least 1) when the row count was not read', () => {
		expect(verdictOf([orphan({messageRows: null, messageCountColumn: 3})]).messageCount).toBe(3);
		expect(verdictOf([orphan({messageRows: null, messageCountColumn: 0})]).messageCount).toBe(1);
	});

	it('carries source, started_at and the windowed last_active', () => {
		const v = verdictOf([orphan({source: 'unknown', lastActivityAtRaw: T0 + 900})]);
		expect(v).toMatchObject({source: 'unknown', startedAt: T0, lastActive: T0 + 900});
	});
});

describe('lineage evidence (orphan has parent_session_id)', () => {
	it('adopts into a keyed parent of the same source, with no time window and no user check', () => {
		const parent = donor(T0 - 30 * 86_400, {id: 'parent', userId: 'u1'});
		const v = verdictOf([parent, orphan({parentSessionId: 'parent', userId: 'u2'})]);
		expect(v).toMatchObject({
			verdict: 'adoptable',
			evidence: 'lineage',
			donorId: 'parent',
			sessionKey: K,
			reasonKind: null,
		});
	});

	it("adopts whatever the parent's end reason", () => {
		const parent = donor(T0 - 60, {id: 'parent', endReason: 'compression'});
		expect(verdictOf([parent, orphan({parentSessionId: 'parent'})]).verdict).toBe('adoptable');
	});

	it.each([
		['the parent is not in the store', [] as SessionRecord[]],
		['the parent is keyless', [emptySession({id: 'parent'})]],
		['the parent is another source', [donor(T0 - 60, {id: 'parent', source: 'discord'})]],
	])("refuses when %s, with Hermes' reason", (_what, extra) => {
		const v = verdictOf([...extra, orphan({parentSessionId: 'parent'})]);
		expect(v).toMatchObject({
			verdict: 'refused',
			reasonKind: 'parent_not_keyed',
			evidence: null,
			donorId: null,
			sessionKey: null,
		});
		expect(v.reason.startsWith(PARENT_NOT_KEYED)).toBe(true);
	});

	it('compares sources as strings: a sourceless parent does not donate to a telegram orphan', () => {
		const v = verdictOf([donor(T0 - 60, {id: 'parent', source: ''}), orphan({parentSessionId: 'parent'})]);
		expect(v.reasonKind).toBe('parent_not_keyed');
	});

	it('never falls back to contiguity when the parent does not qualify', () => {
		const perfectContiguityDonor = donor(T0 - 60, {id: 'neighbour'});
		const v = verdictOf([perfectContiguityDonor, orphan({parentSessionId: 'ghost'})]);
		expect(v).toMatchObject({verdict: 'refused', reasonKind: 'parent_not_keyed', donorId: null, candidateDonors: []});
	});

	it("decides the same with the caller's index of the sessions as without it", () => {
		const rows = [
			donor(T0 - 60, {id: 'parent'}),
			donor(T0 - 60, {id: 'discord-parent', source: 'discord'}),
			orphan({id: 'a', parentSessionId: 'parent'}),
			orphan({id: 'b', parentSessionId: 'discord-parent', startedAtRaw: T0 + 10}),
			orphan({id: 'c', parentSessionId: 'ghost', startedAtRaw: T0 + 20}),
			orphan({id: 'd', startedAtRaw: T0 + 30}),
		];
		const byId = new Map(rows.map(s => [s.id, s]));
		const without = verdicts(rows);
		expect(verdicts(rows, {byId})).toEqual(without);
		expect(without.map(v => [v.orphanId, v.evidence, v.donorId])).toEqual([
			['a', 'lineage', 'parent'],
			['b', null, null],
			['c', null, null],
			['d', 'contiguity', 'parent'],
		]);
	});

	it('applies the profile fence to the parent', () => {
		const parent = donor(T0 - 60, {id: 'parent', profileName: 'work'});
		const fenced = verdictOf([parent, orphan({parentSessionId: 'parent'})], 'orphan', {owner: 'default'});
		expect(fenced).toMatchObject({verdict: 'refused', reasonKind: 'parent_not_keyed'});
		const unfenced = verdictOf([parent, orphan({parentSessionId: 'parent'})], 'orphan', {owner: null});
		expect(unfenced.verdict).toBe('adoptable');
	});
});

describe('contiguity evidence (no parent)', () => {
	it('adopts the only keyed row of the same source that fell quiet just before', () => {
		const v = verdictOf([donor(T0 - 60), orphan()]);
		expect(v).toMatchObject({
			verdict: 'adoptable',
			evidence: 'contiguity',
			donorId: 'donor',
			sessionKey: K,
			reasonKind: null,
			candidateDonors: ['donor'],
		});
	});

	describe('window [started_at - gap, started_at + gap], inclusive', () => {
		it('accepts a donor quiet exactly gap seconds before the start', () => {
			expect(verdictOf([donor(T0 - 900), orphan()]).verdict).toBe('adoptable');
		});

		it('rejects a donor quiet gap + 1 seconds before the start', () => {
			expect(verdictOf([donor(T0 - 901), orphan()])).toMatchObject({verdict: 'refused', reasonKind: 'no_predecessor'});
		});

		it('accepts a donor active until exactly gap seconds after the start', () => {
			expect(verdictOf([donor(T0 + 900), orphan({newestMessageAt: T0 + 1000})]).verdict).toBe('adoptable');
		});

		it('rejects a donor active until gap + 1 seconds after the start', () => {
			expect(verdictOf([donor(T0 + 901), orphan({newestMessageAt: T0 + 1000})]).reasonKind).toBe('no_predecessor');
		});

		it('honours a wider gap', () => {
			expect(verdictOf([donor(T0 - 1800), orphan()], 'orphan', {maxGapSeconds: 1800}).verdict).toBe('adoptable');
			expect(verdictOf([donor(T0 - 1801), orphan()], 'orphan', {maxGapSeconds: 1800}).verdict).toBe('refused');
		});

		it("uses the donor's windowed last_active (a corrupt activity cell does not pin it)", () => {
			const d = donor(T0 - 60, {lastActivityAtRaw: 5e246});
			expect(verdictOf([d, orphan()]).verdict).toBe('adoptable');
		});
	});

	it("requires the donor to be strictly older than the orphan's last_active", () => {
		expect(verdictOf([donor(T0 + 599), orphan()]).verdict).toBe('adoptable');
		expect(verdictOf([donor(T0 + 600), orphan()]).reasonKind).toBe('no_predecessor');
	});

	describe('user_id compatibility: either side empty/NULL, or equal', () => {
		it.each([
			[null, 'u1'],
			['', 'u1'],
			['u1', null],
			['u1', ''],
			['u1', 'u1'],
			[null, null],
		])('donor %j, orphan %j: adoptable', (donorUser, orphanUser) => {
			expect(verdictOf([donor(T0 - 60, {userId: donorUser}), orphan({userId: orphanUser})]).verdict).toBe('adoptable');
		});

		it('rejects two different users', () => {
			expect(verdictOf([donor(T0 - 60, {userId: 'u1'}), orphan({userId: 'u2'})]).reasonKind).toBe('no_predecessor');
		});
	});

	it('requires the same source', () => {
		expect(verdictOf([donor(T0 - 60, {source: 'discord'}), orphan()]).reasonKind).toBe('no_predecessor');
		expect(verdictOf([donor(T0 - 60, {source: 'unknown'}), orphan({source: 'unknown'})]).verdict).toBe('adoptable');
	});

	it("compares sources as strings, '' standing for NULL on both sides", () => {
		expect(verdictOf([donor(T0 - 60, {source: ''}), orphan({source: ''})]).verdict).toBe('adoptable');
		expect(verdictOf([donor(T0 - 60, {source: ''}), orphan({source: 'unknown'})]).verdict).toBe('refused');
	});

	it('requires the donor to be keyed (a keyless neighbour is no donor)', () => {
		const keylessNeighbour = emptySession({id: 'neighbour', startedAtRaw: T0 - 3600, lastActivityAtRaw: T0 - 60});
		expect(verdictOf([keylessNeighbour, orphan()]).reasonKind).toBe('no_predecessor');
	});

	it('accepts an empty-string key as keyed (session_key IS NOT NULL)', () => {
		expect(verdictOf([donor(T0 - 60, {sessionKey: ''}), orphan()])).toMatchObject({
			verdict: 'adoptable',
			sessionKey: '',
		});
	});

	it('accepts ended donors (no end_reason condition)', () => {
		expect(verdictOf([donor(T0 - 60, {endReason: 'session_reset', endedAtRaw: T0 - 30}), orphan()]).verdict).toBe(
			'adoptable',
		);
	});

	it("never takes the orphan's own id as a donor (d.id != orphan)", () => {
		// Ids are unique in SQLite; this only guards the filter with a keyed record reusing the id.
		expect(verdictOf([donor(T0 - 60, {id: 'orphan'}), orphan()]).reasonKind).toBe('no_predecessor');
	});

	it('refuses with ambiguity when two keyed predecessors match, naming the two freshest', () => {
		const rows = [
			donor(T0 - 300, {id: 'd1'}),
			donor(T0 - 60, {id: 'd2', sessionKey: K2}),
			donor(T0 - 120, {id: 'd3'}),
			orphan(),
		];
		const v = verdictOf(rows);
		expect(v).toMatchObject({
			verdict: 'refused',
			reasonKind: 'ambiguous_predecessor',
			reason: AMBIGUOUS,
			donorId: null,
			evidence: null,
		});
		expect(v.candidateDonors).toEqual(['d2', 'd3']);
	});

	it("refuses with Hermes' exact wording when nothing matches", () => {
		const v = verdictOf([orphan()]);
		expect(v).toMatchObject({
			verdict: 'refused',
			reasonKind: 'no_predecessor',
			reason: NO_PREDECESSOR_900,
			donorId: null,
			candidateDonors: [],
		});
		expect(DEFAULT_MAX_GAP_SECONDS).toBe(900);
	});

	it('puts the configured gap in the wording', () => {
		expect(verdictOf([orphan()], 'orphan', {maxGapSeconds: 1800}).reason).toBe(
			"no keyed predecessor fell quiet within 1800s of this session's start",
		);
	});

	// Python formats the gap with f"{gap:.0f}" (round half to even: 1800.5 -> "1800");
	// JavaScript's toFixed(0) rounds the tie up ("1801").
	it("formats a fractional gap as Python's {gap:.0f} does (1800.5 -> 1800s)", () => {
		expect(verdictOf([orphan()], 'orphan', {maxGapSeconds: 1800.5}).reason).toBe(
			"no keyed predecessor fell quiet within 1800s of this session's start",
		);
	});

	describe('orphan timestamps', () => {
		it('treats a NULL started_at as 0 (Python `started_at or 0`)', () => {
			const early = donor(500, {startedAtRaw: 100});
			const v = verdictOf([early, orphan({startedAtRaw: null, newestMessageAt: null, lastActivityAtRaw: 1000})]);
			expect(v).toMatchObject({verdict: 'adoptable', donorId: 'donor', startedAt: null, lastActive: 1000});
		});

		// Python: `started = orphan["started_at"] or 0` keeps inf, so the window [inf - gap, inf + gap]
		// holds no donor. The engine reads a non-finite started_at as 0 and opens [-gap, +gap].
		it('keeps an infinite started_at infinite (Python `inf or 0` is inf): no donor near epoch 0 matches', () => {
			const early = donor(500, {startedAtRaw: 100});
			const v = verdictOf([
				early,
				orphan({startedAtRaw: Number.POSITIVE_INFINITY, newestMessageAt: null, lastActivityAtRaw: 1000}),
			]);
			expect(v).toMatchObject({verdict: 'refused', reasonKind: 'no_predecessor'});
		});

		it('refuses an orphan whose started_at is TEXT, even with a perfect donor', () => {
			const v = verdictOf([donor(T0 - 60), orphan({startedAtRaw: 'yesterday'})]);
			expect(v).toMatchObject({verdict: 'refused', reasonKind: 'no_predecessor', donorId: null});
			expect(v.reason).toContain('started_at is not a number');
		});

		it("finds no candidates when the orphan's last_active is NULL (x < NULL matches nothing)", () => {
			const early = donor(100, {startedAtRaw: 50});
			const v = verdictOf([early, orphan({startedAtRaw: null, newestMessageAt: null, lastActivityAtRaw: null})]);
			expect(v.lastActive).toBeNull();
			expect(v).toMatchObject({verdict: 'refused', reasonKind: 'no_predecessor'});
		});

		it('places the window on a started_at outside the epoch window (a garbage double is still a number)', () => {
			const v = verdictOf([donor(T0 - 60), orphan({startedAtRaw: 5e246, newestMessageAt: T0 + 600})]);
			expect(v).toMatchObject({verdict: 'refused', reasonKind: 'no_predecessor', lastActive: T0 + 600});
		});
	});
});

describe('the profile fence (COALESCE(d.profile_name, owner) = orphan.profile_name or owner)', () => {
	it('is off when the store has no owner', () => {
		expect(verdictOf([donor(T0 - 60, {profileName: 'work'}), orphan()], 'orphan', {owner: null}).verdict).toBe(
			'adoptable',
		);
	});

	it('fences out a donor of another profile', () => {
		const v = verdictOf([donor(T0 - 60, {profileName: 'work'}), orphan({profileName: null})], 'orphan', {
			owner: 'default',
		});
		expect(v).toMatchObject({verdict: 'refused', reasonKind: 'no_predecessor', profileOwner: 'default'});
	});

	it("counts a donor with NULL profile_name as the owner's", () => {
		expect(
			verdictOf([donor(T0 - 60, {profileName: null}), orphan({profileName: 'work'})], 'orphan', {owner: 'work'})
				.verdict,
		).toBe('adoptable');
		expect(
			verdictOf([donor(T0 - 60, {profileName: null}), orphan({profileName: 'work'})], 'orphan', {owner: 'default'})
				.verdict,
		).toBe('refused');
	});

	it('lets an empty orphan profile_name fall back to the owner (Python `or`)', () => {
		const v = verdictOf([donor(T0 - 60, {profileName: null}), orphan({profileName: ''})], 'orphan', {owner: 'default'});
		expect(v).toMatchObject({verdict: 'adoptable', profileOwner: 'default'});
	});

	it("does not let an empty donor profile_name fall back (SQL COALESCE keeps '')", () => {
		expect(
			verdictOf([donor(T0 - 60, {profileName: ''}), orphan({profileName: ''})], 'orphan', {owner: 'default'}).verdict,
		).toBe('refused');
	});

	it('matches an explicit orphan profile against explicit donor profiles', () => {
		const rows = [
			donor(T0 - 60, {id: 'mine', profileName: 'work'}),
			donor(T0 - 30, {id: 'theirs', profileName: 'default'}),
			orphan({profileName: 'work'}),
		];
		expect(verdictOf(rows, 'orphan', {owner: 'default'})).toMatchObject({verdict: 'adoptable', donorId: 'mine'});
		expect(verdictOf(rows, 'orphan', {owner: null}).reasonKind).toBe('ambiguous_predecessor');
	});
});

describe('contested donors', () => {
	it('refuses every orphan that claims the same donor, keeping donor and evidence', () => {
		const rows = [donor(T0 - 60), orphan({id: 'o1'}), orphan({id: 'o2', startedAtRaw: T0 + 30})];
		const all = verdicts(rows);
		expect(all).toHaveLength(2);
		for (const v of all) {
			expect(v).toMatchObject({
				verdict: 'refused',
				reasonKind: 'contested_donor',
				reason: CONTESTED,
				donorId: 'donor',
				sessionKey: K,
				evidence: 'contiguity',
			});
		}
	});

	it('counts lineage and contiguity claims together', () => {
		const rows = [
			donor(T0 - 60),
			orphan({id: 'by-lineage', parentSessionId: 'donor', startedAtRaw: T0 + 5000, newestMessageAt: T0 + 6000}),
			orphan({id: 'by-contiguity'}),
		];
		const all = verdicts(rows);
		expect(all.map(v => [v.orphanId, v.verdict, v.reasonKind, v.evidence])).toEqual([
			['by-contiguity', 'refused', 'contested_donor', 'contiguity'],
			['by-lineage', 'refused', 'contested_donor', 'lineage'],
		]);
	});

	it('does not count a refused orphan as a claim', () => {
		// o1 is ambiguous between d1 and d2; o2's only candidate is d1 (d2 belongs to another user).
		const rows = [
			donor(T0 - 120, {id: 'd1'}),
			donor(T0 - 60, {id: 'd2', userId: 'u9', sessionKey: K2}),
			orphan({id: 'o1'}),
			orphan({id: 'o2', userId: 'u1', startedAtRaw: T0 + 10}),
		];
		const all = verdicts(rows);
		expect(all.find(v => v.orphanId === 'o1')).toMatchObject({verdict: 'refused', reasonKind: 'ambiguous_predecessor'});
		expect(all.find(v => v.orphanId === 'o2')).toMatchObject({verdict: 'adoptable', donorId: 'd1'});
	});

	it('leaves orphans with distinct donors adoptable', () => {
		const rows = [
			donor(T0 - 60, {id: 'd1', userId: 'u1'}),
			donor(T0 - 60, {id: 'd2', userId: 'u2', sessionKey: K2}),
			orphan({id: 'o1', userId: 'u1'}),
			orphan({id: 'o2', userId: 'u2'}),
		];
		expect(verdicts(rows).map(v => [v.orphanId, v.verdict, v.donorId])).toEqual([
			['o1', 'adoptable', 'd1'],
			['o2', 'adoptable', 'd2'],
		]);
	});
});
