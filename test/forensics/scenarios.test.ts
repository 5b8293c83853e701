import fs from 'node:fs';
import {afterAll, describe, expect, it} from 'vitest';
import {analyze} from '../../source/forensics/analyze.js';
import {loadStore} from '../../source/store/load.js';
import {SCENARIOS, buildScenario} from '../fixtures/scenarios.js';

const built: string[] = [];
afterAll(() => {
	for (const dir of built) {
		fs.rmSync(dir, {recursive: true, force: true});
	}
});

describe.each(['v21', 'v30'] as const)('scenario catalog, schema shape %s', shape => {
	it.each(SCENARIOS.map(s => [s.id, s] as const))('%s', (_id, scenario) => {
		const {dir, dbPath, ids} = buildScenario(scenario, shape);
		built.push(dir);
		const loaded = loadStore({path: dbPath, owner: null, label: scenario.id});
		expect(loaded.facts.ruleSet).toBe(shape === 'v21' ? 'legacy-v21' : 'recency');
		expect(loaded.facts.schemaVersion).toBe(shape === 'v21' ? 21 : 30);
		const analysis = analyze(loaded.snapshot, {maxGapSeconds: scenario.maxGapSeconds});
		const name = (id: string | null) => id === null ? null : (Object.entries(ids).find(([, v]) => v === id)?.[0] ?? `<unnamed ${id}>`);

		const reported = Object.fromEntries(analysis.orphans.map(o => [name(o.orphanId), o.verdict === 'adoptable'
			? {verdict: o.verdict, evidence: o.evidence, donor: name(o.donorId)}
			: {verdict: o.verdict, reasonKind: o.reasonKind}]));
		expect(reported).toEqual(scenario.expect.orphans);
		for (const n of scenario.expect.notOrphans) {
			expect(analysis.orphans.map(o => o.orphanId)).not.toContain(ids[n]);
		}

		const routing = Object.fromEntries(analysis.routing.map(r => [r.sessionKey, {resolvesTo: name(r.restartResolvesTo), newestActivityIn: name(r.newestActivityIn), rollbackRisk: r.rollbackRisk}]));
		expect(routing).toEqual(scenario.expect.routing);
	});
});
