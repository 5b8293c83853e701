/**
 * The WAL parser (source/store/wal/wal-header.ts, wal-scan.ts): a crashed agent's real -wal, mutated;
 * parseWalHeader and scanWal must never throw, and what they report must add up (no frame class
 * counted negative, no more frames than the file holds).
 */
import fs from 'node:fs';
import path from 'node:path';
import {parseWalHeader, scanWal} from '../../../source/store/wal/wal.js';
import {crashedStore} from '../fixtures.js';
import type {Fuzzer} from './fuzz-types.js';
import {fuzzLoop} from './loop.js';

function counts(scan: ReturnType<typeof scanWal>): string | null {
	for (const [k, v] of Object.entries(scan)) {
		if (typeof v === 'number' && (v < 0 || !Number.isFinite(v)) && k !== 'nBackfill') {
			return `scanWal reported ${k} = ${v}`;
		}
	}

	return null;
}

export const walFuzzer: Fuzzer = {
	name: 'wal parser',
	notes:
		'source/store/wal/wal-header.ts parseWalHeader, wal-scan.ts scanWal on a ' +
		'real crashed -wal, mutated (header fields, frame headers, cuts, splices)',
	async run(seed, inputs) {
		const dir = fs.mkdtempSync(path.join(process.env.TMPDIR ?? '/tmp', 'hfx-fuzz-wal-'));
		try {
			const base = fs.readFileSync(`${(await crashedStore(path.join(dir, 's'))).db}-wal`);
			return await fuzzLoop({name: this.name, notes: this.notes, seed, inputs, hot: 32 + 24 * 3}, base, input => {
				parseWalHeader(input);
				const scan = scanWal(input, {nBackfill: input.length % 7, recentCommits: 4});
				const aligned = scanWal(Buffer.from(input.subarray(1)));
				return counts(scan) ?? counts(aligned);
			});
		} finally {
			fs.rmSync(dir, {recursive: true, force: true});
		}
	},
};
