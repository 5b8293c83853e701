/**
 * One pass of the forensic engine (forensics/analysis/analyze.ts): the findings in severity order
 * with their words (rollback risk and what a restart now does, a stale entry, an orphan, an
 * unusable timestamp, a missing column, what an upgrade changes), the scan's exit status, and the
 * parts hfx timeline and search reuse computed by the same functions.
 */
import {describe, expect, it} from 'vitest';
import {
	afterRestartWords,
	analyze,
	analyzeChats,
	analyzeSteps,
	collectFindings,
	hasCorruptTime,
	hasFindings,
	indexById,
	missingColumnFinding,
	splitListed,
} from '../../../source/forensics/analysis/analyze.js';
import type {OrphanVerdict} from '../../../source/forensics/routing/orphans.js';
import type {ChatRouting} from '../../../source/forensics/routing/routing.js';
import type {Cell, SessionRecord} from '../../../source/forensics/types.js';
import {T0, dmKey, routingEntry, session, snapshot} from '../../helpers/records.js';

const K = dmKey('42');
const K_ID = '20231114_221320_aaaabbbb';
const O_ID = '20231114_222000_04c1d6c6';
const keyed = (partial: Partial<SessionRecord> = {}) =>
	session({id: K_ID, sessionKey: K, userId: 'u1', chatId: '42', chatType: 'dm', newestMessageAt: T0 + 60, ...partial});
/** The #82616 shape: K closed agent_close, its conversation went on in a keyless row a minute later. */
const atRisk = () =>
	snapshot(
		[
			keyed({endReason: 'agent_close', endedAtRaw: T0 + 100}),
			session({
				id: O_ID,
				userId: 'u1',
				chatId: '42',
				chatType: 'dm',
				startedAtRaw: T0 + 120,
				newestMessageAt: T0 + 3600,
				messageCountColumn: 5,
			}),
		],
		{routing: [routingEntry(K, K_ID)]},
	);

describe('analyze', () => {
	it('a chat at rollback risk: critical first, what a restart now does, then the stale entry and the orphan', () => {
		const a = analyze(atRisk());
		expect(a.findings.map(f => [f.severity, f.kind])).toEqual([
			['critical', 'rollback-risk'],
			['warning', 'stale-routing-entry'],
			['warning', 'orphan-adoptable'],
		]);
		const [risk] = a.findings;
		expect(risk!.detail).toBe(
			`a restart resumes ${K_ID} (via exact-key) but the newest message is in ${O_ID}, 59 minutes newer`,
		);
		expect(risk!.ifRestarted).toBe(
			`if the gateway restarts now, the chat jumps back: its next reply answers from ${K_ID}'s context, ` +
				`59 minutes older than the newest message, and the 5 messages of ${O_ID} fall out of it ` +
				'(hfx then reports it ROLLED BACK)',
		);
		expect(risk!.next).toBe(`do not restart the gateway yet; preview the adoption of ${O_ID} with: hfx repair`);
		expect(a.afterUpgrade).toBeNull();
		expect(hasFindings(a)).toBe(true);
	});

	it('an older generation: what current Hermes decides, each change an info finding', () => {
		const a = analyze(snapshot([keyed({endReason: 'startup_orphan_reap', endedAtRaw: T0 + 100})], {ruleSet: 'v25'}));
		expect(a.afterUpgrade?.ruleSet).toBe('v30');
		expect(a.upgradeChanges.lines).toEqual([
			{
				subject: K,
				text:
					`today a restart starts a fresh session (ROLLBACK RISK: newest in ${K_ID}); ` +
					`after upgrading Hermes, a restart resumes ${K_ID}, no risk`,
			},
		]);
		expect(a.findings.map(f => [f.severity, f.kind])).toEqual([
			['critical', 'rollback-risk'],
			['info', 'after-upgrade'],
		]);
	});

	it('unusable timestamps: one info finding a row, its cells said (a bigint as text, a blob as <blob>)', () => {
		const a = analyze(
			snapshot([
				keyed({startedAtRaw: 1e300}),
				session({
					id: 'b',
					source: 'cli',
					startedAtRaw: 9_000_000_000_000_000_000n,
					lastActivityAtRaw: Buffer.from('x'),
				}),
			]),
		);
		const corrupt = a.findings.filter(f => f.kind === 'corrupt-timestamp');
		expect(corrupt.map(f => [f.subject, f.detail])).toEqual([
			[K_ID, 'started_at=1e+300 is outside the epoch window; it is ignored for recency, as Hermes does'],
			[
				'b',
				'started_at="9000000000000000000", last_activity_at="<blob>" is outside the epoch window; ' +
					'it is ignored for recency, as Hermes does',
			],
		]);
	});

	it('a plain live chat has no finding and no exit 1; analyzeChats gives the same verdicts', () => {
		const snap = snapshot([keyed()], {routing: [routingEntry(K, K_ID)]});
		const a = analyze(snap);
		expect(a.findings).toEqual([]);
		expect(hasFindings(a)).toBe(false);
		const chats = analyzeChats(snap);
		expect(chats.routing).toEqual(a.routing);
		expect(chats.listed).toEqual(a.listed);
		expect(chats.rollbacks).toEqual([]);
	});
});

