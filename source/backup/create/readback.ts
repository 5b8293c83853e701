/**
 * The read-back of a new archive right after writing: the file on disk has exactly the bytes we
 * streamed (size, CRC-32 of the whole file, the seal), and its central directory lists every
 * manifest member with the size and CRC-32 we hashed.
 *
 * The CRC-32 pass can start before the archive is complete: the zip is written front to back and
 * no byte is ever rewritten (yazl streams with data descriptors; the seal is patched into the end
 * record before it is written), so the bytes already on disk while the database checks still run
 * are final. `readPrefix` reads them then (beside the check, on a core that would otherwise
 * wait); `readBack` reads the rest once the archive is sealed and fsynced, continuing the same
 * CRC. Either read sees the page cache, as a read after the fsync does.
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import {FailClosed} from '../../ground/errors.js';
import {readChunks} from '../chunks.js';
import {MANIFEST_NAME, type Manifest} from '../manifest.js';
import type {ProgressFn} from '../progress.js';
import {openZip, structuralProblems} from '../archive/zipread.js';

/** The CRC-32 of a file's first `bytes` bytes. */
export type ReadPrefix = {bytes: number; crc: number};

export const NO_PREFIX: ReadPrefix = {bytes: 0, crc: 0};

/** CRC-32 of the first `bytes` bytes of `file` (bytes written and never rewritten). */
export function readPrefix(file: string, bytes: number): ReadPrefix {
	const fd = fs.openSync(file, 'r');
	try {
		let crc = 0;
		const end = readChunks(
			fd,
			chunk => {
				crc = zlib.crc32(chunk, crc);
			},
			bytes,
		);
		return {bytes: end, crc};
	} finally {
		fs.closeSync(fd);
	}
}

function readbackFailure(file: string, what: string): FailClosed {
	return new FailClosed({
		file,
		kind: 'readback-failed',
		reason: `the archive read back from disk differs from what was written (${what}); it was removed`,
		next: 'check the disk (dmesg) and run the backup again, or write elsewhere with -o DIR',
	});
}

/** CRC-32 of the whole file, from `prefix` on. */
function crcFrom(file: string, prefix: ReadPrefix, size: number, onProgress?: ProgressFn): number {
	const fd = fs.openSync(file, 'r');
	let crc = prefix.crc;
	let done = prefix.bytes;
	try {
		readChunks(
			fd,
			chunk => {
				crc = zlib.crc32(chunk, crc);
				done += chunk.length;
				onProgress?.({phase: 'readback', label: path.basename(file), done, total: size});
			},
			Number.POSITIVE_INFINITY,
			prefix.bytes,
		);
	} finally {
		fs.closeSync(fd);
	}

	return crc >>> 0;
}

/** The read-back check (see the file comment); `prefix` from readPrefix. Throws FailClosed when the file differs. */
export async function readBack(
	file: string,
	manifest: Manifest,
	expected: {bytes: number; seal: string; crc32: number},
	onProgress?: ProgressFn,
	prefix: ReadPrefix = NO_PREFIX,
): Promise<void> {
	const size = fs.statSync(file).size;
	if (size !== expected.bytes) {
		throw readbackFailure(file, `${size} bytes on disk, ${expected.bytes} written`);
	}

	// CRC-32 of the whole file (fast); the seal covers the same bytes with sha256 on `hfx verify`.
	if (prefix.bytes > size || crcFrom(file, prefix, size, onProgress) !== expected.crc32) {
		throw readbackFailure(file, 'CRC-32 of the whole file');
	}

	const z = await openZip(file);
	try {
		if (z.seal !== expected.seal) {
			throw readbackFailure(file, 'seal');
		}

		const structure = structuralProblems(z, {skipSeal: true});
		if (structure.problems.length > 0) {
			throw readbackFailure(file, structure.problems.map(p => `${p.where}: ${p.what}`).join('; '));
		}

		const byName = new Map(z.members.map(m => [m.name, m]));
		for (const m of manifest.members) {
			const e = byName.get(m.path);
			if (
				!e ||
				e.entry.uncompressedSize !== m.size ||
				(e.entry.crc32 >>> 0).toString(16).padStart(8, '0') !== m.crc32
			) {
				throw readbackFailure(file, `member ${m.path}`);
			}
		}

		if (z.members.length !== manifest.members.length + 1 || !byName.has(MANIFEST_NAME)) {
			throw readbackFailure(file, 'member list');
		}
	} finally {
		z.close();
	}
}
