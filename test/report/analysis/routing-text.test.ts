/**
 * `hfx routing` in words (report/analysis/routing-text.ts): per chat its state (a rollback that happened
 * outranks a risk, ✓ otherwise), the routing entry, what a restart resumes and by which rule, where
 * the newest message is and how much newer, why, the candidates with the rule that admits or
 * excludes each, the notes, and the story of a rollback under its chat.
 */
import {describe, expect, it} from 'vitest';
import {analyze} from '../../../source/forensics/analysis/analyze.js';
import type {CandidateVerdict} from '../../../source/forensics/routing/restart.js';
import type {Rollback} from '../../../source/forensics/rollbacks/rollbacks.js';
import type {ChatRouting} from '../../../source/forensics/routing/routing.js';
import {rollbackLines} from '../../../source/report/analysis/rollbacks.js';
import {chatLines} from '../../../source/report/analysis/routing-text.js';
import {T0, dmKey, routingEntry, session, snapshot} from '../../helpers/records.js';

const K = dmKey('42');
const ZOMBIE = session({
	id: 'zombie-0001',
	sessionKey: K,
	userId: 'u1',
	chatId: '42',
	chatType: 'dm',
	startedAtRaw: T0 - 3600,
	newestMessageAt: T0,
});
const ORPHAN = session({id: 'orphan-0001', startedAtRaw: T0 + 60, newestMessageAt: T0 + 86_400, messageRows: 12});
const ENTRY = [routingEntry(K, 'zombie-0001')];
const NOTE = 'routes to zombie-0001, a live row: reused on restart';
const atRisk = analyze(snapshot([ZOMBIE, ORPHAN], {routing: ENTRY})).routing[0]!;
const current = analyze(snapshot([ZOMBIE], {routing: ENTRY})).routing[0]!;

const ROLLBACK: Rollback = {
	sessionKey: K,
	resumedId: 'zombie-0001',
	jumpedFrom: T0 - 100,
	resumedAt: T0 + 90_000,
	after: {messages: 2, userTurns: 1, lastAt: T0 + 90_060},
	skipped: {
		id: 'orphan-0001',
		kind: 'keyless',
		messages: 12,
		firstAt: T0 + 60,
		lastAt: T0 + 86_400,
		forkSeconds: 160,
		certainty: 'strong',
		evidence: ['inside the gap'],
	},
	alsoSkipped: [],
	certainty: 'strong',
	routedTo: 'zombie-0001',
	routingRewriteAt: null,
};

describe('chatLines', () => {
	it('says a chat at risk: what a restart resumes, where the newest message is, how much newer and why', () => {
		expect(chatLines(atRisk)).toEqual([
			`✗ ROLLBACK RISK  ${K}`,
			`    routing entry     zombie-0001: ${NOTE}`,
			'    restart resumes   zombie-0001  via routing-entry, rule set v30',
			'    newest message in orphan-0001  2023-11-15 22:13 UTC (24.0 hours newer than what a restart resumes)',
			'    why               a restart resumes zombie-0001, but the newest message is in orphan-0001',
			`    note: gateway_routing: ${NOTE}`,
		]);
	});

	it('says ✓ for a chat a restart resumes where it left off', () => {
		expect(chatLines(current)).toEqual([
			`✓  ${K}`,
			`    routing entry     zombie-0001: ${NOTE}`,
			'    restart resumes   zombie-0001  via routing-entry, rule set v30',
			'    newest message in zombie-0001  2023-11-14 22:13 UTC',
			`    note: gateway_routing: ${NOTE}`,
		]);
	});

	it('says no entry, a new session, no messages, the legacy mirror, the build and the upgrade', () => {
		const bare: ChatRouting = {
			...current,
			routingEntry: null,
			routingEntryNote: null,
			routingEntrySource: 'sessions.json',
			restartResolvesTo: null,
			newestActivityIn: null,
			newestActivityAt: null,
			resolution: {...current.resolution, via: 'new-session', notes: []},
		};
		expect(chatLines(bare, {afterUpgrade: 'resumes orphan-0001', otherBuild: 'resumes x'})).toEqual([
			`✓  ${K}`,
			'    routing entry     (none)',
			'    restart resumes   (a new, empty session)  via new-session, rule set v30',
			'    newest message in (no messages)  — UTC',
			'    build unknown     resumes x',
			'    after an upgrade  resumes orphan-0001',
			'    the entry comes from the legacy sessions/sessions.json mirror ' +
				'(gateway_routing has none usable for this key)',
		]);
	});

	it('marks the candidate a restart resumes ▶, an admitted one +, an excluded one -', () => {
		const candidates: CandidateVerdict[] = [
			{sessionId: 'zombie-0001', query: 'exact-key', admitted: true, rule: 'same key', hasMessages: true, orderKey: T0},
			{sessionId: 'other-1', query: 'exact-key', admitted: true, rule: 'older', hasMessages: true, orderKey: T0},
			{sessionId: 'other-2', query: 'tuple-fallback', admitted: false, rule: 'reset', hasMessages: true, orderKey: T0},
		];
		const lines = chatLines({...current, resolution: {...current.resolution, candidates}});
		expect(lines.slice(-5, -1)).toEqual([
			'    candidates',
			'      ▶ zombie-0001  exact-key: same key',
			'      + other-1  exact-key: older',
			'      - other-2  tuple-fallback: reset',
		]);
	});

	it('says a rollback that happened, and a risk beside it, and tells its story under the chat', () => {
		const lines = chatLines(atRisk, {rolledBack: [ROLLBACK]});
		expect(lines[0]).toBe(`✗ ROLLED BACK · ROLLBACK RISK  ${K}`);
		expect(chatLines(current, {rolledBack: [ROLLBACK]})[0]).toBe(`✗ ROLLED BACK  ${K}`);
		const story = rollbackLines(ROLLBACK).slice(1, -1);
		expect(lines.slice(-story.length)).toEqual(story);
		expect(lines).not.toContain('');
	});
});
