/**
 * What an upgrade changes (forensics/routing/upgrade.ts): per orphan and per chat where today's
 * generation and current Hermes differ, "today X; after upgrading Hermes, Y", in repair-routing's
 * order then by key; nothing when the two agree or there is no other side.
 */
import {describe, expect, it} from 'vitest';
import type {OrphanVerdict} from '../../../source/forensics/routing/orphans.js';
import type {ChatRouting} from '../../../source/forensics/routing/routing.js';
import {upgradeChanges} from '../../../source/forensics/routing/upgrade.js';
import {dmKey} from '../../helpers/records.js';

const adoptable = (orphanId: string, donorId = 'k'): OrphanVerdict =>
	({
		orphanId,
		verdict: 'adoptable',
		donorId,
		sessionKey: dmKey(),
		evidence: 'contiguity',
		reasonKind: null,
	}) as OrphanVerdict;
const refused = (orphanId: string, reasonKind: OrphanVerdict['reasonKind'] = 'no_predecessor'): OrphanVerdict =>
	({
		orphanId,
		verdict: 'refused',
		donorId: null,
		sessionKey: null,
		evidence: null,
		reasonKind,
	}) as OrphanVerdict;
const chat = (sessionKey: string, restartResolvesTo: string | null, newestActivityIn: string | null = null) =>
	({sessionKey, restartResolvesTo, rollbackRisk: newestActivityIn !== null, newestActivityIn}) as ChatRouting;

describe('upgradeChanges', () => {
	it('says each orphan whose verdict moves, in both words', () => {
		const changes = upgradeChanges(
			{listed: [refused('o1'), adoptable('o2')], repairRoutingCrash: null, routing: []},
			{listed: [adoptable('o1'), adoptable('o2')], repairRoutingCrash: null, routing: []},
		);
		expect(changes.lines).toEqual([
			{
				subject: 'o1',
				text: `today refused (no_predecessor); after upgrading Hermes, adoptable into ${dmKey()} from k (contiguity)`,
			},
		]);
		expect(changes.bySubject.get('o1')).toBe(changes.lines[0]!.text);
	});

	it('a refusal for another reason is a change too', () => {
		const changes = upgradeChanges(
			{listed: [refused('o1')], repairRoutingCrash: null, routing: []},
			{listed: [refused('o1', 'ambiguous_predecessor')], repairRoutingCrash: null, routing: []},
		);
		expect(changes.lines.map(l => l.text)).toEqual([
			'today refused (no_predecessor); after upgrading Hermes, refused (ambiguous_predecessor)',
		]);
	});

	it('an orphan listed on one side only: not reached when repair-routing crashes, else not listed', () => {
		const changes = upgradeChanges(
			{listed: [], repairRoutingCrash: {sessionId: 'bad'}, routing: []},
			{listed: [adoptable('o1', 'k2')], repairRoutingCrash: null, routing: []},
		);
		expect(changes.lines[0]!.text).toBe(
			'today not reached (repair-routing fails first); ' +
				`after upgrading Hermes, adoptable into ${dmKey()} from k2 (contiguity)`,
		);
		const gone = upgradeChanges(
			{listed: [refused('o1')], repairRoutingCrash: null, routing: []},
			{listed: [], repairRoutingCrash: null, routing: []},
		);
		expect(gone.lines[0]!.text).toBe('today refused (no_predecessor); after upgrading Hermes, not listed');
	});

	it('says each chat whose restart target or risk moves, by key, in the words given', () => {
		const changes = upgradeChanges(
			{
				listed: [],
				repairRoutingCrash: null,
				routing: [chat(dmKey('2'), 'a'), chat(dmKey('1'), 'k', 'o'), chat(dmKey('3'), 'c')],
			},
			{
				listed: [],
				repairRoutingCrash: null,
				routing: [chat(dmKey('3'), 'c'), chat(dmKey('2'), null), chat(dmKey('1'), 'k')],
			},
			{today: 'with v30', after: 'with v30 before #91543'},
		);
		expect(changes.lines).toEqual([
			{
				subject: dmKey('1'),
				text:
					'with v30 a restart resumes k (ROLLBACK RISK: newest in o); ' +
					'with v30 before #91543, a restart resumes k, no risk',
			},
			{
				subject: dmKey('2'),
				text:
					'with v30 a restart resumes a, no risk; ' +
					'with v30 before #91543, a restart starts a fresh session, no risk',
			},
		]);
	});

	it('no other side, or two that agree: no line', () => {
		const today = {listed: [adoptable('o1')], repairRoutingCrash: null, routing: [chat(dmKey(), 'k')]};
		expect(upgradeChanges(today, null).lines).toEqual([]);
		expect(upgradeChanges(today, {...today}).lines).toEqual([]);
		expect(upgradeChanges(today, {...today, routing: []}).lines[0]!.text).toBe(
			'today a restart resumes k, no risk; after upgrading Hermes, not a chat',
		);
	});
});
