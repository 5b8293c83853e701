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
import {FailClosed, errorCode, errorMessage} from '../../errors.js';
import {CheckQueue} from './check-queue.js';
import {type ArtifactKind, detectKind} from '../archive/detect-kind.js';
import type {Manifest} from '../manifest.js';
import {TarDamaged, type TarMember, readTar, writeMember} from '../archive/tarread.js';
import {removeTemp} from '../../temps.js';
import {type MemberFacts, judgeMembers, normalizeName, refusalReason} from '../archive/member-policy.js';
import {type DbReport, type VerifyOptions, type VerifyReport, finish, judgeDatabase, noStoreProblems, policyProblems} from './report.js';
import {makeTempDir} from './temp-extraction.js';
import type {Problem} from '../archive/zipread.js';

type Report = {bytes: number; members: number; problems: Problem[]; notes: string[]; databases: DbReport[]};

/** Database files and their sidecars, grouped by their folder inside the tar. */
type Group = {dir: string; dbs: string[]; wal: Map<string, number>};

/** What the reader saw: the groups extracted into `tmp`, and every member's facts for the member policy. */
type Collected = {groups: Map<string, Group>; facts: MemberFacts[]};

/**
 * Where a member's data goes: database files and sidecars into their group's folder, the rest
 * nowhere (left unread: the reader skips it). A member the policy refuses on its own facts (a link,
 * a device, "..", ...) is never extracted; its name still counts for the clash checks.
 */
async function collectEntry(entry: TarMember, data: AsyncIterable<Buffer>, tmp: string, seen: Collected, base: Report): Promise<void> {
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
async function readStream(file: string, gz: boolean, size: number, tmp: string, seen: Collected, base: Report, options: VerifyOptions): Promise<number> {
	try {
		const r = await readTar(file, {gz, onMember: async (m, data) => collectEntry(m, data, tmp, seen, base), onRawBytes: done => options.onProgress?.({phase: 'members', label: path.basename(file), done, total: size})});
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

/** Queues every extracted database for its check, with its -wal replayed; an empty file beside a -wal is not checked. */
function queueDatabases(groups: Map<string, Group>, queue: CheckQueue, base: Report): void {
	for (const [folder, group] of groups) {
		for (const name of group.dbs) {
			const rel = folder === '.' ? name : `${folder}/${name}`;
			const wal = group.wal.get(name) ?? null;
			if (fs.statSync(path.join(group.dir, name)).size === 0) {
				base.notes.push(`${rel} is an empty file (0 bytes)${wal ? ` beside a ${wal}-byte -wal: SQLite would delete that WAL on open; do not restore this copy` : ''}`);
				if (wal) {
					base.problems.push({where: rel, what: 'the database file is 0 bytes beside a non-empty -wal'});
				}

				continue;
			}

			if (wal !== null && wal > 0) {
				base.notes.push(`${rel} came with a ${wal}-byte -wal: the tar was made while an agent had it open (the check replays the WAL, as the agent would)`);
			}

			const file = path.join(group.dir, name);
			// The queue removes the checked file; keep the -wal until then (it removes the sidecars too).
			queue.add(file, check => judgeDatabase(rel, check, undefined, wal));
		}
	}
}

export async function verifyTar(file: string, options: VerifyOptions = {}): Promise<VerifyReport> {
	const started = performance.now();
	const gz = detectKind(file) === 'tar.gz';
	const base = {path: path.resolve(file), kind: (gz ? 'tar.gz' : 'tar') as ArtifactKind, manifest: null as Manifest | null, sealed: false, seal: null as string | null, members: 0, bytes: 0, problems: [] as Problem[], databases: [] as DbReport[], notes: [] as string[]};
	const tmp = makeTempDir(options);
	const seen: Collected = {groups: new Map(), facts: []};
	try {
		const size = fs.statSync(file).size;
		base.members = await readStream(file, gz, size, tmp, seen, base, options);
		if (gz && base.problems.length === 0 && seen.facts.length === 0) {
			base.problems.push({where: 'archive', what: 'the gzip stream holds no tar entries'});
		}

		base.problems.push(...policyProblems(judgeMembers(seen.facts)));
		base.problems.push(...noStoreProblems(seen.facts.filter(f => f.type === 'file').map(f => normalizeName(f.name))));

		const queue = new CheckQueue(options.inlineChecks ?? false, options.inventory ?? false);
		queueDatabases(seen.groups, queue, base);
		base.databases = await queue.all();
		if (base.databases.length === 0 && base.problems.length === 0) {
			base.notes.push('no *.db file in this archive: only gzip and tar integrity were checked');
		}

		return finish(base, started);
	} finally {
		removeTemp(tmp);
	}
}
