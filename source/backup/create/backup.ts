/**
 * `hfx backup`: one zip of the whole Hermes root, written so that a crash, a full disk or a
 * second backup can never leave a damaged file under the final name:
 *
 *   lock (<root>/.hfx-backup.lock) -> sweep debris of killed runs -> free-space check ->
 *   for each *.db: consistent copy into a private staging folder (sqlite-copy.ts), its
 *   integrity_check + counts started in a worker while the copy streams into the archive ->
 *   every other file, hashed as it streams -> the read-back's CRC pass over the bytes already
 *   written, while the checks finish (readback.ts) -> manifest.json last -> seal -> fsync ->
 *   read-back check of the temp file (the rest of the CRC, the seal, the central directory) -> link to the final name
 *   (never over an existing file),
 *   fsync the folder -> record -> prune older complete archives (only now).
 *
 * Archive: mode 0600 (it holds credentials), databases stored (not deflated: fast, and SQLite
 * pages compress poorly against the time it costs), other files deflated.
 */
import fs from 'node:fs';
import path from 'node:path';
import {FailClosed, errorCode, errorMessage, throwFileError} from '../../ground/errors.js';
import {ZipWriter} from './zip-writer.js';
import type {DbCheck} from '../check/db-check.js';
import {fsyncDir} from '../durable.js';
import {utcStamp} from '../stamp.js';
import {registerTemp, removeTemp, unregisterTemp} from '../../ground/temps.js';
import {sweepDebris, tempPath} from '../debris.js';
import {freeBytes, writeFailure} from './write-failure.js';
import {type BackupLock, acquireBackupLock} from './lock.js';
import {readArchiveManifest} from '../archive/read-manifest.js';
import {
	type DatabaseRecord,
	MANIFEST_NAME,
	type Manifest,
	type MemberRecord,
	manifestHome,
	newManifest,
} from '../manifest.js';
import type {ProgressFn} from '../progress.js';
import {linkText} from '../../store/foreign-file.js';
import {appendRecord, assertRecordsFile, fingerprintOf, readRecords, statusFor} from '../records.js';
import {type DbCopy, copyDatabase, judgeCopy} from './sqlite-copy.js';
import {type PendingCheck, startCheck} from '../check/db-check-run.js';
import {holdsNoStore} from '../archive/root.js';
import {CREDENTIAL_NAMES, type Excluded, type FollowedLink, type Skipped, type WalkEntry, walkRoot} from './walk.js';
import {readBack, readPrefix} from './readback.js';
import {plantedLink} from '../../ground/safe-create.js';
import {type TarballRetention, pruneTarballs} from './prune-tarballs.js';

export const ARCHIVE_PATTERN = /^hfx-backup-(\d{8}-\d{6})(?:-(\d+))?\.zip$/;
export const DEFAULT_KEEP = 3;

export type BackupOptions = {
	root: string;
	/** A file, or a folder (existing, or ending in "/"). Default: <root>/backups/. */
	output?: string;
	/** Keep the newest N archives of ours in the folder (0 keeps all). Default 3. */
	keep?: number;
	dryRun?: boolean;
	onProgress?: ProgressFn;
	now?: () => Date;
};

export type BackupResult = {
	root: string;
	/** The final archive path (null on a dry run). */
	archive: string | null;
	dryRun: boolean;
	/** 0 everything included and verified; 1 something was skipped or a database copy failed its check. */
	exitCode: 0 | 1;
	manifest: Manifest | null;
	planned: Array<{path: string; kind: 'file' | 'db'; size: number}>;
	skipped: Skipped[];
	excluded: Excluded[];
	/**
	 * Links the store lookup follows (a home's state.db, profiles/<name>), followed: their targets are in the archive
	 * under the link's name.
	 */
	followedLinks: FollowedLink[];
	databases: DatabaseRecord[];
	/** Problems that make the backup incomplete besides skipped files (a database copy that failed its check). */
	problems: string[];
	bytes: number;
	seal: string | null;
	verified: boolean;
	pruned: string[];
	/** An older archive kept beyond --keep because it is the newest drilled one. */
	keptDrilled: string | null;
	/**
	 * --keep over the stamped tarballs in the folder (prune-tarballs.ts); null when nothing was pruned (incomplete, -o
	 * FILE, dry run).
	 */
	tarballs: TarballRetention | null;
	/** The --keep this run applied. */
	keep: number;
	debrisRemoved: string[];
	credentials: string[];
	recorded: boolean;
	ms: number;
	/** Milliseconds per phase (walk, copy, archive, readback-prefix, wait-checks, finish, readback, publish, prune). */
	phases: Record<string, number>;
};

