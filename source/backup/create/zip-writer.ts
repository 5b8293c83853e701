/**
 * Writing a zip archive with yazl: members are hashed (CRC-32 + sha256) as they stream in, the
 * manifest goes last, and the archive is sealed: its comment holds the sha256 of every byte
 * before the end-of-central-directory record, patched in as the bytes stream out (no re-read).
 * Together with the end record's own fields (checked on verify) the seal makes every single
 * byte of the archive checked, including local headers, data descriptors and the central
 * directory that CRC-32s alone do not cover.
 *
 * The archive is written to a temp name (mode 0600) by the caller, fsynced here (its writeback
 * started every 64 MiB as it streams, early-writeback.ts, so the final fsync is short).
 */
import {sha256} from '../../ground/crypto.js';
import fs from 'node:fs';
import {createRequire} from 'node:module';
import {Transform, type TransformCallback} from 'node:stream';
import {pipeline} from 'node:stream/promises';
import zlib from 'node:zlib';
import type * as Yazl from 'yazl';
import type {MemberRecord} from '../manifest.js';
import {Hasher, crcHex} from '../digest.js';
import {fsyncFile} from '../durable.js';
import {EarlyWriteback} from './early-writeback.js';
import {SEAL_LENGTH, SEAL_PREFIX} from '../archive/seal.js';
import {createExclusive} from '../../ground/safe-create.js';

/**
 * yazl computes each member's CRC-32 with buffer-crc32, a JavaScript loop (~370 MB/s here): on a
 * large state.db that alone took longer than the whole SQLite copy. zlib.crc32 (Node >= 20.15)
 * computes the same function at ~5 GB/s, so yazl's instance of buffer-crc32 is pointed at it,
 * after checking on a test vector that both agree (otherwise it is left alone). Every CRC yazl
 * writes is re-checked against our own zlib.crc32 by the read-back and by verify anyway.
 */
function speedUpYazlCrc(): boolean {
	try {
		const fromYazl = createRequire(requireHere.resolve('yazl'));
		const bufferCrc32 = fromYazl('buffer-crc32') as {unsigned: (buf: Buffer, previous?: number) => number};
		const probe = Buffer.from('hfx buffer-crc32 probe \u00ff\u0000');
		const expected = bufferCrc32.unsigned(probe, bufferCrc32.unsigned(probe));
		const fast = (buf: Buffer, previous?: number): number => zlib.crc32(buf, (previous ?? 0) >>> 0) >>> 0;
		if (fast(probe, fast(probe)) !== expected) {
			return false;
		}

		bufferCrc32.unsigned = fast;
		return true;
	} catch {
		return false;
	}
}

const requireHere = createRequire(import.meta.url);
let yazl: typeof Yazl | undefined;

/**
 * yazl, loaded when the first archive is written rather than with hfx (it costs ~11 ms that the
 * TUI and every other command would pay at start), its CRC-32 pointed at zlib's then.
 */
function loadYazl(): typeof Yazl {
	if (!yazl) {
		yazl = requireHere('yazl') as typeof Yazl;
		speedUpYazlCrc();
	}

	return yazl;
}

const EOCD_SIZE = 22;
const EOCD_SIGNATURE = 0x06_05_4b_50;

/**
 * Passes the zip stream through, hashing everything except the final end record (22 bytes + the
 * comment), then writes the hash into the comment placeholder before emitting the end record.
 */
class SealTransform extends Transform {
	private tail = Buffer.alloc(0);
	private readonly sha = sha256();
	private readonly keep = EOCD_SIZE + SEAL_LENGTH;
	crc = 0;
	bytes = 0;
	seal = '';
	/** Called with the bytes passed on so far, after each chunk. */
	onOutput?: (bytes: number) => void;

	private emit_(chunk: Buffer, hash: boolean): void {
		if (chunk.length === 0) {
			return;
		}

		if (hash) {
			this.sha.update(chunk);
		}

		this.crc = zlib.crc32(chunk, this.crc);
		this.bytes += chunk.length;
		this.push(chunk);
		this.onOutput?.(this.bytes);
	}

	override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
		if (chunk.length >= this.keep) {
			this.emit_(this.tail, true);
			this.emit_(chunk.subarray(0, chunk.length - this.keep), true);
			this.tail = Buffer.from(chunk.subarray(chunk.length - this.keep));
		} else {
			const all = Buffer.concat([this.tail, chunk]);
			if (all.length > this.keep) {
				this.emit_(all.subarray(0, all.length - this.keep), true);
				this.tail = Buffer.from(all.subarray(all.length - this.keep));
			} else {
				this.tail = all;
			}
		}

		callback();
	}

	override _flush(callback: TransformCallback): void {
		const t = this.tail;
		if (
			t.length !== this.keep ||
			t.readUInt32LE(0) !== EOCD_SIGNATURE ||
			t.readUInt16LE(20) !== SEAL_LENGTH ||
			t.subarray(EOCD_SIZE, EOCD_SIZE + SEAL_PREFIX.length).toString('latin1') !== SEAL_PREFIX
		) {
			callback(new Error('internal: the zip stream did not end with the sealed end record'));
			return;
		}

		this.seal = this.sha.digest('hex');
		t.write(this.seal, EOCD_SIZE + SEAL_PREFIX.length, 'latin1');
		this.emit_(t, false);
		callback();
	}
}

