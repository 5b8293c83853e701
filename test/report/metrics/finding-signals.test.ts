/**
 * Issue #27 point 4: every kind of finding `hfx scan` reports (read from source/forensics/finding.ts,
 * not from the table under test) has a metric hfx writes, an alert rule on that metric, and its
 * `hfx watch` events; every rule has `summary`, `description` and a `runbook_url` whose README
 * anchor exists; the README's table says what the code does; and only `hfx_store_info` carries the
 * store's versions.
 */
import fs from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {parse} from 'yaml';
import {analyze} from '../../../source/forensics/analysis/analyze.js';
import type {Finding} from '../../../source/forensics/finding.js';
import {FINDING_SIGNALS, type FindingKind, OWN_EVENT_KINDS} from '../../../source/report/metrics/finding-signals.js';
import {METRICS, type StoreReading} from '../../../source/report/metrics/metrics-samples.js';
import {diffDigests, digestOf} from '../../../source/report/metrics/watch-events.js';
import {loadStore} from '../../../source/store/read/load.js';
import {findingKinds} from '../../helpers/finding-kinds.js';
import {ROOT} from '../../helpers/writer.js';

type Rule = {
	alert: string;
	expr: string;
	for?: string;
	labels?: Record<string, string>;
	annotations?: Record<string, string>;
};
const rules = (
	parse(fs.readFileSync(path.join(ROOT, 'contrib/prometheus/hfx.rules.yml'), 'utf8')) as {
		groups: Array<{rules: Rule[]}>;
	}
).groups.flatMap(g => g.rules);
const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const RUNBOOK_BASE = 'https://example.invalid/hfx/README.md#';

/** GitHub's anchor of a heading: lower case, punctuation but `-` and `_` dropped, spaces to `-`. */
function anchorOf(heading: string): string {
	return heading
		.trim()
		.toLowerCase()
		.replace(/[^\p{L}\p{N}\s_-]/gu, '')
		.replace(/\s/g, '-');
}

