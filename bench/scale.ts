/**
 * Section "scale" (#26, the growth row): the 1M-message bench store and the scale store
 * (generate-profile.ts: ~100,000 sessions, 10,000,000 messages, ~5 GB) side by side, each read in
 * place, first held open by a stand-in agent (a sqlite3 CLI: -wal and -shm exist, the production
 * case), then closed (the agent stopped: no -wal/-shm, read as an immutable file). Never a copy:
 * both are the bench's own files.
 *
 * For each store and state: `hfx scan --json` wall time and peak RSS (GNU time %M; the two stores
 * interleaved in every round), the TUI's first full frame in a 140x40 pty (and the hfx process's
 * VmHWM at that frame), and the peak of the TMPDIR given to hfx over one more scan (sampled every
 * 10 ms). Judged: each figure's growth (scale ÷ 1M) ≤ the store's growth in sessions or in
 * messages, whichever is smaller (the sessions: 4.66×, where the messages grow 9.52×), and the temp
 * disk ≤ 50 MB on every run. Not the bytes: the scale store's are held down on purpose (messages of
 * 50-250 characters, no trigram index), so a real store of 10M messages is bigger than it; without
 * its trigram index (1,194 MB) the 1M store is ~1.0 GB, and the scale store ~4.9× it. The bytes
 * ratio is printed beside it.
 */
import fs from 'node:fs';
import path from 'node:path';
import {type BenchDb, ensureBenchDb} from './generate.js';
import {SCALE_PROFILE} from './generate-profile.js';
import {
	type BenchContext,
	type Measurement,
	type Row,
	type Section,
	type SectionResult,
	mb,
	measureInterleaved,
	median,
} from './harness.js';
import {peakTempDisk, settle, startOwner} from './scan.js';
import {ANSI, inPty, isFullFrame, tree} from './tui.js';

const TARGET_TEMP_BYTES = 50e6;
/** TUI starts per store and state (each quit with q at its first full frame). */
const FRAME_STARTS = Number(process.env.BENCH_SCALE_STARTS ?? 5);

type Store = {label: string; bench: BenchDb; bytes: number; tmp: string};
type State = 'live' | 'closed';
type Figures = {
	scan: Measurement;
	frameMs: number[];
	frameHwmMb: number[];
	tempBytes: number;
	openMode: string | null;
};

function vmHwmMb(pid: number): number | null {
	try {
		const m = /VmHWM:\s+(\d+)\s+kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
		return m ? Number(m[1]) / 1024 : null;
	} catch {
		return null;
	}
}

/** One TUI start in a pty: ms from the spawn to the first full frame, and hfx's VmHWM then; quits with q. */
async function firstFrame(hfx: string, db: string, tmp: string): Promise<{ms: number; hwmMb: number | null}> {
	const started = Date.now();
	const tty = inPty(`env TMPDIR=${tmp} ${process.execPath} ${hfx} --db ${db}`);
	let out = '';
	let frameAt: number | null = null;
	let hwmMb: number | null = null;
	tty.stdout!.on('data', (chunk: Buffer) => {
		out = (out + chunk.toString().replaceAll(ANSI, '')).slice(-64 * 1024);
		if (frameAt === null && isFullFrame(out)) {
			frameAt = Date.now();
			// hfx's own Node (`env` execs it), not `script` or the shell, whose command lines name hfx.js too.
			const node = tree(tty.pid!).find(p => {
				try {
					const argv = fs.readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0');
					return argv[0] === process.execPath && argv[1] === hfx;
				} catch {
					return false;
				}
			});
			hwmMb = node === undefined ? null : vmHwmMb(node);
			tty.stdin!.write('q');
		}
	});
	const exited = new Promise<void>(resolve => tty.once('exit', () => resolve()));
	const timeout = setTimeout(() => tty.kill('SIGKILL'), 60_000);
	await exited;
	clearTimeout(timeout);
	if (frameAt === null) {
		throw new Error(`no first frame within 60 s on ${db}; output so far: ${out.slice(-400)}`);
	}

	return {ms: frameAt - started, hwmMb};
}

