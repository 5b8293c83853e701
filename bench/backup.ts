/**
 * Section "backup": the three targets of issue #15, side by side in one run on the 1M-message store.
 *
 * 1. Quiet store: a verified `hfx backup` end to end against the same work done by hand, as one
 *    shell pipeline: `sqlite3 -readonly SRC ".backup COPY" && sqlite3 COPY "PRAGMA integrity_check"
 *    && sha256sum COPY`. Target: hfx's median at most 0.8x the pipeline's median. Interleaved
 *    rounds (the order alternates round by round), outputs removed and `sync` run before every
 *    timed command, outside the timing. As in the scan section, a sqlite3 process holds the store
 *    open (the stand-in for the idle agent), so -wal and -shm exist and hfx copies it in place; the
 *    root's state.db is a hard link to the cached store (nothing here writes it).
 * 2. Live store: a copy of the store (never the cached one) written by a second process committing
 *    200 times a second (bench/tui-writer.ts, better-sqlite3 in WAL). `hfx backup --json` of it must
 *    finish with 0 restarts (its databases[].restarts), integrity ok and a message count inside the
 *    writer's window; then, under the same writer, `sqlite3 -readonly DB ".backup FILE"` gets 60 s.
 * 3. Memory: peak RSS of hfx backup (GNU time %M of the timed runs, VmHWM of the sampled ones) at
 *    most 256 MB, with anonymous and file-backed memory apart (bench/proc-memory.ts).
 */
import {type ChildProcess, spawn, spawnSync} from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import {type BenchDb, ensureBenchDb} from './generate.js';
import {
	type BenchContext,
	type Row,
	type Sample,
	type Section,
	type SectionResult,
	mb,
	median,
	runOnce,
} from './harness.js';
import {type BoundedRun, runSampled} from './proc-memory.js';

const SQLITE3 = '/usr/bin/sqlite3';
const TARGET_RATIO = 0.8;
const TARGET_RSS_MB = 256;
const RATE = 200;
const SQLITE_BOUND_S = 60;

/** The same work as a verified hfx backup, by hand: copy, check the copy, hash the copy. */
const BASELINE_SCRIPT =
	'sqlite3 -readonly "$1" ".backup \'$2\'" && sqlite3 "$2" "PRAGMA integrity_check" && sha256sum "$2"';

type HfxJson = {
	ms: number;
	bytes: number;
	verified: boolean;
	exitCode: number;
	phases: Record<string, number>;
	databases: Array<{
		path: string;
		copyMs: number;
		checkMs: number;
		pinnedMs: number;
		steps: number;
		restarts: number;
		openMode: string;
		integrity: string;
		counts: Record<string, number>;
	}>;
};

/** A sqlite3 process holding the store open, as the running agent does (creates -wal/-shm). */
async function startOwner(dbPath: string): Promise<{stop: () => Promise<void>}> {
	const child: ChildProcess = spawn(SQLITE3, [dbPath], {stdio: ['pipe', 'ignore', 'pipe']});
	let stderr = '';
	child.stderr!.on('data', (d: Buffer) => {
		stderr += d.toString();
	});
	const exited = new Promise<void>(resolve => {
		child.once('exit', () => resolve());
	});
	process.once('exit', () => child.kill('SIGTERM'));
	child.stdin!.write('.timeout 5000\nSELECT count(*) FROM sqlite_master;\n');
	const deadline = Date.now() + 10_000;
	while (!(fs.existsSync(`${dbPath}-wal`) && fs.existsSync(`${dbPath}-shm`))) {
		if (Date.now() > deadline || child.exitCode !== null) {
			child.kill('SIGTERM');
			throw new Error(`the owner process did not open ${dbPath}: ${stderr.trim()}`);
		}

		await new Promise(resolve => setTimeout(resolve, 10));
	}

	return {
		async stop() {
			child.stdin!.end();
			await Promise.race([exited, new Promise(resolve => setTimeout(resolve, 5000))]);
			child.kill('SIGTERM');
		},
	};
}

/** Removes a run's output (a zip or a SQLite copy with its sidecars) and hfx's files in its folder. */
function clean(file: string): void {
	for (const s of ['', '-journal', '-wal', '-shm']) {
		fs.rmSync(`${file}${s}`, {force: true});
	}

	const dir = path.dirname(file);
	for (const n of fs.readdirSync(dir)) {
		if (n.startsWith('.hfx-') || n === 'hfx-records.jsonl') {
			fs.rmSync(path.join(dir, n), {recursive: true, force: true});
		}
	}
}

