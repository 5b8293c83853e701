/**
 * `hfx restore ARCHIVE (--to DIR | --home DIR) [--yes]` and the drill's restore into a scratch
 * folder. Fail closed, in this order (sqlite-wal.md §3.5):
 *
 *   1. refuse members with "..", absolute paths, symlinks or devices, and targets reached
 *      through a symlink, before anything else;
 *   2. verify the WHOLE archive (every byte, every database on a temp extraction): a damaged
 *      archive writes nothing;
 *   3. refuse while any process holds a target database, its -wal/-shm, or a deleted -wal inode
 *      (an agent still running on an old WAL generation), or a live gateway.pid;
 *   4. typed confirmation (or --yes) when something would be replaced;
 *   5. stage every member beside its destination under a temp name, re-hashing it against the
 *      manifest, fsync: any failure removes the staged files and nothing was written;
 *   6. commit: keep the current files (state.db, -wal, -shm as found) in
 *      backups/pre-restore-<time>/ (hard links, no copy), move the old -wal/-shm/-journal aside so
 *      SQLite cannot replay them over the restored file, rename each staged file into place,
 *      fsync the folders; credentials and databases get mode 0600;
 *   7. re-verify: sha256 of every restored file, and each database through the read-only reader
 *      (integrity_check + counts against the manifest).
 * Exit 0 all restored and verified, 1 partial (listed), 2 refused or nothing written.
 */
import fs from 'node:fs';
import path from 'node:path';
import type {Readable} from 'node:stream';
import {FailClosed, errorCode, errorMessage} from '../errors.js';
import {critical} from '../interrupts.js';
import {describeHolder, findHolders} from '../store/holders.js';
import {ReadOnlyStore} from '../store/open.js';
import {compareCounts, readCounts, readSchemaVersion} from './db-check.js';
import {Hasher, crcHex, digestFile, fsyncDir, isPidAlive, registerTemp, unregisterTemp, utcStamp} from './fsutil.js';
import {MANIFEST_NAME, type Manifest} from './manifest.js';
import type {ProgressFn} from './progress.js';
import {type VerifyReport, detectKind, verifyArtifact} from './verify.js';
import {CREDENTIAL_NAMES} from './walk.js';
import {type OpenedZip, openZip, unsafeNameReason} from './zipread.js';

export type RestoreOptions = {
	archive: string;
	target: string;
	/** 'drill' skips the holder check, the confirmation and the pre-restore copy (scratch target). */
	mode: 'to' | 'home' | 'drill';
	yes?: boolean;
	/** Asks the operator; resolves true only on the typed confirmation. Absent: --yes is required. */
	confirm?: (question: string) => Promise<boolean>;
	onProgress?: ProgressFn;
	now?: () => Date;
	/** Parent of the verify step's temp extraction. */
	tmpDir?: string;
};

export type RestoredDb = {path: string; ok: boolean; integrity: string[]; counts: Record<string, number>; schemaVersion: number | null; problems: string[]};

export type RestoreResult = {
	archive: string;
	target: string;
	exitCode: 0 | 1 | 2;
	status: 'restored' | 'partial';
	verify: VerifyReport;
	restored: string[];
	failed: Array<{path: string; reason: string}>;
	preRestoreDir: string | null;
	/** Files moved aside into preRestoreDir (old -wal/-shm/-journal) and kept (replaced files). */
	keptAside: string[];
	postProblems: string[];
	databases: RestoredDb[];
	manifest: Manifest | null;
	ms: number;
};

type SourceMember = {path: string; size: number; mode: number; sha256: string | null; crc32: string | null; kind: 'file' | 'db'};

type Source = {
	members: SourceMember[];
	open: (m: SourceMember) => Promise<Readable>;
	close: () => void;
};

function refuse(file: string, kind: string, reason: string, next: string): FailClosed {
	return new FailClosed({file, kind, reason: `${reason}; nothing was written`, next, exitCode: 2});
}

