/**
 * The stores written by the real v25 Hermes (test/fixtures/hermes-generations), scanned by the
 * built binary: the top-level answers must be the store's own generation (expected.json),
 * `afterUpgrade` what current Hermes decides on the same file (expected-current.json), and a copy
 * migrated to the current schema must give the current answers at the top level.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {CURRENT_SCHEMA_VERSION, migrateToCurrent} from '../../source/simulator/migrate.js';
import {hfxJson} from '../helpers/cli.js';
import {ROOT} from '../helpers/writer.js';

const FIXTURE = path.join(ROOT, 'test/fixtures/hermes-generations');
const V21_FIXTURE = path.join(ROOT, 'test/fixtures/hermes-v21-incident');

type ExpectedOrphan = {
	verdict: 'adoptable' | 'refused';
	evidence?: string;
	donor?: string;
	session_key?: string;
	reason_kind?: string;
	reason?: string;
};

type Expected = {
	schema: string;
	owner_profile?: string;
	crash?: string;
	orphans: Record<string, ExpectedOrphan>;
	not_orphans: string[];
	listed_refused_local?: string[];
	routing: Record<string, {resolves_to: string | null; newest_activity_in: string | null; rollback_risk: boolean}>;
};

/** The four answers of one rule set, as `hfx scan --json` gives them (top level or `afterUpgrade`). */
type Answers = {
	orphans: any[];
	listedRefusedLocal: any[];
	repairRoutingCrash: null | {sessionId: string; error: string; note: string};
	routing: any[];
};

const PROFILES = [
	{profile: 'default', store: 'state.db'},
	{profile: 'work', store: 'profiles/work/state.db'},
	{profile: 'ops', store: 'profiles/ops/state.db'},
] as const;

type Profile = (typeof PROFILES)[number]['profile'];

/** The row whose model_config is not JSON, on which the v25 repair-routing fails (README, ops). */
const BAD_JSON_ROW = '20260902_090000_f39e1362';

function readExpected(profile: Profile, file: 'expected.json' | 'expected-current.json'): Expected {
	return JSON.parse(fs.readFileSync(path.join(FIXTURE, 'expected', profile, file), 'utf8')) as Expected;
}

function storeOf(profile: Profile): string {
	return PROFILES.find(p => p.profile === profile)!.store;
}

let dir: string;
const scans = new Map<string, any>();

/** `hfx scan --db … --json` of one store of one copy, run once. */
function scan(copy: 'as-is' | 'migrated', profile: Profile): any {
	const key = `${copy}/${profile}`;
	if (!scans.has(key)) {
		const db = path.join(dir, copy, storeOf(profile));
		scans.set(key, hfxJson(['scan', '--db', db], {env: {HERMES_HOME: ''}}).json);
	}

	return scans.get(key);
}

beforeAll(() => {
	dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-generations-'));
	// The whole root/ tree, so the owner comes from the path (profiles/<name>/state.db, else default).
	for (const copy of ['as-is', 'migrated']) {
		fs.cpSync(path.join(FIXTURE, 'root'), path.join(dir, copy), {recursive: true});
	}

	for (const {store} of PROFILES) {
		migrateToCurrent(path.join(dir, 'migrated', store));
	}
});
afterAll(() => fs.rmSync(dir, {recursive: true, force: true}));

function answersOf(json: any): Answers {
	return {
		orphans: json.orphans,
		listedRefusedLocal: json.listedRefusedLocal,
		repairRoutingCrash: json.repairRoutingCrash,
		routing: json.routing,
	};
}

