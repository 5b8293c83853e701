/**
 * The -shm parser (source/store/files/shm.ts parseShmHeader): a crashed agent's real -shm header,
 * mutated. Its only documented throw is a RangeError for fewer than 136 bytes; anything else,
 * or a throw for a long enough buffer, is a failure.
 */
import fs from 'node:fs';
import path from 'node:path';
import {parseShmHeader, SHM_HEADER_BYTES} from '../../../source/store/files/shm.js';
import {crashedStore} from '../fixtures.js';
import type {Fuzzer} from './fuzz-types.js';
import {fuzzLoop} from './loop.js';

function parseBoth(input: Buffer): string | null {
	for (const littleEndian of [true, false]) {
		try {
			parseShmHeader(input, {littleEndian});
		} catch (error) {
			if (!(error instanceof RangeError && input.length < SHM_HEADER_BYTES)) {
				return `threw ${(error as Error).name} for ${input.length} bytes: ${(error as Error).message}`;
			}
		}
	}

	return null;
}

export const shmFuzzer: Fuzzer = {
	name: 'shm parser',
	notes: 'source/store/files/shm.ts parseShmHeader on a real crashed -shm, mutated, both byte orders',
	async run(seed, inputs) {
		const dir = fs.mkdtempSync(path.join(process.env.TMPDIR ?? '/tmp', 'hfx-fuzz-shm-'));
		try {
			const base = fs.readFileSync(`${(await crashedStore(path.join(dir, 's'))).db}-shm`).subarray(0, 4096);
			return await fuzzLoop({name: this.name, notes: this.notes, seed, inputs, hot: 136}, base, parseBoth);
		} finally {
			fs.rmSync(dir, {recursive: true, force: true});
		}
	},
};
