/**
 * Steps 10 and 11 of a restore (restore.ts), which run as one critical section: commit (the current files kept
 * in this restore's own backups/pre-restore-<time>[-N]/, never through a symbolic link, old -wal/-shm/-journal moved
 * aside so SQLite cannot replay them
 * over the restored file, each staged file renamed into place, the folders fsynced), then
 * re-verify what is on disk (sha256 of every restored file, each database through the read-only
 * reader).
 */
import fs from 'node:fs';
import path from 'node:path';
import {FailClosed, errorCode, errorMessage} from '../../ground/errors.js';
import {ReadOnlyStore} from '../../store/open/open.js';
import {copyForeign} from '../../store/foreign-file.js';
import {compareCounts, readCounts, readSchemaVersion} from '../check/db-check.js';
import {digestFile} from '../digest.js';
import {fsyncDir} from '../durable.js';
import type {ProgressFn} from '../progress.js';
import {refuse} from './refusals.js';
import {utcStamp} from '../stamp.js';
import {testPause} from '../../ground/test-pause.js';
import {unregisterTemp} from '../../ground/temps.js';
import type {Committed, Expected, PlannedMember, RestoredDb} from './types.js';

/**
 * Creates this restore's own pre-restore folder, never one that exists: backups/ must be a real
 * folder (not a symbolic link: the kept copies hold credentials), and pre-restore-<stamp> is made
 * exclusively (mkdir without recursive), with -1, -2, ... when another restore took that second.
 */
export function makePreRestoreDir(target: string, stamp: string): string {
	const backups = path.join(target, 'backups');
	try {
		fs.mkdirSync(backups, {mode: 0o700});
	} catch (error) {
		if (errorCode(error) !== 'EEXIST') {
			throw refuse(
				backups,
				'pre-restore-failed',
				`cannot create the folder for the pre-restore copies (${errorCode(error) ?? errorMessage(error)})`,
				'fix the cause (space, permissions) and run the restore again',
			);
		}
	}

	const st = fs.lstatSync(backups);
	if (st.isSymbolicLink() || !st.isDirectory()) {
		throw refuse(
			backups,
			'symlink-in-target',
			`the pre-restore copies (the current state.db and credentials) would be ` +
				`written ` +
				`through ${st.isSymbolicLink() ? 'this symbolic link' : 'this, which is not a folder'}`,
			'make it a real folder (or move it aside), then run the restore again',
		);
	}

	for (let n = 0; n < 1000; n++) {
		const dir = path.join(backups, n === 0 ? `pre-restore-${stamp}` : `pre-restore-${stamp}-${n}`);
		try {
			fs.mkdirSync(dir, {mode: 0o700});
		} catch (error) {
			if (errorCode(error) !== 'EEXIST') {
				throw refuse(
					dir,
					'pre-restore-failed',
					`cannot create the pre-restore folder (${errorCode(error) ?? errorMessage(error)})`,
					'fix the cause (space, permissions) and run the restore again',
				);
			}

			continue;
		}

		// The folder just made must be where it was asked for (backups/ not swapped for a link meanwhile).
		if (fs.realpathSync(dir) !== path.join(fs.realpathSync(target), 'backups', path.basename(dir))) {
			throw refuse(
				dir,
				'symlink-in-target',
				'the pre-restore folder landed somewhere else (backups/ was replaced by a link while the restore ran)',
				'make backups/ a real folder, then run the restore again',
			);
		}

		return dir;
	}

	throw refuse(
		backups,
		'pre-restore-failed',
		`1000 pre-restore folders for ${stamp} exist already`,
		'move old pre-restore folders aside, then run the restore again',
	);
}

/** This restore's pre-restore folder when anything would be kept (a drill keeps nothing); null otherwise. */
export function preRestoreDirFor(
	plan: PlannedMember[],
	target: string,
	mode: 'to' | 'home' | 'drill',
	now: Date,
): string | null {
	return mode !== 'drill' && needsKeeping(plan) ? makePreRestoreDir(target, utcStamp(now)) : null;
}

/** Whether anything would be kept: a file replaced, or a sidecar beside a restored database. */
function needsKeeping(plan: PlannedMember[]): boolean {
	return plan.some(p => p.exists || (p.m.kind === 'db' && SIDECARS.some(s => fs.existsSync(`${p.dest}${s}`))));
}

/** Keeps a current file in the pre-restore folder (a hard link, or moved when `move`); a drill keeps nothing. */
function keeper(preDir: string | null): (file: string, rel: string, move: boolean) => void {
	return (file: string, rel: string, move: boolean): void => {
		if (!preDir) {
			if (move) {
				fs.rmSync(file, {force: true});
			}

			return;
		}

		// Inside the folder this restore just created: its subfolders are ours too.
		const dest = path.join(preDir, rel);
		fs.mkdirSync(path.dirname(dest), {recursive: true, mode: 0o700});
		if (move) {
			fs.renameSync(file, dest);
		} else {
			try {
				fs.linkSync(file, dest);
			} catch {
				// Another file system: a copy, created O_EXCL|O_NOFOLLOW (ground/safe-create.ts), never through a link.
				copyForeign(file, dest);
			}
		}
	};
}