function expectAnswers(got: Answers, want: Expected, label: string): void {
	expect(Array.isArray(got.orphans), `${label}: orphans`).toBe(true);
	expect(Array.isArray(got.listedRefusedLocal), `${label}: listedRefusedLocal`).toBe(true);
	expect(Array.isArray(got.routing), `${label}: routing`).toBe(true);

	// Orphans: exactly the expected ids, each with its verdict and, by verdict, its donor or reason.
	const orphans = Object.fromEntries(got.orphans.map(o => [o.orphanId, o]));
	expect(Object.keys(orphans).sort(), `${label}: orphan ids`).toEqual(Object.keys(want.orphans).sort());
	for (const [id, o] of Object.entries(want.orphans)) {
		const g = orphans[id];
		expect(g.verdict, `${label}: ${id} verdict`).toBe(o.verdict);
		if (o.verdict === 'adoptable') {
			expect(g.donorId, `${label}: ${id} donor`).toBe(o.donor);
			expect(g.evidence, `${label}: ${id} evidence`).toBe(o.evidence);
			expect(g.sessionKey, `${label}: ${id} key`).toBe(o.session_key);
		} else {
			expect(g.reasonKind, `${label}: ${id} reason kind`).toBe(o.reason_kind);
			expect(typeof g.reason, `${label}: ${id} reason`).toBe('string');
			if (o.reason !== undefined) {
				expect(
					(g.reason as string).startsWith(o.reason),
					`${label}: ${id} reason "${g.reason}" starts with "${o.reason}"`,
				).toBe(true);
			}
		}
	}

	// Local-surface rows repair-routing lists and refuses: exactly those, all refused.
	const listed = got.listedRefusedLocal.map(o => o.orphanId as string);
	expect([...listed].sort(), `${label}: listedRefusedLocal ids`).toEqual([...(want.listed_refused_local ?? [])].sort());
	for (const o of got.listedRefusedLocal) {
		expect(o.verdict, `${label}: ${o.orphanId} listed verdict`).toBe('refused');
	}

	for (const id of want.not_orphans) {
		expect(Object.keys(orphans), `${label}: ${id} is no orphan`).not.toContain(id);
		expect(listed, `${label}: ${id} is not listed`).not.toContain(id);
	}

	// repair-routing crashes exactly where the expected file says so.
	if (want.crash === undefined) {
		expect(got.repairRoutingCrash, `${label}: repairRoutingCrash`).toBeNull();
	} else {
		expect(got.repairRoutingCrash, `${label}: repairRoutingCrash`).not.toBeNull();
		expect(got.repairRoutingCrash!.error, `${label}: crash error`).toContain('malformed JSON');
	}

	// Routing: every expected chat, as that generation resolves it.
	const routing = Object.fromEntries(got.routing.map(r => [r.sessionKey, r]));
	for (const [key, r] of Object.entries(want.routing)) {
		expect(routing[key], `${label}: routing ${key}`).toBeDefined();
		expect(routing[key].restartResolvesTo, `${label}: ${key} restartResolvesTo`).toBe(r.resolves_to);
		expect(routing[key].newestActivityIn, `${label}: ${key} newestActivityIn`).toBe(r.newest_activity_in);
		expect(routing[key].rollbackRisk, `${label}: ${key} rollbackRisk`).toBe(r.rollback_risk);
	}
}

function schemaVersionOf(want: Expected): number {
	const m = /SCHEMA_VERSION=(\d+)/.exec(want.schema);
	expect(m, `schema of the expected file: ${want.schema}`).not.toBeNull();
	return Number(m![1]);
}

const CASES = PROFILES.flatMap(
	({profile}) =>
		[
			{
				profile,
				generation: "v25, the store's own (top level)",
				copy: 'as-is',
				expectedFile: 'expected.json',
				pick: (json: any) => answersOf(json),
			},
			{
				profile,
				generation: 'current (afterUpgrade)',
				copy: 'as-is',
				expectedFile: 'expected-current.json',
				pick: (json: any) => answersOf(json.afterUpgrade),
			},
			{
				profile,
				generation: 'current, on a copy migrated to v30 (top level)',
				copy: 'migrated',
				expectedFile: 'expected-current.json',
				pick: (json: any) => answersOf(json),
			},
		] as const,
);

