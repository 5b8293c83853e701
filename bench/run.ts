/**
 * `npm run bench`: runs every section, prints one markdown table per section, writes them to
 * .bench-data/last-run.md and exits 1 when any target fails.
 *
 *   node dist-bench/run.js [--runs N] [--warmups N] [--only SECTION_ID] [--watch-seconds S]
 *
 * To add a benchmark (TUI frame latency, backup throughput...), write a module exporting a
 * `Section` (see harness.ts) and add it to SECTIONS.
 */
import {execFileSync} from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {parseArgs} from 'node:util';
import {DATA_DIR, ROOT} from './generate.js';
import {type BenchContext, type Section, type SectionResult, markdownTable, rssMethod} from './harness.js';
import {SQLITE3, scanSection} from './scan.js';
import {backupSection} from './backup.js';
import {startupSection} from './startup.js';
import {timelineSection} from './timeline.js';
import {tuiSection} from './tui.js';
import {tuiProfilesSection} from './tui-profiles.js';
import {watchSection} from './watch.js';
import {watchProfilesSection} from './watch-profiles.js';
import {searchSection} from './search.js';
import {scaleSection} from './scale.js';

export const SECTIONS: Section[] = [
	startupSection,
	scanSection,
	searchSection,
	tuiSection,
	tuiProfilesSection,
	watchSection,
	watchProfilesSection,
	backupSection,
	timelineSection,
	scaleSection,
];

function sqliteVersion(): string {
	try {
		return execFileSync(SQLITE3, ['-version'], {encoding: 'utf8'}).split(' ')[0] ?? '?';
	} catch {
		return 'missing';
	}
}

/** Share of CPU time spent by anything (this process sleeps) over one second, from /proc/stat; null off Linux. */
async function otherCpuShare(): Promise<number | null> {
	const sample = (): [number, number] | null => {
		try {
			const fields = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
			const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
			return [fields.reduce((a, b) => a + b, 0), idle];
		} catch {
			return null;
		}
	};

	const a = sample();
	await new Promise(resolve => setTimeout(resolve, 1000));
	const b = sample();
	if (!a || !b || b[0] === a[0]) {
		return null;
	}

	return 1 - (b[1] - a[1]) / (b[0] - a[0]);
}

async function main(): Promise<number> {
	const {values} = parseArgs({
		options: {
			runs: {type: 'string', default: process.env.BENCH_RUNS ?? '5'},
			warmups: {type: 'string', default: process.env.BENCH_WARMUPS ?? '1'},
			only: {type: 'string'},
			// hfx watch's follow (the 10 minutes: --watch-seconds 600).
			'watch-seconds': {type: 'string'},
		},
	});
	if (values['watch-seconds'] !== undefined) {
		process.env.BENCH_WATCH_FOLLOW_SECONDS = values['watch-seconds'];
	}

	const runs = Number(values.runs);
	const warmups = Number(values.warmups);
	if (!Number.isInteger(runs) || runs < 1 || !Number.isInteger(warmups) || warmups < 0) {
		process.stderr.write('bench: --runs must be >= 1 and --warmups >= 0\n');
		return 2;
	}

	const sections = values.only ? SECTIONS.filter(s => s.id === values.only) : SECTIONS;
	if (sections.length === 0) {
		process.stderr.write(
			`bench: no section ${JSON.stringify(values.only)} (have: ${SECTIONS.map(s => s.id).join(', ')})\n`,
		);
		return 2;
	}

	const ctx: BenchContext = {
		root: ROOT,
		dataDir: DATA_DIR,
		runs,
		warmups,
		log: line => process.stdout.write(`${line}\n`),
	};
	const cpu = os.cpus()[0]?.model ?? '?';
	const header = [
		`# hfx benchmark, ${new Date().toISOString()}`,
		'',
		`node ${process.version} · sqlite3 CLI ${sqliteVersion()} ` +
			`· ${os.cpus().length} × ${cpu} ` +
			`· ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB · ${warmups} warm-up ` +
			`+ ${runs} timed rounds per measurement (commands interleaved within a ` +
			`round) · peak RSS ` +
			`via ${rssMethod === 'gnu-time' ? 'GNU time %M' : 'sampled /proc VmHWM'}`,
	];
	const busy = await otherCpuShare();
	if (busy !== null && busy > 0.2) {
		header.push(
			'',
			`**Warning:** the CPUs were ${(busy * 100).toFixed(0)} % busy with other ` +
				`work just before the run: wall times are disturbed (ratios between ` +
				`interleaved commands suffer less).`,
		);
	}

	const out: string[] = [...header];
	let failed = false;
	for (const section of sections) {
		ctx.log(`\n== ${section.id}: ${section.title}`);
		let result: SectionResult;
		try {
			result = await section.run(ctx);
		} catch (error) {
			result = {
				rows: [{measurement: `section ${section.id} could not run`, target: 'runs', result: 'FAIL'}],
				notes: [error instanceof Error ? (error.stack ?? error.message) : String(error)],
			};
		}

		failed ||= result.rows.some(r => r.result === 'FAIL');
		out.push('', `## ${section.title}`, '', markdownTable(result.rows), '', ...result.notes.map(n => `- ${n}`));
	}

	out.push('', failed ? '**Result: FAIL** (a target was missed)' : '**Result: PASS** (every target met)', '');
	const report = out.join('\n');
	process.stdout.write(`\n${report}`);
	fs.mkdirSync(DATA_DIR, {recursive: true});
	fs.writeFileSync(path.join(DATA_DIR, 'last-run.md'), report);
	process.stdout.write(`(written to ${path.relative(process.cwd(), path.join(DATA_DIR, 'last-run.md'))})\n`);
	return failed ? 1 : 0;
}

process.exitCode = await main();