async function openSource(archive: string, manifest: Manifest | null): Promise<Source> {
	const kind = detectKind(archive);
	const byPath = new Map((manifest?.members ?? []).map(m => [m.path, m]));
	if (kind === 'zip') {
		const z: OpenedZip = await openZip(archive);
		const members = z.members.filter(m => m.type === 'file' && m.name !== MANIFEST_NAME).map(m => {
			const known = byPath.get(m.name);
			return {
				path: m.name,
				size: m.entry.uncompressedSize,
				mode: known?.mode ?? m.mode ?? 0o644,
				sha256: known?.sha256 ?? null,
				crc32: known?.crc32 ?? crcHex(m.entry.crc32),
				kind: known?.kind ?? (m.name.endsWith('.db') ? 'db' : 'file'),
			} satisfies SourceMember;
		});
		const entries = new Map(z.members.map(m => [m.name, m]));
		return {members, open: async m => z.zip.openReadStreamPromise(entries.get(m.path)!.entry), close: () => z.close()};
	}

	// A snapshot folder: its manifest lists the members.
	const files = manifest ? manifest.members.map(m => ({path: m.path, size: m.size, mode: m.mode, sha256: m.sha256, crc32: m.crc32, kind: m.kind})) : [];
	return {
		members: files,
		open: async m => fs.createReadStream(path.join(archive, m.path), {highWaterMark: 1 << 20}),
		close() {},
	};
}

/** Every folder between `root` (exclusive) and `dest` must be a real folder, never a symlink. */
function linkOnTheWay(root: string, dest: string): string | null {
	const rel = path.relative(root, dest).split(path.sep);
	let cur = root;
	for (const part of rel) {
		cur = path.join(cur, part);
		try {
			const st = fs.lstatSync(cur);
			if (st.isSymbolicLink()) {
				return cur;
			}
		} catch {
			return null;
		}
	}

	return null;
}

function restoredMode(m: SourceMember): number {
	const base = path.posix.basename(m.path);
	if (m.kind === 'db' || CREDENTIAL_NAMES.has(base)) {
		return 0o600;
	}

	return (m.mode & 0o777) || 0o600;
}

async function stageMember(source: Source, m: SourceMember, staged: string, mode: number, owner: {uid: number; gid: number} | null, onBytes: (n: number) => void): Promise<void> {
	const stream = await source.open(m);
	const hasher = new Hasher();
	const fd = fs.openSync(staged, 'wx', 0o600);
	try {
		for await (const chunk of stream) {
			const b = chunk as Buffer;
			hasher.update(b);
			fs.writeSync(fd, b);
			onBytes(b.length);
		}

		fs.fsyncSync(fd);
	} finally {
		fs.closeSync(fd);
	}

	const d = hasher.digest();
	if (d.size !== m.size || (m.sha256 && d.sha256 !== m.sha256) || (m.crc32 && crcHex(d.crc32) !== m.crc32)) {
		throw new FailClosed({file: m.path, kind: 'changed-during-restore', reason: 'the member read back while restoring differs from the verified archive (the archive changed under us?)', next: 'verify the archive again (hfx verify) and retry'});
	}

	fs.chmodSync(staged, mode);
	if (owner) {
		fs.chownSync(staged, owner.uid, owner.gid);
	}
}

/** Checks a restored database through the read-only reader (a private copy when WAL mode). */
function checkRestoredDb(file: string, rel: string, manifest: Manifest | null): RestoredDb {
	const expected = manifest?.databases.find(d => d.path === rel);
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
				problems.push(`schema version ${schemaVersion}, the manifest says ${expected.schemaVersion}`);
			}
		}

		return {path: rel, ok: problems.length === 0, integrity, counts, schemaVersion, problems};
	} catch (error) {
		const what = error instanceof FailClosed ? error.reason : errorMessage(error);
		return {path: rel, ok: false, integrity: [what], counts: {}, schemaVersion: null, problems: [`cannot be read back: ${what}`]};
	} finally {
		store?.close();
	}
}