const SIDECARS = ['-wal', '-shm', '-journal'];

/**
 * 6. Commit into the pre-restore folder made just before (preRestoreDirFor): each member; a
 * member that fails to rename is listed as failed (its staged file removed), the rest go on.
 */
export function commit(plan: PlannedMember[], staged: Map<string, string>, preDir: string | null): Committed {
	const keep = keeper(preDir);
	const restored: string[] = [];
	const failed: Array<{path: string; reason: string}> = [];
	const keptAside: string[] = [];
	const touched = new Set<string>();
	for (const p of plan) {
		const temp = staged.get(p.m.path)!;
		try {
			if (p.exists) {
				keep(p.dest, p.m.path, false);
				keptAside.push(p.m.path);
			}

			if (p.m.kind === 'db') {
				for (const s of SIDECARS) {
					if (fs.existsSync(`${p.dest}${s}`)) {
						keep(`${p.dest}${s}`, `${p.m.path}${s}`, true);
						keptAside.push(`${p.m.path}${s}`);
					}
				}
			}

			fs.renameSync(temp, p.dest);
			unregisterTemp(temp);
			restored.push(p.m.path);
			touched.add(path.dirname(p.dest));
			if (restored.length === 1) {
				testPause('restore-renamed');
			}
		} catch (error) {
			fs.rmSync(temp, {force: true});
			unregisterTemp(temp);
			failed.push({path: p.m.path, reason: `${errorCode(error) ?? 'error'}: ${errorMessage(error)}`});
		}
	}

	for (const d of [...touched, ...(preDir ? [path.dirname(preDir)] : [])]) {
		try {
			fsyncDir(d);
		} catch (error) {
			failed.push({
				path: d,
				reason:
					`fsync of the folder failed ` +
					`(${errorCode(error) ?? errorMessage(error)}): the renames may not ` +
					`survive a power cut`,
			});
		}
	}

	return {restored, failed, keptAside, preDir, preCreated: preDir !== null};
}

/** 11. Re-verify what is on disk now: hashes first (raw reads), then SQLite. */
export function reverify(
	plan: PlannedMember[],
	restored: string[],
	dbCount: number,
	expected: Expected,
	onProgress?: ProgressFn,
): {postProblems: string[]; databases: RestoredDb[]} {
	const postProblems: string[] = [];
	for (const p of plan) {
		if (!restored.includes(p.m.path)) {
			continue;
		}

		try {
			const d = digestFile(p.dest);
			if (d.size !== p.m.size || (p.m.sha256 && d.sha256 !== p.m.sha256)) {
				postProblems.push(`${p.m.path}: the restored file differs from the archive`);
			}
		} catch (error) {
			postProblems.push(`${p.m.path}: cannot be read back (${errorCode(error) ?? errorMessage(error)})`);
		}
	}

	const databases: RestoredDb[] = [];
	for (const p of plan) {
		if (p.m.kind === 'db' && restored.includes(p.m.path) && p.m.size > 0) {
			onProgress?.({phase: 'check', label: p.m.path, done: databases.length, total: dbCount});
			const r = checkRestoredDb(p.dest, p.m.path, expected(p.m.path));
			databases.push(r);
			if (!r.ok) {
				postProblems.push(`${p.m.path}: ${r.problems.join('; ')}`);
			}
		}
	}

	return {postProblems, databases};
}

/** Checks a restored database through the read-only reader (a private copy when WAL mode). */
function checkRestoredDb(file: string, rel: string, expected: ReturnType<Expected>): RestoredDb {
	let store: ReadOnlyStore | undefined;
	try {
		store = ReadOnlyStore.open(file);
		const integrity = store.db.prepare('PRAGMA integrity_check(100)').pluck().all() as string[];
		const counts = readCounts(store.db);
		const schemaVersion = readSchemaVersion(store.db);
		const problems: string[] = [];
		if (!(integrity.length === 1 && integrity[0] === 'ok')) {
			problems.push(`integrity_check: ${integrity.slice(0, 3).join('; ')}`);
		}

		if (expected) {
			problems.push(...compareCounts(expected.counts, counts));
			if (expected.schemaVersion !== schemaVersion) {
				problems.push(`schema version ${schemaVersion}, expected ${expected.schemaVersion}`);
			}
		}

		return {path: rel, ok: problems.length === 0, integrity, counts, schemaVersion, problems};
	} catch (error) {
		const what = error instanceof FailClosed ? error.reason : errorMessage(error);
		return {
			path: rel,
			ok: false,
			integrity: [what],
			counts: {},
			schemaVersion: null,
			problems: [`cannot be read back: ${what}`],
		};
	} finally {
		store?.close();
	}
}