/** A Hermes root with `state.db` (a hard link, or a copy when `copy`) and a config.yaml. */
function makeRoot(dir: string, source: string, copy: boolean): string {
	fs.rmSync(dir, {recursive: true, force: true});
	fs.mkdirSync(dir, {recursive: true});
	const db = path.join(dir, 'state.db');
	if (copy) {
		fs.copyFileSync(source, db);
	} else {
		fs.linkSync(source, db);
	}

	fs.writeFileSync(path.join(dir, 'config.yaml'), 'terminal:\n  backend: local\n');
	return db;
}

function parseHfx(run: BoundedRun, what: string): HfxJson {
	if (run.code !== 0) {
		throw new Error(`${what}: hfx backup exited with ${run.code}: ${run.stderr.trim().slice(0, 2000)}`);
	}

	return JSON.parse(run.stdout) as HfxJson;
}

const s1 = (ms: number): string => (ms / 1000).toFixed(1);

type Quiet = {rows: Row[]; notes: string[]; rssKb: number[]; probe: BoundedRun};

/** Target 1: hfx backup against the hand-made pipeline on the quiet store, interleaved rounds. */
async function quietStore(ctx: BenchContext, bench: BenchDb, work: string, cli: string): Promise<Quiet> {
	const root = path.join(work, 'quiet-root');
	const out = path.join(work, 'quiet-out');
	fs.mkdirSync(out, {recursive: true});
	const db = makeRoot(root, bench.dbPath, false);
	const env = {...process.env, NO_COLOR: '1'};
	const hfxOut = path.join(out, 'hfx.zip');
	const copy = path.join(out, 'baseline.db');
	const specs = [
		{
			label: '`hfx backup --home ROOT -o FILE` (verified end to end)',
			command: process.execPath,
			args: [cli, 'backup', '--home', root, '-o', hfxOut],
			output: hfxOut,
		},
		{
			label:
				'`sqlite3 -readonly SRC ".backup COPY" && sqlite3 COPY "PRAGMA integrity_check" && sha256sum COPY` (baseline)',
			command: '/bin/sh',
			args: ['-c', BASELINE_SCRIPT, 'baseline', db, copy],
			output: copy,
		},
	];
	const owner = await startOwner(db);
	try {
		// The probe round (also the warm-up): hfx --json sampled for memory, the baseline checked to do its work.
		clean(hfxOut);
		const probe = await runSampled(process.execPath, [cli, 'backup', '--home', root, '-o', hfxOut, '--json'], {
			boundMs: 600_000,
			env,
		});
		const json = parseHfx(probe, 'quiet store');
		clean(copy);
		const base = spawnSync('/bin/sh', ['-c', BASELINE_SCRIPT, 'baseline', db, copy], {encoding: 'utf8'});
		if (base.status !== 0 || !/^ok\n[0-9a-f]{64} {2}/m.test(base.stdout)) {
			throw new Error(`the baseline pipeline did not do its work (${base.status}): ${base.stdout}${base.stderr}`);
		}

		// The probe round is the first warm-up; further ones (--warmups) are run and discarded.
		const samples: Sample[][] = specs.map(() => []);
		const warmups = Math.max(0, ctx.warmups - 1);
		for (let round = 0; round < warmups + ctx.runs; round++) {
			const order = round % 2 === 0 ? [0, 1] : [1, 0];
			for (const i of order) {
				const s = specs[i]!;
				clean(s.output);
				spawnSync('sync');
				const sample = await runOnce(s.command, s.args, {env});
				if (round >= warmups) {
					samples[i]!.push(sample);
				}
			}
		}

		for (const s of specs) {
			clean(s.output);
		}
		return {
			...quietRows(
				ctx,
				specs.map(s => s.label),
				samples,
				json,
				bench,
			),
			probe,
			rssKb: samples[0]!.map(s => s.rssKb ?? 0),
		};
	} finally {
		await owner.stop();
	}
}

