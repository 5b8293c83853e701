/**
 * Hashing as bytes stream (source/backup/digest.ts): the running Hasher gives the same size, CRC-32
 * and sha256 however the bytes are cut; digestFile hashes a whole regular file (counting its bytes
 * as read) and refuses a device or a folder without reading it; crcHex is 8 hex digits.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import {afterAll, describe, expect, it} from 'vitest';
import {Hasher, crcHex, digestFile} from '../../source/backup/digest.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-digest-'));
afterAll(() => {
	fs.rmSync(dir, {recursive: true, force: true});
});

const BYTES = Buffer.from(Array.from({length: 3 * 1024 * 1024 + 17}, (_, i) => (i * 31) % 251));
const SHA = crypto.createHash('sha256').update(BYTES).digest('hex');

describe('Hasher', () => {
	it('the empty digest', () => {
		expect(new Hasher().digest()).toEqual({
			size: 0,
			crc32: 0,
			sha256: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
		});
	});

	it('the same digest however the bytes are cut', () => {
		const whole = new Hasher();
		whole.update(BYTES);
		const cut = new Hasher();
		for (const at of [0, 1, 1000, 65_536, BYTES.length]) {
			cut.update(BYTES.subarray(cut.size, at));
		}

		const expected = {size: BYTES.length, crc32: zlib.crc32(BYTES) >>> 0, sha256: SHA};
		expect(whole.digest()).toEqual(expected);
		expect(cut.digest()).toEqual(expected);
	});

	it('"123456789" has the CRC-32 check value cbf43926', () => {
		const h = new Hasher();
		h.update(Buffer.from('123456789'));
		expect(crcHex(h.digest().crc32)).toBe('cbf43926');
	});
});

describe('digestFile', () => {
	it('hashes a whole file in chunks, counting its bytes', () => {
		const file = path.join(dir, 'state.db');
		fs.writeFileSync(file, BYTES);
		let counted = 0;
		let calls = 0;
		const d = digestFile(file, n => {
			counted += n;
			calls++;
		});
		expect(d).toEqual({size: BYTES.length, crc32: zlib.crc32(BYTES) >>> 0, sha256: SHA});
		expect(counted).toBe(BYTES.length);
		expect(calls).toBeGreaterThan(1);
	});

	it('refuses what is not a regular file (a device, a folder) without reading it', () => {
		expect(() => digestFile('/dev/zero')).toThrow(/not a regular file/);
		expect(() => digestFile(dir)).toThrow(/not a regular file/);
	});
});

describe('crcHex', () => {
	it('8 lower-case hex digits, zero-padded, of the unsigned value', () => {
		expect(crcHex(0)).toBe('00000000');
		expect(crcHex(0xab)).toBe('000000ab');
		expect(crcHex(-1)).toBe('ffffffff');
	});
});
