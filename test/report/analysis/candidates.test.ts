/**
 * The candidate donors of a refused orphan in words (report/analysis/candidates.ts): the row a restart resumed
 * over it first, then each keyed row weighed, when it fell quiet against the orphan's start, and the
 * command that adopts it from the first; nothing for an adoptable orphan or a local-surface row.
 */
import {describe, expect, it} from 'vitest';
import type {OrphanVerdict} from '../../../source/forensics/routing/orphans.js';
import type {Rollback} from '../../../source/forensics/rollbacks/rollbacks.js';
import {adoptCommand, candidateDonors, candidateLines} from '../../../source/report/analysis/candidates.js';
import {T0, dmKey, indexById, session} from '../../helpers/records.js';

const ORPHAN = '20231114_222000_04c1d6c6';
const A = '20231114_200000_aaaaaaaa';
const B = '20231114_210000_bbbbbbbb';
const KEYLESS = '20231114_210500_cccccccc';

const byId = indexById([
	session({id: A, sessionKey: dmKey('1'), startedAtRaw: T0 - 7200, newestMessageAt: T0 - 3600}),
	session({id: B, sessionKey: dmKey('2'), startedAtRaw: T0 - 600, newestMessageAt: T0 + 900}),
	session({id: KEYLESS, startedAtRaw: T0 - 500}),
]);

function refused(partial: Partial<OrphanVerdict> = {}): OrphanVerdict {
	return {
		orphanId: ORPHAN,
		source: 'telegram',
		messageCount: 12,
		startedAt: T0,
		lastActive: T0 + 2000,
		verdict: 'refused',
		evidence: null,
		donorId: null,
		sessionKey: null,
		reasonKind: 'ambiguous_predecessor',
		reason: 'two candidates',
		candidateDonors: [A, B],
		profileOwner: 'default',
		localSurface: false,
		...partial,
	};
}

describe('candidateDonors', () => {
	it('says when each keyed candidate fell quiet against the orphan start, before or after', () => {
		expect(candidateDonors(refused(), byId)).toEqual([
			{
				id: A,
				sessionKey: dmKey('1'),
				lastActive: T0 - 3600,
				text:
					`candidate donor ${A} (${dmKey('1')}): fell quiet 60 minutes before it started ` +
					'(last active 2023-11-14 21:13 UTC)',
				short: `candidate ${A}: quiet 60 minutes before it started`,
			},
			{
				id: B,
				sessionKey: dmKey('2'),
				lastActive: T0 + 900,
				text:
					`candidate donor ${B} (${dmKey('2')}): was active until 15 minutes after it started ` +
					'(last active 2023-11-14 22:28 UTC)',
				short: `candidate ${B}: active until 15 minutes after it started`,
			},
		]);
	});

	it('says so when the orphan has no start, and when the candidate has no activity', () => {
		const quiet = indexById([session({id: A, sessionKey: dmKey('1'), startedAtRaw: null, hasMessageRows: false})]);
		const [none] = candidateDonors(refused({candidateDonors: [A]}), quiet);
		expect(none!.text).toBe(`candidate donor ${A} (${dmKey('1')}): no activity recorded`);
		expect(none!.short).toBe(`candidate ${A}: no activity recorded`);
		const [noStart] = candidateDonors(refused({candidateDonors: [A], startedAt: null}), byId);
		expect(noStart!.text).toBe(`candidate donor ${A} (${dmKey('1')}): fell quiet (the orphan has no start time)`);
		expect(noStart!.short).toBe(`candidate ${A}: quiet (no start to compare)`);
	});

	it('says a row that fell quiet the second the orphan started quiet before it', () => {
		const same = indexById([session({id: A, sessionKey: dmKey('1'), startedAtRaw: T0 - 60, newestMessageAt: T0})]);
		expect(candidateDonors(refused({candidateDonors: [A]}), same)[0]!.short).toBe(
			`candidate ${A}: quiet 0 seconds before it started`,
		);
	});

	it('adds the donor once, and skips an id that is keyless or not in the store', () => {
		const ids = candidateDonors(refused({candidateDonors: [A, KEYLESS, 'gone'], donorId: A}), byId).map(c => c.id);
		expect(ids).toEqual([A]);
		expect(candidateDonors(refused({candidateDonors: [], donorId: B}), byId).map(c => c.id)).toEqual([B]);
	});

	it('has none for an adoptable orphan or a local-surface row', () => {
		expect(candidateDonors(refused({verdict: 'adoptable', donorId: A}), byId)).toEqual([]);
		expect(candidateDonors(refused({localSurface: true}), byId)).toEqual([]);
	});

	it('puts first, once, the keyed row a restart resumed over the orphan (as skipped or also in the gap)', () => {
		const rollback: Rollback = {
			sessionKey: dmKey('2'),
			resumedId: B,
			jumpedFrom: T0 + 900,
			resumedAt: T0 + 86_400,
			after: {messages: 1, userTurns: 1, lastAt: T0 + 86_460},
			skipped: {
				id: 'another',
				kind: 'keyless',
				messages: 3,
				firstAt: T0 + 1000,
				lastAt: T0 + 1500,
				forkSeconds: 100,
				certainty: 'strong',
				evidence: [],
			},
			alsoSkipped: [{id: ORPHAN, messages: 12, lastAt: T0 + 2000}],
			certainty: 'strong',
			routedTo: B,
			routingRewriteAt: null,
		};
		const list = candidateDonors(refused(), byId, [rollback]);
		expect(list.map(c => c.id)).toEqual([B, A]);
		expect(list[0]!.text).toBe(
			`candidate donor ${B} (${dmKey('2')}): the row a restart resumed over this conversation at ` +
				'2023-11-15 22:13 UTC (rollback, strong; 1 message written into it since)',
		);
		expect(list[0]!.short).toBe(`candidate ${B}: resumed over it at a restart (strong)`);
		const unrelated: Rollback = {...rollback, alsoSkipped: []};
		expect(candidateDonors(refused(), byId, [unrelated]).map(c => c.id)).toEqual([A, B]);
	});
});

describe('adoptCommand and candidateLines', () => {
	it('adopts by the ids suffixes', () => {
		expect(adoptCommand(ORPHAN, A)).toBe('hfx repair --only 04c1d6c6 --donor aaaaaaaa');
		expect(adoptCommand('plain', 'other')).toBe('hfx repair --only plain --donor other');
	});

	it('lists each candidate then previews adopting from the first; nothing when there is none', () => {
		const lines = candidateLines(refused(), byId);
		expect(lines).toHaveLength(3);
		expect(lines[0]).toMatch(new RegExp(`^candidate donor ${A} `));
		expect(lines[2]).toBe('your choice, previewed first: hfx repair --only 04c1d6c6 --donor aaaaaaaa');
		expect(candidateLines(refused({candidateDonors: []}), byId)).toEqual([]);
	});
});