describe('analyzeSteps (the live view answers keys between its steps, issue #26)', () => {
	it('yields between its parts, each generation listed then routed, and ends with what analyze gives', () => {
		for (const snap of [
			atRisk(),
			snapshot([keyed({endReason: 'startup_orphan_reap', endedAtRaw: T0 + 100})], {ruleSet: 'v25'}),
		]) {
			const steps = analyzeSteps(snap);
			let yields = 0;
			let step = steps.next();
			for (; !step.done; step = steps.next()) {
				yields++;
			}

			// After the lineage, today's listing, its routing, the rollbacks, the build's alternative, the reaping churn and
			// the places judged; an older store's upgrade verdicts add one between their listing and their routing.
			expect(yields).toBe(snap.ruleSet === 'v25' ? 8 : 7);
			expect(step.value).toEqual(analyze(snap));
		}
	});
});

describe('the parts', () => {
	it('collectFindings sorts by severity, keeping each severity in its order', () => {
		const found = collectFindings(
			{orphans: [], routing: [], repairRoutingCrash: null},
			[session({id: 'z', startedAtRaw: -5})],
			undefined,
			{
				bySubject: new Map(),
				lines: [{subject: 's', text: 't'}],
			},
			[{column: 'sessions.chat_id', undecided: 'x'}],
		);
		expect(found.map(f => [f.severity, f.kind])).toEqual([
			['warning', 'missing-column'],
			['info', 'after-upgrade'],
			['info', 'corrupt-timestamp'],
		]);
	});

	it('a missing column says what cannot be decided and not to restart on this word', () => {
		const f = missingColumnFinding({column: 'sessions.end_reason', undecided: 'why a session ended cannot be told'});
		expect(f).toMatchObject({
			severity: 'warning',
			kind: 'missing-column',
			subject: 'sessions.end_reason',
			detail: 'sessions.end_reason is missing: why a session ended cannot be told',
		});
		expect(f.next).toContain("do not restart the gateway on this scan's word");
	});

	it('afterRestartWords: none without a risk or a target; no lag words when the newest is not newer', () => {
		const chat = {
			rollbackRisk: true,
			restartResolvesTo: 'k',
			newestActivityIn: 'n',
			newestActivityAt: T0,
			resolvesToActivityAt: T0,
		} as ChatRouting;
		const byId = indexById([session({id: 'n', messageRows: 1})]);
		expect(afterRestartWords(chat, byId)).toBe(
			"if the gateway restarts now, the chat jumps back: its next reply answers from k's context " +
				'and the 1 message of n fall out of it (hfx then reports it ROLLED BACK)',
		);
		expect(afterRestartWords({...chat, newestActivityIn: 'gone'}, byId)).toContain('and what gone holds fall out');
		expect(afterRestartWords({...chat, rollbackRisk: false}, byId)).toBeNull();
		expect(afterRestartWords({...chat, restartResolvesTo: null}, byId)).toBeNull();
	});

	it('splitListed sets the local-surface refusals apart; indexById keeps the last row of an id', () => {
		const local = {orphanId: 'c', localSurface: true, verdict: 'refused'} as OrphanVerdict;
		const adoptedLocal = {orphanId: 'd', localSurface: true, verdict: 'adoptable'} as OrphanVerdict;
		const gateway = {orphanId: 'o', localSurface: false, verdict: 'refused'} as OrphanVerdict;
		expect(splitListed([local, adoptedLocal, gateway])).toEqual({
			listed: [local, adoptedLocal, gateway],
			orphans: [adoptedLocal, gateway],
			listedRefusedLocal: [local],
		});
		const byId = indexById([session({id: 'a', title: '1'}), session({id: 'a', title: '2'})]);
		expect([...byId.values()].map(s => s.title)).toEqual(['2']);
	});

	it('hasCorruptTime reads started_at, last_activity_at and ended_at', () => {
		const cells: Cell[] = [-1, 5e9, 'soon'];
		for (const cell of cells) {
			expect(hasCorruptTime(session({id: 'a', endedAtRaw: cell}))).toBe(true);
			expect(hasCorruptTime(session({id: 'a', lastActivityAtRaw: cell}))).toBe(true);
		}

		expect(hasCorruptTime(session({id: 'a', lastActivityAtRaw: T0}))).toBe(false);
	});

	it('hasFindings: each kind that makes a scan exit 1, and a phantom row that does not', () => {
		const none = {orphans: [], routing: [], repairRoutingCrash: null};
		expect(hasFindings(none)).toBe(false);
		expect(hasFindings({...none, snapshot: {missingColumns: [{column: 'x', undecided: 'y'}]}})).toBe(true);
		expect(hasFindings({...none, repairRoutingCrash: {sessionId: 's', error: 'e', note: 'n'} as never})).toBe(true);
		expect(hasFindings({...none, findings: [{kind: 'write-halt'} as never]})).toBe(true);
		expect(hasFindings({...none, findings: [{kind: 'phantom-unknown-row'} as never]})).toBe(false);
		expect(hasFindings({...none, routing: [{rollbackRisk: true} as ChatRouting]})).toBe(true);
	});
});
