/**
 * The alert rules of contrib/prometheus/hfx.rules.yml as data, and the `promtool test rules` unit
 * tests made from them: for each alert a series that satisfies its expression from minute 5 on, and
 * the alert expected nowhere before its `for:` window has passed and firing once it has (labels and
 * rendered annotations exact, as promtool compares them). For a rule with a window, a condition that
 * clears once inside it starts the window again.
 */
import fs from 'node:fs';
import {parse, stringify} from 'yaml';

export type AlertRule = {
	alert: string;
	expr: string;
	for: string;
	labels: Record<string, string>;
	annotations: Record<string, string>;
};

export function alertRules(file: string): AlertRule[] {
	const doc = parse(fs.readFileSync(file, 'utf8')) as {groups: Array<{rules: AlertRule[]}>};
	return doc.groups.flatMap(g => g.rules).filter(r => r.alert);
}

/** A rule's window in minutes (`for: 15m`; `0m` or none is 0). */
export function windowMinutes(rule: AlertRule): number {
	const m = /^(\d+)m$/.exec(rule.for ?? '0m');
	if (!m) {
		throw new Error(`${rule.alert}: for: ${rule.for} is not in whole minutes`);
	}

	return Number(m[1]);
}

/**
 * The rules file with every `for:` window set to 0m (a live Prometheus fires at once; the windows are promtool-tested).
 */
export function withoutWindows(file: string, out: string): string {
	fs.writeFileSync(
		out,
		fs.readFileSync(file, 'utf8').replaceAll(/^(\s+for: )\d+m$/gm, (_, head: string) => `${head}0m`),
	);
	return out;
}

type Series = {metric: string; labels: Record<string, string>; firing: number; healthy: number; value: number | null};

/**
 * A series that satisfies the rule's expression (METRIC{…} > N, METRIC == N, time() - METRIC > N), and one value that
 * does not.
 */
function seriesFor(rule: AlertRule): Series {
	const m = /^(time\(\) - )?([a-zA-Z_:][\w:]*)(?:\{([^}]*)\})? (>|==) ([\d\s*]+)$/.exec(rule.expr);
	if (!m) {
		throw new Error(`${rule.alert}: no input series is made for the expression ${rule.expr}`);
	}

	const [, since, metric, selector, op] = m;
	const threshold = m[5]!.split('*').reduce((a, b) => a * Number(b.trim()), 1);
	const labels: Record<string, string> = {instance: 'host1:9100', profile: 'work'};
	for (const l of (selector ?? '').matchAll(/(\w+)="([^"]*)"/g)) {
		labels[l[1]!] = l[2]!;
	}

	if (Object.values(rule.annotations).some(a => a.includes('$labels.reason'))) {
		labels.reason ??= 'no_predecessor';
	}

	if (op === '==') {
		return {metric: metric!, labels, firing: threshold, healthy: threshold + 1, value: threshold};
	}

	// time() - METRIC > N: a timestamp N+1 s before the epoch is older than N at every evaluation.
	return since
		? {metric: metric!, labels, firing: -(threshold + 1), healthy: 1e12, value: null}
		: {metric: metric!, labels, firing: threshold + 1, healthy: threshold, value: threshold + 1};
}

/** The rule's annotations as Prometheus renders them for that series ({{ $labels.X }} and {{ $value }} only). */
function rendered(rule: AlertRule, s: Series): Record<string, string> {
	return Object.fromEntries(
		Object.entries(rule.annotations).map(([k, text]) => [
			k,
			text.replaceAll(/\{\{\s*([^}]*?)\s*\}\}/g, (_, ref: string) => {
				const label = /^\$labels\.(\w+)$/.exec(ref);
				if (label) {
					return s.labels[label[1]!] ?? '';
				}

				if (ref === '$value' && s.value !== null) {
					return String(s.value);
				}

				throw new Error(`${rule.alert}: the test cannot render {{ ${ref} }}`);
			}),
		]),
	);
}

const START = 5;

/**
 * One promtool test group per alert: nothing before the window, firing at its end; a clearing inside it restarts it.
 */
function testGroup(rule: AlertRule) {
	const s = seriesFor(rule);
	const w = windowMinutes(rule);
	const series = `${s.metric}{${Object.entries(s.labels)
		.map(([k, v]) => `${k}="${v}"`)
		.join(',')}}`;
	const expected = [{exp_labels: {...s.labels, ...rule.labels}, exp_annotations: rendered(rule, s)}];
	const none = (at: number) => ({eval_time: `${at}m`, alertname: rule.alert, exp_alerts: []});
	const fires = (at: number) => ({eval_time: `${at}m`, alertname: rule.alert, exp_alerts: expected});
	const held = {
		interval: '1m',
		input_series: [{series, values: `_x${START} ${s.firing}x${2 * w + 10}`}],
		alert_rule_test: [none(START - 1), ...(w > 0 ? [none(START + w - 1)] : []), fires(START + w)],
	};
	if (w === 0) {
		return [held];
	}

	// Firing for w-1 minutes, cleared for one evaluation, firing again from START+w: the window counts from there.
	const again = START + w;
	const flap = {
		interval: '1m',
		input_series: [{series, values: `_x${START} ${s.firing}x${w - 2} ${s.healthy} ${s.firing}x${2 * w + 10}`}],
		alert_rule_test: [none(again - 1), none(again + w - 1), fires(again + w)],
	};
	return [held, flap];
}

/**
 * The `promtool test rules` document for every alert of `rulesFile`, run against `loaded` (the same file unless a test
 * swaps it).
 */
export function windowTests(rulesFile: string, loaded = rulesFile): string {
	return stringify({rule_files: [loaded], evaluation_interval: '1m', tests: alertRules(rulesFile).flatMap(testGroup)});
}
