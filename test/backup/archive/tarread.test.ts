/**
 * The tar reader (source/backup/archive/tarread.ts): real tar streams written by the reliability
 * suite's ustar writer (test/reliability/craft-tar.ts), whole, cut, flipped or gzip-damaged; every
 * damage a TarDamaged naming its layer, a handler's own error passed on as it is.
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import {afterAll, describe, expect, it} from 'vitest';
import {type TarMember, TarDamaged, readTar, writeMember} from '../../../source/backup/archive/tarread.js';
import {craftTar} from '../../reliability/craft-tar.js';
import {cleanupTemps, tempDir} from '../helpers.js';

afterAll(cleanupTemps);

const DATA = Buffer.from('hello tar\n');

/** A tar.gz of every member type, and the same stream ungzipped. */
function archives(dir: string): {gz: string; tar: string; raw: Buffer} {
	const gz = craftTar(path.join(dir, 'a.tar.gz'), [
		{name: 'home/', type: 'dir'},
		{name: 'home/state.db', data: DATA},
		{name: 'home/link', type: 'symlink', link: '/etc/shadow'},
		{name: 'home/hard', type: 'hardlink', link: 'home/state.db'},
		{name: 'home/null', type: 'chardev'},
		{name: 'home/pipe', type: 'fifo'},
	]);
	const raw = zlib.gunzipSync(fs.readFileSync(gz));
	const tar = path.join(dir, 'a.tar');
	fs.writeFileSync(tar, raw);
	return {gz, tar, raw};
}

/** Every member and its data as read; the error thrown, if any. */
async function readAll(file: string, gz: boolean): Promise<{members: TarMember[]; data: string[]; error?: unknown}> {
	const members: TarMember[] = [];
	const data: string[] = [];
	try {
		await readTar(file, {
			gz,
			async onMember(m, chunks) {
				members.push(m);
				const parts: Buffer[] = [];
				for await (const c of chunks) {
					parts.push(c);
				}

				data.push(Buffer.concat(parts).toString());
			},
		});
		return {members, data};
	} catch (error) {
		return {members, data, error};
	}
}

describe('readTar: a whole archive', () => {
	it('hands over each member in order with its type in the member policy words, its mode, size and link', async () => {
		const {gz, tar} = archives(tempDir('tar-whole'));
		for (const [file, isGz] of [
			[gz, true],
			[tar, false],
		] as const) {
			const r = await readAll(file, isGz);
			expect(r.error).toBeUndefined();
			expect(r.members.map(m => [m.name, m.type, m.size, m.mode, m.linkName])).toEqual([
				['home/', 'dir', 0, 0o755, ''],
				['home/state.db', 'file', DATA.length, 0o644, ''],
				['home/link', 'symlink', 0, 0o644, '/etc/shadow'],
				['home/hard', 'hardlink', 0, 0o644, 'home/state.db'],
				['home/null', 'device', 0, 0o644, ''],
				['home/pipe', 'fifo', 0, 0o644, ''],
			]);
			expect(r.data[1]).toBe(DATA.toString());
		}
	});

	it('returns the member count and the raw bytes read, and reports them as it reads', async () => {
		const {gz} = archives(tempDir('tar-count'));
		const seen: number[] = [];
		const r = await readTar(gz, {gz: true, async onMember() {}, onRawBytes: n => seen.push(n)});
		expect(r).toEqual({members: 6, rawBytes: fs.statSync(gz).size});
		expect(seen.at(-1)).toBe(fs.statSync(gz).size);
	});
});

