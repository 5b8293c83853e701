/**
 * The samples of one reading (the real v21 incident fixture): the scan's counts, the adoptable
 * series present at 0 (so its alert resolves), an unreadable store as up 0 with its reason and
 * +Inf backup ages, and labels that never carry an id; the store's versions on hfx_store_info alone.
 */
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {analyze} from '../../../source/forensics/analysis/analyze.js';
import {type StoreReading, storeSamples} from '../../../source/report/metrics/metrics-samples.js';
import {loadStore} from '../../../source/store/read/load.js';
import {ROOT} from '../../helpers/writer.js';

const loaded = loadStore(
	{path: path.join(ROOT, 'test/fixtures/hermes-v21-incident/state.db'), owner: 'work', label: 'work'},
	{columns: 'lean'},
);
const analysis = analyze(loaded.snapshot);
const reading = (result: StoreReading['result']): StoreReading => ({
	profile: 'work',
	at: 1000,
	seconds: 0.25,
	result,
	files: null,
	backups: {verifiedAgeSeconds: 30, drilledAgeSeconds: null},
	build: null,
});
const value = (samples: ReturnType<typeof storeSamples>, metric: string, extra: Record<string, string> = {}) =>
	samples
		.filter(s => s.metric === metric && Object.entries(extra).every(([k, v]) => s.labels[k] === v))
		.map(s => s.value);

describe('metrics samples', () => {
	it(
		'counts what the analysis found, per verdict and reason kind, labelled ' +
			'by profile; the schema and rule set on hfx_store_info alone',
		() => {
			const samples = storeSamples(reading({ok: true, facts: loaded.facts, analysis}));
			expect(value(samples, 'up')).toEqual([1]);
			expect(value(samples, 'rollbackRisk')).toEqual([analysis.routing.filter(r => r.rollbackRisk).length]);
			expect(value(samples, 'orphans', {verdict: 'adoptable'})).toEqual([
				analysis.orphans.filter(o => o.verdict === 'adoptable').length,
			]);
			expect(value(samples, 'orphans').reduce((a, b) => a + b, 0)).toBe(analysis.orphans.length);
			expect(value(samples, 'verifiedAge')).toEqual([30]);
			expect(value(samples, 'drilledAge')).toEqual([Number.POSITIVE_INFINITY]);
			expect(samples.find(s => s.metric === 'sessions')!.labels).toEqual({profile: 'work'});
			expect(samples.filter(s => s.metric === 'info')).toEqual([
				{metric: 'info', labels: {profile: 'work', schema: 'v21', rule_set: 'legacy-v21', build: 'unknown'}, value: 1},
			]);
			expect(
				storeSamples({...reading({ok: true, facts: loaded.facts, analysis}), build: '0.21.4@10e7de79a9ab'}).find(
					s => s.metric === 'info',
				)!.labels.build,
			).toBe('0.21.4@10e7de79a9ab');
			const ids = new Set([...analysis.orphans.map(o => o.orphanId), ...analysis.routing.map(r => r.sessionKey)]);
			expect(samples.flatMap(s => Object.values(s.labels)).filter(v => ids.has(v))).toEqual([]);
		},
	);

	it('keeps the adoptable series at 0 when there is no orphan', () => {
		const samples = storeSamples(reading({ok: true, facts: loaded.facts, analysis: {...analysis, orphans: []}}));
		expect(samples.filter(s => s.metric === 'orphans').map(s => [s.labels.verdict, s.labels.reason, s.value])).toEqual([
			['adoptable', 'none', 0],
		]);
	});

	it(
		'says a store it could not read: up 0 with the reason kind, unknown ' + 'generation, no counts it does not know',
		() => {
			const samples = storeSamples(reading({ok: false, kind: 'not-a-database', line: 'hfx: x. Next: y'}));
			expect(samples.find(s => s.metric === 'up')).toEqual({
				metric: 'up',
				labels: {profile: 'work', reason: 'not-a-database'},
				value: 0,
			});
			expect(samples.find(s => s.metric === 'info')).toEqual({
				metric: 'info',
				labels: {profile: 'work', schema: 'unknown', rule_set: 'unknown', build: 'unknown'},
				value: 1,
			});
			expect(samples.map(s => s.metric)).toEqual([
				'info',
				'up',
				'verifiedAge',
				'drilledAge',
				'scanTime',
				'scanDuration',
			]);
		},
	);
});
