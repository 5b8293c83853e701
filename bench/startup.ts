/**
 * Start-up: `hfx --version` (the bin, dist/hfx.js: the launcher, then the bundle) against `node -e 0`
 * on the same Node, as the median of paired runs. Each round starts `node -e 0`, the bin with its
 * compile cache warm, and the bin with the cache off (HFX_NO_COMPILE_CACHE=1), one after the other;
 * the first two trade places every other round, since a start first in its round is a few ms
 * slower. A burst of load from elsewhere lands on every run of a round, so the per-round ratio
 * (bin ÷ node -e 0) is steadier than a ratio of two medians. The platform issue allows 2×.
 *
 * Every run starts without NODE_EXTRA_CA_CERTS: Node reads and parses that certificate file at
 * every start, before any script (on this machine ~65 ms of a ~100 ms `node -e 0`), the same for
 * every command here, and hfx makes no TLS connection; it is most of a run's jitter. The compile
 * cache lives in a scratch XDG_CACHE_HOME made here, warmed by the warm-up runs.
 */
import {spawnSync} from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {type BenchContext, type Section, type SectionResult, measureInterleaved} from './harness.js';

/** The limit: `hfx --version` at most twice `node -e 0`. */
const LIMIT_RATIO = 2;
/** Rounds: enough that the median ratio is stable to a few hundredths. */
const ROUNDS = 61;

/** The environment of every timed run: this one, without NODE_EXTRA_CA_CERTS, with its own cache folder. */
function startEnv(cacheHome: string, cache: boolean): NodeJS.ProcessEnv {
	const {NODE_EXTRA_CA_CERTS: _certificates, NODE_COMPILE_CACHE: _cache, ...env} = process.env;
	return {...env, XDG_CACHE_HOME: cacheHome, ...(cache ? {} : {HFX_NO_COMPILE_CACHE: '1'})};
}

/** The q-quantile (0..1) of `values`, linear between the two nearest ranks. */
function quantile(values: readonly number[], q: number): number {
	const sorted = [...values].sort((a, b) => a - b);
	const at = (sorted.length - 1) * q;
	const low = Math.floor(at);
	return sorted[low]! + (sorted[Math.min(low + 1, sorted.length - 1)]! - sorted[low]!) * (at - low);
}

/** The bin must print a version on this Node, or the timings would time a refusal. */
function checkBin(bin: string, env: NodeJS.ProcessEnv): void {
	const run = spawnSync(process.execPath, [bin, '--version'], {encoding: 'utf8', env});
	if (run.status !== 0 || !/^\d+\.\d+\.\d+/.test(run.stdout)) {
		throw new Error(`${bin} --version failed on ${process.version}: ${run.stderr.trim().slice(0, 300)}`);
	}
}

export const startupSection: Section = {
	id: 'startup',
	title: 'Start-up: `hfx --version` against `node -e 0` on the same Node',
	async run(ctx: BenchContext): Promise<SectionResult> {
		const cacheHome = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-bench-cache-'));
		try {
			const bin = path.join(ctx.root, 'dist/hfx.js');
			checkBin(bin, startEnv(cacheHome, true));
			const many = {...ctx, runs: Math.max(ctx.runs, ROUNDS), warmups: Math.max(ctx.warmups, 3)};
			const [floor, cached, uncached] = await measureInterleaved(
				many,
				[
					{label: 'node -e 0', command: process.execPath, args: ['-e', '0'], options: {env: startEnv(cacheHome, true)}},
					{
						label: 'hfx --version (compile cache warm)',
						command: process.execPath,
						args: [bin, '--version'],
						options: {env: startEnv(cacheHome, true)},
					},
					{
						label: 'hfx --version (compile cache off)',
						command: process.execPath,
						args: [bin, '--version'],
						options: {env: startEnv(cacheHome, false)},
					},
				],
				true,
			);
			const ratios = cached!.samples.map((s, i) => s.ms / floor!.samples[i]!.ms);
			const uncachedRatios = uncached!.samples.map((s, i) => s.ms / floor!.samples[i]!.ms);
			const [q1, ratio, q3] = [0.25, 0.5, 0.75].map(q => quantile(ratios, q)) as [number, number, number];
			const rss = (kb: number | null) => (kb === null ? null : kb / 1024);
			return {
				rows: [
					{
						measurement:
							`\`hfx --version\` ÷ \`node -e 0\`: median of ${ratios.length} paired ` +
							`ratios (quartiles ${q1.toFixed(2)} ` +
							`… ${q3.toFixed(2)}), ${process.version}`,
						medianMs: cached!.medianMs,
						minMs: cached!.minMs,
						peakRssMb: rss(cached!.peakRssKb),
						ratio,
						target: `≤ ${LIMIT_RATIO}×`,
						result: ratio <= LIMIT_RATIO ? 'PASS' : 'FAIL',
					},
					{
						measurement: '`hfx --version` with the compile cache off (HFX_NO_COMPILE_CACHE=1): what the cache saves',
						medianMs: uncached!.medianMs,
						minMs: uncached!.minMs,
						peakRssMb: rss(uncached!.peakRssKb),
						ratio: quantile(uncachedRatios, 0.5),
						target: 'context',
						result: 'info',
					},
					{
						measurement: '`node -e 0`',
						medianMs: floor!.medianMs,
						minMs: floor!.minMs,
						peakRssMb: rss(floor!.peakRssKb),
						target: 'context',
						result: 'info',
					},
				],
				notes: [
					`${many.runs} rounds after ${many.warmups} warm-ups (which fill the ` +
						`compile cache in a scratch XDG_CACHE_HOME), all without ` +
						`NODE_EXTRA_CA_CERTS; the ratio column is the median of the per-round ` +
						`ratios to \`node -e 0\`.`,
				],
			};
		} finally {
			fs.rmSync(cacheHome, {recursive: true, force: true});
		}
	},
};
