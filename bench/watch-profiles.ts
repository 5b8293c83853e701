/**
 * Section "watch-profiles": what `hfx watch` over every profile of a root costs against following one (#26:
 * "Following every profile of a root costs ≤ 1.5× following one"; "profiles that did not change cost nothing"). The
 * root of the tui-profiles section (3 × the 1M-message store, each held open by a stand-in agent); `tui-writer.ts`
 * commits 200 times a second into `default`. The CPU share of one core of the watch's process tree (its `head`
 * children included) over a window of readings at `--interval 15s`, after its first reading and 5 s of writes, with
 * `hfx watch --home ROOT` (every profile) and `hfx watch --home ROOT --profile default` (the written one), in
 * interleaved rounds whose order alternates (`BENCH_WATCH_PROFILES_ROUNDS`, default 3;
 * `BENCH_WATCH_PROFILES_WINDOW_S`, default 60). The ratio of the medians is judged.
 */
import {type ChildProcess, spawn} from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {type BenchContext, type Row, type Section, type SectionResult, median} from './harness.js';
import {cpuShare, sleep} from './tui.js';
import {RATE, type Root, makeRoot} from './tui-profiles.js';

const TARGET_RATIO = 1.5;
const ROUNDS = Number(process.env.BENCH_WATCH_PROFILES_ROUNDS ?? 3);
const WINDOW_MS = Number(process.env.BENCH_WATCH_PROFILES_WINDOW_S ?? 60) * 1000;

/** Resolves when the child has exited (at once if it already has). */
const exited = (child: ChildProcess) =>
	new Promise<void>(resolve => (child.exitCode === null ? child.once('exit', () => resolve()) : resolve()));

/** The watch's first reading: its textfile written (every store read once), within 180 s. */
async function firstReading(textfile: string, watch: ChildProcess): Promise<void> {
	const deadline = Date.now() + 180_000;
	while (!fs.existsSync(textfile) && watch.exitCode === null && Date.now() < deadline) {
		await sleep(100);
	}

	if (!fs.existsSync(textfile)) {
		throw new Error(`hfx watch wrote no textfile within 180 s (exit ${watch.exitCode})`);
	}
}

/** One watch's CPU share while the writer commits into `default`. */
async function watchShare(ctx: BenchContext, root: Root, every: boolean): Promise<number> {
	const textfile = path.join(ctx.dataDir, `watch-profiles-${every ? 'every' : 'one'}.prom`);
	fs.rmSync(textfile, {force: true});
	const args = ['watch', '--home', root.root, '--interval', '15s', '--textfile', textfile];
	const watch = spawn(
		process.execPath,
		[path.join(ctx.root, 'dist/hfx.js'), ...args, ...(every ? [] : ['--profile', 'default'])],
		{
			stdio: 'ignore',
		},
	);
	try {
		await firstReading(textfile, watch);
		const writer = spawn(
			process.execPath,
			[
				path.join(ctx.root, 'dist-bench/tui-writer.js'),
				path.join(root.root, 'state.db'),
				root.sessions.default,
				String(RATE),
				String(WINDOW_MS / 1000 + 10),
			],
			{stdio: 'ignore'},
		);
		try {
			await sleep(5000);
			return await cpuShare(watch.pid!, WINDOW_MS);
		} finally {
			writer.kill('SIGTERM');
			await exited(writer);
		}
	} finally {
		watch.kill('SIGTERM');
		await exited(watch);
	}
}

export const watchProfilesSection: Section = {
	id: 'watch-profiles',
	title: `hfx watch over every profile of a root (3 × the 1M-message store) against one, ${RATE} commits/s in one`,
	async run(ctx: BenchContext): Promise<SectionResult> {
		const root = makeRoot(ctx);
		const one: number[] = [];
		const every: number[] = [];
		try {
			for (let round = 0; round < ROUNDS; round++) {
				for (const all of round % 2 === 0 ? [false, true] : [true, false]) {
					const share = await watchShare(ctx, root, all);
					(all ? every : one).push(share);
					ctx.log(`  ${all ? 'every profile' : '--profile default'}: ${(share * 100).toFixed(2)} % of one core`);
				}
			}
		} finally {
			for (const owner of root.owners) {
				owner.close();
			}

			fs.rmSync(root.root, {recursive: true, force: true});
		}

		const ratio = median(every) / median(one);
		const pct = (values: readonly number[]) => values.map(v => (v * 100).toFixed(2)).join('/');
		const rows: Row[] = [
			{
				measurement:
					`CPU of hfx watch over 3 profiles / over the written one: ${(median(every) * 100).toFixed(2)} % / ` +
					`${(median(one) * 100).toFixed(2)} % of one core (medians of ${ROUNDS}, ${WINDOW_MS / 1000} s each, ` +
					'--interval 15s)',
				ratio,
				target: `≤ ${TARGET_RATIO}×`,
				result: ratio <= TARGET_RATIO ? 'PASS' : 'FAIL',
			},
		];
		return {
			rows,
			notes: [`every profile ${pct(every)} %, --profile default ${pct(one)} % of one core, round by round.`],
		};
	},
};
