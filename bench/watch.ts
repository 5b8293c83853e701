/**
 * Section "watch": `hfx watch` (headless, for systemd) on the 1M-message store while a writer
 * commits 200 times a second, beside the TUI's figures: CPU share of one core and resident memory
 * over the follow (peak and trend). Judged as contrib/systemd/hfx-watch.service runs it (its
 * NODE_OPTIONS caps V8's young generation); the bare bin follows the same writer beside it, for
 * context. The issue asks for 10 minutes: `--watch-seconds 600` (or BENCH_WATCH_FOLLOW_SECONDS=600);
 * the default run follows 60 s. Beside them, the leak probe (bench/watch-heap.ts) runs the same
 * follower with a full GC after each reading and reports the live heap, apart from V8's reserve.
 */
import {spawn} from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {type BenchContext, type Row, type Section, type SectionResult, median} from './harness.js';
import {cpuShare, heldStoreCopy, rssMb, sleep, slope, tree} from './tui.js';

const RATE = 200;
const TARGET_CPU = 0.03;
const TARGET_RSS_MB = 120;
const INTERVAL = '15s';
const FLAT_MB = 5;
/** Minutes of a long follow left out of the flatness thirds (see figuresOf). */
const WARMUP_MINUTES = 3;
/** The leak probe reads more often than the watch (15 s), so ten minutes make many readings. */
const HEAP_EVERY_SECONDS = 5;

/** CPU share in 10 s windows and RSS every 5 s over `seconds`. */
async function follow(pid: number, seconds: number): Promise<{cpu: number[]; rss: Array<[number, number]>}> {
	const cpu: number[] = [];
	const rss: Array<[number, number]> = [];
	const from = Date.now();
	while (Date.now() - from < seconds * 1000) {
		rss.push([(Date.now() - from) / 60_000, rssMb(tree(pid))]);
		cpu.push(await cpuShare(pid, 5000));
		rss.push([(Date.now() - from) / 60_000, rssMb(tree(pid))]);
		cpu.push(await cpuShare(pid, 5000));
	}

	return {cpu, rss};
}

/** NODE_OPTIONS as contrib/systemd/hfx-watch.service sets it (read from the unit, so the two cannot drift). */
function unitNodeOptions(root: string): string {
	const unit = fs.readFileSync(path.join(root, 'contrib/systemd/hfx-watch.service'), 'utf8');
	return /^Environment=NODE_OPTIONS=(.*)$/m.exec(unit)?.[1] ?? '';
}

type Figures = {
	mean: number;
	worst: number;
	peak: number;
	growth: number;
	trend: number;
	flat: boolean;
	first: number;
	last: number;
};

function figuresOf({cpu, rss}: {cpu: number[]; rss: Array<[number, number]>}, seconds: number): Figures {
	const trend = slope(rss.filter(([x]) => x >= (rss.at(-1)?.[0] ?? 0) / 2));
	// Flat: the last third of the samples no higher than the first third (GC makes a sawtooth of a
	// few MB, so a slope over a short run says little); over 5 minutes and more, also the slope.
	// On runs of 5 minutes and more the thirds are taken after a warm-up of WARMUP_MINUTES: V8 sizes
	// its old generation to the allocation rate over the first ~3 minutes (measured: heapTotal 35 ->
	// 66 MB while the live heap after a forced full GC stayed at 31.7-31.9 MB), which is start-up,
	// not growth. The warm-up samples still count for the peak.
	const steady = seconds >= 300 ? rss.filter(([x]) => x >= WARMUP_MINUTES) : rss;
	const third = Math.max(1, Math.floor(steady.length / 3));
	const growth = median(steady.slice(-third).map(([, y]) => y)) - median(steady.slice(0, third).map(([, y]) => y));
	return {
		mean: cpu.reduce((a, b) => a + b, 0) / Math.max(1, cpu.length),
		worst: Math.max(...cpu),
		peak: Math.max(...rss.map(([, y]) => y)),
		growth,
		trend,
		flat: growth < FLAT_MB && (seconds < 300 || trend < 1),
		first: rss[0]?.[1] ?? Number.NaN,
		last: rss.at(-1)?.[1] ?? Number.NaN,
	};
}

function rowsOf(unit: Figures, plain: Figures, seconds: number, options: string): Row[] {
	const span = `${(seconds / 60).toFixed(1)} min`;
	return [
		{
			measurement:
				`CPU share following ${RATE} commits/s: ` +
				`mean ${(unit.mean * 100).toFixed(1)} %, worst 5 ` +
				`s ${(unit.worst * 100).toFixed(1)} % of one core (${span}, ` +
				`--interval ${INTERVAL}, the unit's NODE_OPTIONS=${options})`,
			target: `≤ ${TARGET_CPU * 100} % of one core`,
			result: unit.mean <= TARGET_CPU ? 'PASS' : 'FAIL',
		},
		{
			measurement: `peak RSS over ${span} of following, as the systemd unit runs it (hfx and its child processes)`,
			peakRssMb: unit.peak,
			target: `≤ ${TARGET_RSS_MB} MB, no growth trend`,
			result: unit.peak <= TARGET_RSS_MB && unit.flat ? 'PASS' : 'FAIL',
		},
		{
			measurement: `the bare bin (no NODE_OPTIONS) beside it: CPU mean ${(plain.mean * 100).toFixed(1)} % of one core`,
			peakRssMb: plain.peak,
			target: 'context',
			result: 'info',
		},
	];
}

