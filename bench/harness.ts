/**
 * The benchmark harness: timing and peak RSS of child processes, result rows, the markdown table.
 *
 * A benchmark is a list of sections (the scan section today; TUI frame latency and backup
 * throughput later). Each section measures commands as separate processes, several times after a
 * warm-up, and returns rows; a row with a target says PASS or FAIL. Targets are ratios against a
 * baseline measured in the same run (plus the absolute limits the issue names), never timings
 * inside unit tests.
 */
import {spawn} from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export type Result = 'PASS' | 'FAIL' | 'info';

export type Row = {
	measurement: string;
	medianMs?: number | null;
	minMs?: number | null;
	peakRssMb?: number | null;
	/** Median over the section's baseline median. */
	ratio?: number | null;
	target: string;
	result: Result;
};

export type SectionResult = {
	rows: Row[];
	/** Free text printed under the section's table (context, breakdowns, why a row failed). */
	notes: string[];
};

export type BenchContext = {
	root: string;
	dataDir: string;
	/** Timed runs per measurement (after the warm-ups). */
	runs: number;
	warmups: number;
	log: (line: string) => void;
};

export type Section = {
	id: string;
	title: string;
	run: (ctx: BenchContext) => Promise<SectionResult>;
};

export type Sample = {
	ms: number;
	rssKb: number | null /** User + system CPU time of the command (GNU time %U + %S), null without GNU time. */;
	cpuMs?: number | null;
};

export type Measurement = {
	samples: Sample[];
	medianMs: number;
	minMs: number;
	/** Highest peak RSS over the timed runs. */
	peakRssKb: number | null;
};

const TIME = '/usr/bin/time';

/** How peak RSS is taken: GNU time's %M (exact, from wait4) or, without it, sampling /proc/PID/status VmHWM. */
export const rssMethod: 'gnu-time' | 'sampled' = fs.existsSync(TIME) ? 'gnu-time' : 'sampled';

function vmHwmKb(pid: number): number | null {
	try {
		const m = /VmHWM:\s+(\d+)\s+kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
		return m ? Number(m[1]) : null;
	} catch {
		return null;
	}
}

export type CommandOptions = {
	/** Exit codes that count as success (default [0]). */
	okExitCodes?: number[];
	cwd?: string;
	env?: NodeJS.ProcessEnv;
};

let scratch: string | undefined;
function scratchDir(): string {
	scratch ??= fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-bench-'));
	return scratch;
}

process.once('exit', () => {
	if (scratch) {
		fs.rmSync(scratch, {recursive: true, force: true});
	}
});

/** Runs one command with stdout to /dev/null; wall time from spawn to exit, and its peak RSS. */
export async function runOnce(command: string, args: readonly string[], options: CommandOptions = {}): Promise<Sample> {
	const okCodes = options.okExitCodes ?? [0];
	const rssFile = path.join(scratchDir(), 'rss');
	const devNull = fs.openSync('/dev/null', 'w');
	const [file, argv] =
		rssMethod === 'gnu-time' ? [TIME, ['-f', '%U %S %M', '-o', rssFile, command, ...args]] : [command, [...args]];
	try {
		const started = performance.now();
		const child = spawn(file, argv, {stdio: ['ignore', devNull, 'pipe'], cwd: options.cwd, env: options.env});
		let sampled: number | null = null;
		const poll =
			rssMethod === 'sampled'
				? setInterval(() => {
						const v = child.pid ? vmHwmKb(child.pid) : null;
						sampled = v === null ? sampled : Math.max(sampled ?? 0, v);
					}, 2)
				: undefined;
		let stderr = '';
		child.stderr!.on('data', (d: Buffer) => {
			stderr += d.toString();
		});
		const [code, ms] = await new Promise<[number | null, number]>((resolve, reject) => {
			child.once('error', reject);
			child.once('exit', c => resolve([c, performance.now() - started]));
		});
		if (poll) {
			clearInterval(poll);
		}

		await new Promise(resolve => {
			if (child.stderr!.closed) {
				resolve(undefined);
			} else {
				child.stderr!.once('close', resolve);
			}
		});
		if (code === null || !okCodes.includes(code)) {
			throw new Error(`${command} ${args.join(' ')} exited with ${code}: ${stderr.trim().slice(0, 2000)}`);
		}

		let rssKb: number | null = sampled;
		let cpuMs: number | null = null;
		if (rssMethod === 'gnu-time') {
			const lines = fs.readFileSync(rssFile, 'utf8').trim().split('\n');
			const [user, sys, kb] = (lines[lines.length - 1] ?? '').trim().split(/\s+/).map(Number);
			rssKb = Number.isFinite(kb) ? kb! : null;
			cpuMs = Number.isFinite(user) && Number.isFinite(sys) ? (user! + sys!) * 1000 : null;
		}

		return {ms, rssKb, cpuMs};
	} finally {
		fs.closeSync(devNull);
	}
}

