/**
 * chooseDonor (source/repair/plan/operator-choice.ts): the operator's own adoption (`hfx repair --only
 * ORPHAN --donor DONOR`), checked as far as the store can tell: exactly one --only; an orphan
 * repair-routing lists (a local-surface row named as keyless by design); a donor that resolves,
 * is keyed, of the orphan's source, chat, user and profile, not the orphan itself and not already a
 * repair's donor; an orphan repair-routing adopts anyway only from its own donor.
 */
import {describe, expect, it} from 'vitest';
import type {OrphanVerdict} from '../../../source/forensics/routing/orphans.js';
import type {SessionRecord} from '../../../source/forensics/types.js';
import {chooseDonor} from '../../../source/repair/plan/operator-choice.js';

const KEY = 'agent:main:telegram:dm:777001';
const ORPHAN = '20260101_120000_aaaa1111';
const DONOR = '20260101_100000_bbbb2222';
const OTHER = '20260101_110000_cccc3333';
const LOCAL = '20260101_130000_dddd4444';

function row(id: string, over: Partial<SessionRecord> = {}): SessionRecord {
	return {
		id,
		source: 'telegram',
		userId: 'u-1',
		sessionKey: KEY,
		chatId: '777001',
		chatType: 'dm',
		profileName: null,
		endReason: null,
		...over,
	} as SessionRecord;
}

function verdict(orphanId: string, over: Partial<OrphanVerdict> = {}): OrphanVerdict {
	return {
		orphanId,
		source: 'telegram',
		messageCount: 3,
		startedAt: null,
		lastActive: null,
		verdict: 'refused',
		evidence: null,
		donorId: null,
		sessionKey: null,
		reasonKind: null,
		reason: 'no keyed row in the window',
		candidateDonors: [],
		profileOwner: null,
		localSurface: false,
		...over,
	};
}

function analysis(options: {orphan?: Partial<OrphanVerdict>; rows?: SessionRecord[]} = {}) {
	const rows = options.rows ?? [row(ORPHAN, {sessionKey: null}), row(DONOR), row(OTHER)];
	return {
		orphans: [verdict(ORPHAN, options.orphan)],
		listedRefusedLocal: [verdict(LOCAL, {source: 'cli', localSurface: true})],
		byId: new Map([...rows, row(LOCAL, {source: 'cli', sessionKey: null})].map(r => [r.id, r])),
	};
}

function reason(choice: ReturnType<typeof chooseDonor>): string {
	expect(choice.ok).toBe(false);
	return choice.ok ? '' : choice.reason;
}

describe('chooseDonor', () => {
	it('a refused orphan adopted from a fitting donor: manual, the donor and its key carried', () => {
		const choice = chooseDonor(analysis(), [ORPHAN], DONOR);
		expect(choice).toMatchObject({ok: true, manual: true});
		if (choice.ok) {
			expect(choice.verdict).toMatchObject({orphanId: ORPHAN, verdict: 'adoptable', donorId: DONOR, sessionKey: KEY});
		}
	});

	it('names by random suffix resolve like everywhere else', () => {
		expect(chooseDonor(analysis(), ['aaaa1111'], 'bbbb2222')).toMatchObject({ok: true, manual: true});
	});

	it('needs exactly one --only', () => {
		expect(reason(chooseDonor(analysis(), [], DONOR))).toBe(
			'--donor needs exactly one --only ORPHAN (the orphan it adopts); none was given',
		);
		expect(reason(chooseDonor(analysis(), [ORPHAN, OTHER], DONOR))).toContain('2 were given');
	});

	it('an --only that is no listed orphan, or a local-surface row', () => {
		expect(reason(chooseDonor(analysis(), ['zzzz9999'], DONOR))).toBe('--only no orphan "zzzz9999"');
		expect(reason(chooseDonor(analysis(), [LOCAL], DONOR))).toBe(
			`${LOCAL} is a cli row: keyless by design, it has no gateway chat to adopt`,
		);
	});

	it('a donor that does not resolve, or resolves to more than one row', () => {
		expect(reason(chooseDonor(analysis(), [ORPHAN], 'nope'))).toBe('--donor no session "nope"');
		expect(reason(chooseDonor(analysis(), [ORPHAN], '20260101_1'))).toMatch(/^--donor "20260101_1" names 4 sessions/);
	});

	it('refuses the orphan itself, a keyless donor, another source, chat, user or profile, a used donor', () => {
		const cases: Array<[Partial<SessionRecord>, string]> = [
			[{sessionKey: null}, 'is not keyed (its session_key is NULL)'],
			[{source: 'discord'}, 'is a discord row and the orphan a telegram one: another source'],
			[{source: ''}, 'is a sourceless row'],
			[{chatId: '999'}, `is of chat 999, the orphan of chat 777001: another chat`],
			[{userId: 'u-2'}, 'is of user u-2, the orphan of user u-1: another chat'],
			[{profileName: 'work'}, 'belongs to profile work, the orphan to main'],
			[{endReason: 'superseded_by_repair'}, 'already gave its identity in an earlier repair'],
		];
		for (const [over, words] of cases) {
			const a = analysis({orphan: {profileOwner: 'main'}, rows: [row(ORPHAN, {sessionKey: null}), row(DONOR, over)]});
			expect(reason(chooseDonor(a, [ORPHAN], DONOR))).toContain(`the donor ${DONOR} ${words}`);
		}

		expect(reason(chooseDonor(analysis(), [ORPHAN], ORPHAN))).toBe(`the donor ${ORPHAN} is the orphan itself`);
	});

	it('a chat, user or profile the orphan or donor does not record does not refuse', () => {
		const a = analysis({
			rows: [row(ORPHAN, {sessionKey: null, chatId: null, userId: null}), row(DONOR, {profileName: 'x'})],
		});
		expect(chooseDonor(a, [ORPHAN], DONOR)).toMatchObject({ok: true, manual: true});
	});

	it('an orphan repair-routing adopts: only from its own donor, and then not manual', () => {
		const adoptable = {verdict: 'adoptable' as const, donorId: DONOR, evidence: 'lineage' as const, sessionKey: KEY};
		expect(chooseDonor(analysis({orphan: adoptable}), [ORPHAN], DONOR)).toMatchObject({ok: true, manual: false});
		expect(reason(chooseDonor(analysis({orphan: adoptable}), [ORPHAN], OTHER))).toBe(
			`repair-routing adopts ${ORPHAN} anyway, from ${DONOR} (evidence lineage), not from ${OTHER}: drop --donor ` +
				'to take that adoption',
		);
	});
});
