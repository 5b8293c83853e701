/**
 * `hfx scan` in words (report/analysis/scan-text.ts), on analyses of plain records: the header (schema, WAL,
 * private copy), the owner and rule set, the counts, a chat at rollback risk with why and what to do,
 * the orphans, a rollback that already happened first, healthy when nothing is wrong, and the next step.
 */
import {describe, expect, it} from 'vitest';
import {analyze} from '../../../source/forensics/analysis/analyze.js';
import type {Rollback} from '../../../source/forensics/rollbacks/rollbacks.js';
import {rollbackNextStep} from '../../../source/forensics/rollbacks/rollback-finding.js';
import {rollbackLines} from '../../../source/report/analysis/rollbacks.js';
import {humanReport} from '../../../source/report/analysis/scan-text.js';
import {upgradeNotice} from '../../../source/store/read/load.js';
import {databaseFacts} from '../../helpers/database-facts.js';
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
const HEALTHY =
	'✓ Healthy: every chat resumes its newest conversation after a restart, and no gateway row is missing its ' +
	'routing identity.';

describe('humanReport', () => {
	it('says a chat at risk, why, what a restart would do, the adoptable orphan and the next step', () => {
		const lines = humanReport(databaseFacts({sessionCount: 2}), analyze(snapshot([ZOMBIE, ORPHAN], {routing: ENTRY})));
		expect(lines.slice(0, 9)).toEqual([
			'/home/u/.hermes/state.db  ·  profile default  ·  schema v30  ·  WAL 0 B  ·  read-only',
			'owner profile default: the default home (~/.hermes)',
			'rule set v30: schema_version 30',
			'2 sessions · 1 chat · 1 orphan (1 adoptable) · 1 chat at rollback risk',
			'',
			`✗ ROLLBACK RISK  ${K}`,
			'    a restart resumes  zombie-0001  (last message 2023-11-14 22:13 UTC, via routing-entry)',
			'    newest message in  orphan-0001  (2023-11-15 22:13 UTC, 24.0 hours newer, an adoptable orphan)',
			'    why: a restart resumes zombie-0001, but the newest message is in orphan-0001',
		]);
		expect(lines).toContain('    next: do not restart the gateway yet; preview the fix with `hfx repair`');
		expect(lines.slice(-5)).toEqual([
			'Orphans: keyless rows holding messages that repair-routing lists (rules v30, window 900s)',
			'  → orphan-0001  telegram  12 messages',
			`      adopt into ${K} from zombie-0001 (evidence: contiguity)`,
			'',
			'Next: keep the gateway running as is, run `hfx repair` to preview the adoption, then stop the gateway ' +
				'and `hfx repair --apply`.',
		]);
		expect(lines).not.toContain(HEALTHY);
	});

	it('says healthy, with no next step, for a chat that resumes where it left off', () => {
		const facts = databaseFacts({
			sessionCount: 1,
			sizes: {db: 1, wal: null, shm: null, journal: null},
			openMode: 'private-copy',
		});
		expect(humanReport(facts, analyze(snapshot([ZOMBIE], {routing: ENTRY})))).toEqual([
			'/home/u/.hermes/state.db  ·  profile default  ·  schema v30  ·  WAL mode, no -wal file  ·  read-only ' +
				'(private copy)',
			'owner profile default: the default home (~/.hermes)',
			'rule set v30: schema_version 30',
			'1 session · 1 chat · 0 orphans (0 adoptable) · 0 chats at rollback risk',
			'',
			HEALTHY,
			'',
		]);
	});

	it('says an unversioned rollback-journal store, and an older one with its upgrade', () => {
		const upgrade = upgradeNotice({version: 21, ruleSet: 'legacy-v21'});
		const facts = databaseFacts({schemaVersion: null, journalMode: 'delete', upgrade, sessionCount: 1});
		const lines = humanReport(facts, analyze(snapshot([ZOMBIE], {routing: ENTRY})));
		expect(lines[0]).toBe(
			'/home/u/.hermes/state.db  ·  profile default  ·  schema ?  ·  rollback journal  ·  read-only',
		);
		expect(lines).toContain(`! older than current Hermes: ${upgrade!.note}`);
		expect(lines).toContain(`  next: ${upgrade!.next}`);
	});

	it('tells a rollback that already happened first, and makes its next step the last line', () => {
		const analysis = analyze(snapshot([ZOMBIE, ORPHAN], {routing: ENTRY}));
		const rollback: Rollback = {
			sessionKey: K,
			resumedId: 'zombie-0001',
			jumpedFrom: T0,
			resumedAt: T0 + 90_000,
			after: {messages: 2, userTurns: 1, lastAt: T0 + 90_060},
			skipped: {
				id: 'orphan-0001',
				kind: 'keyless',
				messages: 12,
				firstAt: T0 + 60,
				lastAt: T0 + 86_400,
				forkSeconds: 60,
				certainty: 'strong',
				evidence: [],
			},
			alsoSkipped: [],
			certainty: 'strong',
			routedTo: 'zombie-0001',
			routingRewriteAt: null,
		};
		const lines = humanReport(databaseFacts({sessionCount: 2}), {...analysis, rollbacks: [rollback]});
		expect(lines[3]).toBe(
			'2 sessions · 1 chat · 1 orphan (1 adoptable) · 1 chat rolled back · 1 chat at rollback risk',
		);
		expect(lines.slice(5, 5 + rollbackLines(rollback).length)).toEqual(rollbackLines(rollback));
		expect(lines.at(-1)).toBe(`Next: the chat already rolled back; ${rollbackNextStep(rollback)}.`);
	});
});
