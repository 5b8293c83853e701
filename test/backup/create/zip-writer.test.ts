/**
 * The sealed zip writer (source/backup/create/zip-writer.ts), on real files read back with hfx's
 * own zip reader: a new archive (mode 0600, never over an existing file or through a link) holds
 * each member with the record it returned (size, CRC-32, sha256, mode bits, mtime), the manifest
 * last; the seal in its comment is the sha256 of every byte before the end record, and the result
 * gives the file's size and CRC-32. A byte changed afterwards breaks the seal.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import {afterAll, describe, expect, it} from 'vitest';
import {ZipWriter} from '../../../source/backup/create/zip-writer.js';
import {SEAL_LENGTH, SEAL_PREFIX} from '../../../source/backup/archive/seal.js';
import {openZip, readMember, structuralProblems} from '../../../source/backup/archive/zipread.js';
import {flipBytes} from '../../helpers/flip-bytes.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-zip-writer-'));
afterAll(() => {
	fs.rmSync(dir, {recursive: true, force: true});
});

const MTIME = new Date('2026-01-02T03:04:06Z');
const BIG = Buffer.from(Array.from({length: 2 * 1_048_576 + 5}, (_, i) => (i * 7) % 256));
const SMALL = Buffer.from('model: hermes-3\n');

async function archive(name: string) {
	const file = path.join(dir, name);
	const src = path.join(dir, `${name}.src`);
	fs.writeFileSync(src, BIG);
	const writer = new ZipWriter(file, {writebackEvery: 1_048_576});
	expect((fs.statSync(file).mode & 0o777).toString(8)).toBe('600');
	let counted = 0;
	const config = writer.addBuffer('config.yaml', SMALL, 'file', {mode: 0o100644, mtime: MTIME, compress: true});
	const db = await writer.addFd('state.db', fs.openSync(src, 'r'), 'db', {
		mode: 0o600,
		mtime: MTIME,
		compress: false,
		onBytes: n => {
			counted += n;
		},
	});
	const result = await writer.finish(Buffer.from('{"format":"hfx-backup"}'));
	return {file, config, db, result, counted, writebacks: writer.writebacks, onDisk: writer.bytesOnDisk};
}

describe('ZipWriter', () => {
	it('returns each member’s record, as the bytes went in', async () => {
		const a = await archive('a.zip');
		expect(a.config).toEqual({
			path: 'config.yaml',
			size: SMALL.length,
			mode: 0o644,
			mtime: MTIME.toISOString(),
			crc32: (zlib.crc32(SMALL) >>> 0).toString(16).padStart(8, '0'),
			sha256: crypto.createHash('sha256').update(SMALL).digest('hex'),
			kind: 'file',
		});
		expect(a.db).toMatchObject({path: 'state.db', size: BIG.length, mode: 0o600, kind: 'db'});
		expect(a.db.sha256).toBe(crypto.createHash('sha256').update(BIG).digest('hex'));
		expect(a.counted).toBe(BIG.length);
		expect(a.writebacks).toBeGreaterThan(0);
	});

	it('seals the archive: the comment holds the sha256 of every byte before the end record', async () => {
		const a = await archive('b.zip');
		const bytes = fs.readFileSync(a.file);
		expect(a.result.bytes).toBe(bytes.length);
		expect(a.onDisk).toBe(bytes.length);
		expect(a.result.crc32).toBe(zlib.crc32(bytes) >>> 0);
		const before = bytes.subarray(0, bytes.length - 22 - SEAL_LENGTH);
		expect(a.result.seal).toBe(crypto.createHash('sha256').update(before).digest('hex'));
		expect(bytes.subarray(bytes.length - SEAL_LENGTH).toString('latin1')).toBe(`${SEAL_PREFIX}${a.result.seal}`);
	});

	it('reads back with hfx’s own reader: the members, their data and modes, the manifest last, no problem', async () => {
		const a = await archive('c.zip');
		const z = await openZip(a.file);
		try {
			expect(z.members.map(m => [m.name, m.mode])).toEqual([
				['config.yaml', 0o644],
				['state.db', 0o600],
				['manifest.json', 0o600],
			]);
			expect(z.seal).toBe(a.result.seal);
			expect(structuralProblems(z)).toEqual({problems: [], sealChecked: true});
			const chunks: Buffer[] = [];
			const read = await readMember(z, z.members[1]!, c => chunks.push(c));
			expect(read.crcOk).toBe(true);
			expect(Buffer.concat(chunks).equals(BIG)).toBe(true);
		} finally {
			z.close();
		}
	});

	it('a byte changed after writing breaks the seal', async () => {
		const a = await archive('d.zip');
		flipBytes(a.file, [40]);
		const z = await openZip(a.file);
		try {
			expect(
				structuralProblems(z)
					.problems.map(p => p.what)
					.join('; '),
			).toMatch(/seal/);
		} finally {
			z.close();
		}
	});

	it('never writes over an existing file, nor through a link planted at its name', () => {
		const existing = path.join(dir, 'exists.zip');
		fs.writeFileSync(existing, 'keep');
		expect(() => new ZipWriter(existing)).toThrow(expect.objectContaining({code: 'EEXIST'}));
		const link = path.join(dir, 'link.zip');
		fs.symlinkSync(existing, link);
		expect(() => new ZipWriter(link)).toThrow(/link/);
		expect(fs.readFileSync(existing, 'utf8')).toBe('keep');
	});

	it('abort stops the writing: nothing more goes in, no seal; the caller removes the file', async () => {
		const file = path.join(dir, 'aborted.zip');
		const writer = new ZipWriter(file);
		writer.addBuffer('a', Buffer.from('x'), 'file', {mode: 0o600, mtime: MTIME, compress: false});
		writer.abort();
		await expect(writer.finish(Buffer.from('{}'))).rejects.toThrow();
		expect(() =>
			writer.addBuffer('b', Buffer.from('y'), 'file', {mode: 0o600, mtime: MTIME, compress: false}),
		).toThrow();
		expect(fs.readFileSync(file).includes(SEAL_PREFIX)).toBe(false);
		fs.rmSync(file);
	});
});
