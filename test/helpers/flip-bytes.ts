/**
 * Damage a file by flipping bytes in place: each chosen byte is XORed with 0xff, so it always
 * changes. Writing a constant instead is a no-op whenever the byte already held it: CI on
 * 2026-12-04 wrote 0xa5 over a byte of a WAL header's random salt, found 0xa5 there (1 run in
 * 256) and saw `hfx files` rightly call the untouched store healthy. The caller holds no SQLite
 * connection to the file.
 */
import fs from 'node:fs';

export function flipBytes(file: string, offsets: number[]): void {
	const fd = fs.openSync(file, 'r+');
	try {
		for (const o of offsets) {
			const b = Buffer.alloc(1);
			if (fs.readSync(fd, b, 0, 1, o) !== 1) {
				throw new Error(`flipBytes: ${file} has no byte at ${o}`);
			}

			b[0] = b[0]! ^ 0xff;
			fs.writeSync(fd, b, 0, 1, o);
		}
	} finally {
		fs.closeSync(fd);
	}
}
