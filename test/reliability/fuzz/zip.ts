/**
 * The zip reader (source/backup/archive/zipread.ts): a sealed archive made by the real binary, mutated and
 * written to a file; openZip (its refusal: ZipUnreadable), structuralProblems (must not throw) and
 * readMember of every member (a decode error of the data is reported by the caller as damage:
 * zlib's Z_* errors and yauzl's validation errors are allowed; a TypeError or RangeError is a bug).
 */
import fs from 'node:fs';
import path from 'node:path';
import {openZip, readMember, structuralProblems, ZipUnreadable} from '../../../source/backup/archive/zipread.js';
import {archive} from '../fixtures.js';
import type {Fuzzer} from './fuzz-types.js';
import {fuzzLoop} from './loop.js';

function decodeError(error: unknown): boolean {
	const e = error as NodeJS.ErrnoException;
	return (
		e instanceof Error &&
		e.name === 'Error' &&
		(String(e.code ?? '').startsWith('Z_') ||
			/invalid|too many|expected|unexpected|unsupported|not supported|compress|size|truncated|end of/i.test(e.message))
	);
}

async function readZip(file: string): Promise<string | null> {
	let z: Awaited<ReturnType<typeof openZip>>;
	try {
		z = await openZip(file);
	} catch (error) {
		return error instanceof ZipUnreadable
			? null
			: `openZip threw ${(error as Error).name}: ${(error as Error).message}`;
	}

	try {
		structuralProblems(z);
		for (const m of z.members.filter(x => x.type === 'file').slice(0, 8)) {
			try {
				await readMember(z, m);
			} catch (error) {
				if (!decodeError(error)) {
					return `readMember(${JSON.stringify(m.name)}) threw ${(error as Error).name}: ${(error as Error).message}`;
				}
			}
		}

		return null;
	} finally {
		z.close();
	}
}

export const zipFuzzer: Fuzzer = {
	name: 'zip reader',
	notes:
		'source/backup/archive/zipread.ts openZip, structuralProblems, ' +
		'readMember on a sealed archive by dist/hfx.js, mutated',
	async run(seed, inputs) {
		const dir = fs.mkdtempSync(path.join(process.env.TMPDIR ?? '/tmp', 'hfx-fuzz-zip-'));
		try {
			const base = fs.readFileSync(await archive(dir));
			const file = path.join(dir, 'mutated.zip');
			return await fuzzLoop({name: this.name, notes: this.notes, seed, inputs, hot: 4096}, base, async input => {
				fs.writeFileSync(file, input);
				return readZip(file);
			});
		} finally {
			fs.rmSync(dir, {recursive: true, force: true});
		}
	},
};
