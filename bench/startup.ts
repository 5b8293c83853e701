/**
 * The command line's share of a start, as the bin pays it: two esbuild bundles built here the way
 * scripts/bundle.mjs builds dist/hfx.js (minified, one file), started as fresh processes in
 * alternation: A loads hfx's command line (meow and cli-args.ts) and parses a typical line, B loads
 * only the flag table the same line would be checked against. The difference of their medians is
 * what meow costs every start; the CLI issue allows 15 ms. A whole `hfx --version` and a bare
 * `node -e 0` stand beside it for context.
 */
import fs from 'node:fs';
import path from 'node:path';
import {build} from 'esbuild';
import {type BenchContext, type Section, type SectionResult, measureInterleaved} from './harness.js';

const LIMIT_MS = 15;
const LINE = JSON.stringify(['--db', '/srv/hermes/state.db', '--json', '--max-gap-seconds', '600']);

async function bundle(ctx: BenchContext, name: string, source: string): Promise<string> {
	const dir = path.join(ctx.root, 'dist-bench', 'startup');
	fs.mkdirSync(dir, {recursive: true});
	const entry = path.join(dir, `${name}.entry.mjs`);
	fs.writeFileSync(entry, source);
	const outfile = path.join(dir, `${name}.mjs`);
	await build({entryPoints: [entry], outfile, bundle: true, platform: 'node', format: 'esm', target: 'node20', minifyWhitespace: true, minifySyntax: true, minifyIdentifiers: true, logLevel: 'silent'});
	return outfile;
}

export const startupSection: Section = {
	id: 'startup',
	title: 'Start-up: the command line\'s share (meow)',
	async run(ctx): Promise<SectionResult> {
		const dist = path.join(ctx.root, 'dist');
		const withParser = await bundle(ctx, 'with-meow', `import {parseCommandLine} from '${dist}/cli-args.js';\nimport {STORE_FLAGS, OUTPUT_FLAGS} from '${dist}/cli-flags.js';\nparseCommandLine(${LINE}, {...STORE_FLAGS, ...OUTPUT_FLAGS}, 'scan');\n`);
		const without = await bundle(ctx, 'without-meow', `import {STORE_FLAGS, OUTPUT_FLAGS} from '${dist}/cli-flags.js';\nif (Object.keys({...STORE_FLAGS, ...OUTPUT_FLAGS}).length === 0) process.exit(1);\n`);
		const many = {...ctx, runs: Math.max(ctx.runs, 21), warmups: Math.max(ctx.warmups, 3)};
		const [a, b] = await measureInterleaved(many, [
			{label: 'bundle A: meow + cli-args, one line parsed', command: process.execPath, args: [withParser]},
			{label: 'bundle B: the flag table only', command: process.execPath, args: [without]},
		]);
		const [bin, floor] = await measureInterleaved(ctx, [
			{label: 'hfx --version', command: process.execPath, args: [path.join(dist, 'hfx.js'), '--version']},
			{label: 'node -e 0', command: process.execPath, args: ['-e', '0']},
		]);
		const share = a!.medianMs - b!.medianMs;
		return {
			rows: [
				{measurement: 'meow\'s share of a start: bundle A − bundle B (medians, alternating fresh processes)', medianMs: share, minMs: a!.minMs - b!.minMs, target: `≤ ${LIMIT_MS} ms`, result: share <= LIMIT_MS ? 'PASS' : 'FAIL'},
				{measurement: 'bundle A: meow + cli-args loaded, `scan --db … --json --max-gap-seconds 600` parsed', medianMs: a!.medianMs, minMs: a!.minMs, peakRssMb: a!.peakRssKb === null ? null : a!.peakRssKb / 1024, target: 'context', result: 'info'},
				{measurement: 'bundle B: the same flag table, no parser', medianMs: b!.medianMs, minMs: b!.minMs, peakRssMb: b!.peakRssKb === null ? null : b!.peakRssKb / 1024, target: 'context', result: 'info'},
				{measurement: '`hfx --version` (the bundled bin, whole start)', medianMs: bin!.medianMs, minMs: bin!.minMs, ratio: bin!.medianMs / floor!.medianMs, target: 'context', result: 'info'},
				{measurement: '`node -e 0`', medianMs: floor!.medianMs, minMs: floor!.minMs, target: 'context', result: 'info'},
			],
			notes: [`Both bundles are built with esbuild as the bin is (minified, one file) and run ${many.runs} times each, alternating, after ${many.warmups} warm-ups.`],
		};
	},
};
