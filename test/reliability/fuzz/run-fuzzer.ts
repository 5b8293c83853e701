/**
 * Runs one fuzzer: in this process (`fuzzInProcess`, for vitest and for the child), or in a child
 * process of the suite with a hard timeout (`fuzzInChild`): a parser stuck in a loop cannot be
 * interrupted in its own thread, so the suite kills the child and reports a hang.
 */
import {spawnSync} from 'node:child_process';
import path from 'node:path';
import {disposeFixtures} from '../fixtures.js';
import {ROOT} from '../run-hfx.js';
import {FUZZ_SEED, FUZZERS} from './all.js';
import type {FuzzReport} from './fuzz-types.js';

export async function fuzzInProcess(name: string, inputs: number): Promise<FuzzReport> {
	const entry = FUZZERS.find(f => f.fuzzer.name === name);
	if (!entry) {
		throw new Error(`no fuzzer named ${name}`);
	}

	try {
		return await entry.fuzzer.run(FUZZ_SEED, inputs);
	} finally {
		disposeFixtures();
	}
}

export async function fuzzInChild(name: string, inputs: number, timeoutMs: number): Promise<FuzzReport> {
	const r = spawnSync(
		process.execPath,
		[path.join(ROOT, 'scripts/reliability.mjs'), '--fuzz-one', name, String(inputs)],
		{encoding: 'utf8', timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: 64 << 20},
	);
	const last = r.stdout?.trim().split('\n').at(-1) ?? '';
	try {
		return JSON.parse(last) as FuzzReport;
	} catch {
		const why = r.signal
			? `killed by the suite after ${timeoutMs} ms (a hang or too slow)`
			: `ended with ${r.status}: ${(r.stderr ?? '').trim().slice(0, 300)}`;
		return {name, seed: FUZZ_SEED, inputs, slowestMs: 0, failures: [`the fuzzer's process ${why}`], notes: ''};
	}
}
