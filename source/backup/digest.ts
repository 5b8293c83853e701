/**
 * Hashing as bytes stream: a running CRC-32 + sha256 + byte count, a whole file's digest, and the
 * CRC-32 as the 8 hex digits the manifest records.
 */
import fs from 'node:fs';
import zlib from 'node:zlib';
import {sha256} from '../ground/crypto.js';
import {readChunks} from './chunks.js';
import {openForeign} from '../store/foreign-file.js';

export type Digest = {size: number; crc32: number; sha256: string};

/** A running CRC-32 + sha256 + byte count. */
export class Hasher {
	private readonly sha = sha256();
	crc = 0;
	size = 0;

	update(chunk: Buffer): void {
		this.sha.update(chunk);
		this.crc = zlib.crc32(chunk, this.crc);
		this.size += chunk.length;
	}

	digest(): Digest {
		return {size: this.size, crc32: this.crc >>> 0, sha256: this.sha.digest('hex')};
	}
}

/** Hashes a whole file with 1 MiB reads. Only for files this process holds no SQLite connection to. */
export function digestFile(file: string, onBytes?: (n: number) => void): Digest {
	const hasher = new Hasher();
	// A regular file only, opened non-blocking: a FIFO in a snapshot or home is never read.
	const {fd} = openForeign(file);
	try {
		readChunks(fd, chunk => {
			hasher.update(chunk);
			onBytes?.(chunk.length);
		});
	} finally {
		fs.closeSync(fd);
	}

	return hasher.digest();
}

export function crcHex(crc: number): string {
	return (crc >>> 0).toString(16).padStart(8, '0');
}
