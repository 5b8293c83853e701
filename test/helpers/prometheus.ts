/**
 * The real Prometheus tools the fleet tests run (promtool, prometheus, prometheus-node-exporter),
 * and a reader of the text exposition format for assertions. A missing tool fails the test with
 * the way to get it: nothing is skipped silently.
 */
import {spawnSync} from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** The tool's absolute path, or an Error saying to run .ci/run (which installs the Debian packages). */
export function requireTool(name: 'promtool' | 'prometheus' | 'prometheus-node-exporter'): string {
	for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
		const candidate = path.join(dir, name);
		if (dir && fs.existsSync(candidate)) {
			return candidate;
		}
	}

	throw new Error(
		`${name} is not installed: run .ci/run (as root it installs the Debian ` +
			`packages prometheus and prometheus-node-exporter; promtool comes with ` +
			`prometheus)`,
	);
}

/** `promtool check metrics` on exposition text: its exit code and what it said. */
export function promtoolCheckMetrics(text: string): {code: number | null; output: string} {
	const r = spawnSync(requireTool('promtool'), ['check', 'metrics'], {input: text, encoding: 'utf8', timeout: 20_000});
	return {code: r.status, output: `${r.stdout}${r.stderr}`};
}

export type MetricSample = {name: string; labels: Record<string, string>; value: number};

/** The samples of an exposition text (HELP and TYPE lines skipped). */
export function parseExposition(text: string): MetricSample[] {
	const out: MetricSample[] = [];
	for (const line of text.split('\n')) {
		const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
		if (!m) {
			continue;
		}

		const labels: Record<string, string> = {};
		for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
			labels[l[1]!] = l[2]!;
		}

		out.push({name: m[1]!, labels, value: m[3] === '+Inf' ? Number.POSITIVE_INFINITY : Number(m[3])});
	}

	return out;
}

/** The one sample of `name` whose labels include `where` (throws when there is not exactly one). */
export function sampleOf(samples: readonly MetricSample[], name: string, where: Record<string, string> = {}): number {
	const found = samples.filter(s => s.name === name && Object.entries(where).every(([k, v]) => s.labels[k] === v));
	if (found.length !== 1) {
		throw new Error(`expected one ${name}${JSON.stringify(where)}, found ${found.length}`);
	}

	return found[0]!.value;
}