export function archiveStamp(name: string): {stamp: string; n: number} | null {
	const m = ARCHIVE_PATTERN.exec(name);
	return m ? {stamp: m[1]!, n: Number(m[2] ?? 1)} : null;
}

/** Newest first. */
export function sortArchives(names: string[]): string[] {
	return names
		.filter(n => ARCHIVE_PATTERN.test(n))
		.sort((a, b) => {
			const x = archiveStamp(a)!;
			const y = archiveStamp(b)!;
			return x.stamp === y.stamp ? y.n - x.n : x.stamp < y.stamp ? 1 : -1;
		});
}

export function defaultBackupDir(root: string): string {
	return path.join(path.resolve(root), 'backups');
}

/** Where the archive goes: {dir, final name}; refuses an existing explicit file. */
export function resolveOutput(
	root: string,
	output: string | undefined,
	stamp: string,
): {dir: string; file: string; explicitFile: boolean} {
	let dir: string;
	let explicit: string | undefined;
	if (output === undefined || output === '') {
		dir = defaultBackupDir(root);
	} else {
		// -o names a folder unless it ends in .zip and is not an existing folder: `-o /x/backups`
		// is the folder /x/backups (as `hfx gate -o /x/backups` reads it), never /x/backups.zip.
		const abs = path.resolve(output);
		let isDir = output.endsWith('/') || !abs.toLowerCase().endsWith('.zip');
		// A .zip name that is a link (to a folder, a file or nowhere) is the archive's name with a link
		// planted at it: refused below, never followed.
		try {
			isDir ||= fs.lstatSync(abs).isSymbolicLink() ? false : fs.statSync(abs).isDirectory();
		} catch {
			// does not exist yet: a .zip name is the archive's
		}

		if (isDir) {
			dir = abs;
		} else {
			dir = path.dirname(abs);
			explicit = abs;
		}
	}

	if (explicit) {
		// lstat: a link at the name (dangling or not) is refused, never written through or replaced.
		const there = fs.lstatSync(explicit, {throwIfNoEntry: false});
		if (there?.isSymbolicLink()) {
			throw plantedLink(explicit, 'a backup');
		}

		if (there) {
			throw new FailClosed({
				file: explicit,
				kind: 'exists',
				reason: 'a file with this name already exists; hfx never overwrites a backup',
				next: 'choose another name, or pass a folder with -o DIR to get a timestamped name',
			});
		}

		return {dir, file: explicit, explicitFile: true};
	}

	// Within one second, each new archive takes a number above every one already there: reusing a
	// number freed by pruning would sort the newest archive below an older one (and --keep would
	// then keep the wrong ones).
	let highest = 0;
	try {
		for (const name of fs.readdirSync(dir)) {
			const at = archiveStamp(name);
			if (at?.stamp === stamp) {
				highest = Math.max(highest, at.n);
			}
		}
	} catch (error) {
		// A folder that does not exist yet holds no archive; any other failure is the operator's to see.
		if (errorCode(error) !== 'ENOENT') {
			throw new FailClosed({
				file: dir,
				kind: 'output-unreadable',
				reason: `the output folder cannot be listed (${errorMessage(error)}), so a new archive's name cannot be chosen`,
				next: 'pass -o a folder this user can read and write',
				cause: error,
			});
		}
	}

	let file = path.join(dir, highest === 0 ? `hfx-backup-${stamp}.zip` : `hfx-backup-${stamp}-${highest + 1}.zip`);
	for (let n = highest + 2; fs.existsSync(file); n++) {
		file = path.join(dir, `hfx-backup-${stamp}-${n}.zip`);
	}

	return {dir, file, explicitFile: false};
}

