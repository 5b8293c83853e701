/**
 * `hfx backups`: every archive and quick snapshot we can see, with age, size and whether it was
 * verified and drilled (from the records beside it). Archives: the backup folder (default
 * <root>/backups/) and any folder given with -o. Snapshots: <home>/state-snapshots/ of the root
 * and of every profile. Whose home each archive is (manifest.ts: the home's real path) comes from
 * its records: `owner` says whether it is this home's, another's, or unknown.
 */
import fs from 'node:fs';
import path from 'node:path';
import {PROFILE_NAME} from '../../store/locate.js';
import {ARCHIVE_PATTERN, sortArchives} from '../create/backup.js';
import {realPathOf} from '../manifest.js';
import {parseStamp} from '../stamp.js';
import {type BackupRecord, fingerprintOf, readRecords, statusFor} from '../records.js';
import {SNAPSHOTS_DIR, SNAPSHOT_PATTERN} from '../create/snapshot.js';
import {liveWords} from '../verify/verify.js';
import {identityOf, ownerByIdentity} from '../identity.js';

export type BackupKind = 'hfx-archive' | 'hermes-archive' | 'zip' | 'tar' | 'snapshot';

export type BackupEntry = {
	path: string;
	name: string;
	kind: BackupKind;
	/** For snapshots: the profile whose home holds it. */
	profile: string | null;
	createdAt: number | null;
	ageSeconds: number | null;
	size: number | null;
	/**
	 * `live`: a tar of a running volume, in words (its -wal's commits a restore folds, its sidecars never restored); null
	 * otherwise.
	 */
	verified: {at: number; level: string | null; live: string | null} | null;
	drilled: {at: number} | null;
	lastFailure: {at: number; event: string; summary: string} | null;
	/** What the backup's own record or manifest says (null when unknown). */
	complete: boolean | null;
	changedSinceRecorded: boolean;
	seal: string | null;
	/** The home it was taken of (its real path), as its records say; null when they do not. */
	home: string | null;
	/** This home's (the one asked about), another home's, or unknown (no record names its home). */
	owner: 'this' | 'other' | 'unknown';
};

function du(dir: string): number {
	let total = 0;
	try {
		for (const d of fs.readdirSync(dir, {withFileTypes: true})) {
			const p = path.join(dir, d.name);
			total += d.isDirectory() ? du(p) : d.isFile() ? fs.statSync(p).size : 0;
		}
	} catch {
		// unreadable part: counted as 0
	}

	return total;
}

/**
 * A record's `details.live` (verify.ts liveDetails), read back only when it has that shape (the records file is a file
 * anyone could edit).
 */
function liveOf(value: unknown): Array<{commits: number; sidecars: string[]}> | undefined {
	if (!Array.isArray(value)) {
		return undefined;
	}

	const ok = value.every(
		l =>
			l &&
			typeof l === 'object' &&
			Number.isSafeInteger((l as {commits: unknown}).commits) &&
			Array.isArray((l as {sidecars: unknown}).sidecars) &&
			(l as {sidecars: unknown[]}).sidecars.every(x => typeof x === 'string'),
	);
	return ok ? (value as Array<{commits: number; sidecars: string[]}>) : undefined;
}

function completeOf(records: readonly BackupRecord[], artifact: string): boolean | null {
	const r = [...records]
		.reverse()
		.find(x => x.artifact === artifact && x.details && typeof x.details.complete === 'boolean');
	return r ? (r.details!.complete as boolean) : null;
}

/** The home an artifact's newest record names (details.home; details.root of older backup records). */
function homeOf(records: readonly BackupRecord[], artifact: string): string | null {
	for (const r of [...records].reverse()) {
		if (r.artifact !== artifact || !r.details) {
			continue;
		}

		if (typeof r.details.home === 'string') {
			return r.details.home;
		}

		if (typeof r.details.root === 'string') {
			return realPathOf(r.details.root);
		}
	}

	return null;
}

function ownerOf(entryHome: string | null, home: string | null): BackupEntry['owner'] {
	return entryHome === null || home === null ? 'unknown' : entryHome === home ? 'this' : 'other';
}

function entryFor(
	file: string,
	name: string,
	kind: BackupKind,
	profile: string | null,
	records: readonly BackupRecord[],
	now: number,
	home: string | null,
): BackupEntry {
	const fp = fingerprintOf(file);
	const status = statusFor(records, name, fp);
	let mtime: number | null = null;
	try {
		mtime = fs.statSync(file).mtimeMs / 1000;
	} catch {
		mtime = null;
	}

	const createdAt = status.createdAt ?? parseStamp(name) ?? mtime;
	const entryHome = kind === 'snapshot' ? home : homeOf(records, name);
	return {
		path: file,
		name,
		kind,
		profile,
		createdAt,
		ageSeconds: createdAt === null ? null : Math.max(0, now - createdAt),
		size: kind === 'snapshot' ? du(file) : fp.size,
		verified: status.verified
			? {
					at: status.verified.at,
					level: status.verified.level ?? (status.verified.event === 'drill' ? 'full' : null),
					live: liveWords(liveOf(status.verified.details?.live)) || null,
				}
			: null,
		drilled: status.drilled ? {at: status.drilled.at} : null,
		lastFailure: status.lastFailure
			? {at: status.lastFailure.at, event: status.lastFailure.event, summary: status.lastFailure.summary}
			: null,
		complete: completeOf(records, name),
		changedSinceRecorded: status.changedSinceRecorded,
		seal: status.seal,
		home: entryHome,
		owner: ownerOf(entryHome, home),
	};
}

