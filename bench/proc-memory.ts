/**
 * Memory of one child process split by kind, and a command run with a time bound.
 *
 * Peak RSS alone (GNU time %M, or VmHWM) does not say what the memory is: anonymous memory (heap,
 * SQLite's page cache, buffers) or file-backed pages of a memory-mapped file (which the kernel can
 * drop). This samples /proc/PID/status every few milliseconds and keeps the highest RssAnon,
 * RssFile and RssShmem seen, and VmHWM (the kernel's own peak of their sum) from the last sample
 * before the exit. Sampled peaks can miss a spike shorter than the interval; VmHWM cannot.
 */
import {spawn} from 'node:child_process';
import fs from 'node:fs';

export type MemoryPeaks = {hwmKb: number; anonKb: number; fileKb: number; shmemKb: number; samples: number};

export type BoundedRun = {
	ms: number;
	/** Exit code, or null when it was stopped at the bound (or by a signal). */
	code: number | null;
	finished: boolean;
	stdout: string;
	stderr: string;
	memory: MemoryPeaks;
};

function readStatus(pid: number): Record<string, number> | null {
	try {
		const out: Record<string, number> = {};
		for (const m of fs
			.readFileSync(`/proc/${pid}/status`, 'utf8')
			.matchAll(/^(VmHWM|RssAnon|RssFile|RssShmem):\s+(\d+)\s+kB$/gm)) {
			out[m[1]!] = Number(m[2]);
		}

		return out;
	} catch {
		return null;
	}
}

/**
 * Runs `command` (spawned directly, so its pid is the process measured), sampling its memory every
 * `intervalMs`, stopping it with SIGTERM (then SIGKILL) once `boundMs` have passed.
 */
export async function runSampled(
	command: string,
	args: readonly string[],
	options: {boundMs: number; intervalMs?: number; env?: NodeJS.ProcessEnv},
): Promise<BoundedRun> {
	const started = performance.now();
	const child = spawn(command, args, {stdio: ['ignore', 'pipe', 'pipe'], env: options.env});
	const memory: MemoryPeaks = {hwmKb: 0, anonKb: 0, fileKb: 0, shmemKb: 0, samples: 0};
	const sample = (): void => {
		const s = child.pid === undefined ? null : readStatus(child.pid);
		if (s && s.VmHWM !== undefined) {
			memory.samples++;
			memory.hwmKb = Math.max(memory.hwmKb, s.VmHWM);
			memory.anonKb = Math.max(memory.anonKb, s.RssAnon ?? 0);
			memory.fileKb = Math.max(memory.fileKb, s.RssFile ?? 0);
			memory.shmemKb = Math.max(memory.shmemKb, s.RssShmem ?? 0);
		}
	};

	const poll = setInterval(sample, options.intervalMs ?? 5);
	let stopped = false;
	const bound = setTimeout(() => {
		stopped = true;
		child.kill('SIGTERM');
		setTimeout(() => child.kill('SIGKILL'), 5000).unref();
	}, options.boundMs);
	let stdout = '';
	let stderr = '';
	child.stdout!.on('data', (d: Buffer) => {
		stdout += d.toString();
	});
	child.stderr!.on('data', (d: Buffer) => {
		stderr += d.toString();
	});
	const [code, ms] = await new Promise<[number | null, number]>((resolve, reject) => {
		child.once('error', reject);
		child.once('exit', c => resolve([c, performance.now() - started]));
	});
	clearInterval(poll);
	clearTimeout(bound);
	await new Promise(resolve => {
		child.stdout!.closed && child.stderr!.closed ? resolve(undefined) : child.once('close', resolve);
	});
	return {ms, code, finished: !stopped && code !== null, stdout, stderr, memory};
}
