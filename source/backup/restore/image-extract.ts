/**
 * One store out of an archive or snapshot folder, for `hfx diff` (issue #24 point 4): read with
 * the verified readers a restore uses, into a PRIVATE temp folder, never into a home:
 *
 *   1. a zip's members judged by the member policy first (refuseUnsafeMembers), then the whole
 *      artifact verified (verifyArtifact: every byte, every database on its own temp extraction);
 *      a damaged one is refused in one line (refuseDamaged), as restore refuses it;
 *   2. the restore source (openSource) maps the archive onto its Hermes root (a tar's -wal folded
 *      into its database in the reader's private folder), and hands over state.db (or the
 *      profile's) and its sessions/sessions.json mirror, written into our private folder.
 * The only file of `hfx diff` that imports the backup readers (they are moving into rooms).
 */
import fs from 'node:fs';
import path from 'node:path';
import {FailClosed, errorMessage} from '../../ground/errors.js';
import {ownTempDir} from '../../ground/temps.js';
import {detectKind, notAnArtifact} from '../archive/detect-kind.js';
import {type Manifest, manifestHome} from '../manifest.js';
import {refuseDamaged, refuseUnsafeMembers} from './refusals.js';
import {openSource} from './source.js';
import type {SourceMember} from './types.js';
import {writeMember} from '../archive/tarread.js';
import {verifyArtifact} from '../verify/verify.js';

export type ExtractedImage = {
	/** The private copy of the store (state.db in our own temp folder). */
	db: string;
	kind: 'zip' | 'tar' | 'tar.gz' | 'snapshot';
	/** The home it was taken of, when the archive says so (an hfx manifest); null for Hermes' own archives. */
	home: string | null;
	/** When it was taken, when the archive says so (epoch seconds). */
	takenAt: number | null;
	/** The store's path inside the archive. */
	member: string;
};

function notAnImage(p: string): FailClosed {
	return new FailClosed({
		file: p,
		kind: 'unsupported',
		reason:
			notAnArtifact(p) ??
			'neither an SQLite database nor a zip or tar archive nor a snapshot folder (unrecognised first bytes)',
		next:
			'pass a state.db, a Hermes home, an archive (hfx backups lists them), a ' +
			'quick snapshot, an emergency snapshot or a retired-WAL capture',
	});
}

/** Steps 1: the member policy and the whole verify, as restore runs them. */
async function verified(p: string, kind: ExtractedImage['kind'], tmpDir?: string) {
	if (kind === 'zip') {
		await refuseUnsafeMembers(p);
	}

	const report = await verifyArtifact(p, {tmpDir});
	refuseDamaged(p, report, x => (kind === 'tar' || kind === 'tar.gz') && x.sidecar === true);
	return report;
}

/** The store of the root (or of `profile`) in the archive, and its legacy mirror when archived. */
function pick(
	p: string,
	members: readonly SourceMember[],
	profile?: string,
): {db: SourceMember; mirror: SourceMember | undefined} {
	const base = profile ? `profiles/${profile}/` : '';
	const db = members.find(m => m.path === `${base}state.db`);
	if (!db) {
		throw new FailClosed({
			file: p,
			kind: profile ? 'no-profile' : 'no-hermes-root',
			reason: `the archive holds no ${base}state.db`,
			next: profile
				? 'list what it holds with hfx verify, and pass a profile it has'
				: "pass --profile NAME for a profile's store, or another archive",
		});
	}

	return {db, mirror: members.find(m => m.path === `${base}sessions/sessions.json`)};
}

export type ExtractOptions = {
	profile?: string;
	tmpDir?: string;
	/** The caller verified this artifact a moment ago (a restore's dry run): its manifest, the verify not run twice. */
	verifiedManifest?: Manifest | null;
};

/** Step 2: state.db (and its mirror) of a verified artifact, written into a new private temp folder. */
export async function extractStoreImage(p: string, options: ExtractOptions = {}): Promise<ExtractedImage> {
	const kind = detectKind(p);
	if (kind === 'unknown') {
		throw notAnImage(p);
	}

	const report =
		options.verifiedManifest === undefined
			? await verified(p, kind, options.tmpDir)
			: {manifest: options.verifiedManifest};
	const source = await openSource(p, report.manifest, {tmpDir: options.tmpDir});
	try {
		const {db, mirror} = pick(p, source.members, options.profile);
		const dir = ownTempDir('diff', options.tmpDir);
		const copy = path.join(dir, 'state.db');
		await source.each(mirror ? [db, mirror] : [db], async (m, data) => {
			const dest = m === db ? copy : path.join(dir, 'sessions', 'sessions.json');
			if (m !== db) {
				fs.mkdirSync(path.dirname(dest), {mode: 0o700});
			}

			await writeMember(data, dest, m.size);
		});
		const home = report.manifest ? manifestHome(report.manifest) : null;
		return {db: copy, kind, home, takenAt: report.manifest?.createdAtEpoch ?? null, member: db.archivePath};
	} catch (error) {
		throw error instanceof FailClosed
			? error
			: new FailClosed({
					file: p,
					kind: 'unreadable',
					reason: `its store could not be read out of it (${errorMessage(error)})`,
					next: `check it with hfx verify ${p}`,
					cause: error,
				});
	} finally {
		source.close();
	}
}
