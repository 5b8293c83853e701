/**
 * `hfx restore ARCHIVE (--to DIR | --home DIR) [--yes]` and the drill's restore into a scratch
 * folder. What a restore does, in order (docs/sqlite-wal.md, backup), each step's file named; it
 * fails closed at every step up to 9, writing nothing:
 *
 *   1. what the artifact is: a zip, a tar or tar.gz, a snapshot folder; anything else is refused
 *      (../archive/detect-kind.ts);
 *   2. refuse every member the member policy refuses (../archive/member-policy.ts: "..", absolute
 *      paths, links, devices, clashing names, sidecars), before anything else (refusals.ts; a tar's
 *      members are judged by its verifier, ../verify/tar.ts);
 *   3. verify the WHOLE archive (every byte, every database on a temp extraction) (../verify/verify.ts):
 *      a damaged archive writes nothing (refusals.ts);
 *   4. open it as a source: its members, each with where it lands, mapped from the archive's Hermes
 *      root when it has no hfx manifest (a Hermes zip, a tar of a volume or home, a Hermes quick
 *      snapshot) (source.ts, layout.ts); a tar read member by member (source-tar.ts), its -wal folded
 *      into its database, never written (wal-fold.ts);
 *   5. plan the targets: none outside the target, none reached through a symlink or over a folder
 *      (refusals.ts); the live audit trail kept, never the archive's (audit.ts);
 *   6. what the restore would drop, read-only on the live stores (compare.ts); a dry run stops here;
 *   7. refuse while any process holds a target database, its -wal/-shm, or a deleted -wal inode (an
 *      agent still running on an old WAL generation), or a live gateway.pid; backups/ is never a link
 *      (refusals.ts); every audit trail can take the restore's entry (audit.ts);
 *   8. typed confirmation (or --yes) when something would be replaced, saying what would be dropped
 *      (refusals.ts);
 *   9. stage every member beside its destination under a temp name (first sweeping what a SIGKILLed
 *      restore left staged there, ../debris.ts), re-checking it against what the archive says of it
 *      (the hfx manifest's sha256; else a zip's CRC-32, a tar header's or Hermes' manifest.json's
 *      size), fsync: any failure removes the staged files and nothing was written (stage.ts);
 *  10. commit: every landing path re-checked for links, then the current files (state.db, -wal,
 *      -shm as found) kept in this restore's own backups/pre-restore-<time>[-N]/ (made exclusively,
 *      never through a symlinked backups/; hard links, no copy), move the old -wal/-shm/-journal aside so
 *      SQLite cannot replay them over the restored file, rename each staged file into place,
 *      fsync the folders; credentials and databases get mode 0600 (commit.ts);
 *  11. re-verify: sha256 of every restored file (against the manifest, else against what was staged),
 *      and each database through the read-only reader (integrity_check + counts against the manifest,
 *      else against the counts the verify read from the archive) (commit.ts); 10 and 11 run as one
 *      critical section (../../interrupts.ts);
 *  12. record the restore in the audit trail beside each restored store (audit.ts).
 * Its types are types.ts's. Exit 0 all restored and verified, 1 partial (listed), 2 refused or
 * nothing written. Every failure is one line (asRefusal); "nothing was written" is said only before
 * the first rename.
 */
import fs from 'node:fs';
import path from 'node:path';
import {FailClosed, errorCode, errorMessage} from '../../ground/errors.js';
import {critical} from '../../ground/interrupts.js';
import {detectKind, notAnArtifact} from '../archive/detect-kind.js';
import type {Manifest} from '../manifest.js';
import {commit, preRestoreDirFor, reverify} from './commit.js';
import {mappingOf} from './layout.js';
import {normalizeName} from '../archive/member-policy.js';
import {
	assertNoHolders,
	confirmReplace,
	planTargets,
	refuse,
	refuseDamaged,
	refuseLinkedBackups,
	refuseLinksSincePlanned,
	refuseUnsafeMembers,
} from './refusals.js';
import {compareWithLive, comparisonLines, wouldDrop} from './compare.js';
import {assertTrailsWritable, keepLiveTrails, recordRestore, trailsOf} from './audit.js';
import {openSource} from './source.js';
import {stageAll} from './stage.js';
import {unregisterTemp} from '../../ground/temps.js';
import {sweepRestorePartials} from '../debris.js';
import {type VerifyReport, verifyArtifact} from '../verify/verify.js';
import type {
	Checks,
	Committed,
	DbComparison,
	Expected,
	PlannedMember,
	RestoreOptions,
	RestoreResult,
	SourceMember,
} from './types.js';

