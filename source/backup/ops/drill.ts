/**
 * `hfx restore --drill ARCHIVE`: "backups are only real if they can be restored". Restores the
 * archive (or snapshot) into a scratch folder through the same code as a real restore (verify
 * everything, stage, rename, re-verify against the manifest or, without one, against what was
 * verified), scans every restored store with
 * the forensic engine, records the outcome beside the archive and removes the scratch folder.
 * Exit 0 the drill passed, 1 it found a problem, 2 it could not be run.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {analyze, hasFindings} from '../../forensics/analysis/analyze.js';
import {FailClosed, errorCode, errorMessage} from '../../ground/errors.js';
import {loadStore} from '../../store/read/load.js';
import {type StoreLocation, storesUnderRoot} from '../../store/locate.js';
import {ownTempDir, removeTemp} from '../../ground/temps.js';
import type {ProgressFn} from '../progress.js';
import {type Fingerprint, appendRecord, fingerprintOf} from '../records.js';
import {restoreArchive} from '../restore/restore.js';
import type {RestoreResult} from '../restore/types.js';
import {detectKind} from '../archive/detect-kind.js';
import {liveDetails} from '../verify/verify.js';
import {digestFile} from '../digest.js';
import {newestIds} from '../identity.js';
import {manifestHome} from '../manifest.js';

export type DrillScan = {
	path: string;
	label: string;
	ok: boolean;
	sessions: number | null;
	/** sessions rows the manifest recorded for this database. */
	expectedSessions: number | null;
	orphans: number | null;
	rollbackRisks: number | null;
	findings: number | null;
	healthy: boolean | null;
	error: string | null;
	/**
	 * A store hfx cannot read as the live one could not be either (a table Hermes writes is a VIEW,
	 * a virtual or a WITHOUT ROWID table): restored byte for byte and checked as every database is,
	 * so not a failure of the backup; why hfx cannot scan it. Null otherwise.
	 */
	unreadable: string | null;
	/** Its newest session ids (identity.ts): whose home the archive is, when it has no manifest to say. */
	newestSessions: string[];
};

export type DrillResult = {
	archive: string;
	exitCode: 0 | 1 | 2;
	ok: boolean;
	restore: RestoreResult | null;
	scans: DrillScan[];
	problems: string[];
	recorded: boolean;
	ms: number;
};

/** Folder of the records file for an artifact, and its name there. */
export function recordsLocation(artifact: string): {dir: string; name: string; kind: 'archive' | 'snapshot'} {
	const abs = path.resolve(artifact);
	return {
		dir: path.dirname(abs),
		name: path.basename(abs),
		kind: detectKind(abs) === 'snapshot' ? 'snapshot' : 'archive',
	};
}

/** The restore into the scratch folder; a refusal over the archive itself is a problem the drill found. */
async function restoreForDrill(
	archive: string,
	scratch: string,
	options: {onProgress?: ProgressFn; tmpDir?: string},
	problems: string[],
): Promise<RestoreResult | null> {
	try {
		return await restoreArchive({
			archive,
			target: scratch,
			mode: 'drill',
			yes: true,
			onProgress: options.onProgress,
			tmpDir: options.tmpDir,
		});
	} catch (error) {
		if (
			error instanceof FailClosed &&
			(error.kind === 'archive-damaged' ||
				error.kind === 'unsafe-member' ||
				error.kind === 'changed-during-restore' ||
				error.kind === 'no-manifest' ||
				error.kind === 'no-hermes-root' ||
				error.kind === 'wal-not-folded')
		) {
			problems.push(`restore refused: ${error.reason}`);
		} else {
			throw error;
		}
	}

	return null;
}

/** The forensic scan of one restored store, its session count against the manifest's. */
function scanStore(location: StoreLocation, rel: string, expected: number | null, problems: string[]): DrillScan {
	try {
		const loaded = loadStore(location);
		const analysis = analyze(loaded.snapshot);
		const sessions = loaded.snapshot.sessions.length;
		const scan: DrillScan = {
			path: rel,
			label: location.label,
			ok: expected === null || expected === sessions,
			sessions,
			expectedSessions: expected,
			orphans: analysis.orphans.length,
			rollbackRisks: analysis.routing.filter(r => r.rollbackRisk).length,
			findings: analysis.findings.length,
			healthy: !hasFindings(analysis),
			error: null,
			unreadable: null,
			newestSessions: newestIds(loaded.snapshot.sessions.map(x => x.id)),
		};
		if (!scan.ok) {
			problems.push(`${rel}: the forensic scan reads ${sessions} sessions, the manifest recorded ${expected}`);
		}

		return scan;
	} catch (error) {
		const what = error instanceof FailClosed ? error.reason : errorMessage(error);
		const unreadable = error instanceof FailClosed && error.kind === 'schema-object';
		if (!unreadable) {
			problems.push(`${rel}: the forensic scan failed on the restored copy (${what})`);
		}

		return {
			path: rel,
			label: location.label,
			ok: unreadable,
			sessions: null,
			expectedSessions: expected,
			orphans: null,
			rollbackRisks: null,
			findings: null,
			healthy: null,
			error: unreadable ? null : what,
			unreadable: unreadable ? what : null,
			newestSessions: [],
		};
	}
}

