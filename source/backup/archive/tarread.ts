/**
 * Reading a tar or tar.gz for verification and restore. tar-stream parses the headers (ustar, GNU
 * long names, pax) and splits the member data; zlib's gunzip checks the gzip CRC-32 and length
 * trailer. tar-stream does NOT check that the archive ends with its end-of-archive blocks (a tar cut
 * at a member boundary reads as complete), and reports every failure as a bare Error. So on top of it:
 *   - the uncompressed stream must end in whole 512-byte blocks, the last two of them zero;
 *   - every failure is a TarDamaged naming the layer (gzip or tar) and the byte, or the caller's own error;
 *   - each member's type is mapped to the member policy's words (member-policy.ts decides what is refused).
 */
import fs from 'node:fs';
import {Transform, type TransformCallback} from 'node:stream';
import {pipeline} from 'node:stream/promises';
import zlib from 'node:zlib';
import tarStream from 'tar-stream';
import {errorCode, errorMessage} from '../../ground/errors.js';
import type {MemberType} from './member-policy.js';
import {createExclusive} from '../../ground/safe-create.js';

export type TarMember = {name: string; type: MemberType; size: number; mode: number; linkName: string};

/** The archive's own damage: a bad gzip stream or trailer, a bad tar header, a cut-off archive. */
export class TarDamaged extends Error {
	override name = 'TarDamaged';
	constructor(
		readonly layer: 'gzip' | 'tar',
		message: string,
		readonly where: string,
	) {
		super(message);
	}
}

/** An error of the caller's handler (a full temp folder, ...), passed on as it is: not the archive's. */
class HandlerError extends Error {
	constructor(readonly original: unknown) {
		super(errorMessage(original));
	}
}

const TYPES: Record<string, MemberType> = {
	file: 'file',
	'contiguous-file': 'file',
	directory: 'dir',
	symlink: 'symlink',
	link: 'hardlink',
	'character-device': 'device',
	'block-device': 'device',
	fifo: 'fifo',
};

/** Counts the uncompressed bytes and keeps the last 1024 of them, for the end-of-archive check. */
class EndCheck extends Transform {
	bytes = 0;
	private tail = Buffer.alloc(0);
	override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
		this.bytes += chunk.length;
		const joined = Buffer.concat([this.tail, chunk]);
		this.tail = Buffer.from(joined.subarray(Math.max(0, joined.length - 1024)));
		callback(null, chunk);
	}

	/** Why the stream does not end as a tar must (whole blocks, two zero blocks last); null when it does. */
	problem(): string | null {
		if (this.bytes % 512 !== 0) {
			return `the archive ends inside a block (${this.bytes % 512} of 512 bytes)`;
		}

		return this.tail.length === 1024 && this.tail.every(b => b === 0) ? null : 'no end-of-archive blocks (cut off?)';
	}
}

export type ReadTarOptions = {
	gz: boolean;
	/** Each member in archive order, with its data; whatever the handler leaves unread is skipped. */
	onMember: (m: TarMember, data: AsyncIterable<Buffer>) => Promise<void>;
	/** Bytes of the archive file read so far. */
	onRawBytes?: (done: number) => void;
};

/**
 * Reads the whole archive once. Throws TarDamaged for the archive's damage; any other error is the handler's or the
 * file's.
 */
export async function readTar(file: string, options: ReadTarOptions): Promise<{members: number; rawBytes: number}> {
	const input = fs.createReadStream(file, {highWaterMark: 1 << 20});
	let raw = 0;
	input.on('data', (c: string | Buffer) => {
		raw += c.length;
		options.onRawBytes?.(raw);
	});
	const end = new EndCheck();
	const extract = tarStream.extract();
	let members = 0;
	const feeding = options.gz ? pipeline(input, zlib.createGunzip(), end, extract) : pipeline(input, end, extract);
	const consuming = (async () => {
		for await (const entry of extract) {
			members++;
			const h = entry.header;
			const member: TarMember = {
				name: h.name,
				type: (h.type && TYPES[h.type]) ?? 'other',
				size: h.size ?? 0,
				mode: (h.mode ?? 0o644) & 0o7777,
				linkName: h.linkname ?? '',
			};
			try {
				await options.onMember(member, entry as AsyncIterable<Buffer>);
			} catch (error) {
				throw new HandlerError(error);
			}

			entry.resume();
		}
	})();
	const [fed, consumed] = await Promise.allSettled([feeding, consuming]);
	// The stream's own failure first (a member's data stream fails with it too); then the handler's.
	if (fed.status === 'rejected' && errorCode(fed.reason) !== 'ERR_STREAM_PREMATURE_CLOSE') {
		throw damage(fed.reason, options.gz, raw, end.bytes);
	}

	if (consumed.status === 'rejected') {
		throw consumed.reason instanceof HandlerError
			? consumed.reason.original
			: damage(consumed.reason, options.gz, raw, end.bytes);
	}

	if (fed.status === 'rejected') {
		throw damage(fed.reason, options.gz, raw, end.bytes);
	}

	const problem = end.problem();
	if (problem) {
		throw new TarDamaged('tar', problem, `tar stream byte ${end.bytes}`);
	}

	return {members, rawBytes: raw};
}

/**
 * A failure of the stream, in the layer's words: gzip (zlib's codes), tar (tar-stream's messages), or the file's own
 * error.
 */
function damage(error: unknown, gz: boolean, raw: number, tarBytes: number): unknown {
	const code = errorCode(error);
	const message = errorMessage(error);
	if (gz && code?.startsWith('Z_')) {
		return new TarDamaged('gzip', `${message} (${code})`, `compressed stream (about byte ${raw})`);
	}

	if (code && !code.startsWith('ERR_')) {
		// The archive file itself could not be read (EIO, EISDIR, ...): not damage of its bytes.
		return error;
	}

	if (message.startsWith('Invalid tar header')) {
		return new TarDamaged(
			'tar',
			message.includes('unknown format')
				? 'a header block of no known tar format'
				: 'header checksum mismatch (or not a tar header)',
			`tar stream near byte ${tarBytes}`,
		);
	}

	if (message === 'Unexpected end of data') {
		return new TarDamaged('tar', 'the archive ends inside a member (cut off?)', `tar stream byte ${tarBytes}`);
	}

	return new TarDamaged('tar', message, `tar stream near byte ${tarBytes}`);
}

/** Writes a member's data to a new private file; fewer bytes than its header says is damage. */
export async function writeMember(data: AsyncIterable<Buffer>, file: string, size: number): Promise<number> {
	const fd = createExclusive(file, 0o600, 'an extracted member');
	let n = 0;
	try {
		for await (const chunk of data) {
			fs.writeSync(fd, chunk);
			n += chunk.length;
		}
	} finally {
		fs.closeSync(fd);
	}

	if (n !== size) {
		throw new TarDamaged('tar', `member data is ${n} bytes, its header says ${size}`, file);
	}

	return n;
}