export {assertNoHolders} from './refusals.js';

/** Step 5: the members to write, and the audit trails kept and written (audit.ts); a drill keeps and writes none. */
function planRestore(archive: string, target: string, members: SourceMember[], mode: RestoreOptions['mode']) {
	const planned = planTargets(archive, target, members);
	if (mode === 'drill') {
		return {plan: planned, kept: [], trails: []};
	}

	const {plan, kept} = keepLiveTrails(planned);
	return {plan, kept, trails: trailsOf(plan)};
}

/** Steps 1 to 3: refuses what restore does not read, unsafe members, and the whole archive verified. */
async function verifyForRestore(
	archive: string,
	kind: ReturnType<typeof detectKind>,
	options: RestoreOptions,
): Promise<VerifyReport> {
	if (kind === 'unknown') {
		throw refuse(
			archive,
			'unreadable',
			notAnArtifact(archive) ?? 'not a zip or tar archive or a snapshot folder',
			'check the path (hfx backups lists archives and snapshots)',
		);
	}

	// 2. Unsafe member names and types, before anything else (a tar's: verify/tar.ts judges them all).
	if (kind === 'zip') {
		await refuseUnsafeMembers(archive);
	}

	// 3. The whole archive, verified. A tar's -wal/-shm/-journal are findings the tar source handles
	// (a -wal folded into its database, a -shm dropped, a hot -journal refused): never restored as files.
	const report = await verifyArtifact(archive, {
		onProgress: options.onProgress,
		tmpDir: options.tmpDir,
		inventory: options.mode !== 'drill',
	});
	refuseDamaged(archive, report, p => (kind === 'tar' || kind === 'tar.gz') && p.sidecar === true);
	return report;
}

function checksOf(kind: ReturnType<typeof detectKind>, manifest: Manifest | null): Checks {
	if (manifest) {
		return {
			members: 'size and sha256 of each against the hfx manifest, staged and read back',
			databases: 'counts as in the hfx manifest',
		};
	}

	const staged = 'read back by the sha256 of what was staged';
	const members =
		kind === 'zip'
			? `each checked against its CRC-32 and size in the zip while staged (a ` +
				`Hermes zip has no hashes of its own), ${staged}`
			: kind === 'snapshot'
				? `each checked against its size in Hermes' manifest.json while staged (it has no hashes), ${staged}`
				: `each checked against the size in its tar header while staged (a tar has ` +
					`no checksums of its data), ${staged}`;
	return {members, databases: 'counts as verified in the archive'};
}

/** The expected counts of each restored database: the hfx manifest's, else what the verify read from the archive. */
function expectedCounts(manifest: Manifest | null, report: VerifyReport, members: readonly SourceMember[]): Expected {
	if (manifest) {
		return rel => manifest.databases.find(d => d.path === rel);
	}

	const toTarget = new Map(members.map(m => [normalizeName(m.archivePath), m.path]));
	const byRel = new Map(
		report.databases.flatMap(d =>
			toTarget.has(d.path)
				? [[toTarget.get(d.path)!, {counts: d.counts, schemaVersion: d.schemaVersion}] as const]
				: [],
		),
	);
	return rel => byRel.get(rel);
}

/**
 * The verify's databases under their target paths (a tar's or a Hermes zip's root prefix stripped), for the comparison.
 */
function asTargetPaths(report: VerifyReport, members: readonly SourceMember[]): VerifyReport['databases'] {
	const toTarget = new Map(members.map(m => [normalizeName(m.archivePath), m.path]));
	return report.databases.flatMap(d => (toTarget.has(d.path) ? [{...d, path: toTarget.get(d.path)!}] : []));
}