/** Refuses while anything holds a database we would replace (or holds an old WAL generation of it). */
export function assertNoHolders(target: string, dbRels: string[]): void {
	for (const rel of dbRels) {
		const dest = path.join(target, rel);
		const report = findHolders(dest);
		const holders = report.holders;
		if (holders.length > 0) {
			const deleted = holders.some(h => h.holdsDeletedWal);
			throw refuse(dest, deleted ? 'deleted-wal-held' : 'in-use', `${describeHolder(holders[0]!)}${holders.length > 1 ? ` (+${holders.length - 1} more)` : ''}${deleted ? ': a process still holds a deleted -wal of this database (an old WAL generation); a restore now would split it' : ''}`, 'stop the gateway and every Hermes process on this profile (hermes gateway stop; check with hfx doctor), then run the restore again');
		}
	}

	const homes = new Set(dbRels.map(rel => path.dirname(path.join(target, rel))));
	homes.add(target);
	for (const home of homes) {
		for (const pidFile of ['gateway.pid', 'cron.pid']) {
			let text: string;
			try {
				text = fs.readFileSync(path.join(home, pidFile), 'utf8');
			} catch {
				continue;
			}

			const pid = Number(/\d+/.exec(text)?.[0]);
			if (pid && pid !== process.pid && isPidAlive(pid)) {
				throw refuse(path.join(home, pidFile), 'gateway-running', `process ${pid} named in it is running`, 'stop the gateway first (hermes gateway stop), then run the restore again');
			}
		}
	}
}

