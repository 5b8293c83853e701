/**
 * The 32-byte `-wal` header (docs/sqlite-wal.md, wal-header): parsed, its checksum verified, and
 * judged the way SQLite judges it (not a WAL, a WAL it refuses, one caught half-written, or one it
 * would use).
 */
import {Summer} from './wal-checksum.js';
import {
	WAL_FORMAT_VERSION,
	WAL_HEADER_BYTES,
	WAL_MAGIC_BE,
	WAL_MAGIC_LE,
	type WalHeader,
	type WalHeaderParse,
} from './wal-format.js';

function isValidPageSize(n: number): boolean {
	return n >= 512 && n <= 65_536 && (n & (n - 1)) === 0;
}

/** Parses the 32-byte header. `header` is null when there is nothing to parse (empty, too short, not a WAL). */
export function parseWalHeader(buf: Buffer): WalHeaderParse {
	if (buf.length === 0) {
		return {state: 'empty', header: null};
	}

	if (buf.length < WAL_HEADER_BYTES) {
		return {state: 'too-short', header: null};
	}

	const magic = buf.readUInt32BE(0);
	if (magic !== WAL_MAGIC_LE && magic !== WAL_MAGIC_BE) {
		return {state: 'bad-magic', header: null};
	}

	const littleEndian = magic === WAL_MAGIC_LE;
	const summer = new Summer(buf.subarray(0, 24), littleEndian);
	summer.run(0, 24);
	const checksum1 = buf.readUInt32BE(24);
	const checksum2 = buf.readUInt32BE(28);
	const header: WalHeader = {
		magic,
		checksumOrder: littleEndian ? 'le' : 'be',
		formatVersion: buf.readUInt32BE(4),
		pageSize: buf.readUInt32BE(8),
		checkpointSequence: buf.readUInt32BE(12),
		salt1: buf.readUInt32BE(16),
		salt2: buf.readUInt32BE(20),
		checksum1,
		checksum2,
		checksumValid: summer.s0 >>> 0 === checksum1 && summer.s1 >>> 0 === checksum2,
	};
	// Version and page size before the checksum: a torn header (reset in progress) differs only in
	// sequence, salts and checksum, so those two being wrong means "not a WAL SQLite would use".
	if (header.formatVersion !== WAL_FORMAT_VERSION) {
		return {state: 'bad-version', header};
	}

	if (!isValidPageSize(header.pageSize)) {
		return {state: 'bad-page-size', header};
	}

	return {state: header.checksumValid ? 'ok' : 'header-checksum-mismatch', header};
}
