/**
 * Whose home an archive without an hfx manifest is (a tarball of a home or of a Docker volume, a
 * Hermes zip): its stores' own sessions. A drill records, for each store it restored, the ids of
 * its newest sessions (drill.ts); an archive is of the home asked about when each of those stores
 * that the home also has holds that newest session. Session ids carry a random part Hermes draws
 * for each session (`YYYYmmdd_HHMMSS_<hex>`), so another home never holds them; a copy restored
 * from this home's backup does, and counts as this home. The live stores are read through the
 * read-only open (store/open/open.ts): never a write, never a checkpoint, no file made beside them.
 */
import fs from 'node:fs';
import path from 'node:path';
import {errorMessage} from '../ground/errors.js';
import {FailClosed} from '../ground/errors.js';
import {readStore} from '../store/open/immutable-read.js';

/** One restored store: its path under the Hermes root and its newest session ids (oldest first). */
export type StoreIdentity = {path: string; newest: string[]};

/** How many newest ids a drill records per store. */
export const IDENTITY_IDS = 3;

/** The newest ids of a store's sessions (Hermes' ids sort by their start time). */
export function newestIds(ids: readonly string[]): string[] {
	return [...ids].sort().slice(-IDENTITY_IDS);
}

/**
 * A record's `details.identity`, read back only when it has that shape (the records file is a file anyone could edit).
 */
export function identityOf(value: unknown): StoreIdentity[] | null {
	if (!Array.isArray(value)) {
		return null;
	}

	const ok = value.every(
		s =>
			s &&
			typeof s === 'object' &&
			typeof (s as StoreIdentity).path === 'string' &&
			Array.isArray((s as StoreIdentity).newest) &&
			(s as StoreIdentity).newest.every(x => typeof x === 'string'),
	);
	return ok ? (value as StoreIdentity[]) : null;
}

export type IdentityOwner = {owner: 'this' | 'other' | 'unknown'; why: string};

/** Whether the live store at `file` holds session `id`, read where it lies; a store that cannot be read says why. */
function holds(file: string, id: string): boolean | string {
	try {
		return readStore(file, store => store.prepare('SELECT count(*) FROM sessions WHERE id = ?').pluck().get(id) === 1);
	} catch (error) {
		return error instanceof FailClosed ? error.reason : errorMessage(error);
	}
}

/** Whose home the archive is, from its stores' newest sessions against the home's live stores. */
export function ownerByIdentity(identity: readonly StoreIdentity[], root: string): IdentityOwner {
	let matched = 0;
	for (const s of identity) {
		const id = s.newest.at(-1);
		const live = path.join(root, ...s.path.split('/'));
		if (!id || path.isAbsolute(s.path) || s.path.split('/').includes('..') || !fs.existsSync(live)) {
			continue;
		}

		const found = holds(live, id);
		if (typeof found === 'string') {
			return {owner: 'unknown', why: `this home's ${s.path} cannot be read to compare (${found})`};
		}

		if (!found) {
			return {
				owner: 'other',
				why: `its ${s.path}'s newest session ${id} is not in this home's ${s.path}: an archive of another home`,
			};
		}

		matched++;
	}

	return matched > 0
		? {owner: 'this', why: `its newest sessions are in this home's stores`}
		: {owner: 'unknown', why: 'no store of it holds a session this home could be compared by'};
}