const anchors = new Set(
	readme
		.split('\n')
		.filter(l => /^#{1,6} /.test(l))
		.map(l => anchorOf(l.replace(/^#+ /, ''))),
);

describe('every finding kind has its metric, its alert and its events', () => {
	it('the table has exactly the kinds of Finding', () => {
		expect(Object.keys(FINDING_SIGNALS).sort()).toEqual(findingKinds().sort());
	});

	it("each kind's metric is one hfx writes, and an alert fires on it (its label matcher included)", () => {
		const missing = findingKinds().flatMap(kind => {
			const signal = FINDING_SIGNALS[kind as FindingKind];
			const metric = signal ? METRICS[signal.metric] : undefined;
			const rule = rules.find(r => r.alert === signal?.alert);
			const matchers = Object.entries(signal?.where ?? {}).map(([k, v]) => `${k}="${v}"`);
			const fires =
				rule !== undefined &&
				metric !== undefined &&
				new RegExp(`\\b${metric.name}\\b`).test(rule.expr) &&
				matchers.every(m => rule.expr.includes(m));
			const graver = signal?.graver ? rules.find(r => r.alert === signal.graver!.alert) : undefined;
			const graverFires =
				signal?.graver === undefined ||
				(graver !== undefined && new RegExp(`\\b${METRICS[signal.graver.metric].name}\\b`).test(graver.expr));
			return fires && graverFires ? [] : [kind];
		});
		expect(missing).toEqual([]);
	});

	it(
		'each kind but the four with their own events is said by the watch as ' +
			'its kind, and as KIND-cleared when it goes',
		() => {
			const loaded = loadStore(
				{path: path.join(ROOT, 'test/fixtures/hermes-v21-incident/state.db'), owner: 'default', label: 'default'},
				{columns: 'lean'},
			);
			const analysis = analyze(loaded.snapshot);
			const reading = (findings: Finding[]): StoreReading => ({
				profile: 'default',
				at: 1000,
				seconds: 0.1,
				result: {ok: true, facts: loaded.facts, analysis: {...analysis, findings}},
				files: null,
				backups: {verifiedAgeSeconds: 1, drilledAgeSeconds: 1},
				build: null,
			});
			const context = {profile: 'default', at: 1000, boundSeconds: 3600};
			const generic = findingKinds().filter(k => !OWN_EVENT_KINDS.has(k as FindingKind));
			expect(generic.length).toBeGreaterThan(8);
			const made = generic.map(
				(kind): Finding => ({
					severity: 'warning',
					kind: kind as FindingKind,
					subject: `s-${kind}`,
					title: `t-${kind}`,
					detail: 'd',
					next: 'n',
				}),
			);
			const empty = digestOf(reading([]), 3600);
			const raised = digestOf(reading(made), 3600, empty);
			const up = diffDigests(empty, raised, context);
			expect(up.map(e => [e.event, e.subject])).toEqual(
				generic.map(k => [FINDING_SIGNALS[k as FindingKind].raised, `s-${k}`]),
			);
			expect(up[0]).toMatchObject({
				severity: 'warning',
				title: `t-${generic[0]}`,
				detail: 'd',
				next: 'n',
				message: `t-${generic[0]}: d. Next: n`,
			});
			expect(diffDigests(raised, digestOf(reading(made), 3600, raised), context)).toEqual([]);
			const down = diffDigests(raised, digestOf(reading([]), 3600, raised), context);
			expect(down.map(e => e.event)).toEqual(generic.map(k => FINDING_SIGNALS[k as FindingKind].cleared));
		},
	);

	it("the README's table names each kind's metric, alert and events as the code does", () => {
		for (const kind of findingKinds()) {
			const s = FINDING_SIGNALS[kind as FindingKind];
			const where = Object.entries(s.where ?? {})
				.map(([k, v]) => `${k}="${v}"`)
				.join(',');
			const graver = (text: string | undefined) => (text === undefined ? '' : `; graver: \`${text}\``);
			const row =
				`| \`${kind}\` | ` +
				`\`${METRICS[s.metric].name}${where ? `{${where}}` : ''}\`` +
				`${graver(s.graver && METRICS[s.graver.metric].name)} ` +
				`| \`${s.alert}\`${graver(s.graver?.alert)} | \`${s.raised}\` / ` +
				`\`${s.cleared}\` |`;
			expect(readme, kind).toContain(row);
		}
	});
});

describe('the alert rules', () => {
	it(
		'every rule has a summary, a description and a runbook_url to a README ' + 'section that exists (no bare runbook)',
		() => {
			expect(rules.length).toBeGreaterThanOrEqual(22);
			const bad = rules.filter(r => {
				const a = r.annotations ?? {};
				const url = a.runbook_url ?? '';
				return (
					!a.summary ||
					!a.description ||
					'runbook' in a ||
					!url.startsWith(RUNBOOK_BASE) ||
					!anchors.has(url.slice(RUNBOOK_BASE.length)) ||
					url.slice(RUNBOOK_BASE.length) !== r.alert.toLowerCase()
				);
			});
			expect(bad.map(r => r.alert)).toEqual([]);
			// The anchor check is real: a section that is not there is not found.
			expect(anchors.has('hfxrollbackrisk')).toBe(true);
			expect(anchors.has('hfxnosuchalert')).toBe(false);
		},
	);

	it('no rule groups or matches by a version label (they live on hfx_store_info alone)', () => {
		expect(
			rules.filter(
				r =>
					/\b(schema|rule_set|build)\b/.test(r.expr) ||
					/\$labels\.(schema|rule_set)/.test(JSON.stringify(r.annotations)),
			),
		).toEqual([]);
	});
});

describe('the metrics', () => {
	it('only hfx_store_info is labelled by schema, rule set and build; every series carries the profile', () => {
		const versioned = Object.values(METRICS).filter(m =>
			m.labels.some(l => ['schema', 'rule_set', 'build'].includes(l)),
		);
		expect(versioned.map(m => [m.name, m.labels])).toEqual([
			['hfx_store_info', ['profile', 'schema', 'rule_set', 'build']],
		]);
		expect(Object.values(METRICS).filter(m => m.labels[0] !== 'profile')).toEqual([]);
	});
});
