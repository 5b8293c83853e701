/**
 * Runs a list of fault kinds and fuzzers and returns their reports: each fault in turn (a fault
 * that needs root or strace is skipped, saying so, where they are absent); each fuzzer through
 * `runFuzzer` (in a child process with a hard timeout for the suite, in-process for vitest).
 */
import {spawnSync} from 'node:child_process';
import {disposeFixtures} from './fixtures.js';
import type {FuzzReport} from './fuzz/fuzz-types.js';
import {runFault, type SuiteOptions} from './run-fault.js';
import type {Fault, FaultReport} from './types.js';

export function missing(fault: Fault): string | null {
	for (const need of fault.needs ?? []) {
		if (need === 'root' && process.getuid?.() !== 0) {
			return 'needs root (mount, mknod)';
		}

		if (need !== 'root' && spawnSync('sh', ['-c', `command -v ${need}`]).status !== 0) {
			return `needs ${need} (apt-get install ${need === 'script' ? 'bsdutils' : need})`;
		}
	}

	return null;
}

export async function runFaults(
	faults: Fault[],
	o: SuiteOptions,
	progress?: (r: FaultReport) => void,
): Promise<FaultReport[]> {
	const out: FaultReport[] = [];
	try {
		for (const f of faults) {
			const skip = missing(f);
			const r = skip
				? {
						id: f.id,
						cls: f.cls,
						outcome: f.outcome,
						runs: 0,
						got: 'skipped',
						evidenceBytesChanged: 0,
						failures: [],
						notes: f.notes ?? '',
						skipped: skip,
						ms: 0,
					}
				: await runFault(f, o);
			progress?.(r);
			out.push(r);
		}
	} finally {
		disposeFixtures();
	}

	return out;
}

export type FuzzRunner = (name: string, inputs: number) => Promise<FuzzReport>;

export async function runFuzzers(
	list: Array<{name: string; inputs: number}>,
	run: FuzzRunner,
	progress?: (r: FuzzReport) => void,
): Promise<FuzzReport[]> {
	const out: FuzzReport[] = [];
	for (const {name, inputs} of list) {
		const r = await run(name, inputs);
		progress?.(r);
		out.push(r);
	}

	return out;
}