export type ZipWriteResult = {bytes: number; seal: string; crc32: number};

export type AddOptions = {mode: number; mtime: Date; compress: boolean; onBytes?: (n: number) => void};

export class ZipWriter {
	readonly file: string;
	private readonly zip = new (loadYazl().ZipFile)();
	private readonly seal = new SealTransform();
	private readonly done: Promise<void>;
	private failure: unknown;
	private readonly failed: Promise<never>;
	private readonly out: fs.WriteStream;
	private readonly writeback: EarlyWriteback;

	/** Opens `file` (which must not exist) with mode 0600 and starts the output pipeline. */
	constructor(file: string, options: {writebackEvery?: number} = {}) {
		this.file = file;
		// Opened synchronously: the file exists from here on, so a failure at any point can remove it.
		const fd = createExclusive(file, 0o600, 'an archive');
		const out = fs.createWriteStream('', {fd, highWaterMark: 1 << 20});
		this.out = out;
		this.writeback = new EarlyWriteback(file, options.writebackEvery);
		this.seal.onOutput = bytes => this.writeback.progress(bytes);
		this.done = pipeline(this.zip.outputStream as unknown as NodeJS.ReadableStream, this.seal, out);
		this.failed = new Promise<never>((_resolve, reject) => {
			this.done.catch((error: unknown) => {
				this.failure = error;
				reject(error);
			});
		});
		// Nobody may be awaiting `failed` yet: keep an unhandled rejection from crashing the process.
		this.failed.catch(() => {});
		this.zip.on('error', (error: unknown) => {
			this.failure ??= error;
			this.seal.destroy(error instanceof Error ? error : new Error(String(error)));
		});
	}

	private check(): void {
		if (this.failure) {
			throw this.failure;
		}
	}

	/** Adds an in-memory member; returns its record (hashes computed now). */
	addBuffer(rel: string, data: Buffer, kind: MemberRecord['kind'], options: AddOptions): MemberRecord {
		this.check();
		const hasher = new Hasher();
		hasher.update(data);
		const d = hasher.digest();
		this.zip.addBuffer(data, rel, {
			mode: 0o100000 | (options.mode & 0o7777),
			mtime: options.mtime,
			compress: options.compress && data.length > 64,
		});
		options.onBytes?.(data.length);
		return {
			path: rel,
			size: d.size,
			mode: options.mode & 0o7777,
			mtime: options.mtime.toISOString(),
			crc32: crcHex(d.crc32),
			sha256: d.sha256,
			kind,
		};
	}

	/** Streams an open file descriptor into the archive; resolves once all of it went in. */
	async addFd(rel: string, fd: number, kind: MemberRecord['kind'], options: AddOptions): Promise<MemberRecord> {
		this.check();
		const hasher = new Hasher();
		const source = fs.createReadStream('', {fd, highWaterMark: 1 << 20, autoClose: true});
		const pass = new Transform({
			transform(chunk: Buffer, _encoding, callback) {
				hasher.update(chunk);
				options.onBytes?.(chunk.length);
				callback(null, chunk);
			},
		});
		source.on('error', error => pass.destroy(error));
		source.pipe(pass);
		this.zip.addReadStream(pass, rel, {
			mode: 0o100000 | (options.mode & 0o7777),
			mtime: options.mtime,
			compress: options.compress,
		});
		const ended = new Promise<void>((resolve, reject) => {
			pass.once('end', resolve);
			pass.once('error', reject);
		});
		await Promise.race([ended, this.failed]);
		const d = hasher.digest();
		return {
			path: rel,
			size: d.size,
			mode: options.mode & 0o7777,
			mtime: options.mtime.toISOString(),
			crc32: crcHex(d.crc32),
			sha256: d.sha256,
			kind,
		};
	}

	/** Adds the manifest last, ends the archive with the seal, waits for the bytes and fsyncs. */
	async finish(manifest: Buffer): Promise<ZipWriteResult> {
		this.check();
		this.zip.addBuffer(manifest, 'manifest.json', {mode: 0o100600, mtime: new Date(), compress: true});
		this.zip.end({comment: `${SEAL_PREFIX}${'0'.repeat(64)}`, forceZip64Format: false});
		await Promise.race([this.done, this.failed]);
		await this.writeback.close();
		fsyncFile(this.file);
		return {bytes: this.seal.bytes, seal: this.seal.seal, crc32: this.seal.crc >>> 0};
	}

	/** Bytes of the archive written to the file so far (final: the zip is written front to back). */
	get bytesOnDisk(): number {
		return this.out.bytesWritten;
	}

	/** Early fdatasyncs of the archive while it streamed (early-writeback.ts). */
	get writebacks(): number {
		return this.writeback.started;
	}

	/** Stops writing (the caller removes the file). */
	abort(): void {
		this.seal.destroy();
		this.out.destroy();
		this.writeback.dispose();
	}
}
