/**
 * `hfx gate [--max-age 30m]`: the human gate before a destructive container operation
 * (`hfx gate && docker compose build`). Passes (exit 0, prints the archive) only when a backup of
 * any kind hfx restores (an hfx zip, a Hermes zip, a quick snapshot, a tarball of the home or of
 * its Docker volume: what `hfx backups` lists) is of the home asked about, complete, newer than
 * max-age, verified and drilled, and still exactly what was drilled. Otherwise exit 1 saying what
 * is missing.
 *
 *   whose home: an hfx zip by its manifest (read again now: the records could be stale or copied);
 *     a quick snapshot by the home it lies in; an archive without a manifest by its stores' own
 *     newest sessions, recorded by its drill and looked up in the home's live stores (identity.ts).
 *   unchanged since the drill: an hfx zip by its seal, recomputed now; any other file by the sha256
 *     of its bytes the drill recorded; a snapshot folder by a verification run again now.
 */
import fs from 'node:fs';
import path from 'node:path';
import {sha256} from '../../ground/crypto.js';
import {plural} from '../../text/format.js';
import {duration} from '../../forensics/duration.js';
import {type BackupEntry, listBackups} from './list.js';
import {type BackupRecord, fingerprintOf, readRecords, statusFor} from '../records.js';
import {digestFile} from '../digest.js';
import {verifyArtifact} from '../verify/verify.js';
import {type IdentityOwner, identityOf, ownerByIdentity} from '../identity.js';
import {openZip} from '../archive/zipread.js';
import {readChunks} from '../chunks.js';
import {readArchiveManifest} from '../archive/read-manifest.js';
import {manifestHome} from '../manifest.js';

export const DEFAULT_MAX_AGE_SECONDS = 30 * 60;

/** "30m", "2h", "1d", "90s", "45" (seconds). */
export function parseDuration(text: string): number | null {
	const m = /^\s*(\d+(?:\.\d+)?)\s*(s|sec|secs|m|min|mins|h|hr|hrs|d|day|days|w)?\s*$/i.exec(text);
	if (!m) {
		return null;
	}

	const n = Number(m[1]);
	const unit = (m[2] ?? 's').toLowerCase();
	const factor = unit.startsWith('s')
		? 1
		: unit.startsWith('m')
			? 60
			: unit.startsWith('h')
				? 3600
				: unit.startsWith('d')
					? 86_400
					: 604_800;
	return n * factor;
}

export type GateCandidate = BackupEntry & {missing: string[]};

export type GateResult = {
	ok: boolean;
	archive: string | null;
	/** One sentence: why it passed, or what is missing and what to run. */
	reason: string;
	maxAgeSeconds: number;
	candidates: GateCandidate[];
};

/** sha256 of every byte before the end record: must equal the seal that was drilled. */
export async function recomputeSeal(file: string): Promise<string | null> {
	try {
		const z = await openZip(file);
		const end = z.eocdOffset;
		z.close();
		const sha = sha256();
		const fd = fs.openSync(file, 'r');
		try {
			readChunks(
				fd,
				chunk => {
					sha.update(chunk);
				},
				end,
			);
		} finally {
			fs.closeSync(fd);
		}

		return sha.digest('hex');
	} catch {
		return null;
	}
}

/** What keeps one archive from passing, from its records (age, complete, verified, drilled, whose home). */
function missingFor(e: BackupEntry, maxAgeSeconds: number, whose: IdentityOwner | null): string[] {
	const missing: string[] = [];
	if (whose && whose.owner !== 'this') {
		missing.push(whose.owner === 'other' ? whose.why : `whose home it is is unknown: ${whose.why}`);
	} else if (!whose && e.owner !== 'this') {
		missing.push(
			e.owner === 'other'
				? `it is ${e.kind === 'snapshot' ? 'a quick snapshot' : 'an archive'} of another home (${e.home})`
				: 'no record says which home it is of (verify it: hfx verify records that)',
		);
	}

	if (e.ageSeconds === null || e.ageSeconds > maxAgeSeconds) {
		missing.push(`it is ${duration(e.ageSeconds)} old (max ${duration(maxAgeSeconds)})`);
	}

	if (e.complete === false) {
		missing.push('it is incomplete (something was skipped when it was taken)');
	}

	if (!e.verified) {
		missing.push(e.changedSinceRecorded ? 'the file changed after it was verified' : 'not verified');
	}

	if (!e.drilled) {
		missing.push(e.lastFailure?.event === 'drill' ? `its last drill failed (${e.lastFailure.summary})` : 'not drilled');
	}

	return missing;
}

/** The archive's own manifest must name this home (the records could be stale or copied). */
async function manifestNames(file: string, home: string): Promise<boolean> {
	const manifest = await readArchiveManifest(file);
	return manifest !== null && manifestHome(manifest) === home;
}

/**
 * The newest passing drill record of an entry (its details carry the identity and the sha256), and the newest verify or
 * drill.
 */
function recordsOf(e: BackupEntry): {drilled: BackupRecord | null; verified: BackupRecord | null} {
	return statusFor(readRecords(path.dirname(e.path)), e.name, fingerprintOf(e.path));
}