/** The archives in `dir`; `home` (a real path, realPathOf) is the home asked about, for each one's owner. */
export function listArchives(dir: string, now: number, home: string | null = null): BackupEntry[] {
	let names: string[];
	try {
		names = fs.readdirSync(dir);
	} catch {
		return [];
	}

	const records = readRecords(dir);
	const ours = sortArchives(names);
	const others = names
		.filter(n => !ARCHIVE_PATTERN.test(n) && /\.(zip|tar\.gz|tgz|tar)$/i.test(n) && !n.startsWith('.'))
		.sort()
		.reverse();
	return [
		...ours.map(n => entryFor(path.join(dir, n), n, 'hfx-archive', null, records, now, home)),
		...others.map(n =>
			entryFor(
				path.join(dir, n),
				n,
				/\.zip$/i.test(n) ? (/^(hermes-backup|pre-update|pre-migration)-/.test(n) ? 'hermes-archive' : 'zip') : 'tar',
				null,
				records,
				now,
				home,
			),
		),
	].filter(e => {
		try {
			return fs.statSync(e.path).isFile();
		} catch {
			return false;
		}
	});
}

export function listSnapshots(root: string, now: number): BackupEntry[] {
	const homes: Array<{home: string; profile: string}> = [{home: root, profile: 'default'}];
	try {
		for (const name of fs.readdirSync(path.join(root, 'profiles')).sort()) {
			if (PROFILE_NAME.test(name)) {
				homes.push({home: path.join(root, 'profiles', name), profile: name});
			}
		}
	} catch {
		// no profiles
	}

	const out: BackupEntry[] = [];
	for (const {home, profile} of homes) {
		const dir = path.join(home, SNAPSHOTS_DIR);
		let names: string[];
		try {
			names = fs
				.readdirSync(dir, {withFileTypes: true})
				.filter(d => d.isDirectory() && SNAPSHOT_PATTERN.test(d.name))
				.map(d => d.name)
				.sort()
				.reverse();
		} catch {
			continue;
		}

		const records = readRecords(dir);
		for (const n of names) {
			out.push(entryFor(path.join(dir, n), n, 'snapshot', profile, records, now, realPathOf(home)));
		}
	}

	return out;
}

export function listBackups(options: {root: string | null; dirs: string[]; now: number}): BackupEntry[] {
	const seen = new Set<string>();
	const out: BackupEntry[] = [];
	for (const dir of options.dirs) {
		const abs = path.resolve(dir);
		if (seen.has(abs)) {
			continue;
		}

		seen.add(abs);
		out.push(...listArchives(abs, options.now, options.root ? realPathOf(options.root) : null));
	}

	if (options.root) {
		out.push(...listSnapshots(options.root, options.now));
	}

	return out;
}

/**
 * Places each archive that carries no manifest (a tarball, a Hermes zip) by its stores' newest
 * sessions, as gate does (identity.ts): `owner` this or other instead of unknown. Reads the home's
 * live stores read-only, once per such archive that a verify or drill recorded: for `hfx backups`.
 */
export function placeByIdentity(entries: readonly BackupEntry[], root: string): BackupEntry[] {
	return entries.map(e => {
		if (e.kind === 'snapshot' || e.kind === 'hfx-archive' || e.owner !== 'unknown') {
			return e;
		}

		const status = statusFor(readRecords(path.dirname(e.path)), e.name, fingerprintOf(e.path));
		const identity = identityOf(status.drilled?.details?.identity) ?? identityOf(status.verified?.details?.identity);
		const owner = identity ? ownerByIdentity(identity, root).owner : 'unknown';
		return owner === 'unknown' ? e : {...e, owner, home: owner === 'this' ? realPathOf(root) : null};
	});
}

/**
 * What `hfx backups` lists, and the TUI's Backups pane with it (one list, one set of verdicts): every
 * archive of the root's archive folders, each placed by identity when no manifest names its home,
 * and the quick snapshots of every profile; with `profile` (--profile), the archives (each holds
 * the whole home) and that profile's snapshots only.
 */
export function homeBackups(options: {
	root: string;
	dirs: string[];
	now: number;
	profile?: string | null;
}): BackupEntry[] {
	const entries = placeByIdentity(listBackups(options), options.root);
	const only = options.profile;
	return only ? entries.filter(e => e.kind !== 'snapshot' || e.profile === only) : entries;
}