export function median(values: readonly number[]): number {
	const sorted = [...values].sort((a, b) => a - b);
	const mid = Math.floor(sorted.length / 2);
	return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export type CommandSpec = {label: string; command: string; args: readonly string[]; options?: CommandOptions};

function summarize(ctx: Pick<BenchContext, 'log'>, label: string, samples: Sample[]): Measurement {
	const ms = samples.map(s => s.ms);
	const rss = samples.map(s => s.rssKb).filter((v): v is number => v !== null);
	const m = {
		samples,
		medianMs: median(ms),
		minMs: Math.min(...ms),
		peakRssKb: rss.length > 0 ? Math.max(...rss) : null,
	};
	ctx.log(
		`  ${label}: median ${m.medianMs.toFixed(1)} ms, ` +
			`min ${m.minMs.toFixed(1)} ms, ` +
			`runs ${ms.map(v => v.toFixed(0)).join('/')} ms, peak ` +
			`RSS ${m.peakRssKb === null ? '?' : (m.peakRssKb / 1024).toFixed(1)} MB`,
	);
	return m;
}

/**
 * Warm-ups (discarded), then `runs` timed rounds. Within a round every command runs once, in
 * turn, so a burst of load from elsewhere on the machine lands on all of them alike and the
 * ratios between them stay meaningful. With `alternate`, the first two commands trade places
 * every other round, so neither of the pair always goes first and each always follows the same
 * command: on this VM a start first in its round ran a few ms slower than the same start second
 * (bench/startup.ts).
 */
export async function measureInterleaved(
	ctx: Pick<BenchContext, 'runs' | 'warmups' | 'log'>,
	specs: readonly CommandSpec[],
	alternate = false,
): Promise<Measurement[]> {
	for (let i = 0; i < ctx.warmups; i++) {
		for (const s of specs) {
			await runOnce(s.command, s.args, s.options);
		}
	}

	const samples: Sample[][] = specs.map(() => []);
	for (let round = 0; round < ctx.runs; round++) {
		const order = [...specs.keys()];
		if (alternate && round % 2 === 1 && order.length > 1) {
			[order[0], order[1]] = [order[1]!, order[0]!];
		}

		for (const i of order) {
			const s = specs[i]!;
			samples[i]!.push(await runOnce(s.command, s.args, s.options));
		}
	}

	return specs.map((s, i) => summarize(ctx, s.label, samples[i]!));
}

/** One command: warm-ups, then `runs` timed runs. */
export async function measure(
	ctx: Pick<BenchContext, 'runs' | 'warmups' | 'log'>,
	label: string,
	command: string,
	args: readonly string[],
	options: CommandOptions = {},
): Promise<Measurement> {
	const [m] = await measureInterleaved(ctx, [{label, command, args, options}]);
	return m!;
}

export function mb(kb: number | null): number | null {
	return kb === null ? null : kb / 1024;
}

function fixed(v: number | null | undefined, digits: number): string {
	return v === null || v === undefined ? '–' : v.toFixed(digits);
}

export function markdownTable(rows: readonly Row[]): string {
	const header = ['measurement', 'median ms', 'min ms', 'peak RSS MB', 'ratio to baseline', 'target', 'result'];
	const lines = [
		`| ${header.join(' | ')} |`,
		`| ${header.map((_, i) => (i === 0 || i >= 5 ? '---' : '---:')).join(' | ')} |`,
	];
	for (const r of rows) {
		const ratio = r.ratio === null || r.ratio === undefined ? '–' : `${r.ratio.toFixed(2)}×`;
		const cells = [
			r.measurement,
			fixed(r.medianMs, 1),
			fixed(r.minMs, 1),
			fixed(r.peakRssMb, 1),
			ratio,
			r.target,
			r.result,
		];
		lines.push(`| ${cells.join(' | ')} |`);
	}

	return lines.join('\n');
}
