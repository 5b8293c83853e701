/** Every fuzzer, with its input counts: standard, --long, and the CI-sized part in `npm test`. */
import type {Fuzzer} from './fuzz-types.js';
import {shmFuzzer} from './shm.js';
import {storeFuzzer} from './store.js';
import {tarFuzzer} from './tar.js';
import {walFuzzer} from './wal.js';
import {zipFuzzer} from './zip.js';

export const FUZZ_SEED = 17;

export const FUZZERS: Array<{fuzzer: Fuzzer; standard: number; long: number; ci: number}> = [
	{fuzzer: walFuzzer, standard: 3000, long: 50_000, ci: 300},
	{fuzzer: shmFuzzer, standard: 5000, long: 100_000, ci: 500},
	{fuzzer: tarFuzzer, standard: 1500, long: 30_000, ci: 150},
	{fuzzer: zipFuzzer, standard: 600, long: 10_000, ci: 60},
	{fuzzer: storeFuzzer, standard: 24, long: 300, ci: 4},
];
