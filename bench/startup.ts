/**
 * The command line's share of a start: meow (and hfx's wrapper over it) loaded and one line parsed,
 * in fresh processes, against the 15 ms the CLI issue allows; beside it, a whole `hfx --version`
 * and a bare `node -e 0` for context.
 */
import {execFileSync} from 'node:child_process';
import path from 'node:path';
import {type BenchContext, type Section, type SectionResult, measureInterleaved, median} from './harness.js';

const LIMIT_MS = 15;

function parserShares(ctx: BenchContext): number[] {
	const script = path.join(ctx.root, 'dist-bench/parser-share.js');
	const shares: number[] = [];
	for (let i = 0; i < ctx.warmups + Math.max(ctx.runs, 9); i++) {
		const {importMs, parseMs} = JSON.parse(execFileSync(process.execPath, [script], {encoding: 'utf8'})) as {importMs: number; parseMs: number};
		if (i >= ctx.warmups) {
			shares.push(importMs + parseMs);
		}
	}

	return shares;
}

export const startupSection: Section = {
	id: 'startup',
	title: 'Start-up: the command line\'s share (meow)',
	async run(ctx): Promise<SectionResult> {
		const shares = parserShares(ctx);
		const share = median(shares);
		ctx.log(`  meow + parse: median ${share.toFixed(1)} ms over ${shares.length} fresh processes`);
		const [bin, floor] = await measureInterleaved(ctx, [
			{label: 'hfx --version', command: process.execPath, args: [path.join(ctx.root, 'dist/hfx.js'), '--version']},
			{label: 'node -e 0', command: process.execPath, args: ['-e', '0']},
		]);
		return {
			rows: [
				{measurement: 'meow loaded + one line parsed (fresh process, unbundled: an upper bound)', medianMs: share, minMs: Math.min(...shares), target: `≤ ${LIMIT_MS} ms`, result: share <= LIMIT_MS ? 'PASS' : 'FAIL'},
				{measurement: '`hfx --version` (the bundled bin, whole start)', medianMs: bin!.medianMs, minMs: bin!.minMs, ratio: bin!.medianMs / floor!.medianMs, target: 'context', result: 'info'},
				{measurement: '`node -e 0`', medianMs: floor!.medianMs, minMs: floor!.minMs, target: 'context', result: 'info'},
			],
			notes: [`The parser's share is measured inside fresh processes with performance.now() around \`import('dist/cli-args.js')\` and one \`parseCommandLine\` of \`scan --db … --json --max-gap-seconds 600\`.`],
		};
	},
};