function quietRows(
	ctx: BenchContext,
	labels: string[],
	samples: Sample[][],
	json: HfxJson,
	bench: BenchDb,
): {rows: Row[]; notes: string[]} {
	const [hfx, baseline] = samples.map((runs, i) => {
		const ms = runs.map(r => r.ms);
		ctx.log(`  ${labels[i]}: median ${median(ms).toFixed(0)} ms, runs ${ms.map(v => v.toFixed(0)).join('/')} ms`);
		const cpu = runs.map(r => r.cpuMs).filter((v): v is number => typeof v === 'number');
		return {
			median: median(ms),
			min: Math.min(...ms),
			rss: Math.max(...runs.map(r => r.rssKb ?? 0)),
			runs: ms,
			cpuMs: cpu.length > 0 ? median(cpu) : null,
		};
	});
	const ratio = hfx!.median / baseline!.median;
	// Context for a noisy machine: each round's hfx run over the baseline run beside it.
	const paired = hfx!.runs.map((ms, i) => ms / baseline!.runs[i]!);
	const main = json.databases.find(d => d.path === 'state.db')!;
	const rows: Row[] = [
		{
			measurement: `quiet store: ${labels[0]}`,
			medianMs: hfx!.median,
			minMs: hfx!.min,
			peakRssMb: mb(hfx!.rss),
			ratio,
			target: `≤ ${TARGET_RATIO}× the baseline`,
			result: ratio <= TARGET_RATIO ? 'PASS' : 'FAIL',
		},
		{
			measurement: `quiet store: ${labels[1]}`,
			medianMs: baseline!.median,
			minMs: baseline!.min,
			peakRssMb: mb(baseline!.rss),
			ratio: 1,
			target: 'baseline (the same work by hand)',
			result: 'info',
		},
	];
	const notes = [
		`Quiet store: ${bench.dbPath} ` +
			`(${(bench.manifest.dbBytes / 1_048_576).toFixed(0)} ` +
			`MiB, ${bench.manifest.messages.toLocaleString('en-US')} messages), held ` +
			`open by an idle sqlite3 process. Timed runs: ` +
			`hfx ${hfx!.runs.map(s1).join(' / ')} s; ` +
			`baseline ${baseline!.runs.map(s1).join(' / ')} s (the order alternates ` +
			`round by round; outputs removed and \`sync\` run before each, untimed). ` +
			`The target is the ratio of the medians; round by round (each hfx run ` +
			`over the baseline run beside ` +
			`it) ${paired.map(r => `${r.toFixed(2)}×`).join(' / ')}, ` +
			`median ${median(paired).toFixed(2)}×, for context.`,
		`Where hfx's time goes (the probe run, ${Math.round(json.ms)} ms ` +
			`in-process): ${Object.entries(json.phases)
				.map(([k, v]) => `${k} ${v}`)
				.join(' · ')} ` +
			`ms. The SQLite copy took ${main.copyMs} ms (read transaction ` +
			`pinned ${main.pinnedMs} ms, ${main.steps} steps); integrity_check + ` +
			`counts on the copy ${main.checkMs} ms in a worker thread, while the ` +
			`copy streams into the archive.`,
		`CPU time (user + system, median of the timed runs, GNU time): ` +
			`hfx ${hfx!.cpuMs === null ? '?' : s1(hfx!.cpuMs)} s over its two ` +
			`threads (main: copy, archive stream, hashing; worker: integrity_check), ` +
			`the baseline ${baseline!.cpuMs === null ? '?' : s1(baseline!.cpuMs)} s ` +
			`in one process at a time. On a machine busy with other work the ` +
			`wall-time ratio moves with the load; the CPU times much less.`,
		'Both sides do the whole work: a consistent copy, integrity_check of the ' +
			'copy, sha256 of the copy. hfx also reads the counts in the pinned ' +
			'transaction and again on the copy, CRC-32s every member, seals the ' +
			'archive (sha256 of all of it), fsyncs it and reads it back; the ' +
			'baseline\'s output ("ok" and the hash) was checked once before the ' +
			'timed rounds.',
	];
	return {rows, notes};
}

type Commit = [at: number, sessionCount: number];

/** Commits of the writer in [from, to] (Date.now() ms) and their rate per second. */
function commitsIn(commits: Commit[], from: number, to: number): {n: number; rate: number} {
	const n = commits.filter(([at]) => at >= from && at <= to).length;
	return {n, rate: n / Math.max(0.001, (to - from) / 1000)};
}

type Live = {rows: Row[]; notes: string[]; hfx: BoundedRun};

