/**
 * The one chunked read every hash, copy and read-back goes through.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {readChunks} from '../../source/backup/chunks.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-chunks-'));
afterAll(() => fs.rmSync(dir, {recursive: true, force: true}));

function withFile(bytes: Buffer, fn: (fd: number) => void): void {
	const file = path.join(dir, crypto.randomUUID());
	fs.writeFileSync(file, bytes);
	const fd = fs.openSync(file, 'r');
	try {
		fn(fd);
	} finally {
		fs.closeSync(fd);
	}
}

describe('readChunks', () => {
	const data = crypto.randomBytes(2.5 * (1 << 20));

	it('reads every byte in order, in 1 MiB chunks, and returns the count', () => {
		withFile(data, fd => {
			const parts: Buffer[] = [];
			const read = readChunks(fd, chunk => parts.push(Buffer.from(chunk)));
			expect(parts.map(p => p.length)).toEqual([1 << 20, 1 << 20, 1 << 19]);
			expect(Buffer.concat(parts).equals(data)).toBe(true);
			expect(read).toBe(data.length);
		});
	});

	it('stops at `end`, and reads nothing of an empty file', () => {
		withFile(data, fd => {
			const parts: Buffer[] = [];
			expect(readChunks(fd, chunk => parts.push(Buffer.from(chunk)), 1_500_000)).toBe(1_500_000);
			expect(Buffer.concat(parts).equals(data.subarray(0, 1_500_000))).toBe(true);
		});
		withFile(Buffer.alloc(0), fd => {
			let calls = 0;
			expect(readChunks(fd, () => calls++)).toBe(0);
			expect(calls).toBe(0);
		});
	});
});
