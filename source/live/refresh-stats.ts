/**
 * Per-refresh timings of the live store, for diagnostics (`HFX_REFRESH_STATS=FILE`, issue #26): how long each refresh
 * that read the store spent opening it (the signature and the connection), reading the rows, building the model (the
 * analysis, the activity and the listeners told) and closing it. One JSON line is appended to FILE when the store
 * closes: per phase the count, sum, median and p95 in ms of wall time, the sum of the process's CPU time (on a
 * machine shared with other work the wall time swings, the CPU time far less), and how many refreshes compared every
 * row's signature. Off unless asked: recording is then a check of a null.
 */
import fs from 'node:fs';
import {openAppend} from '../ground/safe-create.js';

function cpuMs(): number {
	const {user, system} = process.cpuUsage();
	return (user + system) / 1000;
}

export type RefreshPhase = 'open' | 'rows' | 'model' | 'close' | 'total';

const PHASES: readonly RefreshPhase[] = ['open', 'rows', 'model', 'close', 'total'];

export type PhaseSummary = {count: number; sumMs: number; medianMs: number; p95Ms: number; cpuSumMs: number};

const round = (n: number) => Math.round(n * 100) / 100;

function summaryOf(values: readonly number[], cpu: readonly number[]): PhaseSummary {
	const sorted = [...values].sort((a, b) => a - b);
	const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;
	return {
		count: sorted.length,
		sumMs: round(sorted.reduce((a, b) => a + b, 0)),
		medianMs: round(at(0.5)),
		p95Ms: round(at(0.95)),
		cpuSumMs: round(cpu.reduce((a, b) => a + b, 0)),
	};
}

export class RefreshStats {
	private readonly times = new Map<RefreshPhase, number[]>(PHASES.map(p => [p, []]));
	private readonly cpu = new Map<RefreshPhase, number[]>(PHASES.map(p => [p, []]));
	/** Per mark: performance.now() and the process's CPU time (ms). */
	private marks: Array<[number, number]> = [];

	/** Null when `file` is not given: every call on it is then skipped by the caller's `?.`. */
	static fromEnv(file: string | undefined): RefreshStats | null {
		return file ? new RefreshStats(file) : null;
	}

	private constructor(private readonly file: string) {}

	/** A refresh that reads the store begins (performance.now() when it started). */
	begin(started: number): void {
		this.marks = [[started, cpuMs()]];
	}

	/** The end of the next phase of the refresh begun (open, rows, model, close in turn). */
	mark(): void {
		this.marks.push([performance.now(), cpuMs()]);
	}

	/** The refresh read the store through to its close: its phases are kept. */
	end(): void {
		if (this.marks.length !== PHASES.length) {
			return;
		}

		const keep = (phase: RefreshPhase, from: [number, number], to: [number, number]) => {
			this.times.get(phase)!.push(to[0] - from[0]);
			this.cpu.get(phase)!.push(to[1] - from[1]);
		};
		for (let i = 1; i < this.marks.length; i++) {
			keep(PHASES[i - 1]!, this.marks[i - 1]!, this.marks[i]!);
		}

		keep('total', this.marks[0]!, this.marks.at(-1)!);
	}

	summary(signatureScans: number): Record<string, PhaseSummary | number> {
		return {
			...Object.fromEntries(PHASES.map(p => [p, summaryOf(this.times.get(p)!, this.cpu.get(p)!)])),
			signatureScans,
		};
	}

	/** Appends the summary as one line to the file the operator named; a diagnostic that cannot be written is dropped. */
	write(signatureScans: number): void {
		try {
			const fd = openAppend(this.file, what => new Error(what));
			try {
				fs.writeSync(fd, `${JSON.stringify(this.summary(signatureScans))}\n`);
			} finally {
				fs.closeSync(fd);
			}
		} catch {
			// the view goes on
		}
	}
}