/** Whose home an archive without a manifest is (identity.ts); null for the kinds that say it themselves. */
function whoseHome(e: BackupEntry, root: string): IdentityOwner | null {
	if (hasManifest(e)) {
		return null;
	}

	if (e.kind === 'snapshot') {
		return e.profile === 'default'
			? null
			: {
					owner: 'other',
					why:
						`it is a quick snapshot of the profile ${e.profile} alone (its ` +
						`home ${path.dirname(path.dirname(e.path))})`,
				};
	}

	const {drilled, verified} = recordsOf(e);
	const identity = identityOf(drilled?.details?.identity) ?? identityOf(verified?.details?.identity);
	return identity
		? ownerByIdentity(identity, root)
		: {
				owner: 'unknown',
				why: "it has no manifest, and only a verify or a drill records whose home it is (its stores' newest sessions)",
			};
}

/** An archive whose manifest names its home (ours, or one its records say has one): judged by it. */
function hasManifest(e: BackupEntry): boolean {
	return e.kind === 'hfx-archive' || (e.kind !== 'snapshot' && e.home !== null);
}

/** Why the bytes are no longer what was drilled; null when they are. */
async function changedSinceDrill(c: GateCandidate): Promise<string | null> {
	if (c.kind === 'hfx-archive' || (c.kind !== 'snapshot' && c.seal)) {
		const seal = await recomputeSeal(c.path);
		if (!seal || seal !== c.seal) {
			return 'its bytes no longer match the drilled archive (seal mismatch)';
		}

		return null;
	}

	if (c.kind === 'snapshot') {
		const again = await verifyArtifact(c.path, {inlineChecks: true});
		return again.exitCode === 0
			? null
			: `it no longer verifies ` +
					`(${again.status}: ${again.problems[0]?.what ?? again.databases.find(d => !d.ok)?.problems[0] ?? ''})`;
	}

	const recorded = recordsOf(c).drilled?.details?.sha256;
	if (typeof recorded !== 'string') {
		return 'its drill recorded no sha256 of its bytes (drilled by an older hfx): drill it again';
	}

	let now: string | null = null;
	try {
		now = digestFile(c.path).sha256;
	} catch {
		now = null;
	}

	return now === recorded ? null : 'its bytes no longer match the drilled archive (sha256 mismatch)';
}

/** Why a candidate that its records let through still does not pass; null when it passes. */
async function finalCheck(c: GateCandidate, home: string): Promise<string | null> {
	const changed = await changedSinceDrill(c);
	if (changed) {
		return changed;
	}

	return !hasManifest(c) || (await manifestNames(c.path, home)) ? null : 'its manifest names another home';
}

export async function checkGate(options: {
	root: string;
	dirs: string[];
	maxAgeSeconds: number;
	now: number;
	home: string;
}): Promise<GateResult> {
	const candidates: GateCandidate[] = [];
	for (const e of listBackups({root: options.root, dirs: options.dirs, now: options.now})) {
		const whose = whoseHome(e, options.root);
		candidates.push({...e, owner: whose ? whose.owner : e.owner, missing: missingFor(e, options.maxAgeSeconds, whose)});
	}

	candidates.sort((a, b) => (b.createdAt ?? 0) - (a.createdAt ?? 0));
	for (const c of candidates) {
		if (c.missing.length > 0) {
			continue;
		}

		const why = await finalCheck(c, options.home);
		if (why) {
			c.missing.push(why);
			continue;
		}

		return {
			ok: true,
			archive: c.path,
			reason:
				`${c.name}: ${KIND_WORDS[c.kind]}, ${c.complete === true ? 'complete, ' : ''}${duration(c.ageSeconds)} ` +
				`old, verified and ` +
				`drilled, ${c.kind === 'snapshot' ? 'verified again now' : 'bytes unchanged since the drill'}`,
			maxAgeSeconds: options.maxAgeSeconds,
			candidates,
		};
	}

	return {
		ok: false,
		archive: null,
		reason: blockedReason(candidates, options),
		maxAgeSeconds: options.maxAgeSeconds,
		candidates,
	};
}

const KIND_WORDS: Record<BackupEntry['kind'], string> = {
	'hfx-archive': 'an hfx archive',
	'hermes-archive': 'a Hermes archive',
	zip: 'a zip archive',
	tar: 'a tarball',
	snapshot: 'a quick snapshot',
};

/** What only a new backup mends (a drill would not): too old, incomplete, changed, another home's. */
const NEEDS_NEW = ['old (max', 'incomplete', 'changed', 'mismatch', 'another home', 'no longer', 'of the profile'];

/** The next step for the newest backup's gaps: a new backup when the archive itself must change, else a drill. */
function nextForMissing(newest: {missing: string[]; path: string}): string {
	return newest.missing.some(m => NEEDS_NEW.some(w => m.includes(w)))
		? 'hfx backup, then hfx restore --drill <the new archive>'
		: `hfx restore --drill ${newest.path}`;
}

/** Why nothing passed: the newest backup not of another home and what it lacks, or that there is none. */
function blockedReason(
	candidates: GateCandidate[],
	options: {dirs: string[]; maxAgeSeconds: number; home: string},
): string {
	const newest = candidates.find(c => c.owner !== 'other');
	const others = candidates.filter(c => c.owner === 'other').length;
	const besides =
		others > 0
			? ` (${plural(others, 'backup')} there ${others === 1 ? 'is' : 'are'} of ` +
				`another home: never passing for ${options.home})`
			: '';
	return newest
		? `no verified, drilled backup newer ` +
				`than ${duration(options.maxAgeSeconds)}: the ` +
				`newest, ${newest.name}, ${newest.missing.join('; ')}${besides}. ` +
				`Next: ${nextForMissing(newest)}`
		: `no backup of ${options.home} in ${options.dirs.join(', ')} or its ` +
				`state-snapshots/${besides}. Next: hfx backup, then hfx restore --drill ` +
				`<the new archive>`;
}