describe('readTar: damage is a TarDamaged naming the layer', () => {
	async function damage(raw: Buffer, gz = false): Promise<TarDamaged> {
		const file = path.join(tempDir('tar-damage'), gz ? 'x.tar.gz' : 'x.tar');
		fs.writeFileSync(file, raw);
		const r = await readAll(file, gz);
		expect(r.error).toBeInstanceOf(TarDamaged);
		return r.error as TarDamaged;
	}

	it('a tar cut at a member boundary (no end-of-archive blocks) is cut off, not complete', async () => {
		const {raw} = archives(tempDir('tar-cut'));
		const e = await damage(raw.subarray(0, raw.length - 1024));
		expect([e.layer, e.message]).toEqual(['tar', 'no end-of-archive blocks (cut off?)']);
		expect(e.where).toBe(`tar stream byte ${raw.length - 1024}`);
	});

	it('a stream cut inside a member, and one with a part of a block after its end: never read as complete', async () => {
		const {raw} = archives(tempDir('tar-block'));
		// tar-stream takes the 100 bytes for the start of a header, and stops there.
		const e = await damage(Buffer.concat([raw, Buffer.alloc(100)]));
		expect([e.layer, e.message]).toEqual(['tar', 'the archive ends inside a member (cut off?)']);
		// The second member's header is at 512, its data at 1024: cut after 4 of its bytes.
		const cut = await damage(raw.subarray(0, 1028));
		expect([cut.layer, cut.message]).toEqual(['tar', 'the archive ends inside a member (cut off?)']);
	});

	it('a header whose checksum does not match', async () => {
		const {raw} = archives(tempDir('tar-sum'));
		raw[512] = raw[512]! ^ 0x01;
		const e = await damage(raw);
		expect([e.layer, e.message]).toEqual(['tar', 'header checksum mismatch (or not a tar header)']);
	});

	it("a gzip stream whose trailer CRC-32 is wrong, and one cut short, are the gzip layer's", async () => {
		const {gz} = archives(tempDir('tar-gz'));
		const bytes = fs.readFileSync(gz);
		const flipped = Buffer.from(bytes);
		flipped[flipped.length - 8] = flipped[flipped.length - 8]! ^ 0xff;
		const e = await damage(flipped, true);
		expect(e.layer).toBe('gzip');
		expect(e.message).toMatch(/\(Z_DATA_ERROR\)$/);
		expect(e.where).toMatch(/^compressed stream \(about byte \d+\)$/);
		const short = await damage(bytes.subarray(0, bytes.length - 4), true);
		expect(short.layer).toBe('gzip');
		expect(short.message).toMatch(/\(Z_BUF_ERROR\)$/);
	});
});

describe("readTar: the handler's error is the handler's", () => {
	it('is thrown as it is, not as damage of the archive', async () => {
		const {gz} = archives(tempDir('tar-handler'));
		const own = Object.assign(new Error('disk full'), {code: 'ENOSPC'});
		await expect(
			readTar(gz, {
				gz: true,
				async onMember() {
					throw own;
				},
			}),
		).rejects.toBe(own);
	});

	it("a folder given as the archive is the file's error (EISDIR), not damage", async () => {
		const dir = tempDir('tar-eisdir');
		const r = await readAll(dir, false);
		expect(r.error).not.toBeInstanceOf(TarDamaged);
		expect((r.error as NodeJS.ErrnoException).code).toBe('EISDIR');
	});
});

describe('writeMember', () => {
	async function* chunks(...parts: string[]): AsyncIterable<Buffer> {
		for (const p of parts) {
			yield Buffer.from(p);
		}
	}

	it('writes the data to a new private file and returns its length', async () => {
		const file = path.join(tempDir('tar-write'), 'out');
		expect(await writeMember(chunks('ab', 'cde'), file, 5)).toBe(5);
		expect(fs.readFileSync(file, 'utf8')).toBe('abcde');
		expect(fs.statSync(file).mode & 0o777).toBe(0o600);
	});

	it('fewer bytes than the header says is damage; an existing file or a planted link is never written', async () => {
		const dir = tempDir('tar-write-bad');
		await expect(writeMember(chunks('ab'), path.join(dir, 'short'), 3)).rejects.toMatchObject({
			name: 'TarDamaged',
			layer: 'tar',
			message: 'member data is 2 bytes, its header says 3',
		});
		fs.writeFileSync(path.join(dir, 'there'), 'old');
		await expect(writeMember(chunks('new'), path.join(dir, 'there'), 3)).rejects.toMatchObject({code: 'EEXIST'});
		expect(fs.readFileSync(path.join(dir, 'there'), 'utf8')).toBe('old');
		fs.symlinkSync(path.join(dir, 'target'), path.join(dir, 'link'));
		await expect(writeMember(chunks('new'), path.join(dir, 'link'), 3)).rejects.toThrow(/link/);
		expect(fs.existsSync(path.join(dir, 'target'))).toBe(false);
	});
});
