/**
 * Verifies a tar.gz or tar (`tar czf` of a Hermes home or of a Docker volume's data folder): gzip
 * integrity (CRC-32 + length trailer), tar integrity (header checksums, sizes, end blocks), and
 * each database's integrity_check and counts, with its -wal replayed as SQLite would; and the
 * member policy (member-policy.ts) over every member: links, devices, "..", clashes and sidecars
 * are damage (a `tar x` of it would write them).
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import {errorCode, errorMessage} from '../errors.js';
import {CheckQueue} from './check-queue.js';
import {type ArtifactKind, detectKind} from './detect-kind.js';
import type {Manifest} from './manifest.js';
import {TarDamaged, type TarEntry, TarReader, type TarSink} from './tar.js';
import {removeTemp} from './temps.js';
import {type MemberFacts, judgeMembers, normalizeName, refusalReason} from './member-policy.js';
import {type DbReport, type VerifyOptions, type VerifyReport, finish, judgeDatabase, policyProblems} from './verify-report.js';
import {makeTempDir} from './verify-temp.js';
import type {Problem} from './zipread.js';

type Report = {bytes: number; members: number; problems: Problem[]; notes: string[]; databases: DbReport[]};

/** Database files and their sidecars, grouped by their folder inside the tar. */
type Group = {dir: string; dbs: string[]; wal: Map<string, number>};

/** What the reader saw: the groups extracted into `tmp`, and every member's facts for the member policy. */
type Collected = {groups: Map<string, Group>; facts: MemberFacts[]};

/**
 * Where a member's data goes: database files and sidecars into their group's folder, the rest
 * nowhere. A member the policy refuses on its own facts (a link, a device, "..", ...) is never
 * extracted; its name still counts for the clash checks.
 */
function collectEntry(entry: TarEntry, tmp: string, seen: Collected, base: Report): TarSink {
	const facts: MemberFacts = {name: entry.name, type: entry.type, linkTarget: entry.linkName || null, size: entry.size};
	seen.facts.push(facts);
	if (entry.type !== 'file' || refusalReason(facts)) {
		return null;
	}

	base.bytes += entry.size;
	const clean = normalizeName(entry.name);
	const folder = path.posix.dirname(clean);
	const name = path.posix.basename(clean);
	const isDb = name.endsWith('.db');
	const isWal = name.endsWith('.db-wal');
	const isJournal = name.endsWith('.db-journal');
	if (!isDb && !isWal && !isJournal) {
		return null;
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
		return null;
	}

	const fd = fs.openSync(path.join(group.dir, name), 'wx', 0o600);
	const sink: TarSink = {
		write(chunk) {
			fs.writeSync(fd, chunk);
		},
		end() {
			fs.closeSync(fd);
		},
	};
	return sink;
}

/** Streams the file (gunzipped when `gz`) through the reader; a damaged stream is a problem, not a throw. */
async function readStream(file: string, gz: boolean, size: number, reader: TarReader, base: Report, options: VerifyOptions): Promise<void> {
	const input = fs.createReadStream(file, {highWaterMark: 1 << 20});
	let raw = 0;
	input.on('data', (c: string | Buffer) => {
		raw += c.length;
		options.onProgress?.({phase: 'members', label: path.basename(file), done: raw, total: size});
	});
	const source = gz ? input.pipe(zlib.createGunzip()) : input;
	input.on('error', error => (source as NodeJS.ReadableStream & {destroy: (e: Error) => void}).destroy(error));
	try {
		for await (const chunk of source) {
			reader.push(chunk as Buffer);
		}

		reader.finish();
	} catch (error) {
		if (error instanceof TarDamaged) {
			base.problems.push({where: `tar stream byte ${error.offset}`, what: `tar: ${error.message}`});
		} else if (gz) {
			base.problems.push({where: `compressed stream (about byte ${raw} of ${size})`, what: `gzip: ${errorMessage(error)}${errorCode(error) ? ` (${errorCode(error)})` : ''}`});
		} else {
			base.problems.push({where: file, what: `unreadable (${errorMessage(error)})`});
		}
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
		const reader = new TarReader(entry => collectEntry(entry, tmp, seen, base));
		await readStream(file, gz, size, reader, base, options);
		if (gz && base.problems.length === 0 && seen.facts.length === 0) {
			base.problems.push({where: 'archive', what: 'the gzip stream holds no tar entries'});
		}

		if (reader.trailingGarbage > 0) {
			base.problems.push({where: 'after the end-of-archive blocks', what: `${reader.trailingGarbage} non-zero bytes`});
		}

		base.members = reader.entries;
		base.problems.push(...policyProblems(judgeMembers(seen.facts)));

		const queue = new CheckQueue(options.inlineChecks ?? false);
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
