/**
 * What a restore reads from: the members of a zip archive (hfx's or Hermes'), of a tar or tar.gz,
 * or of a snapshot folder (hfx's manifest or Hermes' manifest.json lists them), each with where it
 * lands under the target, the size and hashes to re-check it against, and its bytes.
 *
 * Without an hfx manifest the archive's Hermes root is found first (archive/root.ts): a Hermes zip
 * may wrap everything in `.hermes/` (Hermes' own import strips that prefix), a tar holds the volume
 * or home folder with whatever prefix it was made with. Members outside the root are not restored,
 * nor a Hermes zip's `_external/` (files from outside HERMES_HOME, which Hermes' import puts back
 * relative to the user's home).
 */
import fs from 'node:fs';
import path from 'node:path';
import {detectKind} from '../archive/detect-kind.js';
import {crcHex} from '../digest.js';
import {MANIFEST_NAME, type Manifest} from '../manifest.js';
import {normalizeName, sidecarSuffix} from '../archive/member-policy.js';
import {findHermesRoot, underRoot} from '../archive/root.js';
import {emptyLayout, refuseRoot} from './layout.js';
import {openTarSource} from './source-tar.js';
import {MAX_MANIFEST_BYTES} from '../verify/snapshot-folder.js';
import {readForeign} from '../../store/foreign-file.js';
import {type OpenedZip, openZip} from '../archive/zipread.js';
import type {SourceMember, Source} from './types.js';

/**
 * Never a sidecar (-wal, -shm, -journal): verify already refused an archive holding one; this is the floor under it.
 */
function withoutSidecars(members: SourceMember[]): SourceMember[] {
	const names = new Set(members.map(m => normalizeName(m.path)));
	return members.filter(m => sidecarSuffix(normalizeName(m.path), names) === null);
}

/**
 * File names Hermes' import never writes, whatever the folder (`_IMPORT_SKIP_NAMES` in Hermes'
 * hermes_cli/backup.py): PIDs and locks of the source machine's process namespace, its process
 * registry and the gateway's last run state, which on a rebuilt host leaves the gateway stuck.
 */
export const RUNTIME_STATE_NAMES: ReadonlySet<string> = new Set([
	'gateway_state.json',
	'gateway.pid',
	'cron.pid',
	'gateway.lock',
	'processes.json',
]);

/**
 * An archive restored onto a host (a zip, a tar) leaves out the source machine's runtime state, listed in the layout.
 */
function withoutRuntimeState(source: Source): Source {
	const members = source.members.filter(m => {
		const runtime = RUNTIME_STATE_NAMES.has(path.posix.basename(m.path));
		if (runtime) {
			source.layout.runtime.push(m.archivePath);
		}

		return !runtime;
	});
	return {...source, members};
}

export async function openSource(
	archive: string,
	manifest: Manifest | null,
	options: {tmpDir?: string} = {},
): Promise<Source> {
	const kind = detectKind(archive);
	if (kind === 'zip') {
		return withoutRuntimeState(await openZipSource(archive, manifest));
	}

	if (kind === 'tar' || kind === 'tar.gz') {
		return withoutRuntimeState(await openTarSource(archive, kind === 'tar.gz', options));
	}

	// A quick snapshot stays on the machine it was taken on: Hermes' /snapshot restore puts its
	// gateway_state.json and processes.json back, and so does this.

	const files = manifest
		? manifest.members.map(m => ({
				path: m.path,
				archivePath: m.path,
				size: m.size,
				mode: m.mode,
				sha256: m.sha256,
				crc32: m.crc32,
				kind: m.kind,
			}))
		: hermesSnapshotMembers(archive);
	return {
		members: withoutSidecars(files),
		layout: emptyLayout(manifest ? null : ''),
		async each(selected, fn) {
			for (const m of selected) {
				await fn(m, fs.createReadStream(path.join(archive, ...m.archivePath.split('/')), {highWaterMark: 1 << 20}));
			}
		},
		close() {},
	};
}

/** A zip: hfx's (its manifest names every path) or Hermes' (its root found, a `.hermes/` prefix stripped). */
async function openZipSource(archive: string, manifest: Manifest | null): Promise<Source> {
	const byPath = new Map((manifest?.members ?? []).map(m => [m.path, m]));
	const z: OpenedZip = await openZip(archive);
	const files = z.members.filter(m => m.type === 'file' && m.name !== MANIFEST_NAME);
	const found = manifest
		? {ok: true as const, root: ''}
		: findHermesRoot(
				files.map(m => normalizeName(m.name)),
				{hermesPrefix: true},
			);
	if (!found.ok) {
		z.close();
		throw refuseRoot(archive, found);
	}

	const layout = emptyLayout(manifest ? null : found.root);
	const members: SourceMember[] = [];
	for (const m of files) {
		const rel = manifest ? m.name : underRoot(normalizeName(m.name), found.root);
		// Hermes keeps files from outside HERMES_HOME (a memory provider's ~/.honcho) under _external/, restored relative
		// to the user's home by its import: not into this root.
		if (rel === null || (!manifest && rel.startsWith('_external/'))) {
			layout.outside.push(m.name);
			continue;
		}

		const known = byPath.get(m.name);
		members.push({
			path: rel,
			archivePath: m.name,
			size: m.entry.uncompressedSize,
			mode: known?.mode ?? m.mode ?? 0o644,
			sha256: known?.sha256 ?? null,
			crc32: known?.crc32 ?? crcHex(m.entry.crc32),
			kind: known?.kind ?? (rel.endsWith('.db') ? 'db' : 'file'),
		});
	}

	const entries = new Map(z.members.map(m => [m.name, m]));
	return {
		members: withoutSidecars(members),
		layout,
		async each(selected, fn) {
			for (const m of selected) {
				await fn(m, await z.zip.openReadStreamPromise(entries.get(m.archivePath)!.entry));
			}
		},
		close: () => z.close(),
	};
}

/**
 * A Hermes quick snapshot: the files its manifest.json lists (`files`: path -> size), as Hermes' /snapshot restore
 * takes them.
 */
function hermesSnapshotMembers(dir: string): SourceMember[] {
	// verify read and judged it a moment ago; read again the same bounded, non-blocking way.
	const raw = JSON.parse(
		readForeign(path.join(dir, MANIFEST_NAME), {
			maxBytes: MAX_MANIFEST_BYTES,
			what: 'it as the manifest',
		}).bytes.toString('utf8'),
	) as {files?: Record<string, number>};
	return Object.entries(raw.files ?? {}).map(([rel, size]) => ({
		path: rel,
		archivePath: rel,
		size,
		mode: 0o600,
		sha256: null,
		crc32: null,
		kind: rel.endsWith('.db') ? 'db' : 'file',
	}));
}
