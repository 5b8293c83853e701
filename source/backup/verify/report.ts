/**
 * The shape of a verification's report and its verdicts: a database check judged against the
 * manifest's record of it, and a report's status and exit code (0 sound, 1 damaged, 2 unreadable).
 */
import type {Inventory} from '../inventory.js';
import {holdsNoStore} from '../archive/root.js';
import {type DbCheck, compareCounts} from '../check/db-check.js';
import type {ArtifactKind} from '../archive/detect-kind.js';
import type {Manifest} from '../manifest.js';
import {type MemberFinding, findingWhere} from '../archive/member-policy.js';
import type {ProgressFn} from '../progress.js';
import type {Problem} from '../archive/zipread.js';

export type DbReport = {
	path: string;
	ok: boolean;
	integrity: string[];
	counts: Record<string, number>;
	schemaVersion: number | null;
	/** What the manifest recorded, when there is one. */
	expected: {counts: Record<string, number>; schemaVersion: number | null} | null;
	problems: string[];
	/** tar: the -wal that came with it (its commits were replayed for the check). */
	walBytes: number | null;
	checkMs: number;
	/**
	 * With VerifyOptions.inventory: its sessions and messages (restore/compare.ts), read before the extraction is
	 * removed.
	 */
	inventory?: Inventory | null;
};

/**
 * A database tarred while its agent ran (a tar of a running volume): its -wal's commits, which a
 * restore folds into it (restore/wal-fold.ts), and its sidecars in the archive, never restored as files.
 */
export type LiveFold = {
	database: string;
	/** The -wal member; null when only a -shm came with the database. */
	wal: string | null;
	walBytes: number | null;
	/** Committed transactions in the -wal's valid prefix, and the frames up to the last of them. */
	commits: number;
	frames: number;
	/** The -wal and -shm members: notes, not damage. */
	sidecars: string[];
};

export type VerifyReport = {
	path: string;
	kind: ArtifactKind;
	status: 'sound' | 'damaged' | 'unreadable';
	exitCode: 0 | 1 | 2;
	manifest: Manifest | null;
	/** Our archives carry a seal over every byte; Hermes' zips do not. */
	sealed: boolean;
	seal: string | null;
	members: number;
	bytes: number;
	problems: Problem[];
	databases: DbReport[];
	notes: string[];
	/** tar: each database tarred while its agent ran (empty for every other kind). */
	live?: LiveFold[];
	ms: number;
};

export type VerifyOptions = {
	onProgress?: ProgressFn;
	/** Parent folder for the temp extraction (default: the OS temp folder). */
	tmpDir?: string;
	/** Run the database checks inline instead of in a worker. */
	inlineChecks?: boolean;
	/** Read each sound database's sessions and messages (for a restore's comparison with the live store). */
	inventory?: boolean;
};

/** A report while it is being filled in: everything but the verdict and the time. */
export type ReportBase = Omit<VerifyReport, 'status' | 'exitCode' | 'ms'>;

export function finish(report: ReportBase, started: number, unreadable = false): VerifyReport {
	const damaged = report.problems.length > 0 || report.databases.some(d => !d.ok);
	const status = unreadable ? 'unreadable' : damaged ? 'damaged' : 'sound';
	return {
		...report,
		status,
		exitCode: status === 'sound' ? 0 : status === 'damaged' ? 1 : 2,
		ms: performance.now() - started,
	};
}

/** Compares a database check with the manifest's record of it. */
export function judgeDatabase(
	rel: string,
	check: DbCheck,
	expected: Manifest['databases'][number] | undefined,
	walBytes: number | null = null,
): DbReport {
	const problems: string[] = [];
	if (!check.ok) {
		problems.push(`integrity_check: ${check.integrity.slice(0, 3).join('; ')}`);
	}

	if (expected) {
		if (expected.integrity !== 'ok') {
			problems.push(`the backup recorded this database as failing its check when it was taken (${expected.integrity})`);
		}

		problems.push(...compareCounts(expected.counts, check.counts));
		if (expected.schemaVersion !== check.schemaVersion) {
			problems.push(`schema version is ${check.schemaVersion}, the manifest says ${expected.schemaVersion}`);
		}
	}

	return {
		path: rel,
		ok: problems.length === 0,
		integrity: check.integrity,
		counts: check.counts,
		schemaVersion: check.schemaVersion,
		expected: expected ? {counts: expected.counts, schemaVersion: expected.schemaVersion} : null,
		problems,
		walBytes,
		checkMs: Math.round(check.ms),
	};
}

/** The member policy's findings as problems: each refused, clashing or sidecar member (exit 1). */
export function policyProblems(findings: readonly MemberFinding[]): Problem[] {
	return findings.map(f =>
		f.kind === 'sidecar'
			? {
					where: findingWhere(f),
					what: `${f.what} (from a tar, a restore folds a -wal's commits into its database)`,
					sidecar: true,
				}
			: {where: findingWhere(f), what: `${f.what}; a restore refuses this archive`},
	);
}

/**
 * The problem of an artifact with no Hermes store in it (no state.db, no profiles/<name>/state.db): an empty or
 * config-only archive is no sound backup.
 */
export function noStoreProblems(names: readonly string[]): Problem[] {
	return holdsNoStore(names)
		? [
				{
					where: 'archive',
					what: 'no Hermes store in it (no state.db and no profiles/*/state.db): not a backup of a Hermes home',
					noStore: true,
				},
			]
		: [];
}

/** True when the only thing wrong is that no Hermes store is inside. */
export function onlyNoStore(report: {problems: readonly Problem[]; databases: readonly DbReport[]}): boolean {
	return (
		report.problems.length > 0 && report.problems.every(p => p.noStore === true) && report.databases.every(d => d.ok)
	);
}
