/**
 * The zip reader (source/backup/archive/zipread.ts): archives written by the real ZipWriter (sealed)
 * and by the tests' hostile zip writer (craftZip: any name, any unix type), read whole, then
 * changed byte by byte: every change a problem with its place, a file that is no zip a ZipUnreadable.
 */
import {spawnSync} from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {
	type OpenedZip,
	ZipUnreadable,
	openZip,
	readMember,
	structuralProblems,
} from '../../../source/backup/archive/zipread.js';
import {ZipWriter} from '../../../source/backup/create/zip-writer.js';
import {cleanupTemps, craftZip, tempDir} from '../helpers.js';

afterAll(cleanupTemps);

const MTIME = new Date('2026-06-01T00:00:00Z');
const CONFIG = Buffer.from('model: hermes-3\n'.repeat(20));

/** A sealed archive of two members and a manifest, as `hfx backup` writes it. */
async function sealed(dir: string): Promise<{file: string; seal: string}> {
	const file = path.join(dir, 'sealed.zip');
	const w = new ZipWriter(file);
	w.addBuffer('config.yaml', CONFIG, 'file', {mode: 0o644, mtime: MTIME, compress: true});
	w.addBuffer('.env', Buffer.from('KEY=x\n'), 'file', {mode: 0o600, mtime: MTIME, compress: false});
	const r = await w.finish(Buffer.from('{}'));
	return {file, seal: r.seal};
}

async function opened<T>(file: string, fn: (z: OpenedZip) => Promise<T> | T): Promise<T> {
	const z = await openZip(file);
	try {
		return await fn(z);
	} finally {
		z.close();
	}
}

function write(dir: string, name: string, bytes: Buffer): string {
	const file = path.join(dir, name);
	fs.writeFileSync(file, bytes);
	return file;
}

describe('openZip and readMember: a sealed archive', () => {
	it('lists the members with their types and modes, reads the seal, and finds no problem', async () => {
		const {file, seal} = await sealed(tempDir('zr-sealed'));
		await opened(file, async z => {
			expect(z.members.map(m => [m.index, m.name, m.type, m.mode])).toEqual([
				[0, 'config.yaml', 'file', 0o644],
				[1, '.env', 'file', 0o600],
				[2, 'manifest.json', 'file', 0o600],
			]);
			expect(z.seal).toBe(seal);
			expect(z.size).toBe(fs.statSync(file).size);
			expect(z.eocdOffset).toBe(z.size - 22 - z.comment.length);
			let bytes = 0;
			expect(structuralProblems(z, {onBytes: n => (bytes += n)})).toEqual({problems: [], sealChecked: true});
			expect(bytes).toBe(z.eocdOffset);
			expect(structuralProblems(z, {skipSeal: true})).toEqual({problems: [], sealChecked: false});
			const chunks: Buffer[] = [];
			const d = await readMember(z, z.members[0]!, c => chunks.push(c));
			expect(Buffer.concat(chunks).equals(CONFIG)).toBe(true);
			expect(d.crcOk).toBe(true);
			expect(d.size).toBe(CONFIG.length);
		});
	});

	it('a changed byte of member data breaks the seal, and the CRC-32 of that member', async () => {
		const {file} = await sealed(tempDir('zr-flip'));
		const bytes = fs.readFileSync(file);
		// .env is stored (not compressed): its data is plain in the file.
		const at = bytes.indexOf('KEY=x');
		bytes[at] = 'k'.charCodeAt(0);
		const flipped = write(path.dirname(file), 'flipped.zip', bytes);
		await opened(flipped, async z => {
			const {problems} = structuralProblems(z);
			expect(problems).toEqual([
				{
					where: `bytes 0–${z.eocdOffset} (the archive seal)`,
					what: 'the sha256 of the archive does not match its seal: some byte before the end record changed',
				},
			]);
			expect((await readMember(z, z.members[1]!)).crcOk).toBe(false);
		});
	});
});