export async function restoreArchive(options: RestoreOptions): Promise<RestoreResult> {
	const started = performance.now();
	const archive = path.resolve(options.archive);
	const target = path.resolve(options.target);
	const kind = detectKind(archive);
	if (kind === 'tar' || kind === 'tar.gz') {
		throw refuse(archive, 'unsupported', 'restore reads hfx and Hermes zip archives and quick-snapshot folders, not tar archives', `check it with hfx verify ${archive}, then extract it with tar into an empty folder and point Hermes at it`);
	}

	if (kind === 'unknown') {
		throw refuse(archive, 'unreadable', fs.existsSync(archive) ? 'not a zip archive or snapshot folder' : 'no such file or folder', 'check the path (hfx backups lists archives and snapshots)');
	}

	// 1. Unsafe member names and types, before anything else.
	if (kind === 'zip') {
		let z: OpenedZip | undefined;
		try {
			z = await openZip(archive);
			for (const m of z.members) {
				const why = unsafeNameReason(m.name, m.type);
				if (why) {
					throw refuse(archive, 'unsafe-member', `member ${JSON.stringify(m.name)} is refused: ${why}`, 'do not extract this archive; take it apart by hand only in a scratch folder');
				}
			}
		} catch (error) {
			if (error instanceof FailClosed) {
				throw error;
			}
		} finally {
			z?.close();
		}
	}

	// 2. The whole archive, verified.
	const report = await verifyArtifact(archive, {onProgress: options.onProgress, tmpDir: options.tmpDir});
	if (report.exitCode !== 0) {
		const first = report.problems[0] ?? (report.databases.find(d => !d.ok) ? {where: report.databases.find(d => !d.ok)!.path, what: report.databases.find(d => !d.ok)!.problems.join('; ')} : {where: archive, what: 'unknown'});
		throw refuse(archive, 'archive-damaged', `the archive is ${report.status} (${report.problems.length + report.databases.filter(d => !d.ok).length} problem(s); first: ${first.where}: ${first.what})`, `run hfx verify ${archive} for the full list, and restore from another backup (hfx backups)`);
	}

	const manifest = report.manifest;
	if (kind === 'snapshot' && !manifest) {
		throw refuse(archive, 'no-manifest', 'this snapshot has no hfx manifest (a Hermes snapshot): its files cannot be checked by hash', 'restore it with Hermes (/snapshot restore ID), or take a new snapshot with hfx backup --quick');
	}

	const source = await openSource(archive, manifest);
	const stagedFiles: string[] = [];
	const createdDirs: string[] = [];
	try {
		// Target checks.
		if (fs.existsSync(target) && !fs.statSync(target).isDirectory()) {
			throw refuse(target, 'not-a-folder', 'the restore target is not a folder', 'pass a folder with --to DIR or --home DIR');
		}

		const plan = source.members.map(m => {
			const dest = path.join(target, ...m.path.split('/'));
			const rel = path.relative(target, dest);
			if (rel.startsWith('..') || path.isAbsolute(rel)) {
				throw refuse(archive, 'unsafe-member', `member ${JSON.stringify(m.path)} would land outside the target`, 'do not extract this archive');
			}

			const link = linkOnTheWay(target, dest);
			if (link) {
				throw refuse(link, 'symlink-in-target', 'the restore would write through this symbolic link', 'replace the link by a real folder, or restore into another folder with --to DIR');
			}

			let exists = false;
			try {
				const st = fs.lstatSync(dest);
				if (st.isDirectory()) {
					throw refuse(dest, 'target-is-folder', `a folder stands where the archive has the file ${m.path}`, 'move that folder aside, or restore into another folder with --to DIR');
				}

				exists = true;
			} catch (error) {
				if (error instanceof FailClosed) {
					throw error;
				}
			}

			return {m, dest, exists};
		});
		const dbRels = plan.filter(p => p.m.kind === 'db').map(p => p.m.path);
		if (options.mode !== 'drill') {
			// 3. Nobody may hold what we replace.
			assertNoHolders(target, dbRels);
			// 4. Confirmation when anything would be replaced.
			const replacing = plan.filter(p => p.exists).length;
			const occupied = fs.existsSync(target) && fs.readdirSync(target).length > 0;
			if ((replacing > 0 || occupied) && !options.yes) {
				const question = `restore ${path.basename(archive)} over ${target}: ${replacing} existing file(s) will be replaced (the current ones are kept in ${path.join(target, 'backups', 'pre-restore-…')}). Type "restore" to go on: `;
				if (!options.confirm) {
					throw refuse(target, 'needs-confirmation', `${replacing} existing file(s) would be replaced and no confirmation was given`, 'run it again in a terminal to confirm, or add --yes once the gateway is stopped');
				}

				if (!(await options.confirm(question))) {
					throw refuse(target, 'not-confirmed', 'the restore was not confirmed', 'run it again and type "restore" to confirm');
				}
			}
		}

		// 5. Stage everything.
		let owner: {uid: number; gid: number} | null = null;
		if (process.getuid?.() === 0) {
			try {
				const st = fs.statSync(fs.existsSync(target) ? target : path.dirname(target));
				owner = st.uid === 0 ? null : {uid: st.uid, gid: st.gid};
			} catch {
				owner = null;
			}
		}

		const mkdirs = (dir: string): void => {
			const missing: string[] = [];
			for (let d = dir; !fs.existsSync(d); d = path.dirname(d)) {
				missing.unshift(d);
			}

			for (const d of missing) {
				fs.mkdirSync(d, {mode: 0o700});
				if (owner) {
					fs.chownSync(d, owner.uid, owner.gid);
				}

				createdDirs.push(d);
			}
		};

		const total = plan.reduce((a, p) => a + p.m.size, 0);
		let done = 0;
		const staged = new Map<string, string>();
		try {
			for (const p of plan) {
				mkdirs(path.dirname(p.dest));
				const temp = path.join(path.dirname(p.dest), `.${path.basename(p.dest)}.hfx-p${process.pid}.partial`);
				registerTemp(temp);
				stagedFiles.push(temp);
				await stageMember(source, p.m, temp, restoredMode(p.m), owner, n => {
					done += n;
					options.onProgress?.({phase: 'extract', label: p.m.path, done, total});
				});
				staged.set(p.m.path, temp);
			}
		} catch (error) {
			if (error instanceof FailClosed) {
				throw new FailClosed({file: error.file, kind: error.kind, reason: `${error.reason}; nothing was written`, next: error.next});
			}

			const code = errorCode(error);
			throw refuse(target, code === 'ENOSPC' ? 'no-space' : 'stage-failed', `staging the restored files failed (${code ?? 'error'}: ${errorMessage(error)}); the staged files were removed`, code === 'ENOSPC' ? 'free space on the target and run the restore again' : 'fix the cause and run the restore again');
		}

		// 6.-7. Commit and re-verify as one critical section: a Ctrl-C or SIGTERM arriving between the
		// first rename and the last check waits for them (source/interrupts.ts), so a restore is never
		// left half-renamed by a signal.
		const {restored, failed, keptAside, preDir, preCreated, postProblems, databases} = await critical(async () => {
			// 6. Commit.
			const stamp = utcStamp(options.now?.() ?? new Date());
			const preDir = options.mode === 'drill' ? null : path.join(target, 'backups', `pre-restore-${stamp}`);
			let preCreated = false;
			const keep = (file: string, rel: string, move: boolean): void => {
				if (!preDir) {
					if (move) {
						fs.rmSync(file, {force: true});
					}

					return;
				}

				const dest = path.join(preDir, rel);
				if (!preCreated) {
					fs.mkdirSync(preDir, {recursive: true, mode: 0o700});
					preCreated = true;
				}

				fs.mkdirSync(path.dirname(dest), {recursive: true, mode: 0o700});
				if (move) {
					fs.renameSync(file, dest);
				} else {
					try {
						fs.linkSync(file, dest);
					} catch {
						fs.copyFileSync(file, dest);
					}
				}
			};

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
						for (const s of ['-wal', '-shm', '-journal']) {
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
				} catch (error) {
					fs.rmSync(temp, {force: true});
					unregisterTemp(temp);
					failed.push({path: p.m.path, reason: `${errorCode(error) ?? 'error'}: ${errorMessage(error)}`});
				}
			}

			for (const d of touched) {
				fsyncDir(d);
			}

			if (preDir && preCreated) {
				fsyncDir(path.dirname(preDir));
			}

			// 7. Re-verify what is on disk now: hashes first (raw reads), then SQLite.
			const postProblems: string[] = [];
			for (const p of plan) {
				if (!restored.includes(p.m.path)) {
					continue;
				}

				const d = digestFile(p.dest);
				if (d.size !== p.m.size || (p.m.sha256 && d.sha256 !== p.m.sha256)) {
					postProblems.push(`${p.m.path}: the restored file differs from the archive`);
				}
			}

			const databases: RestoredDb[] = [];
			for (const p of plan) {
				if (p.m.kind === 'db' && restored.includes(p.m.path) && p.m.size > 0) {
					options.onProgress?.({phase: 'check', label: p.m.path, done: databases.length, total: dbRels.length});
					const r = checkRestoredDb(p.dest, p.m.path, manifest);
					databases.push(r);
					if (!r.ok) {
						postProblems.push(`${p.m.path}: ${r.problems.join('; ')}`);
					}
				}
			}

			return {restored, failed, keptAside, preDir, preCreated, postProblems, databases};
		});

		const ok = failed.length === 0 && postProblems.length === 0;
		return {
			archive,
			target,
			exitCode: ok ? 0 : 1,
			status: ok ? 'restored' : 'partial',
			verify: report,
			restored,
			failed,
			preRestoreDir: preCreated ? preDir : null,
			keptAside,
			postProblems,
			databases,
			manifest,
			ms: performance.now() - started,
		};
	} catch (error) {
		for (const t of stagedFiles) {
			fs.rmSync(t, {force: true});
			unregisterTemp(t);
		}

		for (const d of createdDirs.reverse()) {
			try {
				fs.rmdirSync(d);
			} catch {
				// not empty: something was restored into it
			}
		}

		throw error;
	} finally {
		source.close();
	}
}
