/**
 * Section "tui": the live TUI on the 1M-message store, in a real pty (`script`), following a
 * writer that commits 200 times a second: time to the first full frame and to the completed
 * analysis (issue #26: render first, analyse after), how long a key pressed meanwhile waits (never blocked by the
 * analysis: the Findings and sessions panes in turn, each key's answer read from the pty), commit-to-screen latency
 * (p50/p95: when a commit's message count first appears on screen), CPU share idle and while
 * following, and resident memory over a long follow (peak and trend).
 */
import {type ChildProcess, spawn} from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import {ensureBenchDb} from './generate.js';
import {type BenchContext, type Row, type Section, type SectionResult, median} from './harness.js';

const RATE = 200;
/** Issue #26: the sessions on screen within 0.4 s, the findings complete within 1 s. */
const TARGET_FIRST_FRAME_MS = 400;
const TARGET_FINDINGS_MS = 1000;
/** Issue #26: never block a keypress on analysis; a key pressed while the first read and analysis run is answered. */
const TARGET_KEY_MS = 50;
/** Separate starts in which keys are pressed from the first frame until the analysis is on screen. */
const KEY_STARTS = Number(process.env.BENCH_TUI_KEY_STARTS ?? 3);
/** Issue #26: a quiet follower. Commit to screen p95, resident memory (flat), and CPU share of one core following. */
const TARGET_P95_MS = 100;
const TARGET_RSS_MB = 150;
const TARGET_FOLLOW_CPU = 0.1;
/** Separate starts timed to their first full frame (the median is judged: one start varies by ±100 ms here). */
const STARTS = Number(process.env.BENCH_TUI_STARTS ?? 5);
/** How long to follow the writer for the memory trend (the issue asks for 10 minutes). */
const FOLLOW_SECONDS = Number(process.env.BENCH_TUI_FOLLOW_SECONDS ?? 600);
const CLK_TCK = 100;

