/**
 * store/files/shm-owner.ts: a -shm is held by a live connection only when a lock covers its dead-man switch (byte
 * 128); a read mark alone (byte 123: a reader with the -shm read-only, as hfx reads a crashed store) is no
 * connection. Read from a /proc/locks text given to it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterAll, describe, expect, it, vi} from 'vitest';
import {procLocksDevice} from '../../../source/store/files/holders.js';
import {shmHeld} from '../../../source/store/files/shm-owner.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-shm-owner-'));
afterAll(() => fs.rmSync(dir, {recursive: true, force: true}));

const SHM = {dev: 0xfe00, ino: 2_793_651};

function held(lines: string[]): boolean | null {
	const file = path.join(dir, `locks-${lines.length}-${Math.random().toString(16).slice(2)}`);
	fs.writeFileSync(file, lines.map((l, i) => `${i + 1}: ${l}\n`).join(''));
	return shmHeld(SHM, file);
}

describe('shmHeld', () => {
	const dev = procLocksDevice(SHM.dev);

	it('a lock on the dead-man switch, or a range over it, is a live connection', () => {
		expect(held([`POSIX  ADVISORY  READ 4242 ${dev}:${SHM.ino} 128 128`])).toBe(true);
		expect(held([`POSIX  ADVISORY  WRITE 4242 ${dev}:${SHM.ino} 120 EOF`])).toBe(true);
	});

	it('a read mark alone (a read-only -shm reader), another file, or nothing is none', () => {
		expect(held([`POSIX  ADVISORY  READ 4242 ${dev}:${SHM.ino} 123 123`])).toBe(false);
		expect(held([`POSIX  ADVISORY  READ 4242 ${dev}:${SHM.ino + 1} 128 128`])).toBe(false);
		expect(held([])).toBe(false);
	});

	it('says it cannot tell when /proc/locks cannot be read', () => {
		expect(shmHeld(SHM, path.join(dir, 'no-such-file'))).toBeNull();
	});

	it('reads a /proc/locks larger than its first buffer whole: the holder on its last line is found', () => {
		const others = Array.from({length: 3000}, (_, i) => `POSIX  ADVISORY  READ ${i} ${dev}:${SHM.ino + 1 + i} 128 128`);
		expect(others.join('\n').length).toBeGreaterThan(128 * 1024);
		expect(held([...others, `POSIX  ADVISORY  READ 4242 ${dev}:${SHM.ino} 128 128`])).toBe(true);
		expect(held(others)).toBe(false);
	});

	it('reads /proc/locks into the buffer it keeps: nothing allocated per look (one before every live read)', () => {
		const lines = [`POSIX  ADVISORY  READ 4242 ${dev}:${SHM.ino} 128 128`];
		expect(held(lines)).toBe(true);
		const unsafe = vi.spyOn(Buffer, 'allocUnsafe');
		const alloc = vi.spyOn(Buffer, 'alloc');
		try {
			expect(held(lines)).toBe(true);
			// Before: two 64 KiB chunks (the text, then the read that finds its end) and their copy, on every look.
			expect(unsafe).not.toHaveBeenCalled();
			expect(alloc).not.toHaveBeenCalled();
		} finally {
			unsafe.mockRestore();
			alloc.mockRestore();
		}
	});
});
