/**
 * Reading a zip for verification and restore. yauzl parses the central directory and decodes
 * member data; it does NOT check CRC-32 (yauzl leaves that to its caller), nor compare local headers with
 * the central directory, nor look at the bytes between records. So on top of it:
 *   - every member's data is CRC-32'd (zlib.crc32) and sha256'd as it is read;
 *   - every local header and data descriptor is compared field by field with the central record;
 *   - records must tile the file with no gap or overlap, and the end record's fields must agree;
 *   - the seal (sha256 of every byte before the end record, in our archives' comment) is checked.
 * Member names are decoded by us (decodeStrings: false) so an unsafe name is reported, not thrown;
 * which members are refused is member-policy.ts's call, not this parser's.
 */
import {sha256} from '../../ground/crypto.js';
import fs from 'node:fs';
import type {Readable} from 'node:stream';
import yauzl from 'yauzl';
import {SEAL_PATTERN} from './seal.js';
import {Hasher, type Digest} from '../digest.js';
import {readChunks} from '../chunks.js';
import {FailClosed} from '../../ground/errors.js';
import {openForeign} from '../../store/foreign-file.js';

export type FileType = 'file' | 'dir' | 'symlink' | 'device' | 'fifo' | 'socket';

export type ZipMember = {
	index: number;
	name: string;
	entry: yauzl.Entry;
	type: FileType;
	/** Permission bits from the external attributes (unix archives), else null. */
	mode: number | null;
};

/** One finding of a verification; `sidecar` marks a SQLite sidecar in the archive (a tar restore folds or skips it). */
/** `noStore`: the archive holds no Hermes store at all (not a backup of a Hermes home, whatever else it holds). */
export type Problem = {where: string; what: string; sidecar?: boolean; noStore?: boolean};

export class ZipUnreadable extends Error {
	override name = 'ZipUnreadable';
}

export type OpenedZip = {
	file: string;
	size: number;
	zip: yauzl.ZipFile;
	members: ZipMember[];
	eocdOffset: number;
	cdOffset: number;
	cdEnd: number;
	comment: Buffer;
	/** The seal's hex digest when the comment carries one. */
	seal: string | null;
	close: () => void;
};

const S_IFMT = 0o170000;

function fileType(entry: yauzl.Entry, name: string): {type: FileType; mode: number | null} {
	const madeBy = entry.versionMadeBy >> 8;
	const attrs = entry.externalFileAttributes >>> 16;
	const unix = madeBy === 3 || madeBy === 19 || (attrs & S_IFMT) !== 0;
	const mode = unix && attrs !== 0 ? attrs & 0o7777 : null;
	if (unix && attrs !== 0) {
		switch (attrs & S_IFMT) {
			case 0o120000: {
				return {type: 'symlink', mode};
			}

			case 0o020000:
			case 0o060000: {
				return {type: 'device', mode};
			}

			case 0o010000: {
				return {type: 'fifo', mode};
			}

			case 0o140000: {
				return {type: 'socket', mode};
			}

			case 0o040000: {
				return {type: 'dir', mode};
			}

			default: {
				break;
			}
		}
	}

	return {type: name.endsWith('/') ? 'dir' : 'file', mode};
}

function decodeName(entry: yauzl.Entry): string {
	const raw = entry.fileName as unknown as Buffer;
	// Bit 11: UTF-8. Otherwise CP437, of which we only need the ASCII part for path checks.
	return entry.generalPurposeBitFlag & 0x800 ? raw.toString('utf8') : raw.toString('latin1');
}

function readAt(fd: number, position: number, length: number): Buffer {
	const buf = Buffer.alloc(length);
	let got = 0;
	while (got < length) {
		const n = fs.readSync(fd, buf, got, length - got, position + got);
		if (n <= 0) {
			break;
		}

		got += n;
	}

	return buf.subarray(0, got);
}

/** Finds the end record: the last signature whose comment length reaches exactly to the end. */
function findEocd(fd: number, size: number): number {
	const span = Math.min(size, 22 + 0xff_ff);
	const tail = readAt(fd, size - span, span);
	for (let i = tail.length - 22; i >= 0; i--) {
		if (tail.readUInt32LE(i) === 0x06_05_4b_50 && tail.readUInt16LE(i + 20) === tail.length - i - 22) {
			return size - span + i;
		}
	}

	return -1;
}

