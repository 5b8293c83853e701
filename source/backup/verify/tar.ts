/**
 * Verifies a tar.gz or tar (`tar czf` of a Hermes home or of a Docker volume's data folder): gzip
 * integrity (CRC-32 + length trailer), tar integrity (header checksums, sizes, end blocks), and
 * each database's integrity_check and counts, with its -wal replayed as SQLite would; and the
 * member policy (archive/member-policy.ts) over every member: links, devices, "..", clashes and sidecars
 * are damage (a `tar x` of it would write them). The tar is read by archive/tarread.ts (tar-stream over
 * zlib's gunzip).
 */
import fs from 'node:fs';
import path from 'node:path';
import {FailClosed, errorCode, errorMessage} from '../../ground/errors.js';
import {CheckQueue} from './check-queue.js';
import {type ArtifactKind, detectKind} from '../archive/detect-kind.js';
import type {Manifest} from '../manifest.js';
import {TarDamaged, type TarMember, readTar, writeMember} from '../archive/tarread.js';
import {removeTemp} from '../../ground/temps.js';
import {
	type MemberFacts,
	type MemberFinding,
	judgeMembers,
	normalizeName,
	refusalReason,
} from '../archive/member-policy.js';
import {scanWalFile} from '../../store/wal/wal-tail.js';
import {
	type DbReport,
	type LiveFold,
	type VerifyOptions,
	type VerifyReport,
	finish,
	judgeDatabase,
	noStoreProblems,
	policyProblems,
} from './report.js';
import {makeTempDir} from './temp-extraction.js';
import type {Problem} from '../archive/zipread.js';

type Report = {
	bytes: number;
	members: number;
	problems: Problem[];
	notes: string[];
	databases: DbReport[];
	live: LiveFold[];
	checked: Set<string>;
};

/** Database files and their sidecars, grouped by their folder inside the tar. */
type Group = {dir: string; dbs: string[]; wal: Map<string, number>};

/** What the reader saw: the groups extracted into `tmp`, and every member's facts for the member policy. */
type Collected = {groups: Map<string, Group>; facts: MemberFacts[]};

/**
 * Where a member's data goes: database files and sidecars into their group's folder, the rest
 * nowhere (left unread: the reader skips it). A member the policy refuses on its own facts (a link,
 * a device, "..", ...) is never extracted; its name still counts for the clash checks.
 */
async function collectEntry(
	entry: TarMember,
	data: AsyncIterable<Buffer>,
	tmp: string,
	seen: Collected,
	base: Report,
): Promise<void> {
	const facts: MemberFacts = {name: entry.name, type: entry.type, linkTarget: entry.linkName || null, size: entry.size};
	seen.facts.push(facts);
	if (entry.type !== 'file' || refusalReason(facts)) {
		return;
	}

	base.bytes += entry.size;
	const clean = normalizeName(entry.name);
	const folder = path.posix.dirname(clean);
	const name = path.posix.basename(clean);
	const isDb = name.endsWith('.db');
	const isWal = name.endsWith('.db-wal');
	const isJournal = name.endsWith('.db-journal');
	if (!isDb && !isWal && !isJournal) {
		return;
	}

	let group = seen.groups.get(folder);
	if (!group) {
		group = {dir: path.join(tmp, `g${seen.groups.size}`), dbs: [], wal: new Map()};
		fs.mkdirSync(group.dir);
		seen.groups.set(folder, group);
	}

	if (isDb) {
		group.dbs.push(name);
	} else if (isWal) {
		group.wal.set(name.slice(0, -4), entry.size);
	}

	if (fs.existsSync(path.join(group.dir, name))) {
		// A repeated name: the policy reports it; the first copy is the one checked.
		return;
	}

	await writeMember(data, path.join(group.dir, name), entry.size);
}

/** Streams the file (gunzipped when `gz`) through the reader; the archive's damage is a problem, not a throw. */
async function readStream(
	file: string,
	gz: boolean,
	size: number,
	tmp: string,
	seen: Collected,
	base: Report,
	options: VerifyOptions,
): Promise<number> {
	try {
		const r = await readTar(file, {
			gz,
			onMember: async (m, data) => collectEntry(m, data, tmp, seen, base),
			onRawBytes: done => options.onProgress?.({phase: 'members', label: path.basename(file), done, total: size}),
		});
		return r.members;
	} catch (error) {
		if (error instanceof TarDamaged) {
			base.problems.push({where: error.where, what: `${error.layer}: ${error.message}`});
			return seen.facts.length;
		}

		if (error instanceof FailClosed) {
			throw error;
		}

		base.problems.push({where: file, what: `unreadable (${errorCode(error) ?? errorMessage(error)})`});
		return seen.facts.length;
	}
}

/** The commits a -wal holds (its valid prefix, as SQLite's recovery reads it): what a restore folds. */
function walCommits(file: string): {commits: number; frames: number} {
	const scan = scanWalFile(file);
	return {commits: scan.commitFrames, frames: scan.lastCommitFrame};
}

/**
 * Queues every extracted database for its check, with its -wal replayed; an empty file beside a -wal is not checked.
 */
