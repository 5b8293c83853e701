import path from 'node:path';
import {FailClosed, errorCode, errorMessage} from '../../ground/errors.js';
import {detectKind, notAnArtifact} from '../archive/detect-kind.js';
import {manifestHome} from '../manifest.js';
import {findHermesRoot, underRoot} from '../archive/root.js';
import {type StoreIdentity, newestIds} from '../identity.js';
import {appendRecord, fingerprintOf} from '../records.js';
import type {LiveFold, VerifyOptions, VerifyReport} from './report.js';
import {verifySnapshot} from './snapshot-folder.js';
import {verifyTar} from './tar.js';
import {verifyZip} from './zip.js';

export type {ArtifactKind} from '../archive/detect-kind.js';
export type {DbReport, LiveFold, VerifyOptions, VerifyReport} from './report.js';

/**
 * Verifies any of the three kinds; a failure that is not the archive's (our temp folder, an I/O error) is one refusal
 * line.
 */
export async function verifyArtifact(p: string, options: VerifyOptions = {}): Promise<VerifyReport> {
	try {
		return await verifyKind(p, options);
	} catch (error) {
		if (error instanceof FailClosed) {
			throw error;
		}

		const message = errorMessage(error);
		const code = errorCode(error);
		throw new FailClosed({
			file: path.resolve(p),
			kind: 'verify-failed',
			reason:
				`the verification could not run ` +
				`(${code && !message.startsWith(code) ? `${code}: ` : ''}${message}); ` +
				`the archive was not judged`,
			next: 'fix the cause (the temp folder: TMPDIR, space, permissions) and verify again',
			cause: error,
		});
	}
}

async function verifyKind(p: string, options: VerifyOptions): Promise<VerifyReport> {
	const kind = detectKind(p);
	switch (kind) {
		case 'zip': {
			return verifyZip(p, options);
		}

		case 'snapshot': {
			return verifySnapshot(p, options);
		}

		case 'tar':
		case 'tar.gz': {
			return verifyTar(p, options);
		}

		default: {
			const not = notAnArtifact(p);
			return {
				path: path.resolve(p),
				kind: 'unknown',
				status: 'unreadable',
				exitCode: 2,
				manifest: null,
				sealed: false,
				seal: null,
				members: 0,
				bytes: 0,
				problems: [
					{where: path.resolve(p), what: not ?? 'not a zip, tar.gz, tar or snapshot folder (unrecognised first bytes)'},
				],
				databases: [],
				notes: [],
				ms: 0,
			};
		}
	}
}

/**
 * What a tar of a running volume holds besides its databases, in words ('' for any other): for the records, `hfx
 * backups` and the pane.
 */
export function liveWords(live: ReadonlyArray<{commits: number; sidecars: readonly string[]}> | undefined): string {
	if (!live || live.length === 0) {
		return '';
	}

	const commits = live.reduce((n, l) => n + l.commits, 0);
	const sidecars = live.flatMap(l => l.sidecars);
	return (
		`its -wal holds ${commits === 1 ? '1 commit' : `${commits} commits`} ` +
		`that a restore folds, ` +
		`its ${sidecars.length === 1 ? 'sidecar is' : `${sidecars.length} sidecars are`} ` +
		`never restored (${sidecars.join(', ')})`
	);
}

/**
 * Whose home the artifact is, for an archive without a manifest (identity.ts): each Hermes store's
 * path under the Hermes root inside it and its newest session ids. Needs VerifyOptions.inventory.
 */
export function identityDetails(report: Pick<VerifyReport, 'databases'>): {identity?: StoreIdentity[]} {
	const stores = report.databases.flatMap(d =>
		d.inventory && 'sessions' in d.inventory ? [{path: d.path, ids: Object.keys(d.inventory.sessions)}] : [],
	);
	if (stores.length === 0) {
		return {};
	}

	const found = findHermesRoot(stores.map(s => s.path));
	const root = found.ok ? found.root : '';
	return {identity: stores.map(s => ({path: underRoot(s.path, root) ?? s.path, newest: newestIds(s.ids)}))};
}

/** The live part of a record: what liveWords reads back. */
export function liveDetails(live: readonly LiveFold[] | undefined): {
	live?: Array<{database: string; commits: number; sidecars: string[]}>;
} {
	return live && live.length > 0
		? {live: live.map(l => ({database: l.database, commits: l.commits, sidecars: l.sidecars}))}
		: {};
}

/** Appends the outcome beside the artifact (hfx-records.jsonl). False when that folder is read-only. */
export function recordVerification(report: VerifyReport): boolean {
	if (report.kind === 'unknown') {
		return false;
	}

	const dir = path.dirname(report.path);
	const fp = fingerprintOf(report.path);
	const problems = [
		...report.problems.map(p => `${p.where}: ${p.what}`),
		...report.databases.filter(d => !d.ok).map(d => `${d.path}: ${d.problems.join('; ')}`),
	];
	return appendRecord(dir, {
		at: Date.now() / 1000,
		event: 'verify',
		level: 'full',
		artifact: path.basename(report.path),
		kind: report.kind === 'snapshot' ? 'snapshot' : report.kind === 'zip' ? 'archive' : 'tar',
		ok: report.exitCode === 0,
		exitCode: report.exitCode,
		size: fp.size,
		mtimeMs: fp.mtimeMs,
		seal: report.seal,
		createdAt: report.manifest?.createdAtEpoch ?? null,
		summary:
			report.exitCode === 0
				? `sound: ${report.members} members, ${report.databases.length} databases ` +
					`checked${report.live?.length ? `; taken live: ${liveWords(report.live)}` : ''}`
				: `${report.status}: ${problems.slice(0, 5).join('; ')}`,
		details: {
			complete: report.manifest?.complete ?? null,
			home: report.manifest ? manifestHome(report.manifest) : null,
			...liveDetails(report.live),
			...identityDetails(report),
		},
	});
}
