/**
 * The tar reader (source/backup/tar.ts TarReader): a real `tar` stream of a home (ungzipped),
 * mutated and pushed in uneven chunks. Its one refusal is TarDamaged; any other throw fails.
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import {TarDamaged, TarReader} from '../../../source/backup/tar.js';
import {tarball} from '../fixtures.js';
import type {Fuzzer} from './fuzz-types.js';
import {fuzzLoop} from './loop.js';

function readAll(input: Buffer): string | null {
	let bytes = 0;
	const reader = new TarReader(() => ({write: c => {
		bytes += c.length;
	}, end: () => undefined}));
	try {
		for (let pos = 0, k = 1; pos < input.length; k++) {
			const n = 512 * ((k % 5) + 1) + (k % 3);
			reader.push(Buffer.from(input.subarray(pos, pos + n)));
			pos += n;
		}
	} catch (error) {
		if (!(error instanceof TarDamaged)) {
			return `threw ${(error as Error).name}: ${(error as Error).message}`;
		}
	}

	return bytes > input.length ? `member data (${bytes} bytes) larger than the stream (${input.length})` : null;
}

export const tarFuzzer: Fuzzer = {
	name: 'tar reader',
	notes: 'source/backup/tar.ts TarReader on a real tar of a home, mutated (headers, sizes, checksums, pax), pushed in uneven chunks',
	async run(seed, inputs) {
		const dir = fs.mkdtempSync(path.join(process.env.TMPDIR ?? '/tmp', 'hfx-fuzz-tar-'));
		try {
			const base = zlib.gunzipSync(fs.readFileSync(await tarball(dir)));
			return await fuzzLoop({name: this.name, notes: this.notes, seed, inputs, hot: 1536}, base, readAll);
		} finally {
			fs.rmSync(dir, {recursive: true, force: true});
		}
	},
};