const describeRss = (label: string, f: Figures) =>
	`${label}: RSS every 5 s first ${f.first.toFixed(0)} MB, ` +
	`last ${f.last.toFixed(0)} MB, peak ${f.peak.toFixed(0)} MB; last third ` +
	`minus first third ${f.growth.toFixed(1)} MB (limit ${FLAT_MB} MB; on ` +
	`runs of 5 min and more, of the samples after a ${WARMUP_MINUTES}-min ` +
	`warm-up); slope over the second half ${f.trend.toFixed(2)} MB/min ` +
	`(limit 1 MB/min, judged on runs of 5 min and more).`;

/** The leak probe (bench/watch-heap.ts) beside the two watches, on the same store and writer. */
function heapProbe(ctx: BenchContext, db: string, seconds: number) {
	const child = spawn(
		process.execPath,
		['--expose-gc', path.join(ctx.root, 'dist-bench/watch-heap.js'), db, String(seconds), String(HEAP_EVERY_SECONDS)],
		{stdio: ['ignore', 'pipe', 'inherit']},
	);
	let out = '';
	child.stdout!.on('data', (d: Buffer) => {
		out += d.toString();
	});
	const result = new Promise<HeapSamples>((resolve, reject) => {
		child.once('exit', code =>
			code === 0 ? resolve(JSON.parse(out) as HeapSamples) : reject(new Error(`the heap probe exited with ${code}`)),
		);
	});
	return {child, result};
}

type HeapSamples = {samples: Array<{at: number; live: number; total: number}>; failed: string | null};

/** Live heap after a full GC, first third against last third: what a leak would raise. */
function liveHeapOf({samples, failed}: HeapSamples): {row: Row; note: string} {
	if (failed !== null || samples.length < 3) {
		return {
			row: {
				measurement: `live heap of the same follower after a full GC: no readings (${failed ?? 'too few'})`,
				target: 'report',
				result: 'info',
			},
			note: '',
		};
	}

	const third = Math.floor(samples.length / 3);
	const [first, last] = [
		median(samples.slice(0, third).map(s => s.live)),
		median(samples.slice(-third).map(s => s.live)),
	];
	const totals = samples.map(s => s.total);
	return {
		row: {
			measurement:
				`live heap of the same follower after a full GC (${samples.length} ` +
				`readings, every ${HEAP_EVERY_SECONDS} s): first ` +
				`third ${first.toFixed(1)} MB, last third ${last.toFixed(1)} MB`,
			target: 'report (a leak raises it)',
			result: 'info',
		},
		note:
			`the leak probe (bench/watch-heap.ts, --expose-gc): live ` +
			`heap ${first.toFixed(1)} -> ${last.toFixed(1)} MB, while V8's reserved ` +
			`heap ` +
			`ranged ${Math.min(...totals).toFixed(0)}-${Math.max(...totals).toFixed(0)} ` +
			`MB: RSS moves with the reserve, not with what the follower keeps.`,
	};
}

function startWatch(ctx: BenchContext, db: string, textfile: string, nodeOptions: string | null) {
	const env = {...process.env};
	delete env.NODE_OPTIONS;
	return spawn(
		process.execPath,
		[
			path.join(ctx.root, 'dist/hfx.js'),
			'watch',
			'--db',
			db,
			'--interval',
			INTERVAL,
			'--textfile',
			textfile,
			'--json-lines',
		],
		{stdio: ['ignore', 'ignore', 'inherit'], env: nodeOptions === null ? env : {...env, NODE_OPTIONS: nodeOptions}},
	);
}

export const watchSection: Section = {
	id: 'watch',
	title: 'hfx watch (headless) on the 1M-message store, following a writer at 200 commits/s',
	async run(ctx: BenchContext): Promise<SectionResult> {
		const seconds = Number(process.env.BENCH_WATCH_FOLLOW_SECONDS ?? 60);
		const options = unitNodeOptions(ctx.root);
		const {dir, db, sessionId, owner} = heldStoreCopy(ctx, 'watch');
		fs.mkdirSync(path.join(dir, 'textfile'));
		const textfile = path.join(dir, 'textfile', 'hfx.prom');
		// Both follow the same writer at once: as the unit runs it (the target), and the bare bin (context).
		const unit = startWatch(ctx, db, textfile, options);
		const plain = startWatch(ctx, db, path.join(dir, 'textfile', 'plain.prom'), null);
		const writer = spawn(
			process.execPath,
			[path.join(ctx.root, 'dist-bench/tui-writer.js'), db, sessionId, String(RATE), String(seconds + 60)],
			{stdio: ['ignore', 'ignore', 'inherit']},
		);
		const heap = heapProbe(ctx, db, seconds + 5);
		try {
			const started = Date.now();
			while (!fs.existsSync(textfile) && Date.now() - started < 60_000) {
				await sleep(50);
			}

			const firstMs = Date.now() - started;
			await sleep(5000);
			const [u, p] = await Promise.all([follow(unit.pid!, seconds), follow(plain.pid!, seconds)]);
			const [uf, pf] = [figuresOf(u, seconds), figuresOf(p, seconds)];
			const live = liveHeapOf(await heap.result);
			const rows = [
				...rowsOf(uf, pf, seconds, options),
				live.row,
				{measurement: `first textfile after ${firstMs} ms`, target: 'report', result: 'info'} satisfies Row,
			];
			return {
				rows,
				notes: [
					describeRss(`as the unit runs it (NODE_OPTIONS=${options})`, uf),
					describeRss('the bare bin', pf),
					live.note,
					'CPU is the watch process tree (hfx and the short-lived `head` reading ' +
						'the -shm), in 5 s windows. Ten minutes: --watch-seconds 600 (or ' +
						'BENCH_WATCH_FOLLOW_SECONDS=600).',
				],
			};
		} finally {
			for (const child of [unit, plain, writer, heap.child]) {
				child.kill('SIGTERM');
			}

			owner.close();
			await sleep(500);
			fs.rmSync(dir, {recursive: true, force: true});
		}
	},
};