export async function restoreArchive(options: RestoreOptions): Promise<RestoreResult> {
	const started = performance.now();
	const archive = path.resolve(options.archive);
	const target = path.resolve(options.target);
	const kind = detectKind(archive);
	const report = await verifyForRestore(archive, kind, options).catch((error: unknown) => {
		throw asRefusal(error, archive, false);
	});
	const manifest = report.manifest;
	const source = await openSource(archive, manifest, {tmpDir: options.tmpDir}).catch((error: unknown) => {
		throw asRefusal(error, archive, false);
	});
	const stagedFiles: string[] = [];
	const createdDirs: string[] = [];
	let committing = false;
	try {
		const {plan, kept, trails, dbRels, comparison, shown} = planAndCompare(
			archive,
			target,
			kind,
			report,
			source,
			options,
		);
		if (options.dryRun) {
			return {...nothingWritten(archive, target, report, comparison), ...shown, ms: performance.now() - started};
		}

		if (options.mode !== 'drill') {
			await guardWrite(archive, target, {plan, dbRels, trails, comparison}, options);
		}

		// 9. Stage everything (first sweeping what a SIGKILLed restore left staged in those folders).
		sweepRestorePartials(plan.map(p => path.dirname(p.dest)));
		const staged = await stageAll(source, plan, target, stagedFiles, createdDirs, options.onProgress);
		const outcome = await commitAndReverify(plan, staged, target, options, {
			dbCount: dbRels.length,
			expected: expectedCounts(manifest, report, source.members),
			onCommitting: () => {
				committing = true;
			},
		});
		const a = auditRestore(options, archive, trails, kept, outcome);
		// The result's keys in the order `hfx restore --json` has always printed them.
		return {
			archive,
			target,
			exitCode: a.exitCode,
			status: a.status,
			verify: report,
			restored: a.restored,
			failed: a.failed,
			preRestoreDir: a.preRestoreDir,
			keptAside: a.keptAside,
			postProblems: a.postProblems,
			databases: a.databases,
			manifest,
			audit: a.audit,
			comparison,
			...shown,
			ms: performance.now() - started,
		};
	} catch (error) {
		removeStaged(stagedFiles, createdDirs);
		throw asRefusal(error, target, committing);
	} finally {
		source.close();
	}
}

/** Steps 5 and 6: the targets and trails, what the restore would drop (read-only on the live stores), what it shows. */
function planAndCompare(
	archive: string,
	target: string,
	kind: ReturnType<typeof detectKind>,
	report: VerifyReport,
	source: {members: SourceMember[]; layout: RestoreResult['layout']},
	options: RestoreOptions,
) {
	const {plan, kept, trails} = planRestore(archive, target, source.members, options.mode);
	const dbRels = plan.filter(p => p.m.kind === 'db').map(p => p.m.path);
	const comparison = options.mode === 'drill' ? [] : compareWithLive(target, asTargetPaths(report, source.members));
	const shown = {
		layout: source.layout,
		mapping: mappingOf(
			plan.map(p => p.m),
			source.layout,
			target,
		),
		checks: checksOf(kind, report.manifest),
	};
	return {plan, kept, trails, dbRels, comparison, shown};
}

/** What the commit and the re-verification found. */
type Outcome = Committed & ReturnType<typeof reverify>;

/**
 * Steps 10 and 11, commit and re-verify as one critical section: a Ctrl-C or SIGTERM arriving between the
 * first rename and the last check waits for them (source/ground/interrupts.ts), so a restore is never left
 * half-renamed by a signal. Every landing path is re-checked for links first.
 */
async function commitAndReverify(
	plan: PlannedMember[],
	staged: Map<string, string>,
	target: string,
	options: RestoreOptions,
	check: {dbCount: number; expected: Expected; onCommitting: () => void},
): Promise<Outcome> {
	refuseLinksSincePlanned(target, plan);
	if (options.mode !== 'drill') {
		refuseLinkedBackups(target);
	}

	const preRestore = preRestoreDirFor(plan, target, options.mode, options.now?.() ?? new Date());
	return critical(async () => {
		check.onCommitting();
		const committed = commit(plan, staged, preRestore);
		return {
			...committed,
			...reverify(plan, committed.restored, check.dbCount, check.expected, options.onProgress),
		};
	});
}

