/**
 * Reading a file descriptor front to back in 1 MiB chunks: the one loop every hash, copy and
 * read-back uses. Each chunk is a view of one reused buffer, valid only during its callback.
 */
import fs from 'node:fs';

const CHUNK = 1 << 20;

/**
 * Calls `each` with every chunk of `fd` from byte `start` (default 0) up to `end` (default: its end); returns the
 * position reached.
 */
export function readChunks(
	fd: number,
	each: (chunk: Buffer) => void,
	end = Number.POSITIVE_INFINITY,
	start = 0,
): number {
	const buf = Buffer.allocUnsafe(CHUNK);
	let pos = start;
	while (pos < end) {
		const n = fs.readSync(fd, buf, 0, Math.min(buf.length, end - pos), pos);
		if (n <= 0) {
			break;
		}

		each(buf.subarray(0, n));
		pos += n;
	}

	return pos;
}
