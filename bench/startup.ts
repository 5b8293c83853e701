/**
 * The command line's share of a start, as the bin pays it: the real bin (dist/hfx.js) against the
 * same bin built the same way (scripts/bundle.mjs binOptions) with meow replaced by a stub that
 * only knows `--version`, both started as `--version` in alternation, many times. The difference
 * of their medians is what meow and its wrapper cost every start of hfx; the CLI issue allows 15 ms.
 * A bare `node -e 0` stands beside them for context.
 */
import fs from 'node:fs';
import path from 'node:path';
import {type Plugin, build} from 'esbuild';
import {type BenchContext, type Section, type SectionResult, measureInterleaved} from './harness.js';

const LIMIT_MS = 15;

const STUB = `// bench only: the bin without meow. Reads --version, nothing else.
export default function meow(options) {
	return {input: [], flags: {version: options.argv.includes('--version'), help: false}, unnormalizedFlags: {}, pkg: {}, help: '', showHelp() {}, showVersion() {}};
}
`;

/** The bin, bundled as scripts/bundle.mjs bundles it, with meow resolved to the stub. */
async function binWithoutMeow(ctx: BenchContext): Promise<string> {
	const dir = path.join(ctx.root, 'dist-bench', 'startup');
	fs.mkdirSync(dir, {recursive: true});
	const stub = path.join(dir, 'meow-stub.mjs');
	fs.writeFileSync(stub, STUB);
	// Beside dist/ as the bin is (it reads ../package.json for its version).
	const outfile = path.join(ctx.root, 'dist-bench', 'hfx-without-meow.js');
	const {binOptions} = await import(path.join(ctx.root, 'scripts/bundle.mjs')) as {binOptions: (out: string, plugins: Plugin[]) => Parameters<typeof build>[0]};
	const toStub: Plugin = {name: 'bench-meow-stub', setup(b) {
		b.onResolve({filter: /^meow$/}, () => ({path: stub}));
	}};
	const cwd = process.cwd();
	process.chdir(ctx.root);
	try {
		await build({...binOptions(outfile, [toStub]), metafile: false, logLevel: 'silent'});
	} finally {
		process.chdir(cwd);
	}

	return outfile;
}

export const startupSection: Section = {
	id: 'startup',
	title: 'Start-up: the command line\'s share (meow)',
	async run(ctx): Promise<SectionResult> {
		const stubbed = await binWithoutMeow(ctx);
		const many = {...ctx, runs: Math.max(ctx.runs, 25), warmups: Math.max(ctx.warmups, 3)};
		const [bin, without, floor] = await measureInterleaved(many, [
			{label: 'hfx --version (the bin)', command: process.execPath, args: [path.join(ctx.root, 'dist/hfx.js'), '--version']},
			{label: 'the same bin, meow stubbed out', command: process.execPath, args: [stubbed, '--version']},
			{label: 'node -e 0', command: process.execPath, args: ['-e', '0']},
		]);
		const share = bin!.medianMs - without!.medianMs;
		return {
			rows: [
				{measurement: 'meow\'s share of a start: the bin − the bin without meow (`--version`, medians)', medianMs: share, minMs: bin!.minMs - without!.minMs, target: `≤ ${LIMIT_MS} ms`, result: share <= LIMIT_MS ? 'PASS' : 'FAIL'},
				{measurement: '`hfx --version`, the bin', medianMs: bin!.medianMs, minMs: bin!.minMs, peakRssMb: bin!.peakRssKb === null ? null : bin!.peakRssKb / 1024, ratio: bin!.medianMs / floor!.medianMs, target: 'context', result: 'info'},
				{measurement: '`--version`, the same bin with meow stubbed out', medianMs: without!.medianMs, minMs: without!.minMs, peakRssMb: without!.peakRssKb === null ? null : without!.peakRssKb / 1024, ratio: without!.medianMs / floor!.medianMs, target: 'context', result: 'info'},
				{measurement: '`node -e 0`', medianMs: floor!.medianMs, minMs: floor!.minMs, target: 'context', result: 'info'},
			],
			notes: [`The two bins are built by the same esbuild options (scripts/bundle.mjs binOptions) and started ${many.runs} times each, alternating with \`node -e 0\`, after ${many.warmups} warm-ups; ratios are to \`node -e 0\`.`],
		};
	},
};
