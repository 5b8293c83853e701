/**
 * Quick snapshots in Hermes' layout (docs/hermes-rules.md, backup): `<home>/state-snapshots/<UTC
 * YYYYmmdd-HHMMSS>[-label][-N]/` (folder 0700, files 0600) holding the databases (consistent
 * copies, each verified: integrity_check + row counts equal to the snapshot they were taken
 * from) and the small config files, with a manifest.json Hermes can read (its own fields) and
 * ours inside it (`hfx`: sizes, modes, CRC-32, sha256, database checks). Staged under a temp
 * name and renamed; the newest 20 are kept, and nothing is pruned when a database failed.
 *
 * takeQuickSnapshot is also what the repair feature calls before it writes: it must refuse to
 * write unless `verified` is true.
 */
import fs from 'node:fs';
import {holdsNoStore} from '../archive/root.js';
import path from 'node:path';
import {FailClosed, errorCode, errorMessage} from '../../ground/errors.js';
import {digestFile, crcHex} from '../digest.js';
import {fsyncDir, fsyncFile} from '../durable.js';
import {utcStamp} from '../stamp.js';
import {registerTemp, removeTemp} from '../../ground/temps.js';
import {sweepDebris, tempPath} from '../debris.js';
import {WRITE_ELSEWHERE, writeFailure} from './write-failure.js';
import {acquireBackupLock} from './lock.js';
import {MANIFEST_NAME, type MemberRecord, type QuickManifest, newManifest, quickManifest} from '../manifest.js';
import type {ProgressFn} from '../progress.js';
import {appendRecord, assertRecordsFile} from '../records.js';
import {copyAndVerify} from './sqlite-copy.js';
import {type WalkEntry, walkQuick} from './walk.js';
import {readChunks} from '../chunks.js';
import {assertRealFolder, createExclusive, writeNewFile} from '../../ground/safe-create.js';

export const SNAPSHOTS_DIR = 'state-snapshots';
export const QUICK_KEEP = 20;
export const SNAPSHOT_PATTERN = /^\d{8}-\d{6}(?:-.+)?$/;

export type QuickSnapshotOptions = {
	/** The profile home whose state is snapshotted (a Hermes root is the default profile's home). */
	home?: string;
	/** Alias of home, for callers that think in roots. */
	root?: string;
	/** A database path: its folder is the home, and this file is included whatever its name. */
	dbPath?: string;
	label?: string | null;
	/** How many snapshots to keep (default 20; 0 keeps all). */
	keep?: number;
	onProgress?: ProgressFn;
	now?: () => Date;
};

export type QuickSnapshotResult = {
	dir: string;
	id: string;
	manifest: QuickManifest;
	/** Every database copy passed integrity_check with counts equal to its snapshot, nothing skipped. */
	verified: boolean;
	problems: string[];
	pruned: string[];
	exitCode: 0 | 1;
	ms: number;
};

export function sanitizeLabel(label: string | null | undefined): string | null {
	if (!label) {
		return null;
	}

	const clean = label
		.replaceAll(/[^A-Za-z0-9._-]+/g, '-')
		.replaceAll(/^[-.]+|-+$/g, '')
		.slice(0, 48);
	return clean || null;
}

/** The Hermes root of a home: <root>/profiles/<name> -> <root>. */
export function rootOfHome(home: string): string {
	const parent = path.dirname(home);
	return path.basename(parent) === 'profiles' ? path.dirname(parent) : home;
}