describe('real v25 Hermes stores, their own generation and the current one', () => {
	it.each(CASES)('$profile store, $generation', ({profile, copy, expectedFile, pick}) => {
		const json = scan(copy, profile);
		if (copy === 'as-is' && expectedFile === 'expected-current.json') {
			expect(json.afterUpgrade, 'afterUpgrade').not.toBeNull();
			expect(json.afterUpgrade.ruleSet).toBe('v30');
		}

		expectAnswers(pick(json), readExpected(profile, expectedFile), `${profile} ${copy} vs ${expectedFile}`);
	});

	it.each(PROFILES)(
		'$profile store as written: owner from the path, rule set v25, an afterUpgrade to v30',
		({profile}) => {
			const want = readExpected(profile, 'expected.json');
			const {database, afterUpgrade} = scan('as-is', profile);
			expect(database.owner).toBe(want.owner_profile);
			expect(database.schemaVersion).toBe(schemaVersionOf(want));
			expect(database.ruleSet).toBe('v25');
			expect(database.currentRuleSet).toBe('v30');
			expect(afterUpgrade).not.toBeNull();
			expect(afterUpgrade.ruleSet).toBe('v30');
		},
	);

	it.each(PROFILES)(
		'$profile store migrated to v30: owner from the path, rule set v30, no afterUpgrade',
		({profile}) => {
			const want = readExpected(profile, 'expected-current.json');
			const {database, afterUpgrade} = scan('migrated', profile);
			expect(database.owner).toBe(want.owner_profile);
			expect(database.schemaVersion).toBe(CURRENT_SCHEMA_VERSION);
			expect(database.ruleSet).toBe('v30');
			expect(afterUpgrade).toBeNull();
		},
	);

	it.each(PROFILES)(
		'$profile store: v25 repair-routing crashes only on the row with malformed JSON (ops), and names it',
		({profile}) => {
			const own = scan('as-is', profile);
			const want = readExpected(profile, 'expected.json');
			if (profile === 'ops') {
				expect(want.crash).toContain('malformed JSON');
				expect(own.repairRoutingCrash).not.toBeNull();
				expect(own.repairRoutingCrash.sessionId).toBe(BAD_JSON_ROW);
				expect(own.repairRoutingCrash.error).toContain('malformed JSON');
			} else {
				expect(want.crash).toBeUndefined();
				expect(own.repairRoutingCrash).toBeNull();
			}

			// Current Hermes guards the JSON: no crash after the upgrade, nor on the migrated copy.
			expect(own.afterUpgrade.repairRoutingCrash).toBeNull();
			expect(scan('migrated', profile).repairRoutingCrash).toBeNull();
		},
	);
});

describe('the real v21 fixture, migrated to the current schema', () => {
	it('is judged by the v30 rules with the same orphan verdicts and donors, and keeps every expected chat', () => {
		const expected = JSON.parse(fs.readFileSync(path.join(V21_FIXTURE, 'expected.json'), 'utf8')) as Expected;
		const db = path.join(dir, 'v21', 'state.db');
		fs.mkdirSync(path.dirname(db), {recursive: true});
		fs.copyFileSync(path.join(V21_FIXTURE, 'state.db'), db);
		migrateToCurrent(db);

		const {json} = hfxJson(['scan', '--db', db], {env: {HERMES_HOME: ''}});
		expect(json.database.ruleSet).toBe('v30');
		expect(json.database.schemaVersion).toBe(CURRENT_SCHEMA_VERSION);
		expect(json.afterUpgrade).toBeNull();

		const orphans = Object.fromEntries((json.orphans as any[]).map(o => [o.orphanId, o]));
		expect(Object.keys(orphans).sort()).toEqual(Object.keys(expected.orphans).sort());
		for (const [id, want] of Object.entries(expected.orphans)) {
			expect(orphans[id].verdict, id).toBe(want.verdict);
			if (want.verdict === 'adoptable') {
				expect(orphans[id].donorId, id).toBe(want.donor);
				expect(orphans[id].evidence, id).toBe(want.evidence);
				expect(orphans[id].sessionKey, id).toBe(want.session_key);
			} else {
				expect(orphans[id].reasonKind, id).toBe(want.reason_kind);
			}
		}

		for (const id of expected.not_orphans) {
			expect(Object.keys(orphans)).not.toContain(id);
		}

		const keys = (json.routing as any[]).map(r => r.sessionKey as string);
		for (const key of Object.keys(expected.routing)) {
			expect(keys, key).toContain(key);
		}
	});
});
