/**
 * `hfx repair --json` (report/repair/repair-json.ts): a dry run's plan bound to its store (hash, basis),
 * with every adoption, refusal and orphan not selected; an apply's outcome names its store first,
 * an undo's is the outcome alone.
 */
import {describe, expect, it} from 'vitest';
import {analyze} from '../../../source/forensics/analysis/analyze.js';
import type {ApplyOutcome, Planned} from '../../../source/repair/apply.js';
import {planHash, planRepair} from '../../../source/repair/plan/plan.js';
import {repairOutcomeJson, repairPlanJson} from '../../../source/report/repair/repair-json.js';
import {T0, dmKey, session, snapshot} from '../../helpers/records.js';

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
const BASIS = {dev: 1, ino: 2, mxFrame: 0, salts: null, changeCounter: 7, rowsHash: 'r'};

function planned(ruleSet: 'v30' | 'legacy-v21', version: number): Planned {
	const analysis = analyze(snapshot([ZOMBIE, ORPHAN], {ruleSet}));
	const rows = new Map(
		[ZOMBIE, ORPHAN].map(s => [
			s.id,
			{id: s.id, source: s.source, session_key: s.sessionKey, chat_id: s.chatId, chat_type: s.chatType},
		]),
	);
	const columns = new Set(['id', 'source', 'session_key', 'chat_id', 'chat_type', 'user_id', 'parent_session_id']);
	const plan = planRepair({analysis, rows, sessionColumns: columns, now: T0 + 200_000});
	return {
		plan,
		analysis,
		rows,
		basis: BASIS,
		hash: planHash(plan, 'r'),
		// What computePlan carries for a store repair-routing reads without failing: no refusal.
		refusal: null,
		sqliteVersion: '3.50.0',
		sessionColumns: columns,
		schema: {version, ruleSet},
	};
}

const LOCATION = {path: '/h/state.db', owner: 'default', ownerSource: 'the default home', label: 'default'};

describe('repairPlanJson', () => {
	it("binds the dry run to the store's hash and basis and carries the plan's four lists and the exit code", () => {
		const p = planned('v30', 30);
		const doc = repairPlanJson(LOCATION, p, 1);
		expect(doc).toMatchObject({
			database: '/h/state.db',
			owner: 'default',
			ownerSource: 'the default home',
			ruleSet: 'v30',
			upgrade: null,
			dryRun: true,
			planHash: p.hash,
			binding: BASIS,
			exitCode: 1,
		});
		expect(doc.adoptions.map(a => a.orphanId)).toEqual(['orphan-0001']);
		expect(doc.refused).toBe(p.plan.refused);
		expect(doc.notSelected).toBe(p.plan.notSelected);
		expect(doc.unknownOnly).toBe(p.plan.unknownOnly);
	});

	it('says the upgrade an older store would go through, and null for an unknown owner source', () => {
		const doc = repairPlanJson({path: '/h/state.db', owner: 'default', label: 'default'}, planned('legacy-v21', 21), 0);
		expect(doc.ownerSource).toBeNull();
		expect(doc.ruleSet).toBe('legacy-v21');
		expect(doc.upgrade).toMatchObject({fromVersion: 21});
	});
});

describe('repairOutcomeJson', () => {
	const outcome: ApplyOutcome = {
		exitCode: 0,
		result: 'nothing-to-do',
		reason: null,
		next: null,
		checks: [],
		snapshotDir: null,
		applied: [],
		changes: [],
		verification: [],
		audit: null,
	};

	it("names an apply's store first and leaves an undo's outcome as it is", () => {
		const applied = repairOutcomeJson(outcome, '/h/state.db');
		expect(Object.keys(applied)[0]).toBe('database');
		expect(applied).toEqual({database: '/h/state.db', ...outcome});
		expect(repairOutcomeJson(outcome)).toBe(outcome);
	});
});