function copyPlainFile(entry: WalkEntry, dest: string): MemberRecord {
	const fd = fs.openSync(entry.abs, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
	try {
		const st = fs.fstatSync(fd);
		const out = createExclusive(dest, 0o600, 'a snapshot');
		try {
			readChunks(fd, chunk => {
				fs.writeSync(out, chunk);
			});
			fs.fsyncSync(out);
		} finally {
			fs.closeSync(out);
		}

		const d = digestFile(dest);
		return {
			path: entry.rel,
			size: d.size,
			mode: st.mode & 0o7777,
			mtime: st.mtime.toISOString(),
			crc32: crcHex(d.crc32),
			sha256: d.sha256,
			kind: 'file',
		};
	} finally {
		fs.closeSync(fd);
	}
}

export function pruneSnapshots(snapRoot: string, keep: number, newest: string): string[] {
	if (keep <= 0) {
		return [];
	}

	const names = fs
		.readdirSync(snapRoot, {withFileTypes: true})
		.filter(d => d.isDirectory() && SNAPSHOT_PATTERN.test(d.name))
		.map(d => d.name)
		.sort()
		.reverse();
	const pruned: string[] = [];
	for (const name of names.slice(keep)) {
		if (name === newest) {
			continue;
		}

		fs.rmSync(path.join(snapRoot, name), {recursive: true, force: true});
		pruned.push(name);
	}

	return pruned;
}

/** One quick snapshot in progress: its staging folder, its manifest and what it skipped or found. */
type SnapshotRun = {
	options: QuickSnapshotOptions;
	created: Date;
	snapRoot: string;
	stage: string;
	work: string;
	manifest: ReturnType<typeof newManifest>;
	skipped: Array<{path: string; reason: string}>;
	problems: string[];
	failedDbs: string[];
	total: number;
	done: number;
};

export async function takeQuickSnapshot(options: QuickSnapshotOptions): Promise<QuickSnapshotResult> {
	const started = performance.now();
	const {home, walk} = walkHome(options);
	const created = options.now?.() ?? new Date();
	const label = sanitizeLabel(options.label);
	const snapRoot = path.join(home, SNAPSHOTS_DIR);
	// A planted link as state-snapshots/, or as the records file in it, is refused before anything is written.
	if (fs.lstatSync(snapRoot, {throwIfNoEntry: false})) {
		assertRealFolder(snapRoot, 'a snapshot');
	}

	assertRecordsFile(snapRoot);
	const lock = acquireBackupLock(rootOfHome(home), `hfx quick snapshot of ${home}`);
	let stage: string | undefined;
	let made = false;
	let taken = false;
	try {
		made = makeSnapRoot(snapRoot);
		sweepDebris(snapRoot);
		const id = snapshotId(snapRoot, created, label);
		stage = tempPath(snapRoot, 'snapshot');
		registerTemp(stage);
		const run = openStage(options, {home, walk, created, label, snapRoot, stage, id});
		await copyEntries(run, walk.entries);
		const qm = sealStage(run);
		const final = path.join(snapRoot, id);
		fs.renameSync(stage, final);
		removeTemp(stage);
		stage = undefined;
		fsyncDir(snapRoot);
		const verified = run.manifest.complete;
		const pruned = verified ? pruneSnapshots(snapRoot, options.keep ?? QUICK_KEEP, id) : [];
		recordSnapshot(run, id, verified);
		taken = true;
		return {
			dir: final,
			id,
			manifest: qm,
			verified,
			problems: [...run.skipped.map(s => `${s.path}: ${s.reason}`), ...run.problems],
			pruned,
			exitCode: verified ? 0 : 1,
			ms: performance.now() - started,
		};
	} catch (error) {
		if (error instanceof FailClosed || errorCode(error)) {
			throw writeFailure(snapRoot, error, 'writing the quick snapshot', WRITE_ELSEWHERE.quick);
		}

		throw error;
	} finally {
		if (stage) {
			removeTemp(stage);
		}

		if (made && !taken) {
			removeIfEmpty(snapRoot);
		}

		lock.release();
	}
}

/** Where a snapshot is staged and what goes in it. */
type StagePlace = {
	home: string;
	walk: ReturnType<typeof walkQuick>;
	created: Date;
	label: string | null;
	snapRoot: string;
	stage: string;
	id: string;
};

/** Makes the staging folder (and its work folder) and starts the manifest: what the walk left out and skipped. */
function openStage(options: QuickSnapshotOptions, place: StagePlace): SnapshotRun {
	const {home, walk, created, label, snapRoot, stage, id} = place;
	fs.mkdirSync(stage, {mode: 0o700});
	const work = path.join(stage, '.hfx-work');
	fs.mkdirSync(work, {mode: 0o700});
	const manifest = newManifest('quick', id, home, created, label);
	manifest.excluded = walk.excluded.map(e => ({path: e.rel, why: e.why}));
	return {
		options,
		created,
		snapRoot,
		stage,
		work,
		manifest,
		skipped: walk.skipped.map(s => ({path: s.rel, reason: s.reason})),
		problems: [],
		failedDbs: [],
		total: walk.entries.reduce((a, e) => a + e.size, 0),
		done: 0,
	};
}

/**
 * Copies each walked file into the stage (a database verified, a 0-byte one with no -wal as a plain file), with
 * progress.
 */
async function copyEntries(run: SnapshotRun, entries: readonly WalkEntry[]): Promise<void> {
	for (const [i, e] of entries.entries()) {
		const copied =
			e.kind === 'db' && !(e.size === 0 && !fs.existsSync(`${e.abs}-wal`))
				? await snapshotDatabase(run, e, i)
				: snapshotFile(run, e);
		if (!copied) {
			continue;
		}

		run.done += e.size;
		run.options.onProgress?.({phase: 'copy', label: e.rel, done: run.done, total: run.total});
	}
}

/**
 * Makes state-snapshots/ when missing; true when this run made it (a refused run then removes it again, if still
 * empty).
 */
function makeSnapRoot(snapRoot: string): boolean {
	const made = fs.lstatSync(snapRoot, {throwIfNoEntry: false}) === undefined;
	try {
		// One level (the home exists): Node's recursive mkdir says ENOENT on a read-only file system instead of EROFS.
		fs.mkdirSync(snapRoot, {mode: 0o700});
	} catch (error) {
		if (errorCode(error) !== 'EEXIST') {
			throw writeFailure(snapRoot, error, 'creating state-snapshots/', WRITE_ELSEWHERE.quick);
		}
	}

	// Ours inside the home: a real folder (a planted link to elsewhere is refused).
	assertRealFolder(snapRoot, 'a snapshot');
	return made;
}

/**
 * A folder this run made and left empty goes again (a refusal's "nothing was written" stays true); a non-empty one
 * stays.
 */
function removeIfEmpty(dir: string): void {
	try {
		fs.rmdirSync(dir);
	} catch {
		// Not empty (or already gone): left as it is.
	}
}

/** The home checked and walked for the quick-snapshot files (a --db outside the list added first). */
function walkHome(options: QuickSnapshotOptions): {home: string; walk: ReturnType<typeof walkQuick>} {
	const homeInput = options.dbPath ? path.dirname(path.resolve(options.dbPath)) : (options.home ?? options.root);
	if (!homeInput) {
		throw new Error('takeQuickSnapshot needs home, root or dbPath');
	}

	const home = path.resolve(homeInput);
	if (!fs.existsSync(home) || !fs.statSync(home).isDirectory()) {
		throw new FailClosed({
			file: home,
			kind: 'no-home',
			reason: 'no Hermes home here',
			next: 'pass --home DIR (or --db PATH); nothing was written',
		});
	}

	const walk = walkQuick(home);
	if (options.dbPath) {
		const abs = path.resolve(options.dbPath);
		const rel = path.basename(abs);
		// A linked store is already an entry at its real path (walkQuick follows the home's state.db link).
		const real = fs.existsSync(abs) ? fs.realpathSync(abs) : abs;
		if (!walk.entries.some(e => e.abs === abs || e.abs === real)) {
			try {
				const st = fs.statSync(abs);
				walk.entries.unshift({rel, abs, kind: 'db', size: st.size, mode: st.mode & 0o7777, mtimeMs: st.mtimeMs});
			} catch (error) {
				throw new FailClosed({
					file: abs,
					kind: 'not-found',
					reason: `cannot snapshot it (${errorCode(error) ?? errorMessage(error)})`,
					next: 'check the --db path',
				});
			}
		}
	}

	if (holdsNoStore(walk.entries.map(e => e.rel))) {
		throw new FailClosed({
			file: home,
			kind: 'nothing-to-snapshot',
			reason: 'no Hermes store here (no state.db): a snapshot of the rest would be no backup of a Hermes home',
			next: 'check --home; nothing was written',
		});
	}

	return {home, walk};
}

/** The snapshot's folder name: the UTC stamp (and label), numbered from -2 when taken. */
function snapshotId(snapRoot: string, created: Date, label: string | null): string {
	let id = label ? `${utcStamp(created)}-${label}` : utcStamp(created);
	for (let n = 2; fs.existsSync(path.join(snapRoot, id)); n++) {
		id = `${label ? `${utcStamp(created)}-${label}` : utcStamp(created)}-${n}`;
	}

	return id;
}

/** The destination of a member inside the staging folder, its parent folders created. */
function mkParents(run: SnapshotRun, rel: string): string {
	const dest = path.join(run.stage, rel);
	fs.mkdirSync(path.dirname(dest), {recursive: true, mode: 0o700});
	return dest;
}

/** One database: copied and verified in the work folder, then moved into the stage and hashed. False when skipped. */
async function snapshotDatabase(run: SnapshotRun, e: WalkEntry, i: number): Promise<boolean> {
	const {options, manifest, created} = run;
	const scratch = path.join(run.work, `${i}.db`);
	let verified: Awaited<ReturnType<typeof copyAndVerify>>;
	try {
		verified = await copyAndVerify(e.abs, scratch, {
			privateTmp: run.work,
			onProgress: p => options.onProgress?.({phase: 'copy', label: e.rel, done: run.done + p.done, total: run.total}),
		});
	} catch (error) {
		if (error instanceof FailClosed && !error.file.startsWith(run.stage)) {
			run.failedDbs.push(e.rel);
			run.skipped.push({path: e.rel, reason: `${error.reason} (next: ${error.next})`});
			return false;
		}

		if (error instanceof FailClosed) {
			throw new FailClosed({
				file: run.snapRoot,
				kind: error.kind,
				reason: error.reason,
				next: error.next,
				exitCode: error.exitCode,
				cause: error.cause,
			});
		}

		throw error;
	}

	if (!verified.ok) {
		run.failedDbs.push(e.rel);
		run.problems.push(`${e.rel}: ${verified.problems.join('; ')}`);
	}

	const dest = mkParents(run, e.rel);
	fs.renameSync(scratch, dest);
	fs.chmodSync(dest, 0o600);
	fsyncFile(dest);
	const d = digestFile(dest);
	manifest.members.push({
		path: e.rel,
		size: d.size,
		mode: 0o600,
		mtime: created.toISOString(),
		crc32: crcHex(d.crc32),
		sha256: d.sha256,
		kind: 'db',
	});
	const c = verified.copy;
	manifest.databases.push({
		path: e.rel,
		schemaVersion: verified.check.schemaVersion ?? c.schemaVersion,
		integrity: verified.ok ? 'ok' : verified.problems.join('; ').slice(0, 500),
		counts: verified.check.ok ? verified.check.counts : c.snapshotCounts,
		pageSize: c.pageSize,
		pageCount: c.pageCount,
		journalMode: c.journalMode,
		sourceWalBytes: c.walBytes,
		openMode: c.openMode,
		steps: c.steps,
		restarts: c.restarts,
		copyMs: Math.round(c.ms),
		pinnedMs: Math.round(c.pinnedMs),
		checkMs: Math.round(verified.check.ms),
		readerSqliteVersion: c.readerSqliteVersion,
	});
	return true;
}

/** One plain file (or an empty *.db), copied as mode 0600. False when it vanished or is unreadable (skipped). */
function snapshotFile(run: SnapshotRun, e: WalkEntry): boolean {
	try {
		const member = copyPlainFile(e, mkParents(run, e.rel));
		member.mode = 0o600;
		run.manifest.members.push(member);
	} catch (error) {
		const code = errorCode(error);
		if (code === 'ENOENT' || code === 'EACCES' || code === 'EPERM' || code === 'ELOOP') {
			run.skipped.push({
				path: e.rel,
				reason: code === 'ENOENT' ? 'vanished while the snapshot ran' : `not readable (${code})`,
			});
			return false;
		}

		throw error;
	}

	return true;
}

/** The work folder removed, manifest.json written and fsynced, then every folder of the stage fsynced. */
function sealStage(run: SnapshotRun): QuickManifest {
	const {manifest, stage} = run;
	fs.rmSync(run.work, {recursive: true, force: true});
	manifest.skipped = run.skipped;
	manifest.complete = run.skipped.length === 0 && run.problems.length === 0;
	const qm = quickManifest(manifest, run.failedDbs);
	const manifestPath = path.join(stage, MANIFEST_NAME);
	writeNewFile(manifestPath, JSON.stringify(qm, null, 2), {what: 'a snapshot'});
	fsyncFile(manifestPath);
	const dirs = new Set(manifest.members.map(m => path.dirname(path.join(stage, m.path))));
	for (const d of dirs) {
		fsyncDir(d);
	}

	fsyncDir(stage);
	return qm;
}

/** The snapshot recorded beside it, and its write-time verification when complete. */
function recordSnapshot(run: SnapshotRun, id: string, verified: boolean): void {
	const {manifest, snapRoot} = run;
	appendRecord(snapRoot, {
		at: Date.now() / 1000,
		event: 'snapshot',
		artifact: id,
		kind: 'snapshot',
		ok: verified,
		exitCode: verified ? 0 : 1,
		size: null,
		mtimeMs: null,
		createdAt: manifest.createdAtEpoch,
		summary:
			`${manifest.members.length} files, ${manifest.databases.length} ` +
			`databases${verified ? '' : `, INCOMPLETE: ${[...run.skipped.map(s => s.path), ...run.problems].join('; ')}`}`,
	});
	if (verified) {
		appendRecord(snapRoot, {
			at: Date.now() / 1000,
			event: 'verify',
			level: 'write',
			artifact: id,
			kind: 'snapshot',
			ok: true,
			exitCode: 0,
			size: null,
			mtimeMs: null,
			createdAt: manifest.createdAtEpoch,
			summary:
				'databases verified on their copies (integrity_check, counts equal to the snapshot); files hashed after fsync',
		});
	}
}