/** Every figure of both stores in one state: scans interleaved, TUI starts alternating, one temp-disk run each. */
async function measureState(ctx: BenchContext, stores: readonly Store[], state: State): Promise<Figures[]> {
	const hfx = path.join(ctx.root, 'dist/hfx.js');
	const args = (s: Store) => [hfx, 'scan', '--db', s.bench.dbPath, '--json'];
	const scans = await measureInterleaved(
		ctx,
		stores.map(s => ({
			label: `hfx scan --json, ${s.label}, ${state}`,
			command: process.execPath,
			args: args(s),
			options: {cwd: ctx.root, okExitCodes: [0, 1], env: {...process.env, TMPDIR: s.tmp}},
		})),
	);
	const frames = stores.map(() => ({ms: [] as number[], hwm: [] as number[]}));
	for (let i = 0; i < FRAME_STARTS; i++) {
		for (const [k, s] of stores.entries()) {
			const f = await firstFrame(hfx, s.bench.dbPath, s.tmp);
			frames[k]!.ms.push(f.ms);
			if (f.hwmMb !== null) {
				frames[k]!.hwm.push(f.hwmMb);
			}
		}
	}

	const figures: Figures[] = [];
	for (const [k, s] of stores.entries()) {
		const disk = await peakTempDisk(process.execPath, args(s), ctx.root, s.tmp);
		ctx.log(
			`  ${s.label}, ${state}: first frame ${frames[k]!.ms.join('/')} ms; ` +
				`temp disk peak ${(disk.peakBytes / 1e6).toFixed(1)} MB (${disk.openMode ?? '?'})`,
		);
		figures.push({
			scan: scans[k]!,
			frameMs: frames[k]!.ms,
			frameHwmMb: frames[k]!.hwm,
			tempBytes: disk.peakBytes,
			openMode: disk.openMode,
		});
	}

	return figures;
}

function storeRows(stores: readonly Store[], state: State, figures: readonly Figures[]): Row[] {
	const rows: Row[] = [];
	for (const [k, s] of stores.entries()) {
		const f = figures[k]!;
		const cpu = f.scan.samples.map(x => x.cpuMs).filter((v): v is number => typeof v === 'number');
		rows.push({
			measurement:
				`\`hfx scan --json\`, ${s.label}, ${state} (${f.openMode ?? '?'}; temp disk at its peak ` +
				`${(f.tempBytes / 1e6).toFixed(1)} MB; CPU median ${cpu.length > 0 ? median(cpu).toFixed(0) : '?'} ms)`,
			medianMs: f.scan.medianMs,
			minMs: f.scan.minMs,
			peakRssMb: mb(f.scan.peakRssKb),
			target: `temp disk ≤ ${TARGET_TEMP_BYTES / 1e6} MB`,
			result: f.tempBytes <= TARGET_TEMP_BYTES ? 'PASS' : 'FAIL',
		});
		rows.push({
			measurement: `TUI first full frame (${f.frameMs.length} starts, 140x40 pty), ${s.label}, ${state}`,
			medianMs: median(f.frameMs),
			minMs: Math.min(...f.frameMs),
			peakRssMb: f.frameHwmMb.length > 0 ? Math.max(...f.frameHwmMb) : null,
			target: 'context (RSS: VmHWM at the frame)',
			result: 'info',
		});
	}

	return rows;
}

type Growth = {bytes: number; messages: number; sessions: number};

