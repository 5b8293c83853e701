/**
 * The entry of `npm run reliability` (scripts/reliability.mjs bundles and calls it):
 * `[--long] [--out FILE] [--only ID,ID] [--no-fuzz] [--no-faults] [--list]`. Runs the fault catalog and the
 * fuzzers, prints one line per kind, writes the report (default reliability-report.md at the
 * repository root) and returns 1 when anything failed. `--fuzz-one NAME N` is the child mode
 * of fuzz/run-fuzzer.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import {CATALOG} from './catalog/all.js';
import {FUZZERS} from './fuzz/all.js';
import {fuzzInChild, fuzzInProcess} from './fuzz/run-fuzzer.js';
import {renderReport} from './report.js';
import {ROOT} from './run-hfx.js';
import {runFaults, runFuzzers} from './suite.js';

type Args = {long: boolean; out: string; only: string[] | null; fuzz: boolean; faults: boolean; list: boolean};

function parse(argv: string[]): Args {
	const a: Args = {
		long: false,
		out: path.join(ROOT, 'reliability-report.md'),
		only: null,
		fuzz: true,
		faults: true,
		list: false,
	};
	for (let i = 0; i < argv.length; i++) {
		const k = argv[i];
		if (k === '--long') {
			a.long = true;
		} else if (k === '--out') {
			a.out = path.resolve(argv[++i] ?? a.out);
		} else if (k === '--only') {
			a.only = (argv[++i] ?? '').split(',').filter(Boolean);
		} else if (k === '--no-fuzz') {
			a.fuzz = false;
		} else if (k === '--no-faults') {
			a.faults = false;
		} else if (k === '--list') {
			a.list = true;
		} else {
			throw new Error(`unknown option ${k} (use --long, --out FILE, --only ID,ID, --no-fuzz, --no-faults, --list)`);
		}
	}

	return a;
}

export async function main(argv: string[]): Promise<number> {
	if (argv[0] === '--fuzz-one') {
		process.stdout.write(`${JSON.stringify(await fuzzInProcess(argv[1]!, Number(argv[2])))}\n`);
		return 0;
	}

	const a = parse(argv);
	const faults = a.faults ? CATALOG.filter(f => !a.only || a.only.some(o => f.id.startsWith(o))) : [];
	if (a.list) {
		process.stdout.write(`${faults.map(f => `${f.cls} ${f.id}`).join('\n')}\n`);
		return 0;
	}

	const started = Date.now();
	const mark = (ok: boolean, skipped = false): string => (skipped ? 'skip' : ok ? ' ok ' : 'FAIL');
	const faultReports = await runFaults(faults, {long: a.long, timeoutMs: a.long ? 60_000 : 30_000}, r => {
		process.stdout.write(
			`${mark(r.failures.length === 0, Boolean(r.skipped))} ${r.id} (${r.runs} ` +
				`runs, ${r.ms} ` +
				`ms)${r.failures[0] ? `: ${r.failures[0].slice(0, 160)}` : ''}\n`,
		);
	});
	const fuzzList =
		a.fuzz && !a.only ? FUZZERS.map(f => ({name: f.fuzzer.name, inputs: a.long ? f.long : f.standard})) : [];
	const fuzzReports = await runFuzzers(
		fuzzList,
		(name, inputs) => fuzzInChild(name, inputs, a.long ? 1_800_000 : 300_000),
		r => {
			process.stdout.write(
				`${mark(r.failures.length === 0)} fuzz ${r.name} (${r.inputs} ` +
					`inputs)${r.failures[0] ? `: ${r.failures[0].slice(0, 160)}` : ''}\n`,
			);
		},
	);
	fs.writeFileSync(
		a.out,
		renderReport(faultReports, fuzzReports, {
			long: a.long,
			ms: Date.now() - started,
			started: new Date(started).toISOString(),
		}),
	);
	const failed =
		faultReports.filter(f => f.failures.length > 0).length + fuzzReports.filter(z => z.failures.length > 0).length;
	process.stdout.write(
		`${faultReports.length} fault kinds, ${fuzzReports.length} fuzzers, ${failed} failing; report: ${a.out}\n`,
	);
	return failed > 0 ? 1 : 0;
}
