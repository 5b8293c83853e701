/**
 * The restore's types in one file: what a restore reads (a source and its members), how the
 * archive maps onto the target (its layout), what it plans, writes, re-checks and compares, its
 * options and its result. The restore's files import them from here and never each other's types.
 */
import type {Manifest} from '../manifest.js';
import type {ProgressFn} from '../progress.js';
import type {VerifyReport} from '../verify/verify.js';

export type SourceMember = {
	/** Where it lands, relative to the target (the archive path without the Hermes root's prefix). */
	path: string;
	/** Its name in the archive (normalized). */
	archivePath: string;
	size: number;
	mode: number;
	/** What to re-check it against: the hfx manifest's, or (no hashes in the archive) what was staged. */
	sha256: string | null;
	crc32: string | null;
	kind: 'file' | 'db';
};

export type Source = {
	members: SourceMember[];
	layout: Layout;
	/** Hands each selected member's bytes to `fn`, in the archive's own order (a tar is read once). */
	each: (
		selected: SourceMember[],
		fn: (m: SourceMember, data: AsyncIterable<Buffer>) => Promise<void>,
	) => Promise<void>;
	close: () => void;
};

/** How the archive maps onto the target, and what of it is not restored. */
export type Layout = {
	/** The Hermes root inside the archive ('' its top); null for an hfx archive, whose manifest names the paths. */
	root: string | null;
	/** Members outside the Hermes root: not restored. */
	outside: string[];
	/** Runtime state of the machine the archive was taken on (Hermes' import skips it too): not restored. */
	runtime: string[];
	/** SQLite sidecars in the archive: never restored as files. */
	sidecars: string[];
	/** -wal files whose committed frames were folded into the restored database. */
	folded: Array<{db: string; wal: string; frames: number; walBytes: number}>;
};

export type Mapping = {root: string | null; entries: Array<{archive: string; target: string}>};

/** Where one member lands, and whether a file is there already. */
export type PlannedMember = {m: SourceMember; dest: string; exists: boolean};

/**
 * A restored database's expected counts and schema version (the hfx manifest's, or the verified archive's), by its path
 * under the target.
 */
export type Expected = (rel: string) => {counts: Record<string, number>; schemaVersion: number | null} | undefined;

export type RestoredDb = {
	path: string;
	ok: boolean;
	integrity: string[];
	counts: Record<string, number>;
	schemaVersion: number | null;
	problems: string[];
};

export type Committed = {
	restored: string[];
	failed: Array<{path: string; reason: string}>;
	keptAside: string[];
	preDir: string | null;
	preCreated: boolean;
};

export type Side = {sessions: number; messages: number};

export type DbComparison = {
	/** The database's path inside the archive (and under the target). */
	path: string;
	live: string | null;
	/** In the live store, not in the archive: what the restore would drop. */
	dropped: Side;
	/** In the archive, not in the live store: what the restore would bring back. */
	added: Side;
	error: string | null;
};

/** A trail the restore kept (the archive's copy not written) or wrote its entry into. */
export type RestoreTrail = {trail: string; keptLive: boolean; seq: number | null; problem: string | null};

export type RestoreRecord = {
	archive: string;
	argv: string[];
	status: 'restored' | 'partial';
	exitCode: number;
	restored: number;
	failed: number;
	preRestoreDir: string | null;
};

/**
 * What the restore re-checked, in words that claim nothing the archive cannot back (a tar and a Hermes archive carry no
 * hashes).
 */
export type Checks = {members: string; databases: string};

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
	/** The command line, for the audit trail's restore entry. */
	argv?: string[];
	/** Verify and compare with the live store only (what the restore would drop); write nothing. */
	dryRun?: boolean;
};

export type RestoreResult = {
	archive: string;
	target: string;
	exitCode: 0 | 1 | 2;
	/**
	 * dry-run: nothing written; exit 0 when it would drop nothing the live store has, 1 when it would (or cannot tell).
	 */
	status: 'restored' | 'partial' | 'dry-run';
	verify: VerifyReport;
	restored: string[];
	failed: Array<{path: string; reason: string}>;
	preRestoreDir: string | null;
	/** Files moved aside into preRestoreDir (old -wal/-shm/-journal) and kept (replaced files). */
	keptAside: string[];
	postProblems: string[];
	databases: RestoredDb[];
	manifest: Manifest | null;
	/** The audit trails beside the restored stores: the live one kept, and the restore's entry in each. */
	audit: RestoreTrail[];
	/** Each archived store against the live one it would replace: what the restore drops and brings back. */
	comparison: DbComparison[];
	/** Where the Hermes root is in the archive, what is not restored, what -wal was folded. */
	layout: Layout;
	/** Each restored member's archive path and target path. */
	mapping: Mapping;
	/** What was re-checked, in words. */
	checks: Checks;
	ms: number;
};