export const ANSI = /\u001B\[[0-9;?]*[ -/]*[@-~]|\u001B[()][0-9A-Za-z]|\u001B[=>]/g;

/** Every process in the tree rooted at pid (hfx, and the short-lived `head` that reads the -shm). */
export function tree(pid: number): number[] {
	const children = new Map<number, number[]>();
	for (const entry of fs.readdirSync('/proc')) {
		if (!/^\d+$/.test(entry)) {
			continue;
		}

		try {
			const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
			const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
			const list = children.get(ppid) ?? [];
			list.push(Number(entry));
			children.set(ppid, list);
		} catch {
			// the process went away
		}
	}

	const out: number[] = [];
	const walk = (p: number) => {
		out.push(p);
		for (const c of children.get(p) ?? []) {
			walk(c);
		}
	};

	walk(pid);
	return out;
}

function ticksOf(pid: number): number | undefined {
	try {
		const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
		const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
		return Number(fields[11]) + Number(fields[12]);
	} catch {
		return undefined; // gone
	}
}

/**
 * CPU share of one core used by a process tree over `ms`: sampled every 250 ms per pid, so a child
 * that exits in the window (each -shm read is a short-lived `head`) keeps the time it used, and one that
 * starts in it counts from zero.
 */
export async function cpuShare(root: number, ms: number): Promise<number> {
	const first = new Map<number, number>();
	const last = new Map<number, number>();
	const sample = (initial: boolean) => {
		for (const pid of tree(root)) {
			const t = ticksOf(pid);
			if (t !== undefined) {
				if (!first.has(pid)) {
					first.set(pid, initial ? t : 0);
				}

				last.set(pid, t);
			}
		}
	};

	sample(true);
	const until = Date.now() + ms;
	while (Date.now() < until) {
		await sleep(Math.min(250, until - Date.now()));
		sample(false);
	}

	let ticks = 0;
	for (const [pid, t] of last) {
		ticks += t - first.get(pid)!;
	}

	return ticks / CLK_TCK / (ms / 1000);
}

export function rssMb(pids: readonly number[]): number {
	let kb = 0;
	for (const pid of pids) {
		try {
			const m = /VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
			kb += Number(m?.[1] ?? 0);
		} catch {
			// gone
		}
	}

	return kb / 1024;
}

function percentile(values: readonly number[], p: number): number {
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

/** A program in a real pty of 140x40 (`script`), without colour, as an operator's terminal. */
export function inPty(command: string): ChildProcess {
	return spawn('script', ['-qfec', `stty cols 140 rows 40; exec ${command}`, '/dev/null'], {
		env: {...process.env, CI: 'false', NO_COLOR: '1', FORCE_COLOR: '0'},
		stdio: ['pipe', 'pipe', 'pipe'],
	});
}

/** A full first frame: the header and the sessions table's footer are both on screen. */
export const isFullFrame = (screen: string): boolean => screen.includes('READ-ONLY') && /\d+ sessions ·/.test(screen);

/**
 * The analysis complete: the sessions footer's status legend, which stands in the footer only once the first analysis
 * is published (while it runs the footer says "analysing…" there: source/ui/panes/sessions.tsx).
 */
const isAnalysed = (screen: string): boolean => /\d+ sessions ·.*Z zombie {2}O orphan/.test(screen);

/**
 * Starts hfx, times its first full frame and its completed analysis from the spawn, quits it with q; rejects after
 * 30 s.
 */
async function timeOneStart(hfx: string, db: string): Promise<{frame: number; analysed: number}> {
	const started = Date.now();
	const tty = inPty(`${process.execPath} ${hfx} --db ${db}`);
	let out = '';
	let frameAt: number | null = null;
	let analysedAt: number | null = null;
	tty.stdout!.on('data', (chunk: Buffer) => {
		out = (out + chunk.toString().replaceAll(ANSI, '')).slice(-64 * 1024);
		if (frameAt === null && isFullFrame(out)) {
			frameAt = Date.now();
		}

		if (frameAt !== null && analysedAt === null && isAnalysed(out)) {
			analysedAt = Date.now();
			tty.stdin!.write('q');
		}
	});
	const exited = new Promise<void>(resolve => tty.once('exit', () => resolve()));
	const timeout = setTimeout(() => tty.kill('SIGKILL'), 30_000);
	await exited;
	clearTimeout(timeout);
	if (frameAt === null || analysedAt === null) {
		throw new Error(`no first frame or no completed analysis within 30 s; output so far: ${out.slice(-400)}`);
	}

	return {frame: frameAt - started, analysed: analysedAt - started};
}

/** What the screen shows once a key was answered: 5 opens Findings, 1 goes back to the sessions. */
const KEY_ANSWERS: ReadonlyArray<[string, RegExp]> = [
	['5', /findings \((?:analysing…|\d+)\)/],
	['1', /\d+ sessions ·/],
];

/**
 * Starts hfx and, from its first full frame until its first analysis is on screen (the Findings title counts, or the
 * sessions footer's legend), presses 5 and 1 in turn, each once the last was answered: the time from each key to the
 * first output after it that shows its pane. Returns the latencies of the keys pressed before the analysis was on
 * screen, and of as many pressed after it (the same path with nothing running: the pty's own floor).
 */
export async function timeKeysDuringAnalysis(hfx: string, db: string): Promise<{during: number[]; after: number[]}> {
	const tty = inPty(`${process.execPath} ${hfx} --db ${db}`);
	let out = '';
	let fresh = '';
	tty.stdout!.on('data', (chunk: Buffer) => {
		const text = chunk.toString().replaceAll(ANSI, '');
		out = (out + text).slice(-64 * 1024);
		fresh = (fresh + text).slice(-64 * 1024);
	});
	const exited = new Promise<void>(resolve => tty.once('exit', () => resolve()));
	const timeout = setTimeout(() => tty.kill('SIGKILL'), 60_000);
	const analysed = () => isAnalysed(out) || /findings \(\d+\)/.test(out);
	const during: number[] = [];
	const after: number[] = [];
	try {
		while (!isFullFrame(out)) {
			await sleep(5);
		}

		for (let i = 0; after.length < Math.max(3, during.length) && i < 400; i++) {
			const [key, answer] = KEY_ANSWERS[i % 2]!;
			const wasAnalysed = analysed();
			fresh = '';
			const asked = Date.now();
			tty.stdin!.write(key);
			while (!answer.test(fresh) && Date.now() - asked < 10_000) {
				await sleep(1);
			}

			(wasAnalysed ? after : during).push(Date.now() - asked);
			await sleep(20);
		}
	} finally {
		tty.stdin!.write('q');
		await exited;
		clearTimeout(timeout);
	}

	return {during, after};
}

/** The floor under any start in this pty: `script`, the shell's stty and a Node that does nothing. */
async function timeEmptyStart(): Promise<number> {
	const started = Date.now();
	const tty = inPty(`${process.execPath} -e 0`);
	await new Promise<void>(resolve => tty.once('exit', () => resolve()));
	return Date.now() - started;
}

/** Least-squares slope of (x minutes, y MB). */
/**
 * A copy of the bench store in `<dataDir>/<folder>/state.db`, held open by a stand-in agent (so
 * -wal and -shm exist and hfx reads it in place), and its newest live keyed session to write to.
 * The writer changes the store: the other sections keep their planted one. The copy is flushed
 * first: otherwise the kernel writes 800 MB back while hfx starts, and the bench times its own I/O.
 */
export function heldStoreCopy(
	ctx: BenchContext,
	folder: string,
): {dir: string; db: string; sessionId: string; owner: Database.Database} {
	const {dbPath: source} = ensureBenchDb({log: ctx.log});
	const dir = path.join(ctx.dataDir, folder);
	fs.rmSync(dir, {recursive: true, force: true});
	fs.mkdirSync(dir, {recursive: true});
	const db = path.join(dir, 'state.db');
	fs.copyFileSync(source, db);
	const fd = fs.openSync(db, 'r+');
	fs.fsyncSync(fd);
	fs.closeSync(fd);
	const owner = new Database(db, {fileMustExist: true});
	owner.pragma('journal_mode = wal');
	const sessionId = owner
		.prepare(
			'SELECT id FROM sessions WHERE session_key IS NOT NULL AND ended_at IS NULL ORDER BY started_at DESC LIMIT 1',
		)
		.pluck()
		.get() as string;
	return {dir, db, sessionId, owner};
}

export function slope(points: ReadonlyArray<[number, number]>): number {
	const n = points.length;
	if (n < 2) {
		return 0;
	}

	const mx = points.reduce((a, [x]) => a + x, 0) / n;
	const my = points.reduce((a, [, y]) => a + y, 0) / n;
	const num = points.reduce((a, [x, y]) => a + (x - mx) * (y - my), 0);
	const den = points.reduce((a, [x]) => a + (x - mx) ** 2, 0);
	return den === 0 ? 0 : num / den;
}

export const sleep = (ms: number) => new Promise(resolve => setTimeout(resolve, ms));

const pct = (share: number) => `${(share * 100).toFixed(1)} %`;

/**
 * The follower's CPU, judged on its mean over the whole follow (every 5 s window from 5 s after the writer started to
 * the end, the 10 minutes of the RSS trend), as the watch section judges `hfx watch`. Until 2026-12-03 the first 10 s
 * alone were judged: the window in which V8 still compiles the follow path (one 150 s follow, 10 s windows: 10.3 %
 * in the first, 8.7 % mean, 7.0-10.6 % after), so one noisy window decided the row. It is still shown beside the mean.
 */
function followCpuRow(windows: readonly number[]): Row {
	const mean = windows.reduce((a, b) => a + b, 0) / windows.length;
	const worst = worstTenSeconds(windows);
	return {
		measurement:
			`CPU share following ${RATE} commits/s: ${pct(mean)} of one core, the mean over the follow ` +
			`(${((windows.length * 5) / 60).toFixed(1)} min; its first 10 s ${pct(windows[0] ?? 0)}, ` +
			`the worst 10 s after them ${worst === null ? 'n/a' : pct(worst)})`,
		target: `<= ${TARGET_FOLLOW_CPU * 100} % of one core`,
		result: mean <= TARGET_FOLLOW_CPU ? 'PASS' : 'FAIL',
	};
}

/** The worst two consecutive 5 s windows after the first 10 s (null: the follow was too short to have two). */
function worstTenSeconds(windows: readonly number[]): number | null {
	let worst: number | null = null;
	for (let i = 2; i + 1 < windows.length; i++) {
		worst = Math.max(worst ?? 0, (windows[i]! + windows[i + 1]!) / 2);
	}

	return worst;
}

/**
 * The spread of the follow's 5 s windows, and their mean minute by minute: whether a high mean is high throughout or
 * in a phase (two runs of one build read 10.3 and 8.7 % on 2026-12-03, their medians 9.8 and 8.6 %).
 */
function followCpuNote(windows: readonly number[]): string {
	const sorted = [...windows].sort((a, b) => a - b);
	const highest = windows.indexOf(sorted.at(-1) ?? 0);
	const minutes: string[] = [];
	for (let i = 0; i < windows.length; i += 12) {
		const minute = windows.slice(i, i + 12);
		minutes.push(((minute.reduce((a, b) => a + b, 0) / minute.length) * 100).toFixed(1));
	}

	return (
		`Following: the CPU share of one core in ${windows.length} windows of 5 s (the first 10 s counted as two): ` +
		`median ${pct(median(sorted))}, lowest 5 s ${pct(sorted[0] ?? 0)}, highest 5 s ${pct(sorted.at(-1) ?? 0)} ` +
		`(${((highest * 5) / 60).toFixed(1)} min into the follow). Minute by minute: ${minutes.join(' · ')} %.`
	);
}

export const tuiSection: Section = {
	id: 'tui',
	title: 'the live TUI on the 1M-message store, following a writer at 200 commits/s',
	async run(ctx: BenchContext): Promise<SectionResult> {
		const rows: Row[] = [];
		const notes: string[] = [];
		const {dir, db, sessionId, owner} = heldStoreCopy(ctx, 'tui');

		// Time to the first full frame: separate starts, each quit with q, interleaved with the floor.
		const hfx = path.join(ctx.root, 'dist/hfx.js');
		const starts: number[] = [];
		const analysed: number[] = [];
		const floors: number[] = [];
		for (let i = 0; i < STARTS; i++) {
			floors.push(await timeEmptyStart());
			const one = await timeOneStart(hfx, db);
			starts.push(one.frame);
			analysed.push(one.analysed);
		}

		ctx.log(
			`  first full frame: ${starts.join('/')} ms; analysis complete: ${analysed.join('/')} ms; ` +
				`empty node in the same pty: ${floors.join('/')} ms`,
		);
		rows.push({
			measurement: `time to the first full frame, sessions on screen (${STARTS} starts, 140x40 pty)`,
			medianMs: median(starts),
			minMs: Math.min(...starts),
			target: `≤ ${TARGET_FIRST_FRAME_MS} ms`,
			result: median(starts) <= TARGET_FIRST_FRAME_MS ? 'PASS' : 'FAIL',
		});
		rows.push({
			measurement: 'time to the findings complete (the first analysis on screen, same starts)',
			medianMs: median(analysed),
			minMs: Math.min(...analysed),
			target: `≤ ${TARGET_FINDINGS_MS} ms`,
			result: median(analysed) <= TARGET_FINDINGS_MS ? 'PASS' : 'FAIL',
		});
		const keys = {during: [] as number[], after: [] as number[]};
		for (let i = 0; i < KEY_STARTS; i++) {
			const one = await timeKeysDuringAnalysis(hfx, db);
			keys.during.push(...one.during);
			keys.after.push(...one.after);
		}

		ctx.log(`  keys during the first analysis: ${keys.during.join('/')} ms; after it: ${keys.after.join('/')} ms`);
		const keyP95 = percentile(keys.during, 95);
		rows.push({
			measurement:
				`a key answered during the first read and analysis, p95 (${keys.during.length} keys, ` +
				`${KEY_STARTS} starts: 5 and 1 in turn from the first frame)`,
			medianMs: keyP95,
			minMs: Math.min(...keys.during),
			target: `≤ ${TARGET_KEY_MS} ms`,
			result: keyP95 <= TARGET_KEY_MS ? 'PASS' : 'FAIL',
		});
		rows.push({
			measurement: 'the same keys once the analysis is on screen, p95 (the floor of a key through the pty)',
			medianMs: percentile(keys.after, 95),
			minMs: Math.min(...keys.after),
			target: 'context',
			result: 'info',
		});
		rows.push({
			measurement: 'the floor: `node -e 0` in the same pty (script + stty + Node start-up)',
			medianMs: median(floors),
			minMs: Math.min(...floors),
			target: 'context',
			result: 'info',
		});

		// Then one instance that stays: idle, following the writer, memory over the long follow.
		let out = '';
		const seen: Array<[number, number]> = [];
		const rowPattern = new RegExp(`${sessionId}.*?(?:ago|just now)\\s+(\\d+)`, 'g');
		const started = Date.now();
		let firstFrameMs: number | null = null;
		const tty = inPty(`${process.execPath} ${hfx} --db ${db}`);
		tty.stdout!.on('data', (chunk: Buffer) => {
			const now = Date.now();
			out = (out + chunk.toString().replaceAll(ANSI, '')).slice(-64 * 1024);
			if (firstFrameMs === null && isFullFrame(out)) {
				firstFrameMs = now - started;
			}

			rowPattern.lastIndex = 0;
			let last: RegExpExecArray | null = null;
			for (let m = rowPattern.exec(out); m; m = rowPattern.exec(out)) {
				last = m;
			}

			if (last) {
				const count = Number(last[1]);
				if (seen.length === 0 || count > seen.at(-1)![1]) {
					seen.push([now, count]);
				}
			}
		});
		try {
			const deadline = Date.now() + 30_000;
			while (firstFrameMs === null && Date.now() < deadline) {
				await sleep(10);
			}

			if (firstFrameMs === null) {
				throw new Error(`no first frame within 30 s; output so far: ${out.slice(-400)}`);
			}

			// The idle share is of a view that has finished its first analysis (it runs after the first frame).
			while (!isAnalysed(out) && Date.now() < deadline) {
				await sleep(10);
			}

			const nodePid = tree(tty.pid!).find(p => {
				try {
					return fs.readFileSync(`/proc/${p}/cmdline`, 'utf8').includes('dist/hfx.js');
				} catch {
					return false;
				}
			});
			if (!nodePid) {
				throw new Error('could not find the hfx process under the pty');
			}

			notes.push(`The instance that stayed for the follow showed its first full frame after ${firstFrameMs} ms.`);

			// Idle: nobody writes.
			await sleep(2000);
			const idleShare = await cpuShare(nodePid, 10_000);

			// Following a writer at 200 commits/s.
			const writer = spawn(
				process.execPath,
				[path.join(ctx.root, 'dist-bench/tui-writer.js'), db, sessionId, String(RATE), String(FOLLOW_SECONDS + 20)],
				{stdio: ['ignore', 'pipe', 'inherit']},
			);
			let writerOut = '';
			writer.stdout!.on('data', (d: Buffer) => {
				writerOut += d.toString();
			});
			const writerDone = new Promise<void>(resolve => writer.once('exit', () => resolve()));
			await sleep(5000);
			const firstShare = await cpuShare(nodePid, 10_000);
			const samples: Array<[number, number]> = [];
			// The CPU share of each 5 s of the follow, as the watch section measures it (the first 10 s above included).
			const windows: number[] = [firstShare, firstShare];
			const followFrom = Date.now();
			while (
				Date.now() - started < FOLLOW_SECONDS * 1000 + 30_000 &&
				Date.now() - followFrom < FOLLOW_SECONDS * 1000 - 15_000
			) {
				samples.push([(Date.now() - followFrom) / 60_000, rssMb(tree(nodePid))]);
				windows.push(await cpuShare(nodePid, 5000));
			}

			writer.kill('SIGTERM');
			await writerDone;
			const commits = (
				JSON.parse(writerOut.trim().split('\n').at(-1) ?? '{"commits":[]}') as {commits: Array<[number, number]>}
			).commits;
			const latencies: number[] = [];
			let j = 0;
			for (const [at, count] of commits) {
				while (j < seen.length && seen[j]![1] < count) {
					j++;
				}

				if (j < seen.length) {
					latencies.push(Math.max(0, seen[j]![0] - at));
				}
			}

			const p50 = percentile(latencies, 50);
			const p95 = percentile(latencies, 95);
			rows.push({
				measurement:
					`commit-to-screen latency p50 ` +
					`(${latencies.length.toLocaleString('en-US')} ` +
					`of ${commits.length.toLocaleString('en-US')} commits seen)`,
				medianMs: p50,
				target: 'report',
				result: 'info',
			});
			rows.push({
				measurement: 'commit-to-screen latency p95',
				medianMs: p95,
				target: `<= ${TARGET_P95_MS} ms`,
				result: p95 <= TARGET_P95_MS ? 'PASS' : 'FAIL',
			});
			rows.push({
				measurement: `CPU share idle: ${(idleShare * 100).toFixed(1)} % of one core (10 s)`,
				target: 'report',
				result: 'info',
			});
			rows.push(followCpuRow(windows));
			notes.push(followCpuNote(windows));
			const peak = Math.max(...samples.map(([, y]) => y));
			const half = samples.filter(([x]) => x >= (samples.at(-1)?.[0] ?? 0) / 2);
			const trend = slope(half);
			const minutes = samples.at(-1)?.[0] ?? 0;
			rows.push({
				measurement: `peak RSS over ${minutes.toFixed(1)} min of following (hfx and its child processes)`,
				peakRssMb: peak,
				target: `<= ${TARGET_RSS_MB} MB, no growth trend`,
				result: peak <= TARGET_RSS_MB && trend < 1 ? 'PASS' : 'FAIL',
			});
			notes.push(
				`RSS samples every 5 s: first ${samples[0]?.[1].toFixed(0)} MB, ` +
					`last ${samples.at(-1)?.[1].toFixed(0)} MB, peak ${peak.toFixed(0)} MB; ` +
					`trend over the second half ${trend.toFixed(2)} MB/min (limit 1 MB/min). ` +
					`Latency = from each commit to the first frame showing that commit's ` +
					`message count (frames read from the pty stream); hfx coalesces bursts ` +
					`of commits into one refresh.`,
			);
		} finally {
			tty.kill('SIGTERM');
			owner.close();
			fs.rmSync(dir, {recursive: true, force: true});
		}

		return {rows, notes};
	},
};
