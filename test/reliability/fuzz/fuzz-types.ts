/** What a fuzzer reports: its seed, how many inputs it tried, the slowest, and every failing input. */
export type FuzzReport = {
	name: string;
	seed: number;
	inputs: number;
	slowestMs: number;
	failures: string[];
	notes: string;
};

export type Fuzzer = {
	name: string;
	notes: string;
	/** Tries `inputs` mutated inputs drawn from `seed`; every throw that is not one of our refusals is a failure. */
	run: (seed: number, inputs: number) => Promise<FuzzReport>;
};

/** Bound per input: anything slower is reported (a parser must be linear in its input). */
export const SLOW_MS = 2000;
