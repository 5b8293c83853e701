/**
 * A streaming tar reader for `tar czf` archives (ustar, GNU long names, pax headers), enough to
 * check tar integrity (every header's checksum, sizes, the end-of-archive blocks) and to extract
 * the database files for the SQLite checks. gzip integrity (its CRC-32 and length trailer) is
 * checked by zlib's gunzip.
 */
import type {MemberType} from './member-policy.js';

export type TarEntry = {
	name: string;
	type: MemberType;
	size: number;
	mode: number;
	/** Offset of the header block in the uncompressed tar stream. */
	offset: number;
	linkName: string;
};

export class TarDamaged extends Error {
	readonly offset: number;
	constructor(message: string, offset: number) {
		super(message);
		this.name = 'TarDamaged';
		this.offset = offset;
	}
}

function cString(buf: Buffer, start: number, length: number): string {
	const slice = buf.subarray(start, start + length);
	const nul = slice.indexOf(0);
	return (nul === -1 ? slice : slice.subarray(0, nul)).toString('utf8');
}

function octal(buf: Buffer, start: number, length: number, offset: number, field: string): number {
	const first = buf[start]!;
	if (first & 0x80) {
		// GNU base-256 for large values.
		let v = 0n;
		for (let i = 1; i < length; i++) {
			v = (v << 8n) | BigInt(buf[start + i]!);
		}

		return Number(v);
	}

	const text = cString(buf, start, length).trim();
	if (text === '') {
		return 0;
	}

	if (!/^[0-7]+$/.test(text)) {
		throw new TarDamaged(`header ${field} is not an octal number (${JSON.stringify(text.slice(0, 12))})`, offset);
	}

	return Number.parseInt(text, 8);
}

function checksumOk(block: Buffer, offset: number): boolean {
	const stored = octal(block, 148, 8, offset, 'checksum');
	let unsigned = 0;
	let signed = 0;
	for (let i = 0; i < 512; i++) {
		const b = i >= 148 && i < 156 ? 0x20 : block[i]!;
		unsigned += b;
		signed += b > 127 ? b - 256 : b;
	}

	return stored === unsigned || stored === signed;
}

function parsePax(data: Buffer): Record<string, string> {
	const out: Record<string, string> = {};
	let pos = 0;
	while (pos < data.length) {
		const space = data.indexOf(0x20, pos);
		if (space === -1) {
			break;
		}

		const length = Number(data.subarray(pos, space).toString('ascii'));
		if (!Number.isInteger(length) || length <= 0) {
			break;
		}

		const record = data.subarray(space + 1, pos + length - 1).toString('utf8');
		const eq = record.indexOf('=');
		if (eq > 0) {
			out[record.slice(0, eq)] = record.slice(eq + 1);
		}

		pos += length;
	}

	return out;
}

/** ustar/GNU type flags; anything else (GNU sparse, volume labels, ...) is 'other'. */
const TYPEFLAGS: Record<string, MemberType> = {'0': 'file', '\0': 'file', '7': 'file', '5': 'dir', '2': 'symlink', '1': 'hardlink', '3': 'device', '4': 'device', '6': 'fifo'};

export type TarSink = {write: (chunk: Buffer) => void; end: () => void} | null;

/**
 * Reads a tar stream chunk by chunk. `onEntry` is called for each member and returns where its
 * data should go (or null to skip it). Throws TarDamaged on any inconsistency.
 */
export class TarReader {
	private buffer: Buffer = Buffer.alloc(0);
	private offset = 0;
	private state: 'header' | 'data' | 'padding' | 'meta' | 'end' = 'header';
	private remaining = 0;
	private padding = 0;
	private sink: TarSink = null;
	private metaKind: 'L' | 'K' | 'x' | 'g' | null = null;
	private metaChunks: Buffer[] = [];
	private pending: {name?: string; linkName?: string; size?: number} = {};
	private zeroBlocks = 0;
	entries = 0;
	/** Non-zero bytes after the end-of-archive marker. */
	trailingGarbage = 0;
	private readonly onEntry: (entry: TarEntry) => TarSink;

	constructor(onEntry: (entry: TarEntry) => TarSink) {
		this.onEntry = onEntry;
	}

	push(chunk: Buffer): void {
		this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
		let pos = 0;
		for (;;) {
			if (this.state === 'end') {
				pos = this.skipTrailing(pos);
				break;
			}

			if (this.state === 'data' || this.state === 'meta') {
				pos = this.takeData(pos);
				if (this.remaining > 0) {
					break;
				}

				if (this.state === 'data') {
					this.sink?.end();
					this.sink = null;
				} else {
					this.finishMeta();
				}

				this.state = this.padding > 0 ? 'padding' : 'header';
				continue;
			}

			if (this.state === 'padding') {
				pos = this.skipPadding(pos);
				if (this.padding > 0) {
					break;
				}

				this.state = 'header';
				continue;
			}

			if (this.buffer.length - pos < 512) {
				break;
			}

			pos = this.headerBlock(pos);
		}

		this.buffer = pos >= this.buffer.length ? Buffer.alloc(0) : Buffer.from(this.buffer.subarray(pos));
	}