/** Target 2: hfx and sqlite3 .backup of a copy of the store while a second process commits 200 times a second. */
async function liveStore(bench: BenchDb, work: string, cli: string, root: string): Promise<Live> {
	const liveRoot = path.join(work, 'live-root');
	const out = path.join(work, 'live-out');
	fs.mkdirSync(out, {recursive: true});
	const db = makeRoot(liveRoot, bench.dbPath, true);
	const reader = new Database(db, {readonly: true, fileMustExist: true});
	const baseMessages = reader.prepare('SELECT count(*) FROM messages').pluck().get() as number;
	const sessionId = reader
		.prepare(
			'SELECT id FROM sessions WHERE session_key IS NOT NULL AND ended_at IS NULL ORDER BY started_at DESC LIMIT 1',
		)
		.pluck()
		.get() as string;
	reader.close();
	const writer = spawn(
		process.execPath,
		[path.join(root, 'dist-bench/tui-writer.js'), db, sessionId, String(RATE), '900'],
		{stdio: ['ignore', 'pipe', 'inherit']},
	);
	let writerOut = '';
	writer.stdout!.on('data', (d: Buffer) => {
		writerOut += d.toString();
	});
	const writerDone = new Promise<void>(resolve => {
		writer.once('exit', () => resolve());
	});
	process.once('exit', () => writer.kill('SIGKILL'));
	try {
		await new Promise(resolve => setTimeout(resolve, 2000));
		const hfxFrom = Date.now();
		const hfx = await runSampled(
			process.execPath,
			[cli, 'backup', '--home', liveRoot, '-o', path.join(out, 'hfx.zip'), '--json'],
			{boundMs: 600_000, env: {...process.env, NO_COLOR: '1'}},
		);
		const hfxTo = Date.now();
		const sqlite = await runSampled(SQLITE3, ['-readonly', db, `.backup '${path.join(out, 'sqlite3.db')}'`], {
			boundMs: SQLITE_BOUND_S * 1000,
		});
		const sqliteTo = Date.now();
		writer.kill('SIGTERM');
		await Promise.race([writerDone, new Promise(resolve => setTimeout(resolve, 10_000))]);
		const {commits} = JSON.parse(writerOut) as {commits: Commit[]};
		return {
			...liveRows({
				hfx,
				sqlite,
				json: parseHfx(hfx, 'live store'),
				commits,
				baseMessages,
				windows: [hfxFrom, hfxTo, sqliteTo],
			}),
			hfx,
		};
	} finally {
		writer.kill('SIGKILL');
		fs.rmSync(liveRoot, {recursive: true, force: true});
		fs.rmSync(out, {recursive: true, force: true});
	}
}

type LiveFacts = {
	hfx: BoundedRun;
	sqlite: BoundedRun;
	json: HfxJson;
	commits: Commit[];
	baseMessages: number;
	windows: [number, number, number];
};

function liveRows(f: LiveFacts): {rows: Row[]; notes: string[]} {
	const [hfxFrom, hfxTo, sqliteTo] = f.windows;
	const main = f.json.databases.find(d => d.path === 'state.db')!;
	// The archive's messages: the store's own plus the writer's commits up to the snapshot, so
	// between the commits made before hfx started and those made before it ended.
	const before = f.commits.filter(([at]) => at < hfxFrom).length;
	const untilEnd = f.commits.filter(([at]) => at <= hfxTo).length;
	const inArchive = (main.counts.messages ?? -1) - f.baseMessages;
	const countsOk = inArchive >= before && inArchive <= untilEnd;
	const ok =
		main.restarts === 0 && main.integrity === 'ok' && main.openMode === 'in-place' && f.json.verified && countsOk;
	const during = commitsIn(f.commits, hfxFrom, hfxTo);
	const sqliteDuring = commitsIn(f.commits, hfxTo, sqliteTo);
	const sqliteText =
		f.sqlite.finished && f.sqlite.code === 0
			? `finished in ${s1(f.sqlite.ms)} s`
			: f.sqlite.finished
				? `failed (exit ${f.sqlite.code}) after ${s1(f.sqlite.ms)} s: ${f.sqlite.stderr.trim().slice(0, 200)}`
				: `not finished after ${SQLITE_BOUND_S} s (stopped)`;
	const rows: Row[] = [
		{
			measurement:
				`live store, a writer committing ${RATE}/s (${during.rate.toFixed(0)}/s ` +
				`measured): \`hfx backup\` finished in ${s1(f.hfx.ms)} ` +
				`s, ${main.restarts} restarts, integrity ${main.integrity}, ${inArchive} ` +
				`of the writer's commits in the archive (${before}–${untilEnd} possible)`,
			medianMs: f.hfx.ms,
			minMs: f.hfx.ms,
			peakRssMb: mb(f.hfx.memory.hwmKb),
			target: '0 restarts, integrity ok, counts of one snapshot',
			result: ok ? 'PASS' : 'FAIL',
		},
		{
			measurement:
				`live store, the same writer (${sqliteDuring.rate.toFixed(0)}/s ` +
				`measured): \`sqlite3 -readonly DB ".backup FILE"\` ${sqliteText}`,
			medianMs: f.sqlite.ms,
			minMs: f.sqlite.ms,
			peakRssMb: mb(f.sqlite.memory.hwmKb),
			target: `context (bound ${SQLITE_BOUND_S} s)`,
			result: 'info',
		},
	];
	const notes = [
		`Live store: a copy of the cached store, written by bench/tui-writer.ts ` +
			`(better-sqlite3, WAL, one message + one session update per commit); hfx ` +
			`pinned its read transaction for ${main.pinnedMs} ms over ${main.steps} ` +
			`backup steps; ${during.n} commits landed while hfx ` +
			`ran, ${sqliteDuring.n} while sqlite3 ran. sqlite3's .backup steps 100 ` +
			`pages at a time outside any read transaction and starts over whenever ` +
			`another connection commits.`,
	];
	return {rows, notes};
}