/** Every central record, its name decoded and its type read; a damaged directory closes the zip and throws. */
async function readMembers(zip: yauzl.ZipFile, closeFd: () => void): Promise<ZipMember[]> {
	const members: ZipMember[] = [];
	try {
		let index = 0;
		for await (const entry of zip.eachEntry()) {
			const name = decodeName(entry);
			members.push({index: index++, name, entry, ...fileType(entry, name)});
		}
	} catch (error) {
		zip.close();
		closeFd();
		throw new ZipUnreadable(`its central directory is damaged (${(error as Error).message})`);
	}

	return members;
}

/**
 * Where the central directory starts and ends: the end record's offset, or the zip64 end record's when a locator points
 * to one.
 */
function centralDirectoryBounds(
	fd: number,
	eocdOffset: number,
	eocdCdOffset: number,
): {cdOffset: number; cdEnd: number} {
	let cdOffset = eocdCdOffset;
	let cdEnd = eocdOffset;
	if (eocdOffset >= 20) {
		const locator = readAt(fd, eocdOffset - 20, 20);
		if (locator.readUInt32LE(0) === 0x07_06_4b_50) {
			const z64Offset = Number(locator.readBigUInt64LE(8));
			const z64 = readAt(fd, z64Offset, 56);
			if (z64.length === 56 && z64.readUInt32LE(0) === 0x06_06_4b_50) {
				cdOffset = Number(z64.readBigUInt64LE(48));
				cdEnd = z64Offset;
			}
		}
	}

	return {cdOffset, cdEnd};
}

