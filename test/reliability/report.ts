/**
 * reliability-report.md: one row per fault kind (fault | class | runs | outcome | evidence bytes
 * changed | notes), the fuzzers, a summary (kinds, runs, failures), and every failure written out
 * as expected vs got. Nothing is hidden: a skipped kind says why.
 */
import type {FuzzReport} from './fuzz/fuzz-types.js';
import type {FaultReport} from './types.js';

function cell(text: string): string {
	return text.replaceAll('|', '\\|').replaceAll('\n', ' ');
}

function outcomeCell(f: FaultReport): string {
	if (f.skipped) {
		return `SKIPPED (${f.skipped})`;
	}

	return f.failures.length === 0
		? `${f.outcome} ✓`
		: `FAIL: expected ${f.outcome}, got ${f.got}; ${f.failures.length} ` +
				`problem${f.failures.length === 1 ? '' : 's'} (below)`;
}

function faultTable(faults: FaultReport[]): string[] {
	const rows = [
		'| fault | class | runs | outcome | evidence bytes changed | notes |',
		'| --- | --- | --- | --- | --- | --- |',
	];
	for (const f of faults) {
		rows.push(
			`| ${f.id} | ${f.cls} | ${f.runs} | ${cell(outcomeCell(f))} | ${f.evidenceBytesChanged} | ${cell(f.notes)} |`,
		);
	}

	return rows;
}

function fuzzTable(fuzz: FuzzReport[]): string[] {
	const rows = [
		'| fuzzer | seed | inputs | outcome | slowest input (ms) | notes |',
		'| --- | --- | --- | --- | --- | --- |',
	];
	for (const z of fuzz) {
		const outcome =
			z.failures.length === 0 ? 'no throw beyond our refusals, no hang ✓' : `FAIL: ${z.failures.length} inputs`;
		rows.push(`| ${z.name} | ${z.seed} | ${z.inputs} | ${cell(outcome)} | ${z.slowestMs} | ${cell(z.notes)} |`);
	}

	return rows;
}

function failureList(faults: FaultReport[], fuzz: FuzzReport[]): string[] {
	const out: string[] = [];
	for (const f of faults.filter(x => x.failures.length > 0)) {
		out.push(`- **${f.id}** (class ${f.cls}, ${f.notes}): expected ${f.outcome}, got ${f.got}`);
		for (const p of f.failures.slice(0, 6)) {
			out.push(`  - ${p.replaceAll('\n', ' ').slice(0, 400)}`);
		}

		if (f.failures.length > 6) {
			out.push(`  - … and ${f.failures.length - 6} more`);
		}
	}

	for (const z of fuzz.filter(x => x.failures.length > 0)) {
		out.push(`- **fuzz ${z.name}** (seed ${z.seed}):`);
		for (const p of z.failures.slice(0, 4)) {
			out.push(`  - ${p.slice(0, 400)}`);
		}
	}

	return out.length > 0 ? out : ['None.'];
}

export function renderReport(
	faults: FaultReport[],
	fuzz: FuzzReport[],
	meta: {long: boolean; ms: number; started: string},
): string {
	const ran = faults.filter(f => !f.skipped);
	const failed = faults.filter(f => f.failures.length > 0);
	const fuzzFailed = fuzz.filter(z => z.failures.length > 0);
	const bytes = ran.reduce((a, f) => a + f.evidenceBytesChanged, 0);
	const summary = [
		`- fault kinds: ${faults.length} (${ran.length} ` +
			`run, ${faults.length - ran.length} skipped), ` +
			`runs: ${ran.reduce((a, f) => a + f.runs, 0)}`,
		`- failing kinds: ${failed.length}${failed.length ? ` (${failed.map(f => f.id).join(', ')})` : ''}`,
		`- evidence bytes changed, all runs: ${bytes}`,
		`- fuzzers: ${fuzz.length}, inputs: ${fuzz.reduce((a, z) => a + z.inputs, 0)}, failing: ${fuzzFailed.length}`,
		`- mode: ${meta.long ? 'long' : 'standard'}, started ${meta.started}, took ${(meta.ms / 1000).toFixed(1)} s`,
	];
	return [
		'# hfx reliability report',
		'',
		'Issue #17: every class tried with the real binary (dist/hfx.js); ' +
			"evidence = sha256 of every file in the store's folder and the home, " +
			'-shm included, before and after each run.',
		'',
		'## Summary',
		'',
		...summary,
		'',
		'## Faults',
		'',
		...faultTable(faults),
		'',
		'## Fuzzers',
		'',
		...fuzzTable(fuzz),
		'',
		'## Failures (expected vs got)',
		'',
		...failureList(faults, fuzz),
		'',
	].join('\n');
}
