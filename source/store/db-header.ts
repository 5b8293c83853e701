/**
 * The 100-byte SQLite database header (https://www.sqlite.org/fileformat2.html#the_database_header).
 * Pure: parses a Buffer the caller read (before any SQLite open, or in a child process).
 */

export const SQLITE_MAGIC = 'SQLite format 3\u0000';

export type JournalModeByte = 'wal' | 'rollback' | 'unknown';

export type DbHeader = {
	pageSize: number;
	writeVersion: number;
	readVersion: number;
	/** From bytes 18/19: 2 = WAL, 1 = legacy rollback journal. */
	journalMode: JournalModeByte;
	fileChangeCounter: number;
	pageCount: number;
	freelistPages: number;
	schemaCookie: number;
	textEncoding: number;
	userVersion: number;
	applicationId: number;
	versionValidFor: number;
	/**
	 * SQLITE_VERSION_NUMBER of the library that last wrote the file (meaningful when versionValidFor ==
	 * fileChangeCounter).
	 */
	sqliteVersionNumber: number;
};

export function hasSqliteMagic(buf: Buffer): boolean {
	return buf.length >= 16 && buf.subarray(0, 16).toString('latin1') === SQLITE_MAGIC;
}

/**
 * Why the first bytes of a file (up to 100) are not a usable SQLite header, in words, or null
 * when they are one. Too short is told apart from a wrong magic: a 50-byte file is not "a bad
 * magic", it is a cut or empty-ish file.
 */
export function headerProblem(buf: Buffer): {kind: 'too-short' | 'not-sqlite'; reason: string} | null {
	if (buf.length < 100) {
		const start = hasSqliteMagic(buf) ? ' (it starts like one: a cut copy?)' : '';
		return {
			kind: 'too-short',
			reason: `too short to be an SQLite database: ${buf.length} bytes, a header needs 100${start}`,
		};
	}

	if (!hasSqliteMagic(buf)) {
		const shown = JSON.stringify(
			buf
				.subarray(0, 16)
				.toString('latin1')
				.replaceAll(/[^\x20-\x7e]/g, '.'),
		);
		return {
			kind: 'not-sqlite',
			reason: `not a SQLite database (the first bytes are ${shown}, expected "SQLite format 3")`,
		};
	}

	return null;
}

/**
 * A main file shorter than its header says: the header's page count × page size beyond the file's
 * size (https://www.sqlite.org/fileformat2.html#in_header_database_size: the count is trusted
 * only when version-valid-for equals the change counter). Null when the file is long enough or the
 * count is not trusted.
 */
export function mainShortfall(
	header: DbHeader,
	fileSize: number,
): {expectedBytes: number; missingPages: number} | null {
	if (header.pageCount === 0 || header.versionValidFor !== header.fileChangeCounter || header.pageSize < 512) {
		return null;
	}

	const expectedBytes = header.pageCount * header.pageSize;
	if (fileSize >= expectedBytes) {
		return null;
	}

	return {expectedBytes, missingPages: header.pageCount - Math.floor(fileSize / header.pageSize)};
}

export function parseDbHeader(buf: Buffer): DbHeader {
	if (buf.length < 100) {
		throw new RangeError(`database header needs 100 bytes, got ${buf.length}`);
	}

	const rawPageSize = buf.readUInt16BE(16);
	const writeVersion = buf[18]!;
	const readVersion = buf[19]!;
	const journalMode: JournalModeByte =
		writeVersion === 2 && readVersion === 2 ? 'wal' : writeVersion === 1 && readVersion === 1 ? 'rollback' : 'unknown';
	return {
		pageSize: rawPageSize === 1 ? 65_536 : rawPageSize,
		writeVersion,
		readVersion,
		journalMode,
		fileChangeCounter: buf.readUInt32BE(24),
		pageCount: buf.readUInt32BE(28),
		freelistPages: buf.readUInt32BE(36),
		schemaCookie: buf.readUInt32BE(40),
		textEncoding: buf.readUInt32BE(56),
		userVersion: buf.readUInt32BE(60),
		applicationId: buf.readUInt32BE(68),
		versionValidFor: buf.readUInt32BE(92),
		sqliteVersionNumber: buf.readUInt32BE(96),
	};
}

/** 3045001 -> "3.45.1" */
export function formatSqliteVersionNumber(n: number): string {
	if (!Number.isFinite(n) || n <= 0) {
		return 'unknown';
	}

	return `${Math.floor(n / 1_000_000)}.${Math.floor(n / 1000) % 1000}.${n % 1000}`;
}

/** The WAL-reset bug (3.7.0–3.51.2, fixed 3.51.3, backports 3.50.7 and 3.44.6): docs/sqlite-wal.md, wal-reset-bug. */
export function hasWalResetBug(versionNumber: number): boolean {
	if (versionNumber < 3_007_000 || versionNumber >= 3_051_003) {
		return false;
	}

	if (versionNumber >= 3_050_007 && versionNumber < 3_051_000) {
		return false;
	}

	if (versionNumber >= 3_044_006 && versionNumber < 3_045_000) {
		return false;
	}

	return true;
}
