/**
 * The read-back of a new archive, its CRC pass split in two: a prefix read while the archive is
 * still being written (as the backup does while the database checks run), the rest after the
 * seal. Sound with the prefix; a wrong prefix, a prefix past the end, or a byte changed after the
 * prefix in the part read last are each caught.
 */
import fs from 'node:fs';
import path from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {ZipWriter} from '../../../source/backup/create/zip-writer.js';
import {type Manifest, newManifest} from '../../../source/backup/manifest.js';
import {NO_PREFIX, type ReadPrefix, readBack, readPrefix} from '../../../source/backup/create/readback.js';
import {cleanupTemps, tempDir} from '../helpers.js';

afterAll(cleanupTemps);

type Written = {
	file: string;
	manifest: Manifest;
	written: {bytes: number; seal: string; crc32: number};
	prefix: ReadPrefix;
};

/** An archive of two 3 MiB members; the prefix read after the first one went in, before the second. */
async function writeWithPrefix(): Promise<Written> {
	const dir = tempDir('readback');
	const file = path.join(dir, 'a.zip');
	const writer = new ZipWriter(file);
	const manifest = newManifest('full', 'a', dir, new Date(), null);
	let prefix = NO_PREFIX;
	for (const [i, name] of ['one.bin', 'two.bin'].entries()) {
		const src = path.join(dir, name);
		fs.writeFileSync(src, Buffer.alloc(3 * 1_048_576, i + 1));
		manifest.members.push(
			await writer.addFd(name, fs.openSync(src, 'r'), 'file', {mode: 0o600, mtime: new Date(), compress: false}),
		);
		if (i === 0) {
			await new Promise(resolve => setTimeout(resolve, 50));
			prefix = readPrefix(file, writer.bytesOnDisk);
		}
	}

	const written = await writer.finish(Buffer.from(JSON.stringify(manifest)));
	return {file, manifest, written, prefix};
}

describe('readBack with a prefix read while writing', () => {
	it('is sound: the prefix covers written bytes and the rest completes the same CRC', async () => {
		const w = await writeWithPrefix();
		expect(w.prefix.bytes).toBeGreaterThan(1_048_576);
		expect(w.prefix.bytes).toBeLessThan(w.written.bytes);
		await expect(readBack(w.file, w.manifest, w.written, undefined, w.prefix)).resolves.toBeUndefined();
		await expect(readBack(w.file, w.manifest, w.written)).resolves.toBeUndefined();
	});

	it('fails on a wrong prefix CRC and on a prefix past the end of the file', async () => {
		const w = await writeWithPrefix();
		await expect(
			readBack(w.file, w.manifest, w.written, undefined, {...w.prefix, crc: (w.prefix.crc + 1) >>> 0}),
		).rejects.toMatchObject({
			kind: 'readback-failed',
			reason: expect.stringContaining('CRC-32 of the whole file') as string,
		});
		await expect(
			readBack(w.file, w.manifest, w.written, undefined, {bytes: w.written.bytes + 1, crc: w.prefix.crc}),
		).rejects.toMatchObject({kind: 'readback-failed'});
	});

	it('fails when a byte after the prefix differs on disk', async () => {
		const w = await writeWithPrefix();
		const fd = fs.openSync(w.file, 'r+');
		const at = w.prefix.bytes + 1000;
		const b = Buffer.alloc(1);
		fs.readSync(fd, b, 0, 1, at);
		b[0] = b[0]! ^ 0x01;
		fs.writeSync(fd, b, 0, 1, at);
		fs.closeSync(fd);
		await expect(readBack(w.file, w.manifest, w.written, undefined, w.prefix)).rejects.toMatchObject({
			kind: 'readback-failed',
			reason: expect.stringContaining('CRC-32 of the whole file') as string,
		});
	});
});