describe('openZip: the unix file type of each member', () => {
	it('reads symlinks, devices, FIFOs, sockets and folders from the external attributes', async () => {
		const dir = tempDir('zr-types');
		const e = (name: string, mode: number) => ({name, data: Buffer.from(''), mode});
		const file = write(
			dir,
			'types.zip',
			craftZip([
				e('link', 0o120777),
				e('chr', 0o020644),
				e('blk', 0o060644),
				e('fifo', 0o010600),
				e('sock', 0o140755),
				e('dir', 0o040700),
				e('plain', 0o100640),
				e('slash/', 0o100644),
			]),
		);
		await opened(file, z => {
			expect(z.members.map(m => [m.name, m.type, m.mode])).toEqual([
				['link', 'symlink', 0o777],
				['chr', 'device', 0o644],
				['blk', 'device', 0o644],
				['fifo', 'fifo', 0o600],
				['sock', 'socket', 0o755],
				['dir', 'dir', 0o700],
				['plain', 'file', 0o640],
				['slash/', 'dir', 0o644],
			]);
			expect(z.seal).toBeNull();
		});
	});
});

describe('structuralProblems: the bytes between and around the records', () => {
	it('a local header whose time differs from its central record', async () => {
		const bytes = craftZip([{name: 'state.db', data: Buffer.from('abc')}]);
		bytes.writeUInt16LE(0x1234, 10);
		const file = write(tempDir('zr-local'), 'local.zip', bytes);
		await opened(file, z => {
			expect(structuralProblems(z).problems).toEqual([
				{
					where: 'member "state.db" (local header at byte 0)',
					what: 'local header disagrees with the central directory: modification time',
				},
			]);
		});
	});

	it('bytes slipped in before the central directory are unaccounted for', async () => {
		const zip = craftZip([{name: 'a', data: Buffer.from('one')}]);
		const eocd = zip.length - 22;
		const cd = zip.readUInt32LE(eocd + 16);
		const more = Buffer.concat([zip.subarray(0, cd), Buffer.from('SNEAKY'), zip.subarray(cd)]);
		more.writeUInt32LE(cd + 6, eocd + 6 + 16);
		const file = write(tempDir('zr-gap'), 'gap.zip', more);
		await opened(file, z => {
			expect(structuralProblems(z).problems).toEqual([
				{where: `bytes ${cd}–${cd + 6}`, what: '6 unaccounted bytes between the last member and the central directory'},
			]);
		});
	});

	it('a comment that starts like a seal but is none: the seal is damaged', async () => {
		const file = write(
			tempDir('zr-seal'),
			'seal.zip',
			craftZip([{name: 'a', data: Buffer.from('x')}], 'hfx-seal-v1 x'),
		);
		await opened(file, z => {
			expect(z.seal).toBeNull();
			expect(structuralProblems(z)).toEqual({
				problems: [{where: `end record comment (byte ${z.eocdOffset + 22})`, what: 'the archive seal is damaged'}],
				sealChecked: false,
			});
		});
	});
});

describe('openZip: no zip at all is a ZipUnreadable', () => {
	async function unreadable(file: string): Promise<string> {
		const error = await openZip(file).then(
			() => null,
			(e: unknown) => e,
		);
		expect(error).toBeInstanceOf(ZipUnreadable);
		return (error as Error).message;
	}

	it('says why: no end record, an absent file, a FIFO never read', async () => {
		const dir = tempDir('zr-not');
		expect(await unreadable(write(dir, 'text.zip', Buffer.from('not a zip')))).toBe(
			'no zip end record found (not a zip file, or its last bytes are damaged or cut off)',
		);
		const cut = craftZip([{name: 'a', data: Buffer.from('x')}]);
		expect(await unreadable(write(dir, 'cut.zip', cut.subarray(0, cut.length - 1)))).toMatch(/^no zip end record/);
		expect(await unreadable(path.join(dir, 'absent.zip'))).toBe('cannot open it (ENOENT)');
		const fifo = path.join(dir, 'pipe.zip');
		expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
		expect(await unreadable(fifo)).toMatch(/FIFO/);
	});

	it('a central directory record with a bad signature', async () => {
		const zip = craftZip([{name: 'a', data: Buffer.from('x')}]);
		zip.writeUInt32LE(0x0badbeef, zip.readUInt32LE(zip.length - 22 + 16));
		expect(await unreadable(write(tempDir('zr-cd'), 'cd.zip', zip))).toMatch(/central directory/);
	});
});
