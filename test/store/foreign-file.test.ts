/**
 * Reading files hfx did not create: a regular file only (checked on the open descriptor), a bounded
 * read, no link followed when asked. (A FIFO is exercised through the real binary in hangs.test.ts,
 * where a regression blocks a child process with a timeout, not this test process.)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {FailClosed} from '../../source/ground/errors.js';
import {copyForeign, readForeign, readForeignTextOrEmpty} from '../../source/store/foreign-file.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-foreign-'));
afterAll(() => fs.rmSync(dir, {recursive: true, force: true}));

describe('readForeign', () => {
	it('reads at most maxBytes and says when there was more', () => {
		const f = path.join(dir, 'big.txt');
		fs.writeFileSync(f, 'x'.repeat(200_000));
		const r = readForeign(f, {maxBytes: 100_000});
		expect(r.bytes.length).toBe(100_000);
		expect(r.truncated).toBe(true);
		expect(readForeign(f, {maxBytes: 200_000}).truncated).toBe(false);
	});

	it('reads /proc files, whose size says 0, to their end', () => {
		expect(readForeignTextOrEmpty('/proc/self/stat')).toMatch(/^\d+ \(/);
	});

	it('refuses a directory as not a regular file, and a link under noFollow (ELOOP)', () => {
		expect(() => readForeign(dir, {maxBytes: 10})).toThrow(FailClosed);
		expect(() => readForeign(dir, {maxBytes: 10})).toThrow(/a directory, not a regular file/);
		const target = path.join(dir, 'target.txt');
		fs.writeFileSync(target, 'secret');
		const link = path.join(dir, 'link.txt');
		fs.symlinkSync(target, link);
		expect(readForeign(link, {maxBytes: 10}).bytes.toString()).toBe('secret');
		expect(() => readForeign(link, {maxBytes: 10, noFollow: true})).toThrow(
			expect.objectContaining({code: 'ELOOP'}) as Error,
		);
	});
});

describe('copyForeign', () => {
	it('copies a regular file into a new file (never over an existing one)', () => {
		const src = path.join(dir, 'src.bin');
		fs.writeFileSync(src, Buffer.alloc(3 * 1024 * 1024 + 7, 5));
		const dest = path.join(dir, 'dest.bin');
		expect(copyForeign(src, dest)).toBe(3 * 1024 * 1024 + 7);
		expect(fs.readFileSync(dest).equals(fs.readFileSync(src))).toBe(true);
		expect(() => copyForeign(src, dest)).toThrow(expect.objectContaining({code: 'EEXIST'}) as Error);
	});
});
