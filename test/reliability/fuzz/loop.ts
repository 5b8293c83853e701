/**
 * The loop every fuzzer shares: `inputs` mutations of a real file's bytes from one seed, each
 * handed to `attempt`, which returns a failure text or null; a throw out of `attempt` is a
 * failure too, and so is an input slower than its bound (`slowMs`, SLOW_MS unless told). Failures
 * name the input's number, so `seed` + number replays it.
 */
import {mutate, rng} from './mutate.js';
import {type FuzzReport, SLOW_MS} from './fuzz-types.js';

export async function fuzzLoop(
	meta: {name: string; notes: string; seed: number; inputs: number; hot?: number; slowMs?: number},
	base: Buffer,
	attempt: (input: Buffer) => Promise<string | null> | string | null,
): Promise<FuzzReport> {
	const r = rng(meta.seed);
	const bound = meta.slowMs ?? SLOW_MS;
	const failures: string[] = [];
	let slowestMs = 0;
	for (let i = 0; i < meta.inputs; i++) {
		const input = mutate(r, base, meta.hot);
		const started = performance.now();
		let failure: string | null;
		try {
			failure = await attempt(input);
		} catch (error) {
			failure = `threw ${(error as Error)?.name ?? typeof error}: ${(error as Error)?.message ?? String(error)}`;
		}

		const ms = performance.now() - started;
		slowestMs = Math.max(slowestMs, Math.round(ms));
		if (!failure && ms > bound) {
			failure = `took ${Math.round(ms)} ms (bound ${bound} ms)`;
		}

		if (failure) {
			failures.push(`input #${i} (${input.length} bytes): ${failure}`);
		}
	}

	return {name: meta.name, seed: meta.seed, inputs: meta.inputs, slowestMs, failures, notes: meta.notes};
}