function memoryRow(quiet: Quiet, live: Live): {rows: Row[]; notes: string[]} {
	const peakKb = Math.max(...quiet.rssKb, quiet.probe.memory.hwmKb, live.hfx.memory.hwmKb);
	const m = quiet.probe.memory;
	const l = live.hfx.memory;
	const rows: Row[] = [
		{
			measurement:
				`peak RSS of \`hfx backup\` (quiet and live runs): ` +
				`anonymous ${(m.anonKb / 1024).toFixed(0)} MB, ` +
				`file-backed ${(m.fileKb / 1024).toFixed(0)} MB, ` +
				`shmem ${(m.shmemKb / 1024).toFixed(0)} MB at their sampled peaks (quiet ` +
				`probe; live ${(l.anonKb / 1024).toFixed(0)} ` +
				`/ ${(l.fileKb / 1024).toFixed(0)} / ${(l.shmemKb / 1024).toFixed(0)} MB)`,
			peakRssMb: peakKb / 1024,
			target: `≤ ${TARGET_RSS_MB} MB`,
			result: peakKb / 1024 <= TARGET_RSS_MB ? 'PASS' : 'FAIL',
		},
	];
	const notes = [
		`Memory: the peak is the highest of GNU time's %M over ` +
			`the ${quiet.rssKb.length} timed quiet runs and the kernel's VmHWM of ` +
			`the two sampled runs (quiet probe ${(m.hwmKb / 1024).toFixed(0)} MB, ` +
			`live ${(l.hwmKb / 1024).toFixed(0)} MB). The split is /proc/PID/status ` +
			`RssAnon / RssFile / RssShmem sampled every 5 ms (${m.samples} ` +
			`and ${l.samples} samples), each its own peak (they need not coincide); ` +
			`file-backed includes node's own binary and libraries (about 40 MB).`,
	];
	return {rows, notes};
}

export const backupSection: Section = {
	id: 'backup',
	title: '`hfx backup` of the 1M-message store: quiet (vs the same work by hand), live (vs `sqlite3 .backup`), memory',
	async run(ctx: BenchContext): Promise<SectionResult> {
		const bench = ensureBenchDb({log: ctx.log});
		const work = path.join(ctx.dataDir, 'backup');
		fs.rmSync(work, {recursive: true, force: true});
		fs.mkdirSync(work, {recursive: true});
		const cli = path.join(ctx.root, 'dist/hfx.js');
		try {
			const quiet = await quietStore(ctx, bench, work, cli);
			ctx.log('  live store…');
			const live = await liveStore(bench, work, cli, ctx.root);
			const memory = memoryRow(quiet, live);
			return {
				rows: [...quiet.rows, ...live.rows, ...memory.rows],
				notes: [...quiet.notes, ...live.notes, ...memory.notes],
			};
		} finally {
			fs.rmSync(work, {recursive: true, force: true});
		}
	},
};
