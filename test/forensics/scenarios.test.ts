import fs from 'node:fs';
import path from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {
	type Analysis,
	type GenerationVerdicts,
	analyze,
	analyzeChats,
} from '../../source/forensics/analysis/analyze.js';
import type {SchemaShape} from '../../source/simulator/hermes-schema.js';
import {migrateToCurrent} from '../../source/simulator/migrate.js';
import {loadStore} from '../../source/store/read/load.js';
import {ownerOfStore} from '../../source/store/locate.js';
import {
	type Generation,
	type Scenario,
	SCENARIOS,
	SHAPES,
	buildScenario,
	expectationFor,
} from '../fixtures/scenarios.js';

const built: string[] = [];
afterAll(() => {
	for (const dir of built) {
		fs.rmSync(dir, {recursive: true, force: true});
	}
});

const GENERATION: Record<SchemaShape, Generation> = {v21: 'legacy-v21', v25: 'v25', v30: 'v30'};
const VERSION: Record<SchemaShape, number> = {v21: 21, v25: 25, v30: 30};

/** Loads the store (owner as Hermes derives it from the path) and checks which generation it is taken for. */
function analyzeStore(dbPath: string, scenario: Scenario, shape: SchemaShape): Analysis {
	const loaded = loadStore({path: dbPath, owner: ownerOfStore(dbPath).owner, label: scenario.id});
	expect(loaded.facts.ruleSet).toBe(GENERATION[shape]);
	expect(loaded.facts.schemaVersion).toBe(VERSION[shape]);
	const analysis = analyze(loaded.snapshot, {maxGapSeconds: scenario.maxGapSeconds});
	// What hfx timeline reads (the chat's part alone) is what the whole analysis says.
	const chats = analyzeChats(loaded.snapshot, {maxGapSeconds: scenario.maxGapSeconds});
	for (const key of Object.keys(chats) as Array<keyof typeof chats>) {
		expect(chats[key], `analyzeChats().${key}`).toEqual(analysis[key]);
	}

	return analysis;
}

/** One generation's verdicts, by scenario name, against what the scenario expects of that generation. */
function expectVerdicts(
	v: GenerationVerdicts,
	generation: Generation,
	scenario: Scenario,
	ids: Record<string, string>,
): void {
	const e = expectationFor(scenario, generation);
	const name = (id: string | null) =>
		id === null ? null : (Object.entries(ids).find(([, v]) => v === id)?.[0] ?? `<unnamed ${id}>`);
	const reported = {
		ruleSet: v.ruleSet,
		orphans: Object.fromEntries(
			v.orphans.map(o => [
				name(o.orphanId),
				o.verdict === 'adoptable'
					? {verdict: o.verdict, evidence: o.evidence, donor: name(o.donorId)}
					: {verdict: o.verdict, reasonKind: o.reasonKind},
			]),
		),
		listedRefusedLocal: v.listedRefusedLocal.map(o => name(o.orphanId)).sort(),
		crash: v.repairRoutingCrash && name(v.repairRoutingCrash.sessionId),
		routing: Object.fromEntries(
			v.routing.map(r => [
				r.sessionKey,
				{
					resolvesTo: name(r.restartResolvesTo),
					newestActivityIn: name(r.newestActivityIn),
					rollbackRisk: r.rollbackRisk,
				},
			]),
		),
	};
	expect(reported).toEqual({
		ruleSet: generation,
		orphans: e.orphans,
		listedRefusedLocal: [...(e.listedRefusedLocal ?? [])].sort(),
		crash: e.crash ?? null,
		routing: e.routing,
	});
	if (e.crash) {
		expect(v.listed).toEqual([]);
	}

	for (const n of e.notOrphans) {
		expect(ids[n], `scenario name ${n}`).toBeDefined();
		expect(v.orphans.map(o => o.orphanId)).not.toContain(ids[n]);
	}
}

function build(scenario: Scenario, shape: SchemaShape) {
	const b = buildScenario(scenario, shape);
	built.push(b.dir);
	return b;
}

describe.each(SHAPES)('scenario catalog, schema shape %s', shape => {
	const scenarios = SCENARIOS.filter(s => (s.shapes ?? SHAPES).includes(shape)).map(s => [s.id, s] as const);

	it.each(scenarios)('%s', (_id, scenario) => {
		const {dbPath, ids} = build(scenario, shape);
		const analysis = analyzeStore(dbPath, scenario, shape);
		expectVerdicts(analysis, GENERATION[shape], scenario, ids);
		// What current Hermes decides once it has migrated the store.
		if (shape === 'v30') {
			expect(analysis.afterUpgrade).toBeNull();
		} else {
			expect(analysis.afterUpgrade).not.toBeNull();
			expectVerdicts(analysis.afterUpgrade!, 'v30', scenario, ids);
		}
	});

	// Not for a v30 store: nothing to migrate.
	it.each(scenarios.filter(() => shape !== 'v30'))(
		'%s, on a copy migrated to v30: the current verdicts, no upgrade left',
		(_id, scenario) => {
			const {dir, dbPath, ids} = build(scenario, shape);
			expect(fs.existsSync(`${dbPath}-wal`)).toBe(false);
			const copy = path.join(dir, 'migrated', path.relative(dir, dbPath));
			fs.mkdirSync(path.dirname(copy), {recursive: true});
			fs.copyFileSync(dbPath, copy);
			migrateToCurrent(copy);
			const analysis = analyzeStore(copy, scenario, 'v30');
			expectVerdicts(analysis, 'v30', scenario, ids);
			expect(analysis.afterUpgrade).toBeNull();
		},
	);
});