	/** After the end-of-archive blocks: counts the non-zero bytes of the rest of the buffer. */
	private skipTrailing(pos: number): number {
		for (let i = pos; i < this.buffer.length; i++) {
			if (this.buffer[i] !== 0) {
				this.trailingGarbage++;
			}
		}

		this.offset += this.buffer.length - pos;
		return this.buffer.length;
	}

	/** Passes what the buffer holds of the current member's data (or meta record) on. */
	private takeData(pos: number): number {
		const n = Math.min(this.remaining, this.buffer.length - pos);
		if (n > 0) {
			const slice = this.buffer.subarray(pos, pos + n);
			if (this.state === 'data') {
				this.sink?.write(slice);
			} else {
				this.metaChunks.push(Buffer.from(slice));
			}

			pos += n;
			this.offset += n;
			this.remaining -= n;
		}

		return pos;
	}

	/** Skips what the buffer holds of the padding to the next block. */
	private skipPadding(pos: number): number {
		const n = Math.min(this.padding, this.buffer.length - pos);
		pos += n;
		this.offset += n;
		this.padding -= n;
		return pos;
	}

	/** One 512-byte block in the header state: a zero block (two end the archive) or a header. */
	private headerBlock(pos: number): number {
		const block = this.buffer.subarray(pos, pos + 512);
		const at = this.offset;
		pos += 512;
		this.offset += 512;
		if (block.every(b => b === 0)) {
			this.zeroBlocks++;
			if (this.zeroBlocks >= 2) {
				this.state = 'end';
			}

			return pos;
		}

		if (this.zeroBlocks > 0) {
			throw new TarDamaged('a zero block in the middle of the archive', at - 512);
		}

		this.header(block, at);
		return pos;
	}

	private header(block: Buffer, at: number): void {
		if (!checksumOk(block, at)) {
			throw new TarDamaged('header checksum mismatch', at);
		}

		const magic = block.subarray(257, 263).toString('latin1');
		const ustar = magic === 'ustar\0' || magic === 'ustar ';
		let name = cString(block, 0, 100);
		if (ustar && magic === 'ustar\0') {
			const prefix = cString(block, 345, 155);
			if (prefix) {
				name = `${prefix}/${name}`;
			}
		}

		const size = octal(block, 124, 12, at, 'size');
		const mode = octal(block, 100, 8, at, 'mode');
		const typeflag = String.fromCharCode(block[156]!);
		const linkName = cString(block, 157, 100);
		const blocks = Math.ceil(size / 512) * 512;
		if (typeflag === 'L' || typeflag === 'K' || typeflag === 'x' || typeflag === 'g') {
			this.metaKind = typeflag;
			this.metaChunks = [];
			this.remaining = size;
			this.padding = blocks - size;
			this.state = size > 0 ? 'meta' : (this.padding > 0 ? 'padding' : 'header');
			if (size === 0) {
				this.finishMeta();
			}

			return;
		}

		const finalName = this.pending.name ?? name;
		const finalSize = this.pending.size ?? size;
		const finalLink = this.pending.linkName ?? linkName;
		this.pending = {};
		const type = TYPEFLAGS[typeflag] ?? 'other';
		const dataSize = type === 'file' || type === 'other' ? finalSize : 0;
		this.entries++;
		this.sink = this.onEntry({name: finalName, type, size: dataSize, mode: mode & 0o7777, offset: at, linkName: finalLink});
		this.remaining = dataSize;
		this.padding = Math.ceil(dataSize / 512) * 512 - dataSize;
		if (dataSize === 0) {
			this.sink?.end();
			this.sink = null;
			this.state = 'header';
		} else {
			this.state = 'data';
		}
	}

	private finishMeta(): void {
		const data = Buffer.concat(this.metaChunks);
		this.metaChunks = [];
		if (this.metaKind === 'L') {
			this.pending.name = cString(data, 0, data.length);
		} else if (this.metaKind === 'K') {
			this.pending.linkName = cString(data, 0, data.length);
		} else if (this.metaKind === 'x') {
			const pax = parsePax(data);
			if (pax.path) {
				this.pending.name = pax.path;
			}

			if (pax.linkpath) {
				this.pending.linkName = pax.linkpath;
			}

			if (pax.size && /^\d+$/.test(pax.size)) {
				this.pending.size = Number(pax.size);
			}
		}

		this.metaKind = null;
	}

	/** Call after the last chunk: the archive must have ended cleanly. */
	finish(): void {
		if (this.state === 'data' || this.state === 'meta' || this.state === 'padding') {
			throw new TarDamaged(`the archive ends inside a member (${this.remaining + this.padding} bytes missing)`, this.offset);
		}

		if (this.buffer.length > 0 && this.state !== 'end') {
			throw new TarDamaged(`the archive ends inside a header block (${this.buffer.length} of 512 bytes)`, this.offset);
		}

		if (this.state !== 'end') {
			throw new TarDamaged(this.zeroBlocks === 1 ? 'only one of the two end-of-archive blocks is present' : 'no end-of-archive blocks (cut off?)', this.offset);
		}
	}
}