/** What the restore reported, then a scan of every store it restored into the scratch folder. */
function scanRestored(
	scratch: string,
	restore: RestoreResult,
	onProgress: ProgressFn | undefined,
	problems: string[],
	scans: DrillScan[],
): void {
	problems.push(...restore.failed.map(f => `${f.path} was not restored (${f.reason})`), ...restore.postProblems);
	const manifest = restore.manifest;
	for (const location of storesUnderRoot(scratch)) {
		const rel = path.relative(scratch, location.path).split(path.sep).join('/');
		const expected = manifest?.databases.find(d => d.path === rel)?.counts.sessions ?? null;
		onProgress?.({phase: 'scan', label: rel, done: scans.length, total: 1});
		scans.push(scanStore(location, rel, expected, problems));
	}

	if (restore.restored.length === 0) {
		problems.push('nothing was restored');
	}
}

/** One store the drill scanned, in its record's words. */
function scanWords(s: DrillScan): string {
	return s.unreadable
		? `${s.label}: not scanned (${s.unreadable})`
		: `${s.label}: ${s.sessions} sessions, ${s.orphans} orphans, ${s.rollbackRisks} rollback risks`;
}

/** The drill's outcome in the records file beside the artifact; whether it could be written. */
function recordDrill(
	where: ReturnType<typeof recordsLocation>,
	fp: Fingerprint & {sha256: string | null},
	ok: boolean,
	restore: RestoreResult | null,
	scans: DrillScan[],
	problems: string[],
): boolean {
	const manifest = restore?.manifest ?? null;
	const summary = ok
		? `restored ${restore!.restored.length} files into a scratch folder, every ` +
			`hash and database matched the manifest; ` +
			`scanned ${scans.map(scanWords).join('; ') || 'no session store'}`
		: `FAILED: ${problems.join('; ')}`;
	return appendRecord(where.dir, {
		at: Date.now() / 1000,
		event: 'drill',
		artifact: where.name,
		kind: where.kind,
		ok,
		exitCode: ok ? 0 : 1,
		size: fp.size,
		mtimeMs: fp.mtimeMs,
		seal: restore?.verify.seal ?? null,
		createdAt: manifest?.createdAtEpoch ?? null,
		level: 'full',
		summary,
		details: {
			complete: manifest?.complete ?? null,
			home: manifest ? manifestHome(manifest) : null,
			scans,
			identity: scans.map(s => ({path: s.path, newest: s.newestSessions})),
			...(fp.sha256 ? {sha256: fp.sha256} : {}),
			...liveDetails(restore?.verify.live),
		},
	});
}

/** The sha256 of a file's bytes; null when it cannot be read (the restore then says why). */
function sha256Of(file: string): string | null {
	try {
		return digestFile(file).sha256;
	} catch {
		return null;
	}
}

/**
 * The drill's scratch folder, hfx-drill-<pid>-<rand>: removed on exit and signals, swept by the next run after a
 * SIGKILL.
 */
function makeScratch(archive: string, parent: string | undefined): string {
	try {
		return ownTempDir('drill', parent);
	} catch (error) {
		if (error instanceof FailClosed) {
			throw error;
		}

		throw new FailClosed({
			file: archive,
			kind: 'no-scratch',
			reason:
				`cannot create the drill's scratch folder in ${parent ?? os.tmpdir()} ` +
				`(${errorCode(error) ?? errorMessage(error)}); the archive was not judged`,
			next: 'fix the temp folder (TMPDIR, space, permissions) and run the drill again',
			cause: error,
		});
	}
}

export async function drillArchive(options: {
	archive: string;
	onProgress?: ProgressFn;
	tmpDir?: string;
}): Promise<DrillResult> {
	const started = performance.now();
	const archive = path.resolve(options.archive);
	const kind = detectKind(archive);
	if (kind === 'unknown') {
		throw new FailClosed({
			file: archive,
			kind: 'unsupported',
			reason: fs.existsSync(archive)
				? 'a drill restores zip and tar archives and snapshot folders only'
				: 'no such file or folder',
			next: 'list the backups with hfx backups',
		});
	}

	const scratch = makeScratch(archive, options.tmpDir);
	const where = recordsLocation(archive);
	const fp = fingerprintOf(archive);
	const problems: string[] = [];
	const scans: DrillScan[] = [];
	let restore: RestoreResult | null = null;
	try {
		restore = await restoreForDrill(archive, scratch, options, problems);
		if (restore) {
			scanRestored(scratch, restore, options.onProgress, problems, scans);
		}
	} finally {
		removeTemp(scratch);
	}

	const ok = problems.length === 0;
	// A file without an hfx seal is known by the sha256 of its bytes: gate checks them unchanged since this drill
	// (read after the restore: had they changed since `fp`, the record would not match the file at all).
	const sha256 = ok && kind !== 'snapshot' && !restore?.verify.sealed ? sha256Of(archive) : null;
	const recorded = recordDrill(where, {...fp, sha256}, ok, restore, scans, problems);
	return {archive, exitCode: ok ? 0 : 1, ok, restore, scans, problems, recorded, ms: performance.now() - started};
}