function isInside(child: string, parent: string): boolean {
	const rel = path.relative(parent, child);
	return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/**
 * The default folder (<root>/backups) reached through a symbolic link is refused: hfx never writes
 * through a link the operator did not name (-o names a folder on purpose, links and all).
 */
function refuseLinkedOutput(run: BackupRun): void {
	if (run.options.output) {
		return;
	}

	const dir = run.out.dir;
	let st: fs.Stats;
	try {
		st = fs.lstatSync(dir);
	} catch {
		return;
	}

	if (st.isSymbolicLink()) {
		const target = linkText(dir);
		throw new FailClosed({
			file: dir,
			kind: 'output-symlink',
			reason:
				`the default backup folder is a symbolic link (to ${target}): hfx does ` +
				`not write an archive through a link it was not given`,
			next: `pass the folder on purpose with -o ${target}, or replace the link with a real folder; nothing was written`,
		});
	}
}

function ensureDir(dir: string): void {
	try {
		fs.mkdirSync(dir, {recursive: true, mode: 0o700});
	} catch (error) {
		throw writeFailure(dir, error, 'creating the backup folder');
	}
}

function dbRecord(rel: string, copy: DbCopy, check: DbCheck, ok: boolean, problems: string[]): DatabaseRecord {
	return {
		path: rel,
		schemaVersion: check.schemaVersion ?? copy.schemaVersion,
		integrity: ok ? 'ok' : problems.join('; ').slice(0, 500),
		counts: check.ok ? check.counts : copy.snapshotCounts,
		pageSize: copy.pageSize,
		pageCount: copy.pageCount,
		journalMode: copy.journalMode,
		sourceWalBytes: copy.walBytes,
		openMode: copy.openMode,
		steps: copy.steps,
		restarts: copy.restarts,
		copyMs: Math.round(copy.ms),
		pinnedMs: Math.round(copy.pinnedMs),
		checkMs: Math.round(check.ms),
		readerSqliteVersion: copy.readerSqliteVersion,
	};
}

/** Is this archive of ours complete (its manifest says so)? Reads only the manifest. */
export async function archiveIsComplete(file: string): Promise<boolean> {
	return (await readArchiveManifest(file))?.complete === true;
}

/**
 * The archives in `dir` that belong to `home` (manifestHome, the real path), newest first, each
 * with whether its manifest says it is complete. Another home's archive, or one whose manifest
 * cannot be read, is not in the list: --keep never counts it and never prunes it.
 */
async function archivesOfHome(dir: string, home: string): Promise<Array<{name: string; complete: boolean}>> {
	const out: Array<{name: string; complete: boolean}> = [];
	for (const name of sortArchives(fs.readdirSync(dir))) {
		const manifest = await readArchiveManifest(path.join(dir, name));
		if (manifest && manifestHome(manifest) === home) {
			out.push({name, complete: manifest.complete});
		}
	}

	return out;
}

/**
 * Deletes this home's older complete archives beyond its newest `keep` (never the newest drilled
 * one); archives of other homes sharing the folder are neither counted nor pruned.
 */
export async function pruneArchives(
	dir: string,
	keep: number,
	newest: string,
	home: string,
): Promise<{pruned: string[]; keptDrilled: string | null}> {
	if (keep <= 0) {
		return {pruned: [], keptDrilled: null};
	}

	const mine = await archivesOfHome(dir, home);
	const complete = new Set(mine.filter(a => a.complete).map(a => a.name));
	const names = mine.map(a => a.name);
	const keepSet = new Set(names.slice(0, keep));
	keepSet.add(path.basename(newest));
	const records = readRecords(dir);
	const drilled = names.find(n => statusFor(records, n, fingerprintOf(path.join(dir, n))).drilled !== null) ?? null;
	let keptDrilled: string | null = null;
	if (drilled && !keepSet.has(drilled)) {
		keepSet.add(drilled);
		keptDrilled = drilled;
	}

	const pruned: string[] = [];
	for (const name of names) {
		if (keepSet.has(name)) {
			continue;
		}

		const file = path.join(dir, name);
		if (!complete.has(name)) {
			continue;
		}

		const fp = fingerprintOf(file);
		fs.rmSync(file, {force: true});
		pruned.push(name);
		appendRecord(dir, {
			at: Date.now() / 1000,
			event: 'prune',
			artifact: name,
			kind: 'archive',
			ok: true,
			exitCode: 0,
			size: fp.size,
			mtimeMs: fp.mtimeMs,
			summary: `pruned by --keep ${keep}`,
		});
	}

	if (pruned.length > 0) {
		fsyncDir(dir);
	}

	return {pruned, keptDrilled};
}

/** One run's state: where it writes, what it found, and the temp paths its cleanup must remove. */
type BackupRun = {
	options: BackupOptions;
	root: string;
	created: Date;
	stamp: string;
	out: {dir: string; file: string; explicitFile: boolean};
	walk: ReturnType<typeof walkRoot>;
	entries: WalkEntry[];
	skipped: Skipped[];
	result: BackupResult;
	/** Adds the time since the previous mark to result.phases[name]. */
	phase: (name: string) => void;
	stage?: string;
	temp?: string;
	writer?: ZipWriter;
	/** The archive phase's progress, shared by the databases and the files. */
	onBytes?: (label: string) => (n: number) => void;
	/**
	 * Each staged copy's check (its worker creates the copy's -wal and -shm) and removal, settled before the stage
	 * goes.
	 */
	inFlight: {checks: PendingCheck[]; removals: Array<Promise<void>>};
};

type CheckedCopy = {rel: string; copy: DbCopy; check: DbCheck};

export async function createBackup(options: BackupOptions): Promise<BackupResult> {
	const started = performance.now();
	const run = planBackup(options);
	const {result, out} = run;
	run.phase('walk');
	if (options.dryRun) {
		result.exitCode = run.skipped.length > 0 ? 1 : 0;
		result.ms = performance.now() - started;
		return result;
	}

	refuseLinkedOutput(run);
	assertRecordsFile(out.dir);
	const lock = acquireBackupLock(run.root, `hfx backup -> ${out.file}`);
	try {
		ensureDir(out.dir);
		result.debrisRemoved = sweepDebris(out.dir);
		assertRoom(out.dir, run.entries);
		const manifest = openArchive(run);
		const {members, checks, removals} = await archiveDatabases(run);
		members.push(...(await archiveFiles(run)));
		run.phase('archive');
		// The read-back's CRC pass over what is on disk already, beside the checks still running.
		const prefix = readPrefix(run.temp!, run.writer!.bytesOnDisk);
		run.phase('readback-prefix');
		await judgeChecks(run, manifest, checks);
		run.phase('wait-checks');
		const written = await finishArchive(run, manifest, members);
		run.phase('finish');
		await readBack(run.temp!, manifest, written, options.onProgress, prefix);
		await Promise.all(removals);
		run.phase('readback');
		publish(run);
		run.phase('publish');
		recordBackup(run, manifest, members, written);
		if (manifest.complete && !out.explicitFile) {
			const pruned = await pruneArchives(out.dir, result.keep, out.file, manifestHome(manifest));
			result.pruned = pruned.pruned;
			result.keptDrilled = pruned.keptDrilled;
			result.tarballs = pruneTarballs(out.dir, result.keep, run.root);
		}

		run.phase('prune');

		result.ms = performance.now() - started;
		return result;
	} catch (error) {
		run.writer?.abort();
		await settleInFlight(run);
		if (error instanceof FailClosed || errorCode(error)) {
			throw writeFailure(out.dir, error, 'writing the archive');
		}

		throw error;
	} finally {
		cleanUp(run, lock);
	}
}

/**
 * A failed run's checks stopped (their workers exited) and its removals done, so that nothing writes into the staging
 * folder while cleanUp removes it. A check still running when the archive failed (EFBIG) wrote its copy's -wal and
 * -shm while the folder was removed: ENOTEMPTY, in place of the file size limit (CI, 2026-12-04).
 */
async function settleInFlight(run: BackupRun): Promise<void> {
	await Promise.all(run.inFlight.checks.map(async c => c.cancel()));
	await Promise.allSettled(run.inFlight.removals);
}

/** Whatever the outcome: the temp archive and the staging folder removed, then the lock released. */
function cleanUp(run: BackupRun, lock: BackupLock): void {
	if (run.temp) {
		removeTemp(run.temp);
	}

	if (run.stage) {
		removeTemp(run.stage);
	}

	lock.release();
	if (run.stage) {
		unregisterTemp(run.stage);
	}
}

/** The root checked, the output named, the root walked, and the result as a dry run reports it. */
function planBackup(options: BackupOptions): BackupRun {
	const root = path.resolve(options.root);
	let rootStat: fs.Stats;
	try {
		rootStat = fs.statSync(root);
	} catch (error) {
		if (errorCode(error) !== 'ENOENT') {
			// ELOOP, EACCES, ENOTDIR…: the true cause, not "no root here".
			throwFileError(error, {file: root, doing: 'looking up the Hermes root; nothing was written'});
		}

		throw new FailClosed({
			file: root,
			kind: 'no-home',
			reason: 'no Hermes root here',
			next: 'pass --home DIR (or set HERMES_HOME); nothing was written',
		});
	}

	if (!rootStat.isDirectory()) {
		throw new FailClosed({
			file: root,
			kind: 'no-home',
			reason: 'not a folder',
			next: 'pass the Hermes root folder with --home DIR',
		});
	}

	const created = options.now?.() ?? new Date();
	const stamp = utcStamp(created);
	const out = resolveOutput(root, options.output, stamp);
	const walk = walkRoot(root, {skipPaths: isInside(out.dir, root) ? [out.dir] : []});
	const skipped: Skipped[] = [...walk.skipped];
	let entries: WalkEntry[] = walk.entries;
	if (entries.some(e => e.rel === MANIFEST_NAME)) {
		skipped.push({
			rel: MANIFEST_NAME,
			reason: "a root-level manifest.json clashes with the archive's own manifest; copy it aside by hand",
		});
		entries = entries.filter(e => e.rel !== MANIFEST_NAME);
	}

	if (holdsNoStore(entries.map(e => e.rel))) {
		throw new FailClosed({
			file: root,
			kind: 'nothing-to-snapshot',
			reason:
				'no Hermes store here (no state.db and no profiles/*/state.db): an ' +
				'archive of it would be no backup of a Hermes home',
			next: 'check --home (or HERMES_HOME); nothing was written',
		});
	}

	const result = newResult(root, options, entries, skipped, walk.excluded);
	result.followedLinks = walk.followed;
	let mark = performance.now();
	const phase = (name: string): void => {
		const now = performance.now();
		result.phases[name] = Math.round((result.phases[name] ?? 0) + now - mark);
		mark = now;
	};

	return {
		options,
		root,
		created,
		stamp,
		out,
		walk,
		entries,
		skipped,
		result,
		phase,
		inFlight: {checks: [], removals: []},
	};
}

function newResult(
	root: string,
	options: BackupOptions,
	entries: WalkEntry[],
	skipped: Skipped[],
	excluded: Excluded[],
): BackupResult {
	return {
		root,
		archive: null,
		dryRun: Boolean(options.dryRun),
		exitCode: 0,
		manifest: null,
		planned: entries.map(e => ({path: e.rel, kind: e.kind, size: e.size})),
		skipped,
		excluded,
		followedLinks: [],
		databases: [],
		problems: [],
		bytes: 0,
		seal: null,
		verified: false,
		pruned: [],
		keptDrilled: null,
		tarballs: null,
		keep: options.keep ?? DEFAULT_KEEP,
		debrisRemoved: [],
		credentials: entries.filter(e => CREDENTIAL_NAMES.has(path.posix.basename(e.rel))).map(e => e.rel),
		recorded: false,
		ms: 0,
		phases: {},
	};
}

/** Refuses before writing when the folder cannot hold the archive and the staged copies. */
function assertRoom(dir: string, entries: WalkEntry[]): void {
	const dbBytes = entries
		.filter(e => e.kind === 'db')
		.map(e => e.size + (fs.existsSync(`${e.abs}-wal`) ? fs.statSync(`${e.abs}-wal`).size : 0));
	// A stopped store (no -shm) is read from a private copy made in the staging folder too.
	const stopped = entries.filter(e => e.kind === 'db' && !fs.existsSync(`${e.abs}-shm`)).map(e => e.size);
	const need =
		dbBytes.reduce((a, b) => a + b, 0) +
		Math.max(0, ...dbBytes) +
		Math.max(0, ...stopped) +
		entries.filter(e => e.kind === 'file').reduce((a, e) => a + e.size, 0) +
		1_048_576;
	const free = freeBytes(dir);
	if (free !== null && free < need) {
		throw new FailClosed({
			file: dir,
			kind: 'no-space',
			reason:
				`not enough free space for the archive: ` +
				`about ${Math.ceil(need / 1_048_576)} MiB ` +
				`needed, ${Math.floor(free / 1_048_576)} MiB free`,
			next: 'free space there or write elsewhere with -o DIR; nothing was written',
		});
	}
}

/** The staging folder and the temp archive (both registered for removal), and the new manifest. */
function openArchive(run: BackupRun): Manifest {
	const {out} = run;
	run.stage = tempPath(out.dir, 'stage');
	registerTemp(run.stage);
	fs.mkdirSync(run.stage, {mode: 0o700});
	run.temp = tempPath(out.dir, `backup-${run.stamp}.zip`);
	registerTemp(run.temp);
	const manifest = newManifest('full', path.basename(out.file, '.zip'), run.root, run.created, null);
	manifest.excluded = run.walk.excluded.map(e => ({path: e.rel, why: e.why}));
	try {
		run.writer = new ZipWriter(run.temp);
	} catch (error) {
		throw writeFailure(out.dir, error, 'creating the archive');
	}

	return manifest;
}

/** Progress of the archive phase: bytes archived over all entries, labelled by the member. */
function archiveProgress(run: BackupRun): (label: string) => (n: number) => void {
	const totalBytes = run.entries.reduce((a, e) => a + e.size, 0);
	let archived = 0;
	return (label: string) => (n: number) => {
		archived += n;
		run.options.onProgress?.({phase: 'archive', label, done: archived, total: totalBytes});
	};
}

/** Databases first: each one's check runs in a worker while its copy streams into the archive. */
async function archiveDatabases(
	run: BackupRun,
): Promise<{members: MemberRecord[]; checks: Array<Promise<CheckedCopy>>; removals: Array<Promise<void>>}> {
	const writer = run.writer!;
	const stage = run.stage!;
	const onBytes = archiveProgress(run);
	run.onBytes = onBytes;
	const members: MemberRecord[] = [];
	const checks: Array<Promise<CheckedCopy>> = [];
	const {removals} = run.inFlight;
	let dbIndex = 0;
	for (const e of run.entries.filter(x => x.kind === 'db')) {
		if (e.size === 0 && !fs.existsSync(`${e.abs}-wal`)) {
			// An empty file named *.db: nothing for SQLite to copy; keep the (empty) file as is.
			members.push(
				writer.addBuffer(e.rel, Buffer.alloc(0), 'file', {mode: e.mode, mtime: new Date(e.mtimeMs), compress: false}),
			);
			continue;
		}

		const dest = path.join(stage, `${dbIndex++}.db`);
		// The check's worker starts now, so its start-up overlaps the copy.
		const pending = startCheck();
		run.inFlight.checks.push(pending);
		const copy = await copyOne(run, e, dest).catch((error: unknown) => {
			void pending.cancel();
			throw error;
		});
		if (!copy) {
			void pending.cancel();
			continue;
		}

		const check = pending.run(dest).then(c => ({rel: e.rel, copy, check: c}));
		checks.push(check);
		let fd: number;
		try {
			fd = fs.openSync(dest, 'r');
		} catch (error) {
			throw writeFailure(dest, error, 'reading the staged copy');
		}

		members.push(
			await writer.addFd(e.rel, fd, 'db', {mode: e.mode, mtime: run.created, compress: false, onBytes: onBytes(e.rel)}),
		);
		run.phase('archive');
		// Unlinking a large file takes a while: do it off the main thread once its check is done.
		removals.push(
			check.then(
				async () => {
					await Promise.all(
						['', '-wal', '-shm', '-journal'].map(async s => fs.promises.rm(`${dest}${s}`, {force: true})),
					);
				},
				() => {},
			),
		);
	}

	return {members, checks, removals};
}

/** One database's consistent copy into the staging folder; null when it is skipped (listed as such). */
async function copyOne(run: BackupRun, e: WalkEntry, dest: string): Promise<DbCopy | null> {
	const {out} = run;
	const stage = run.stage!;
	try {
		const copy = await copyDatabase(e.abs, dest, {
			privateTmp: stage,
			onProgress: p => run.options.onProgress?.({phase: 'copy', label: e.rel, done: p.done, total: p.total}),
		});
		run.phase('copy');
		return copy;
	} catch (error) {
		if (error instanceof FailClosed && !(error.file.startsWith(out.dir) || error.file.startsWith(stage))) {
			run.skipped.push({rel: e.rel, reason: `${error.reason} (next: ${error.next})`});
			return null;
		}

		if (error instanceof FailClosed && error.file.startsWith(stage)) {
			// Name the folder the operator chose, not our temp folder inside it.
			throw new FailClosed({
				file: out.dir,
				kind: error.kind,
				reason: error.reason,
				next: error.next,
				exitCode: error.exitCode,
				cause: error.cause,
			});
		}

		throw error;
	}
}

/** Every other file, hashed as it streams; one that vanished or changed type is skipped (listed). */
async function archiveFiles(run: BackupRun): Promise<MemberRecord[]> {
	const writer = run.writer!;
	const onBytes = run.onBytes!;
	const members: MemberRecord[] = [];
	for (const e of run.entries.filter(x => x.kind === 'file')) {
		let fd: number;
		try {
			fd = fs.openSync(e.abs, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
		} catch (error) {
			const code = errorCode(error);
			run.skipped.push({
				rel: e.rel,
				reason: code === 'ENOENT' ? 'vanished while the backup ran' : `not readable (${code ?? errorMessage(error)})`,
			});
			continue;
		}

		const st = fs.fstatSync(fd);
		if (!st.isFile()) {
			fs.closeSync(fd);
			run.skipped.push({rel: e.rel, reason: 'no longer a regular file'});
			continue;
		}

		// Streamed and awaited one by one, so memory stays bounded whatever the folder holds.
		members.push(
			await writer.addFd(e.rel, fd, 'file', {
				mode: st.mode,
				mtime: st.mtime,
				compress: st.size > 64,
				onBytes: onBytes(e.rel),
			}),
		);
	}

	return members;
}

/** Waits for the database checks (in order) and records each in the manifest; a failed one is a problem. */
async function judgeChecks(run: BackupRun, manifest: Manifest, checks: Array<Promise<CheckedCopy>>): Promise<void> {
	const {options, result} = run;
	options.onProgress?.({phase: 'check', label: 'databases', done: 0, total: checks.length});
	let checked = 0;
	for (const c of await Promise.all(
		checks.map(async p => {
			const r = await p;
			options.onProgress?.({phase: 'check', label: r.rel, done: ++checked, total: checks.length});
			return r;
		}),
	)) {
		const judged = judgeCopy(c.copy, c.check);
		manifest.databases.push(dbRecord(c.rel, c.copy, c.check, judged.ok, judged.problems));
		if (!judged.ok) {
			result.problems.push(
				`${c.rel}: ${judged.problems.join('; ')} (kept in the archive for forensics, marked failed in its manifest)`,
			);
		}
	}
}

/** manifest.json last, then the seal: the temp archive is complete on disk. */
async function finishArchive(
	run: BackupRun,
	manifest: Manifest,
	members: MemberRecord[],
): Promise<Awaited<ReturnType<ZipWriter['finish']>>> {
	manifest.members = members;
	manifest.skipped = run.skipped.map(s => ({path: s.rel, reason: s.reason}));
	manifest.complete = run.skipped.length === 0 && run.result.problems.length === 0;
	let written: Awaited<ReturnType<NonNullable<typeof run.writer>['finish']>>;
	try {
		written = await run.writer!.finish(Buffer.from(JSON.stringify(manifest, null, 2)));
	} catch (error) {
		throw writeFailure(run.out.dir, error, 'writing the archive');
	}

	run.writer = undefined;
	return written;
}

/** Links the checked temp archive to its final name (never over an existing file), fsyncs the folder. */
function publish(run: BackupRun): void {
	const {out} = run;
	const temp = run.temp!;
	fs.chmodSync(temp, 0o600);
	try {
		fs.linkSync(temp, out.file);
	} catch (error) {
		if (errorCode(error) === 'EEXIST') {
			throw new FailClosed({
				file: out.file,
				kind: 'exists',
				reason: 'a file with this name appeared while the backup ran',
				next: 'run the backup again',
			});
		}

		throw writeFailure(out.file, error, 'naming the archive');
	}

	removeTemp(temp);
	run.temp = undefined;
	fsyncDir(out.dir);
}

/** The result filled in, and the backup and its write-time verification recorded beside the archive. */
function recordBackup(
	run: BackupRun,
	manifest: Manifest,
	members: MemberRecord[],
	written: Awaited<ReturnType<ZipWriter['finish']>>,
): void {
	const {out, result, root, skipped} = run;
	const fp = fingerprintOf(out.file);
	result.archive = out.file;
	result.manifest = manifest;
	result.databases = manifest.databases;
	result.bytes = written.bytes;
	result.seal = written.seal;
	result.verified = true;
	result.exitCode = manifest.complete ? 0 : 1;
	const name = path.basename(out.file);
	const missing = [...skipped.map(s => s.rel), ...result.problems].join(', ');
	const summary =
		`${members.length} members, ${manifest.databases.length} ` +
		`databases${manifest.complete ? '' : `, INCOMPLETE: ${missing}`}`;
	result.recorded = appendRecord(out.dir, {
		at: Date.now() / 1000,
		event: 'backup',
		artifact: name,
		kind: 'archive',
		ok: manifest.complete,
		exitCode: result.exitCode,
		size: fp.size,
		mtimeMs: fp.mtimeMs,
		seal: written.seal,
		createdAt: manifest.createdAtEpoch,
		summary,
		details: {complete: manifest.complete, root, home: manifestHome(manifest)},
	});
	appendRecord(out.dir, {
		at: Date.now() / 1000,
		event: 'verify',
		level: 'write',
		artifact: name,
		kind: 'archive',
		ok: true,
		exitCode: 0,
		size: fp.size,
		mtimeMs: fp.mtimeMs,
		seal: written.seal,
		createdAt: manifest.createdAtEpoch,
		summary:
			'read back after writing: size, CRC-32 of the file, seal and central ' +
			'directory match; databases checked on the identical copies',
	});
}