function queueDatabases(groups: Map<string, Group>, queue: CheckQueue, base: Report): void {
	for (const [folder, group] of groups) {
		for (const name of group.dbs) {
			const rel = folder === '.' ? name : `${folder}/${name}`;
			const wal = group.wal.get(name) ?? null;
			if (fs.statSync(path.join(group.dir, name)).size === 0) {
				base.notes.push(
					`${rel} is an empty file (0 bytes)` +
						(wal ? ` beside a ${wal}-byte -wal: SQLite would delete that WAL on open; do not restore this copy` : ''),
				);
				if (wal) {
					base.problems.push({where: rel, what: 'the database file is 0 bytes beside a non-empty -wal'});
				}

				continue;
			}

			const file = path.join(group.dir, name);
			base.checked.add(rel);
			if (wal !== null) {
				// Read before the check opens the pair (the -wal is our private extraction, never evidence).
				base.live.push({
					database: rel,
					wal: `${rel}-wal`,
					walBytes: wal,
					...(wal > 0 ? walCommits(`${file}-wal`) : {commits: 0, frames: 0}),
					sidecars: [],
				});
			}

			// The queue removes the checked file; keep the -wal until then (it removes the sidecars too).
			queue.add(file, check => judgeDatabase(rel, check, undefined, wal));
		}
	}
}

/**
 * The -wal and -shm of a database that was checked (a tar of a running volume holds them): no damage.
 * A restore folds the -wal's commits into the database and writes neither as a file, so they are
 * each a note on that database's fold; any other sidecar stays a finding of the member policy.
 */
function liveSidecars(findings: readonly MemberFinding[], base: Report): MemberFinding[] {
	const folds = new Map(base.live.map(l => [l.database, l]));
	const rest: MemberFinding[] = [];
	for (const f of findings) {
		const name = normalizeName(f.name);
		const suffix = ['-wal', '-shm'].find(s => name.endsWith(s));
		const stem = suffix ? name.slice(0, -suffix.length) : '';
		if (f.kind === 'sidecar' && suffix === '-shm' && !folds.has(stem) && base.checked.has(stem)) {
			// A -shm with no -wal beside it: nothing to fold, still never written.
			const fold: LiveFold = {database: stem, wal: null, walBytes: null, commits: 0, frames: 0, sidecars: []};
			folds.set(stem, fold);
			base.live.push(fold);
		}

		const fold = f.kind === 'sidecar' && suffix ? folds.get(stem) : undefined;
		if (fold && !fold.sidecars.includes(name)) {
			fold.sidecars.push(name);
		} else {
			rest.push(f);
		}
	}

	for (const l of base.live) {
		base.notes.push(liveNote(l));
	}

	return rest;
}

/** One note per database tarred while its agent ran: the commits a restore folds, the sidecars it never writes. */
function liveNote(l: LiveFold): string {
	const commits = l.commits === 1 ? '1 commit' : `${l.commits} commits`;
	if (l.wal === null) {
		return `${l.sidecars.join(' and ')} beside ${l.database} (no -wal): a SQLite sidecar, never restored as a file`;
	}

	const folds =
		l.commits > 0
			? `holds ${commits} (${l.frames} frames) that a restore folds into ${l.database} (the check replayed them)`
			: 'holds no committed frame: nothing to fold';
	return (
		`taken while an agent had ${l.database} open: its ` +
		`-wal ${folds}; ${l.sidecars.length > 0 ? l.sidecars.join(' and ') : 'its sidecars'} ` +
		`${l.sidecars.length === 1 ? 'is' : 'are'} ` +
		`never restored as files`
	);
}

export async function verifyTar(file: string, options: VerifyOptions = {}): Promise<VerifyReport> {
	const started = performance.now();
	const gz = detectKind(file) === 'tar.gz';
	const base = {
		path: path.resolve(file),
		kind: (gz ? 'tar.gz' : 'tar') as ArtifactKind,
		manifest: null as Manifest | null,
		sealed: false,
		seal: null as string | null,
		members: 0,
		bytes: 0,
		problems: [] as Problem[],
		databases: [] as DbReport[],
		notes: [] as string[],
		live: [] as LiveFold[],
		checked: new Set<string>(),
	};
	const tmp = makeTempDir(options);
	const seen: Collected = {groups: new Map(), facts: []};
	const queue = new CheckQueue(options.inlineChecks ?? false, options.inventory ?? false);
	try {
		const size = fs.statSync(file).size;
		base.members = await readStream(file, gz, size, tmp, seen, base, options);
		if (gz && base.problems.length === 0 && seen.facts.length === 0) {
			base.problems.push({where: 'archive', what: 'the gzip stream holds no tar entries'});
		}

		queueDatabases(seen.groups, queue, base);
		base.problems.push(...policyProblems(liveSidecars(judgeMembers(seen.facts), base)));
		base.problems.push(...noStoreProblems(seen.facts.filter(f => f.type === 'file').map(f => normalizeName(f.name))));
		base.databases = await queue.all();
		if (base.databases.length === 0 && base.problems.length === 0) {
			base.notes.push('no *.db file in this archive: only gzip and tar integrity were checked');
		}

		const {checked: _checked, ...report} = base;
		return finish(report, started);
	} finally {
		await queue.settle();
		removeTemp(tmp);
	}
}
