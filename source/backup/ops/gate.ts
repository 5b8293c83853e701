/**
 * `hfx gate [--max-age 30m]`: the human gate before a destructive container operation
 * (`hfx gate && docker compose build`). Passes (exit 0, prints the archive) only when a full
 * archive of ours exists that is complete, newer than max-age, verified and drilled, and whose
 * bytes are still exactly the bytes that were drilled (its seal is recomputed now). Otherwise
 * exit 1 saying what is missing. Quick snapshots never pass: they live inside the Hermes root
 * and go with it when the container does. Only an archive of the home asked about passes (its
 * manifest's home, manifest.ts): another home's archive in the same folder is listed as such.
 */
import fs from 'node:fs';
import {sha256} from '../../crypto.js';
import {plural} from '../../text/format.js';
import {duration} from '../../forensics/duration.js';
import {type BackupEntry, listArchives} from './list.js';
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
	const factor = unit.startsWith('s') ? 1 : (unit.startsWith('m') ? 60 : (unit.startsWith('h') ? 3600 : (unit.startsWith('d') ? 86_400 : 604_800)));
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
			readChunks(fd, chunk => {
				sha.update(chunk);
			}, end);
		} finally {
			fs.closeSync(fd);
		}

		return sha.digest('hex');
	} catch {
		return null;
	}
}

/** What keeps one archive from passing, from its records (age, complete, verified, drilled, whose home). */
function missingFor(e: BackupEntry, maxAgeSeconds: number): string[] {
	const missing: string[] = [];
	if (e.owner !== 'this') {
		missing.push(e.owner === 'other' ? `it is an archive of another home (${e.home})` : 'no record says which home it is of (verify it: hfx verify records that)');
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

export async function checkGate(options: {dirs: string[]; maxAgeSeconds: number; now: number; home: string}): Promise<GateResult> {
	const candidates: GateCandidate[] = [];
	for (const dir of options.dirs) {
		for (const e of listArchives(dir, options.now, options.home)) {
			if (e.kind === 'hfx-archive') {
				candidates.push({...e, missing: missingFor(e, options.maxAgeSeconds)});
			}
		}
	}

	candidates.sort((a, b) => (b.createdAt ?? 0) - (a.createdAt ?? 0));
	for (const c of candidates) {
		if (c.missing.length > 0) {
			continue;
		}

		const seal = await recomputeSeal(c.path);
		if (!seal || seal !== c.seal) {
			c.missing.push('its bytes no longer match the drilled archive (seal mismatch)');
			continue;
		}

		if (!(await manifestNames(c.path, options.home))) {
			c.missing.push('its manifest names another home');
			continue;
		}

		return {ok: true, archive: c.path, reason: `${c.name}: complete, ${duration(c.ageSeconds)} old, verified and drilled, bytes unchanged since the drill`, maxAgeSeconds: options.maxAgeSeconds, candidates};
	}

	return {ok: false, archive: null, reason: blockedReason(candidates, options), maxAgeSeconds: options.maxAgeSeconds, candidates};
}

/** Why nothing passed: the newest of this home's archives and what it lacks, or that there is none. */
function blockedReason(candidates: GateCandidate[], options: {dirs: string[]; maxAgeSeconds: number; home: string}): string {
	const newest = candidates.find(c => c.owner === 'this');
	const others = candidates.length - candidates.filter(c => c.owner === 'this').length;
	const besides = others > 0 ? ` (${plural(others, 'archive')} there ${others === 1 ? 'is' : 'are'} of another or an unknown home: never passing for ${options.home})` : '';
	return newest
		? `no verified, drilled backup newer than ${duration(options.maxAgeSeconds)}: the newest, ${newest.name}, ${newest.missing.join('; ')}${besides}. Next: ${newest.missing.some(m => m.includes('old') || m.includes('incomplete') || m.includes('changed') || m.includes('seal') || m.includes('home')) ? 'hfx backup, then hfx restore --drill <the new archive>' : `hfx restore --drill ${newest.path}`}`
		: `no hfx backup archive in ${options.dirs.join(', ')} for ${options.home}${besides}. Next: hfx backup, then hfx restore --drill <the new archive>`;
}
