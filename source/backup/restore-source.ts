/**
 * What a restore reads from: the members of a zip archive or of a snapshot folder (its manifest
 * lists them), each with the size and hashes to re-check it against, and a stream of its bytes.
 */
import fs from 'node:fs';
import path from 'node:path';
import type {Readable} from 'node:stream';
import {detectKind} from './detect-kind.js';
import {crcHex} from './digest.js';
import {MANIFEST_NAME, type Manifest} from './manifest.js';
import {normalizeName, sidecarSuffix} from './member-policy.js';
import {type OpenedZip, openZip} from './zipread.js';

export type SourceMember = {path: string; size: number; mode: number; sha256: string | null; crc32: string | null; kind: 'file' | 'db'};

export type Source = {
	members: SourceMember[];
	open: (m: SourceMember) => Promise<Readable>;
	close: () => void;
};

/** Never a sidecar (-wal, -shm, -journal): verify already refused an archive holding one; this is the floor under it. */
function withoutSidecars(members: SourceMember[]): SourceMember[] {
	const names = new Set(members.map(m => normalizeName(m.path)));
	return members.filter(m => sidecarSuffix(normalizeName(m.path), names) === null);
}

export async function openSource(archive: string, manifest: Manifest | null): Promise<Source> {
	const kind = detectKind(archive);
	const byPath = new Map((manifest?.members ?? []).map(m => [m.path, m]));
	if (kind === 'zip') {
		const z: OpenedZip = await openZip(archive);
		const members = z.members.filter(m => m.type === 'file' && m.name !== MANIFEST_NAME).map(m => {
			const known = byPath.get(m.name);
			return {
				path: m.name,
				size: m.entry.uncompressedSize,
				mode: known?.mode ?? m.mode ?? 0o644,
				sha256: known?.sha256 ?? null,
				crc32: known?.crc32 ?? crcHex(m.entry.crc32),
				kind: known?.kind ?? (m.name.endsWith('.db') ? 'db' : 'file'),
			} satisfies SourceMember;
		});
		const entries = new Map(z.members.map(m => [m.name, m]));
		return {members: withoutSidecars(members), open: async m => z.zip.openReadStreamPromise(entries.get(m.path)!.entry), close: () => z.close()};
	}

	// A snapshot folder: its manifest lists the members.
	const files = manifest ? manifest.members.map(m => ({path: m.path, size: m.size, mode: m.mode, sha256: m.sha256, crc32: m.crc32, kind: m.kind})) : [];
	return {
		members: withoutSidecars(files),
		open: async m => fs.createReadStream(path.join(archive, m.path), {highWaterMark: 1 << 20}),
		close() {},
	};
}
