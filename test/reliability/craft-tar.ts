/**
 * Hostile tar.gz archives (tar refuses to write most of them): a minimal ustar writer that writes
 * exactly the members it is given, any name (../, absolute), any type (file, dir, symlink,
 * hardlink, char device, FIFO), then gzip.
 */
import fs from 'node:fs';
import zlib from 'node:zlib';

export type TarMember = {
	name: string;
	type?: 'file' | 'dir' | 'symlink' | 'hardlink' | 'chardev' | 'fifo';
	data?: Buffer;
	link?: string;
};

const TYPEFLAG = {file: '0', hardlink: '1', symlink: '2', chardev: '3', dir: '5', fifo: '6'} as const;

function field(block: Buffer, offset: number, length: number, text: string): void {
	block.write(text.slice(0, length), offset, length, 'utf8');
}

function octal(block: Buffer, offset: number, length: number, value: number): void {
	field(block, offset, length, `${value.toString(8).padStart(length - 1, '0')}\0`);
}

function header(m: TarMember, size: number): Buffer {
	const b = Buffer.alloc(512);
	field(b, 0, 100, m.name);
	octal(b, 100, 8, m.type === 'dir' ? 0o755 : 0o644);
	octal(b, 108, 8, 0);
	octal(b, 116, 8, 0);
	octal(b, 124, 12, size);
	octal(b, 136, 12, 1_786_060_800);
	field(b, 156, 1, TYPEFLAG[m.type ?? 'file']);
	field(b, 157, 100, m.link ?? '');
	field(b, 257, 8, 'ustar\u000000');
	octal(b, 329, 8, m.type === 'chardev' ? 1 : 0);
	octal(b, 337, 8, m.type === 'chardev' ? 3 : 0);
	b.fill(0x20, 148, 156);
	let sum = 0;
	for (const byte of b) {
		sum += byte;
	}

	field(b, 148, 8, `${sum.toString(8).padStart(6, '0')}\0 `);
	return b;
}

export function craftTar(out: string, members: TarMember[]): string {
	const parts: Buffer[] = [];
	for (const m of members) {
		const data = (m.type ?? 'file') === 'file' ? (m.data ?? Buffer.alloc(0)) : Buffer.alloc(0);
		parts.push(header(m, data.length), data, Buffer.alloc((512 - (data.length % 512)) % 512));
	}

	parts.push(Buffer.alloc(1024));
	fs.writeFileSync(out, zlib.gzipSync(Buffer.concat(parts)));
	return out;
}
