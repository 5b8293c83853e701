/**
 * Issue #27 point 4, through the real binary: the fleet sees every finding `hfx scan` reports. On a
 * root whose stores hold every kind of finding (test/helpers/findings-root.ts), each kind, read
 * from source/forensics/finding.ts, moves its metric in `hfx metrics` and is said by its event on
 * `hfx watch`'s first reading; the store's generation, rule set and build are labels of
 * `hfx_store_info` alone; and every query of the Grafana dashboard names only metrics hfx writes.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {METRICS} from '../../source/report/metrics/metrics-samples.js';
import {FINDING_SIGNALS, type FindingKind} from '../../source/report/metrics/finding-signals.js';
import {hfx, hfxJson} from '../helpers/cli.js';
import {findingKinds} from '../helpers/finding-kinds.js';
import {findingsRoot} from '../helpers/findings-root.js';
import {dashboardQueries} from '../helpers/grafana.js';
import {folderHashes} from '../helpers/folder-hashes.js';
import {type MetricSample, parseExposition} from '../helpers/prometheus.js';
import {WatchProcess} from '../helpers/watch-process.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-fleet-findings-'));
const root = path.join(dir, 'root');
let samples: MetricSample[] = [];
let text = '';
let before: Record<string, string>;

beforeAll(async () => {
	await findingsRoot(root);
	before = folderHashes(root);
	const r = hfx(['metrics', '--home', root]);
	expect(r.stderr).toBe('');
	text = r.stdout;
	samples = parseExposition(text);
}, 120_000);

afterAll(() => fs.rmSync(dir, {recursive: true, force: true}));

describe('the fleet sees every finding', () => {
	it('the root holds every kind of finding hfx scan reports (so each kind below is shown to move)', () => {
		const {json} = hfxJson(['scan', '--home', root]);
		const kinds = new Set(
			[json, ...(json.profiles ?? [])].flatMap((p: {findings?: Array<{kind: string}>}) =>
				(p.findings ?? []).map(f => f.kind),
			),
		);
		expect(findingKinds().filter(k => !kinds.has(k))).toEqual([]);
	});

	it('every finding kind moves its metric in hfx metrics', () => {
		const silent = findingKinds().filter(kind => {
			const signal = FINDING_SIGNALS[kind as FindingKind];
			if (signal === undefined) {
				return true;
			}

			const moves = (name: string, where: Readonly<Record<string, string>> = {}) =>
				samples.some(s => s.name === name && s.value > 0 && Object.entries(where).every(([k, v]) => s.labels[k] === v));
			return (
				!moves(METRICS[signal.metric].name, signal.where) ||
				(signal.graver !== undefined && !moves(METRICS[signal.graver.metric].name))
			);
		});
		expect(silent).toEqual([]);
		expect(
			samples.filter(s => s.name === 'hfx_repair_routing_crash' && s.value > 0).map(s => s.labels.profile),
		).toEqual(['ops']);
		expect(
			samples.filter(s => s.name === 'hfx_upgrade_rollback_risk_chats' && s.value > 0).map(s => s.labels.profile),
		).toEqual(['ops']);
	});

	it(
		'one hfx_store_info per store carries the schema, rule set and build; no ' + 'other series carries a version label',
		() => {
			const info = samples.filter(s => s.name === 'hfx_store_info');
			expect(info.map(s => s.labels.profile).sort()).toEqual([
				'columnless',
				'default',
				'halted',
				'ops',
				'rolled',
				'signatures',
				'work',
			]);
			expect(info.find(s => s.labels.profile === 'ops')).toEqual({
				name: 'hfx_store_info',
				labels: {profile: 'ops', schema: 'v25', rule_set: 'v25', build: 'unknown'},
				value: 1,
			});
			expect(info.find(s => s.labels.profile === 'rolled')!.labels).toMatchObject({
				schema: 'v21',
				rule_set: 'legacy-v21',
			});
			expect(
				samples.filter(s => s.name !== 'hfx_store_info' && ['schema', 'rule_set', 'build'].some(l => l in s.labels)),
			).toEqual([]);
		},
	);

	it('hfx watch says every finding kind as its event on the first reading, and changes nothing', async () => {
		const watch = new WatchProcess(['--home', root, '--interval', '30s', '--json-lines']);
		try {
			const events = () => new Set(watch.events().map(e => e.event as string));
			const raised = findingKinds().map(kind => FINDING_SIGNALS[kind as FindingKind]?.raised ?? `(none for ${kind})`);
			await watch.waitFor(() => raised.every(e => events().has(e)), 60_000, `the events ${raised.join(', ')}`);
			const [crash] = await watch.waitForEach(
				[
					{event: 'repair-routing-crash'},
					{event: 'after-upgrade', profile: 'ops', subject: 'agent:ops:telegram:dm:7100'},
				],
				10_000,
			);
			expect(crash).toMatchObject({
				profile: 'ops',
				kind: 'repair-routing-crash',
				severity: 'warning',
				subject: '20260902_090000_f39e1362',
			});
			expect(crash!.message).toContain('malformed JSON');
			const upgrade = watch
				.events()
				.filter(e => e.event === 'after-upgrade' && e.profile === 'ops' && e.subject === 'agent:ops:telegram:dm:7100');
			expect(upgrade).toHaveLength(1);
			expect(upgrade[0]!.detail).toContain(
				'after upgrading Hermes, a restart resumes 20260901_090000_54ef9482 (ROLLBACK RISK',
			);
		} finally {
			expect((await watch.stop('SIGTERM')).code).toBe(0);
		}

		expect(watch.stderr).toBe('');
		expect(folderHashes(root)).toEqual(before);
	}, 90_000);

	it('every query of the Grafana dashboard names only metrics hfx writes, and each names one', () => {
		const written = new Set(samples.map(s => s.name));
		const {panels, variables} = dashboardQueries();
		const queries = [...panels, ...variables];
		expect(panels.length).toBeGreaterThan(20);
		expect(variables).toEqual(['label_values(hfx_store_info, profile)']);
		const unknown = queries
			.flatMap(q => [...q.matchAll(/\b(hfx_[a-z_]+)\b/g)].map(m => m[1]!))
			.filter(name => !written.has(name));
		expect(unknown).toEqual([]);
		expect(queries.filter(q => !/\bhfx_[a-z_]+\b/.test(q))).toEqual([]);
		// Every metric a query could name is one of METRICS (or hfx_build_info): the check is not vacuous.
		expect([...written].filter(n => n !== 'hfx_build_info' && !Object.values(METRICS).some(m => m.name === n))).toEqual(
			[],
		);
	});
});