/** Step 12: the restore's entry in each audit trail, and the result's outcome with the trails' problems. */
function auditRestore(
	options: RestoreOptions,
	archive: string,
	trails: string[],
	kept: Parameters<typeof recordRestore>[1],
	outcome: Outcome,
): Pick<
	RestoreResult,
	'exitCode' | 'status' | 'restored' | 'failed' | 'preRestoreDir' | 'keptAside' | 'postProblems' | 'databases' | 'audit'
> {
	const {restored, failed, keptAside, preDir, preCreated, postProblems, databases} = outcome;
	const status = failed.length === 0 && postProblems.length === 0 ? 'restored' : 'partial';
	const argv = options.argv ?? ['hfx', ...process.argv.slice(2)];
	const audit = recordRestore(trails, kept, {
		mode: options.mode,
		archive,
		argv,
		status,
		exitCode: status === 'restored' ? 0 : 1,
		restored: restored.length,
		failed: failed.length,
		preRestoreDir: preCreated ? preDir : null,
	});
	postProblems.push(...audit.flatMap(a => a.problem ?? []));
	const ok = failed.length === 0 && postProblems.length === 0;
	return {
		exitCode: ok ? 0 : 1,
		status: ok ? 'restored' : 'partial',
		restored,
		failed,
		preRestoreDir: preCreated ? preDir : null,
		keptAside,
		postProblems,
		databases,
		audit,
	};
}

/**
 * Steps 7 and 8: nobody holds what we replace, the pre-restore copies never go through a link, every trail takes its
 * entry; the confirmation says what the restore would drop.
 */
async function guardWrite(
	archive: string,
	target: string,
	p: {plan: PlannedMember[]; dbRels: string[]; trails: string[]; comparison: DbComparison[]},
	options: RestoreOptions,
): Promise<void> {
	refuseLinkedBackups(target);
	assertNoHolders(target, p.dbRels);
	assertTrailsWritable(p.trails);
	await confirmReplace(archive, target, p.plan, {...options, drops: comparisonLines(p.comparison)});
}

/** A dry run's result: the verification and the comparison, nothing written. */
function nothingWritten(
	archive: string,
	target: string,
	verify: VerifyReport,
	comparison: DbComparison[],
): Omit<RestoreResult, 'ms' | 'layout' | 'mapping' | 'checks'> {
	const exitCode = wouldDrop(comparison) ? 1 : 0;
	return {
		archive,
		target,
		exitCode,
		status: 'dry-run',
		verify,
		restored: [],
		failed: [],
		preRestoreDir: null,
		keptAside: [],
		postProblems: [],
		databases: [],
		manifest: verify.manifest,
		audit: [],
		comparison,
	};
}

/**
 * Any failure as one line: a refusal stays as it is; anything else before the commit wrote nothing
 * (exit 2), during it some files may be replaced already (exit 1, and it says so).
 */
function asRefusal(error: unknown, file: string, committing: boolean): FailClosed {
	const said = error instanceof FailClosed && error.reason.includes('nothing was written');
	if (error instanceof FailClosed && (committing ? !said : said)) {
		return error;
	}

	if (error instanceof FailClosed && !committing) {
		return new FailClosed({
			file: error.file,
			kind: error.kind,
			reason: `${error.reason}; nothing was written`,
			next: error.next,
			exitCode: error.exitCode,
			cause: error,
		});
	}

	const message = errorMessage(error);
	const code = errorCode(error);
	const cause =
		error instanceof FailClosed ? error.reason : `${code && !message.startsWith(code) ? `${code}: ` : ''}${message}`;
	if (!committing) {
		return refuse(
			file,
			'restore-failed',
			`the restore failed before replacing anything (${cause})`,
			'fix the cause and run the restore again',
		);
	}

	return new FailClosed({
		file,
		kind: 'restore-interrupted',
		reason: `the restore stopped while replacing files (${cause}); some files may be replaced already`,
		next: `the previous files are in ${path.join(file, 'backups')}/pre-restore-…; fix the cause and restore again`,
		exitCode: 1,
		cause: error,
	});
}

/** After a failure: the staged files removed, and the folders the restore created (when empty). */
function removeStaged(stagedFiles: string[], createdDirs: string[]): void {
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
}
