/**
 * The tar reader (source/backup/archive/tarread.ts readTar, tar-stream under it): a real `tar` stream of a
 * home (ungzipped), mutated and written to a file. Its one refusal is TarDamaged; any other throw
 * fails, and so does more member data than the stream holds.
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import {TarDamaged, readTar} from '../../../source/backup/archive/tarread.js';
import {tarball} from '../fixtures.js';
import type {Fuzzer} from './fuzz-types.js';
import {fuzzLoop} from './loop.js';

async function readAll(file: string, input: Buffer): Promise<string | null> {
	fs.writeFileSync(file, input);
	let bytes = 0;
	try {
		await readTar(file, {
			gz: false,
			async onMember(_m, data) {
				for await (const chunk of data) {
					bytes += chunk.length;
				}
			},
		});
	} catch (error) {
		if (!(error instanceof TarDamaged)) {
			return `threw ${(error as Error).name}: ${(error as Error).message}`;
		}
	}

	return bytes > input.length ? `member data (${bytes} bytes) larger than the stream (${input.length})` : null;
}

export const tarFuzzer: Fuzzer = {
	name: 'tar reader',
	notes:
		'source/backup/archive/tarread.ts readTar (tar-stream) on a real tar of ' +
		'a home, mutated (headers, sizes, checksums, pax)',
	async run(seed, inputs) {
		const dir = fs.mkdtempSync(path.join(process.env.TMPDIR ?? '/tmp', 'hfx-fuzz-tar-'));
		try {
			const base = zlib.gunzipSync(fs.readFileSync(await tarball(dir)));
			const file = path.join(dir, 'input.tar');
			return await fuzzLoop({name: this.name, notes: this.notes, seed, inputs, hot: 1536}, base, async input =>
				readAll(file, input),
			);
		} finally {
			fs.rmSync(dir, {recursive: true, force: true});
		}
	},
};