function growthRows(state: State, figures: readonly Figures[], store: Growth): Row[] {
	const [small, big] = figures as [Figures, Figures];
	const peak = (v: readonly number[]) => (v.length > 0 ? Math.max(...v) : Number.NaN);
	const cpu = (f: Figures) => {
		const v = f.scan.samples.map(x => x.cpuMs).filter((c): c is number => typeof c === 'number');
		return v.length > 0 ? median(v) : Number.NaN;
	};
	const figuresOf: Array<[string, number, number]> = [
		['scan wall time (median)', small.scan.medianMs, big.scan.medianMs],
		['scan CPU time (median, user + system)', cpu(small), cpu(big)],
		['scan peak RSS', small.scan.peakRssKb ?? Number.NaN, big.scan.peakRssKb ?? Number.NaN],
		['TUI first full frame (median)', median(small.frameMs), median(big.frameMs)],
		['TUI RSS at the first frame', peak(small.frameHwmMb), peak(big.frameHwmMb)],
	];
	return figuresOf.map(([what, a, b]) => {
		const ratio = b / a;
		const limit = Math.min(store.messages, store.sessions);
		return {
			measurement: `growth, ${state}: ${what}, scale ÷ 1M`,
			ratio,
			target:
				`≤ ${limit.toFixed(2)}× (the store's sessions or messages, the smaller; ` +
				`messages ${store.messages.toFixed(2)}×, sessions ${store.sessions.toFixed(2)}×, ` +
				`bytes ${store.bytes.toFixed(2)}×)`,
			result: Number.isFinite(ratio) && ratio <= limit ? 'PASS' : 'FAIL',
		};
	});
}

function prepare(ctx: BenchContext): Store[] {
	const small = ensureBenchDb({log: ctx.log});
	const big = ensureBenchDb({log: ctx.log, profile: SCALE_PROFILE});
	const tmpRoot = path.join(ctx.dataDir, 'scale-tmp');
	fs.rmSync(tmpRoot, {recursive: true, force: true});
	return [
		['the 1M store', small],
		['the scale store', big],
	].map(([label, bench], i) => {
		const b = bench as BenchDb;
		const tmp = path.join(tmpRoot, String(i));
		fs.mkdirSync(tmp, {recursive: true});
		settle(b.dbPath);
		return {label: label as string, bench: b, bytes: fs.statSync(b.dbPath).size, tmp};
	});
}

export const scaleSection: Section = {
	id: 'scale',
	title: 'the growth row (#26): the 1M store and the ~5 GB, 10M-message scale store, held open and closed',
	async run(ctx: BenchContext): Promise<SectionResult> {
		const stores = prepare(ctx);
		const [small, big] = stores as [Store, Store];
		const growth: Growth = {
			bytes: big.bytes / small.bytes,
			messages: big.bench.manifest.messages / small.bench.manifest.messages,
			sessions: big.bench.manifest.sessions / small.bench.manifest.sessions,
		};
		const rows: Row[] = [];
		const notes = stores.map(
			s =>
				`${s.label}: ${path.relative(ctx.root, s.bench.dbPath)}, ${(s.bytes / 1e6).toFixed(0)} MB, ` +
				`${s.bench.manifest.sessions.toLocaleString('en-US')} sessions, ` +
				`${s.bench.manifest.messages.toLocaleString('en-US')} messages` +
				(s.bench.manifest.trigram === false ? ', `messages_fts` without the trigram index' : ''),
		);
		try {
			const owners = [await startOwner(small.bench.dbPath), await startOwner(big.bench.dbPath)];
			try {
				const live = await measureState(ctx, stores, 'live');
				rows.push(...storeRows(stores, 'live', live), ...growthRows('live', live, growth));
			} finally {
				for (const o of owners) {
					await o.stop();
				}
			}

			if (stores.some(s => fs.existsSync(`${s.bench.dbPath}-wal`) || fs.existsSync(`${s.bench.dbPath}-shm`))) {
				notes.push('The closed stores were not measured: -wal/-shm were still present after the owners stopped.');
			} else {
				const closed = await measureState(ctx, stores, 'closed');
				rows.push(...storeRows(stores, 'closed', closed), ...growthRows('closed', closed, growth));
			}
		} finally {
			fs.rmSync(path.join(ctx.dataDir, 'scale-tmp'), {recursive: true, force: true});
		}

		notes.push(
			`The store grows ${growth.bytes.toFixed(2)}× in bytes, ${growth.messages.toFixed(2)}× in messages and ` +
				`${growth.sessions.toFixed(2)}× in sessions. Every growth row is judged against the smaller of the ` +
				"sessions and the messages: the scale store's bytes are held down on purpose (shorter messages, no " +
				'trigram index: generate-profile.ts), so its bytes understate how far a real store of 10M messages ' +
				'has grown.',
		);
		return {rows, notes};
	},
};