export async function openZip(file: string): Promise<OpenedZip> {
	let fd: number;
	let size: number;
	try {
		// Non-blocking and checked on the descriptor: a FIFO or device named *.zip is never read.
		const opened = openForeign(file, {what: 'it as an archive'});
		fd = opened.fd;
		size = opened.st.size;
	} catch (error) {
		throw new ZipUnreadable(
			error instanceof FailClosed
				? error.reason
				: `cannot open it (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
		);
	}

	const closeFd = (): void => {
		try {
			fs.closeSync(fd);
		} catch {
			// already closed
		}
	};

	const eocdOffset = findEocd(fd, size);
	if (eocdOffset < 0) {
		closeFd();
		throw new ZipUnreadable('no zip end record found (not a zip file, or its last bytes are damaged or cut off)');
	}

	let zip: yauzl.ZipFile;
	try {
		zip = await yauzl.openPromise(file, {
			lazyEntries: true,
			autoClose: false,
			decodeStrings: false,
			validateEntrySizes: true,
			strictFileNames: false,
		});
	} catch (error) {
		closeFd();
		throw new ZipUnreadable(`yauzl cannot read its central directory (${(error as Error).message})`);
	}

	const members = await readMembers(zip, closeFd);
	const eocd = readAt(fd, eocdOffset, 22);
	const comment = readAt(fd, eocdOffset + 22, eocd.readUInt16LE(20));
	const {cdOffset, cdEnd} = centralDirectoryBounds(fd, eocdOffset, eocd.readUInt32LE(16));
	const text = comment.toString('latin1');
	const m = SEAL_PATTERN.exec(text);
	return {
		file,
		size,
		zip,
		members,
		eocdOffset,
		cdOffset,
		cdEnd,
		comment,
		seal: m ? m[1]! : null,
		close() {
			zip.close();
			closeFd();
		},
	};
}

/**
 * Byte-level structure: end record fields, central directory size, local headers vs central
 * records, data descriptors, records tiling the file, and the seal. Reads the file directly.
 */
export function structuralProblems(
	z: OpenedZip,
	options: {onBytes?: (n: number) => void; skipSeal?: boolean} = {},
): {problems: Problem[]; sealChecked: boolean} {
	const problems: Problem[] = [];
	const fd = fs.openSync(z.file, 'r');
	try {
		endRecordProblems(fd, z, problems);
		// Local headers, data, descriptors: in file order they must tile [0, cdOffset).
		const ordered = [...z.members].sort(
			(a, b) => a.entry.relativeOffsetOfLocalHeader - b.entry.relativeOffsetOfLocalHeader,
		);
		let cursor = 0;
		for (const m of ordered) {
			cursor = memberProblems(fd, m, cursor, problems);
		}

		if (cursor !== z.cdOffset) {
			problems.push({
				where: `bytes ${Math.min(cursor, z.cdOffset)}–${Math.max(cursor, z.cdOffset)}`,
				what:
					cursor < z.cdOffset
						? `${z.cdOffset - cursor} unaccounted bytes between the last member and the central directory`
						: 'the last member runs into the central directory',
			});
		}

		const sealChecked = sealProblems(fd, z, options, problems);
		return {problems, sealChecked};
	} finally {
		fs.closeSync(fd);
	}
}

/** The end record's fields, and the central directory's size against the records it holds. */
function endRecordProblems(fd: number, z: OpenedZip, problems: Problem[]): void {
	const eocd = readAt(fd, z.eocdOffset, 22);
	const zip64 = z.cdEnd !== z.eocdOffset;
	const where = `end record (byte ${z.eocdOffset})`;
	if (eocd.readUInt16LE(4) !== 0 || eocd.readUInt16LE(6) !== 0) {
		problems.push({where, what: 'disk numbers are not 0 (damaged, or a multi-disk archive)'});
	}

	const onDisk = eocd.readUInt16LE(8);
	const total = eocd.readUInt16LE(10);
	if (onDisk !== total) {
		problems.push({where, what: `entry counts disagree (${onDisk} on this disk, ${total} in total)`});
	}

	if (!zip64 && total !== z.members.length) {
		problems.push({where, what: `says ${total} entries, the central directory holds ${z.members.length}`});
	}

	const cdSize = eocd.readUInt32LE(12);
	if (!zip64 && cdSize !== z.cdEnd - z.cdOffset) {
		problems.push({
			where,
			what: `central directory size field is ${cdSize}, the directory spans ${z.cdEnd - z.cdOffset} bytes`,
		});
	}

	let cdBytes = 0;
	for (const m of z.members) {
		cdBytes += 46 + m.entry.fileNameLength + m.entry.extraFieldLength + m.entry.fileCommentLength;
	}

	if (cdBytes !== z.cdEnd - z.cdOffset) {
		problems.push({
			where: `central directory (bytes ${z.cdOffset}–${z.cdEnd})`,
			what:
				`its records take ${cdBytes} bytes but it spans ${z.cdEnd - z.cdOffset}: ` +
				`bytes were changed, inserted or removed`,
		});
	}
}

/** One member in file order: its place in the tiling, its local header, its data descriptor. Returns the new cursor. */
function memberProblems(fd: number, m: ZipMember, cursor: number, problems: Problem[]): number {
	const e = m.entry;
	const at = e.relativeOffsetOfLocalHeader;
	const w = `member ${JSON.stringify(m.name)} (local header at byte ${at})`;
	if (at !== cursor) {
		problems.push({
			where: w,
			what:
				at > cursor
					? `${at - cursor} unaccounted bytes before it (from byte ${cursor})`
					: 'overlaps the previous member',
		});
	}

	const head = readAt(fd, at, 30);
	if (head.length < 30 || head.readUInt32LE(0) !== 0x04_03_4b_50) {
		problems.push({where: w, what: 'local header signature is wrong'});
		return Math.max(cursor, at + 30);
	}

	const flags = head.readUInt16LE(6);
	const nameLength = head.readUInt16LE(26);
	const extraLength = head.readUInt16LE(28);
	const central64 =
		e.versionNeededToExtract >= 45 || e.compressedSize >= 0xff_ff_ff_ff || e.uncompressedSize >= 0xff_ff_ff_ff;
	const mismatch = localHeaderMismatch(fd, e, head, central64);
	if (mismatch.length > 0) {
		problems.push({where: w, what: `local header disagrees with the central directory: ${mismatch.join(', ')}`});
	}

	let end = at + 30 + nameLength + extraLength + e.compressedSize;
	if ((flags & 0x8) !== 0) {
		end += descriptorLength(fd, m, end, central64, problems);
	}

	return Math.max(cursor, end);
}

/** The fields of a local header that disagree with its central record. */
function localHeaderMismatch(fd: number, e: yauzl.Entry, head: Buffer, central64: boolean): string[] {
	const at = e.relativeOffsetOfLocalHeader;
	const flags = head.readUInt16LE(6);
	const nameLength = head.readUInt16LE(26);
	const mismatch: string[] = [];
	if (!central64 && head.readUInt16LE(4) !== e.versionNeededToExtract) {
		mismatch.push('version needed');
	}

	if (flags !== e.generalPurposeBitFlag) {
		mismatch.push('flags');
	}

	if (head.readUInt16LE(8) !== e.compressionMethod) {
		mismatch.push('compression method');
	}

	if (head.readUInt16LE(10) !== e.lastModFileTime || head.readUInt16LE(12) !== e.lastModFileDate) {
		mismatch.push('modification time');
	}

	const descriptor = (flags & 0x8) !== 0;
	const lCrc = head.readUInt32LE(14);
	const lComp = head.readUInt32LE(18);
	const lUncomp = head.readUInt32LE(22);
	if (descriptor) {
		if (
			(lCrc !== 0 && lCrc !== e.crc32) ||
			(lComp !== 0 && lComp !== e.compressedSize && lComp !== 0xff_ff_ff_ff) ||
			(lUncomp !== 0 && lUncomp !== e.uncompressedSize && lUncomp !== 0xff_ff_ff_ff)
		) {
			mismatch.push('CRC-32 or sizes');
		}
	} else if (
		lCrc !== e.crc32 ||
		(lComp !== e.compressedSize && lComp !== 0xff_ff_ff_ff) ||
		(lUncomp !== e.uncompressedSize && lUncomp !== 0xff_ff_ff_ff)
	) {
		mismatch.push('CRC-32 or sizes');
	}

	if (nameLength !== e.fileNameLength) {
		mismatch.push('name length');
	} else if (!readAt(fd, at + 30, nameLength).equals(e.fileName as unknown as Buffer)) {
		mismatch.push('name');
	}

	return mismatch;
}

/** Checks the data descriptor at `end` against the central record; returns its length. */
function descriptorLength(fd: number, m: ZipMember, end: number, central64: boolean, problems: Problem[]): number {
	const e = m.entry;
	const big = e.compressedSize >= 0xff_ff_ff_ff || e.uncompressedSize >= 0xff_ff_ff_ff || central64;
	const d = readAt(fd, end, big ? 24 : 16);
	const signed = d.length >= 4 && d.readUInt32LE(0) === 0x08_07_4b_50;
	const base = signed ? 4 : 0;
	const length = base + (big ? 20 : 12);
	const crc = d.length >= base + 4 ? d.readUInt32LE(base) : -1;
	const comp = big
		? d.length >= base + 12
			? Number(d.readBigUInt64LE(base + 4))
			: -1
		: d.length >= base + 8
			? d.readUInt32LE(base + 4)
			: -1;
	const uncomp = big
		? d.length >= base + 20
			? Number(d.readBigUInt64LE(base + 12))
			: -1
		: d.length >= base + 12
			? d.readUInt32LE(base + 8)
			: -1;
	if (crc !== e.crc32 || comp !== e.compressedSize || uncomp !== e.uncompressedSize) {
		problems.push({
			where: `member ${JSON.stringify(m.name)} (data descriptor at byte ${end})`,
			what: 'data descriptor disagrees with the central directory (CRC-32 or sizes)',
		});
	}

	return length;
}

/** The seal: sha256 of [0, eocdOffset). Returns whether it was checked. */
function sealProblems(
	fd: number,
	z: OpenedZip,
	options: {onBytes?: (n: number) => void; skipSeal?: boolean},
	problems: Problem[],
): boolean {
	let sealChecked = false;
	const text = z.comment.toString('latin1');
	if (z.seal && !options.skipSeal) {
		const sha = sha256();
		readChunks(
			fd,
			chunk => {
				sha.update(chunk);
				options.onBytes?.(chunk.length);
			},
			z.eocdOffset,
		);

		sealChecked = true;
		if (sha.digest('hex') !== z.seal) {
			problems.push({
				where: `bytes 0–${z.eocdOffset} (the archive seal)`,
				what: 'the sha256 of the archive does not match its seal: some byte before the end record changed',
			});
		}
	} else if (!z.seal && text.startsWith('hfx-seal')) {
		problems.push({where: `end record comment (byte ${z.eocdOffset + 22})`, what: 'the archive seal is damaged'});
	}

	return sealChecked;
}

/**
 * Streams one member's decoded data to `sink`, computing CRC-32 and sha256; the CRC is compared
 * with the central directory's here. Throws on decode errors (bad deflate data, wrong sizes).
 */
export async function readMember(
	z: OpenedZip,
	m: ZipMember,
	sink?: (chunk: Buffer) => void,
): Promise<Digest & {crcOk: boolean}> {
	const stream: Readable = await z.zip.openReadStreamPromise(m.entry);
	const hasher = new Hasher();
	for await (const chunk of stream) {
		const b = chunk as Buffer;
		hasher.update(b);
		sink?.(b);
	}

	const d = hasher.digest();
	return {...d, crcOk: d.crc32 === m.entry.crc32 >>> 0};
}
