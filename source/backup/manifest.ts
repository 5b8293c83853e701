/**
 * The manifest stored as `manifest.json` in every archive and quick snapshot: every member with
 * size, mode, CRC-32 and sha256, and for each database its schema version, integrity result and
 * row counts (taken from the verified copy). A quick snapshot's manifest.json also carries
 * Hermes' own fields (id, timestamp, label, file_count, total_size, files, failed_dbs,
 * oversized_skipped) so Hermes lists and restores it as one of its own.
 *
 * Whose archive: `source.home` records the home's identity. The identity is the home's REAL path
 * (symbolic links resolved, as the backup saw it): two homes never share one, and the same home
 * keeps it across container rebuilds that mount the same folder. Its device and inode are kept
 * beside it for the record (they change when the folder is re-created, so they are not the key).
 * `gate`, `--keep` and `hfx backups` consider an archive this home's only when that path matches;
 * an archive of another home (or of an unknown one: no `source.home`, and its `source.root` no
 * longer resolves to this home) is listed as such, never pruned, never passes the gate.
 */
import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import {toolVersion} from '../ground/version.js';

export const MANIFEST_NAME = 'manifest.json';
export const MANIFEST_FORMAT = 'hfx-backup';
export const MANIFEST_VERSION = 1;

export type MemberRecord = {
	path: string;
	size: number;
	/** Permission bits (e.g. 0o600 as 384). */
	mode: number;
	mtime: string;
	/** CRC-32 as 8 hex digits. */
	crc32: string;
	sha256: string;
	kind: 'file' | 'db';
};

export type DatabaseRecord = {
	path: string;
	schemaVersion: number | null;
	/** "ok", or the first integrity_check messages when the copy failed it. */
	integrity: string;
	counts: Record<string, number>;
	pageSize: number;
	pageCount: number;
	journalMode: 'wal' | 'delete';
	sourceWalBytes: number | null;
	openMode: 'in-place' | 'private-copy';
	steps: number;
	restarts: number;
	copyMs: number;
	pinnedMs: number;
	checkMs: number;
	readerSqliteVersion: string;
};

export type Manifest = {
	format: typeof MANIFEST_FORMAT;
	version: number;
	kind: 'full' | 'quick';
	id: string;
	createdAt: string;
	createdAtEpoch: number;
	label: string | null;
	source: {root: string; host: string; uid: number | null; home?: HomeIdentity};
	tool: {name: 'hfx'; version: string};
	/** False when anything was skipped or a database copy failed its check. */
	complete: boolean;
	members: MemberRecord[];
	databases: DatabaseRecord[];
	skipped: Array<{path: string; reason: string}>;
	excluded: Array<{path: string; why: string}>;
};

/** Which home an archive belongs to (see the header): its real path is the key. */
export type HomeIdentity = {realPath: string; dev: number; ino: number};

/** The identity of the home at `root`: its real path, and its device and inode for the record. */
export function homeIdentity(root: string): HomeIdentity {
	const realPath = realPathOf(root);
	try {
		const st = fs.statSync(realPath);
		return {realPath, dev: st.dev, ino: st.ino};
	} catch {
		return {realPath, dev: -1, ino: -1};
	}
}

/** The real path when it resolves, else the absolute path as given. */
export function realPathOf(p: string): string {
	try {
		return fs.realpathSync(p);
	} catch {
		return path.resolve(p);
	}
}

/** The home key a manifest names: its recorded real path, or (older manifests) its root resolved now. */
export function manifestHome(m: Manifest): string {
	return m.source.home?.realPath ?? realPathOf(m.source.root);
}

/** Hermes' quick-snapshot manifest with ours inside it. */
export type QuickManifest = {
	id: string;
	timestamp: string;
	label: string | null;
	file_count: number;
	total_size: number;
	files: Record<string, number>;
	failed_dbs: string[];
	oversized_skipped: string[];
	hfx: Manifest;
};

export function newManifest(
	kind: 'full' | 'quick',
	id: string,
	root: string,
	created: Date,
	label: string | null,
): Manifest {
	return {
		format: MANIFEST_FORMAT,
		version: MANIFEST_VERSION,
		kind,
		id,
		createdAt: created.toISOString(),
		createdAtEpoch: Math.floor(created.getTime() / 1000),
		label,
		source: {root, host: os.hostname(), uid: process.getuid?.() ?? null, home: homeIdentity(root)},
		tool: {name: 'hfx', version: toolVersion()},
		complete: true,
		members: [],
		databases: [],
		skipped: [],
		excluded: [],
	};
}

export class ManifestError extends Error {
	override name = 'ManifestError';
}

function isObject(v: unknown): v is Record<string, unknown> {
	return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Parses and shape-checks our manifest (throws ManifestError with what is wrong). */
export function parseManifest(text: string | Buffer): Manifest {
	let raw: unknown;
	try {
		raw = JSON.parse(text.toString());
	} catch (error) {
		throw new ManifestError(`manifest.json is not valid JSON (${(error as Error).message})`);
	}

	return checkManifest(isObject(raw) && isObject(raw.hfx) ? raw.hfx : raw);
}

export function checkManifest(raw: unknown): Manifest {
	if (!isObject(raw) || raw.format !== MANIFEST_FORMAT) {
		throw new ManifestError('manifest.json is not an hfx manifest (no "format": "hfx-backup")');
	}

	if (raw.version !== MANIFEST_VERSION) {
		throw new ManifestError(
			`manifest version ${String(raw.version)} is not supported (this hfx reads version ${MANIFEST_VERSION})`,
		);
	}

	if (!Array.isArray(raw.members) || !Array.isArray(raw.databases)) {
		throw new ManifestError('manifest.json lacks its members or databases list');
	}

	for (const [i, m] of (raw.members as unknown[]).entries()) {
		if (
			!isObject(m) ||
			typeof m.path !== 'string' ||
			typeof m.size !== 'number' ||
			typeof m.sha256 !== 'string' ||
			typeof m.crc32 !== 'string' ||
			typeof m.mode !== 'number'
		) {
			throw new ManifestError(`manifest member #${i + 1} is malformed`);
		}
	}

	for (const [i, d] of (raw.databases as unknown[]).entries()) {
		if (!isObject(d) || typeof d.path !== 'string' || !isObject(d.counts)) {
			throw new ManifestError(`manifest database #${i + 1} is malformed`);
		}
	}

	// Whose home it is: every reader of the manifest relies on it (gate, --keep, drill).
	const source = raw.source;
	if (
		!isObject(source) ||
		typeof source.root !== 'string' ||
		(source.home !== undefined && (!isObject(source.home) || typeof source.home.realPath !== 'string'))
	) {
		throw new ManifestError('manifest.json lacks the home it was taken of (source.root / source.home)');
	}

	return raw as unknown as Manifest;
}

/** Hermes' quick-snapshot fields around our manifest. */
export function quickManifest(m: Manifest, failedDbs: string[]): QuickManifest {
	const files: Record<string, number> = {};
	for (const member of m.members) {
		files[member.path] = member.size;
	}

	return {
		id: m.id,
		timestamp: m.id.slice(0, 15),
		label: m.label,
		file_count: m.members.length,
		total_size: m.members.reduce((a, b) => a + b.size, 0),
		files,
		failed_dbs: failedDbs,
		oversized_skipped: [],
		hfx: m,
	};
}
