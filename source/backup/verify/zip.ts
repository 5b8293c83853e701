/**
 * Verifies a zip (ours or Hermes'): structure, seal, every member's CRC-32 and sha256 against the
 * manifest, the member policy (archive/member-policy.ts: names, types, clashes, sidecars), and every database's
 * integrity_check and counts on a temp
 * extraction, compared with the manifest.
 */
import fs from 'node:fs';
import path from 'node:path';
import {FailClosed, errorMessage} from '../../ground/errors.js';
import {CheckQueue} from './check-queue.js';
import {crcHex} from '../digest.js';
import {MANIFEST_NAME, type Manifest, ManifestError, parseManifest} from '../manifest.js';
import {removeTemp} from '../../ground/temps.js';
import {
	type DbReport,
	type ReportBase,
	type VerifyOptions,
	type VerifyReport,
	finish,
	judgeDatabase,
	noStoreProblems,
	policyProblems,
} from './report.js';
import {assertRoomFor, extractionFailure, makeTempDir} from './temp-extraction.js';
import {judgeMembers, normalizeName} from '../archive/member-policy.js';
import {
	type OpenedZip,
	type Problem,
	ZipUnreadable,
	openZip,
	readMember,
	structuralProblems,
} from '../archive/zipread.js';
import {createExclusive} from '../../ground/safe-create.js';

const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1');

type ZipBase = ReportBase & {kind: 'zip'};
type ZipMember = OpenedZip['members'][number];

/** What the member loop shares: the manifest's records, the checks queued, the bytes read so far. */
type MemberRun = {
	z: OpenedZip;
	tmp: string;
	byPath: Map<string, Manifest['members'][number]>;
	dbByPath: Map<string, Manifest['databases'][number]>;
	/** Members the policy refused: read for their CRC, never extracted. */
	refused: Set<number>;
	queue: CheckQueue;
	total: number;
	done: number;
	dbIndex: number;
	options: VerifyOptions;
};

export async function verifyZip(file: string, options: VerifyOptions = {}): Promise<VerifyReport> {
	const started = performance.now();
	const base: ZipBase = {
		path: path.resolve(file),
		kind: 'zip' as const,
		manifest: null as Manifest | null,
		sealed: false,
		seal: null as string | null,
		members: 0,
		bytes: 0,
		problems: [] as Problem[],
		databases: [] as DbReport[],
		notes: [] as string[],
	};
	let z: OpenedZip;
	try {
		z = await openZip(file);
	} catch (error) {
		if (error instanceof ZipUnreadable) {
			base.problems.push({where: 'archive', what: error.message});
			return finish(base, started, true);
		}

		throw error;
	}

	const tmp = makeTempDir(options);
	const refused = new Set<number>();
	const queue = new CheckQueue(options.inlineChecks ?? false, options.inventory ?? false);
	try {
		base.sealed = z.seal !== null;
		base.seal = z.seal;
		base.bytes = z.size;
		const files = z.members.filter(m => m.type !== 'dir');
		base.members = files.filter(m => m.name !== MANIFEST_NAME).length;
		base.problems.push(...nameProblems(z, refused));
		checkStructure(z, file, base, options);
		await readManifest(z, base);
		const manifest = base.manifest;
		if (manifest && !z.seal) {
			base.problems.push({
				where: `end record comment (byte ${z.eocdOffset + 22})`,
				what: 'an hfx archive must carry its seal in the comment; it is missing or damaged',
			});
		}

		base.problems.push(...noStoreProblems(files.filter(m => m.name !== MANIFEST_NAME).map(m => normalizeName(m.name))));
		await checkMembers(z, files, tmp, base, options, refused, queue);
		if (manifest) {
			checkAgainstManifest(manifest, files, base);
		}

		options.onProgress?.({phase: 'check', label: 'databases', done: 0, total: queue.results.length});
		base.databases = await queue.all();
		return finish(base, started);
	} finally {
		z.close();
		await queue.settle();
		removeTemp(tmp);
	}
}

/** The member policy over every member (names, types, clashes, sidecars); the refused ones are never extracted. */
function nameProblems(z: OpenedZip, refused: Set<number>): Problem[] {
	const findings = judgeMembers(z.members.map(m => ({name: m.name, type: m.type, size: m.entry.uncompressedSize})));
	for (const f of findings) {
		if (f.kind !== 'sidecar') {
			refused.add(f.index);
		}
	}

	return policyProblems(findings);
}

/** The zip's structure and its seal (every byte before the end record), with progress. */
function checkStructure(z: OpenedZip, file: string, base: ZipBase, options: VerifyOptions): void {
	options.onProgress?.({phase: 'seal', label: path.basename(file), done: 0, total: z.eocdOffset});
	let sealDone = 0;
	const structure = structuralProblems(z, {
		onBytes(n) {
			sealDone += n;
			options.onProgress?.({phase: 'seal', label: path.basename(file), done: sealDone, total: z.eocdOffset});
		},
	});
	base.problems.push(...structure.problems);
	if (!z.seal && !z.comment.toString('latin1').includes('sha256:')) {
		base.notes.push(
			'no hfx seal in the archive comment (not written by hfx backup): checked CRC-32s, structure and databases only',
		);
	}
}

/** The manifest first: read, CRC-checked and parsed into base.manifest, or the problem said. */
async function readManifest(z: OpenedZip, base: ZipBase): Promise<void> {
	const manifestMember = z.members.find(m => m.name === MANIFEST_NAME);
	if (manifestMember) {
		const chunks: Buffer[] = [];
		try {
			const d = await readMember(z, manifestMember, c => chunks.push(c));
			if (!d.crcOk) {
				base.problems.push({
					where: `member ${MANIFEST_NAME}`,
					what: `CRC-32 mismatch (data ${crcHex(d.crc32)}, central directory ${crcHex(manifestMember.entry.crc32)})`,
				});
			}

			base.manifest = parseManifest(Buffer.concat(chunks));
		} catch (error) {
			base.problems.push({
				where: `member ${MANIFEST_NAME}`,
				what: error instanceof ManifestError ? error.message : `unreadable (${errorMessage(error)})`,
			});
		}
	} else if (z.seal) {
		base.problems.push({where: 'archive', what: 'manifest.json is missing from an hfx archive'});
	} else {
		base.notes.push('no manifest.json (a Hermes archive?): members checked by CRC-32 only');
	}
}

/** Every member but the manifest, in archive order; databases extracted and queued for their check. */
async function checkMembers(
	z: OpenedZip,
	files: ZipMember[],
	tmp: string,
	base: ZipBase,
	options: VerifyOptions,
	refused: Set<number>,
	queue: CheckQueue,
): Promise<void> {
	const manifest = base.manifest;
	const byPath = new Map((manifest?.members ?? []).map(m => [m.path, m]));
	const run: MemberRun = {
		z,
		tmp,
		byPath,
		dbByPath: new Map((manifest?.databases ?? []).map(d => [d.path, d])),
		queue,
		refused,
		total: files.reduce((a, m) => a + m.entry.uncompressedSize, 0),
		done: 0,
		dbIndex: 0,
		options,
	};
	const dbSizes = files
		.filter(m => (byPath.get(m.name)?.kind ?? (m.name.endsWith('.db') ? 'db' : 'file')) === 'db')
		.map(m => m.entry.uncompressedSize);
	assertRoomFor(tmp, Math.max(0, ...dbSizes) * 2);
	for (const m of files) {
		if (m.name === MANIFEST_NAME) {
			continue;
		}

		await checkMember(run, m, base);
	}
}

/** One member: read (a database into the temp extraction), compared with the archive and the manifest. */
async function checkMember(run: MemberRun, m: ZipMember, base: ZipBase): Promise<void> {
	const where = `member ${JSON.stringify(m.name)}`;
	const expected = run.byPath.get(m.name);
	if (base.manifest && !expected) {
		base.problems.push({where, what: 'not listed in the manifest'});
	}

	const isDb = expected ? expected.kind === 'db' : m.name.endsWith('.db');
	let out: number | undefined;
	let dbFile: string | undefined;
	if (isDb && !run.refused.has(m.index)) {
		dbFile = path.join(run.tmp, `db-${run.dbIndex++}.db`);
		out = createExclusive(dbFile, 0o600, 'a database under check');
	}

	try {
		const d = await readMember(run.z, m, chunk => {
			if (out !== undefined) {
				try {
					fs.writeSync(out, chunk);
				} catch (error) {
					throw extractionFailure(run.tmp, error);
				}
			}

			run.done += chunk.length;
			run.options.onProgress?.({phase: 'members', label: m.name, done: run.done, total: run.total});
		});
		base.problems.push(...digestProblems(where, m, d, expected));
	} catch (error) {
		if (error instanceof FailClosed) {
			throw error;
		}

		base.problems.push({where, what: `data unreadable (${errorMessage(error)})`});
		if (dbFile) {
			fs.closeSync(out!);
			out = undefined;
			fs.rmSync(dbFile, {force: true});
			dbFile = undefined;
		}
	} finally {
		if (out !== undefined) {
			fs.closeSync(out);
		}
	}

	if (dbFile) {
		queueDatabase(run, m, dbFile, expected, base);
	}
}

/** A member's bytes as read against its central-directory CRC-32 and the manifest's record. */
function digestProblems(
	where: string,
	m: ZipMember,
	d: Awaited<ReturnType<typeof readMember>>,
	expected: Manifest['members'][number] | undefined,
): Problem[] {
	const problems: Problem[] = [];
	if (!d.crcOk) {
		problems.push({
			where,
			what: `CRC-32 mismatch: the data gives ${crcHex(d.crc32)}, the archive says ${crcHex(m.entry.crc32)}`,
		});
	}

	if (expected) {
		if (d.size !== expected.size) {
			problems.push({where, what: `size is ${d.size}, the manifest says ${expected.size}`});
		}

		if (crcHex(d.crc32) !== expected.crc32) {
			problems.push({where, what: `CRC-32 ${crcHex(d.crc32)} differs from the manifest's ${expected.crc32}`});
		}

		if (d.sha256 !== expected.sha256) {
			problems.push({where, what: 'sha256 differs from the manifest'});
		}

		if (m.mode !== null && m.mode !== expected.mode) {
			problems.push({
				where,
				what: `mode ${m.mode.toString(8)} differs from the manifest's ${expected.mode.toString(8)}`,
			});
		}
	}

	return problems;
}

/** An extracted database goes to the check queue; an empty file named *.db is noted, not checked. */
function queueDatabase(
	run: MemberRun,
	m: ZipMember,
	dbFile: string,
	expected: Manifest['members'][number] | undefined,
	base: ZipBase,
): void {
	const head = Buffer.alloc(16);
	const fd = fs.openSync(dbFile, 'r');
	fs.readSync(fd, head, 0, 16, 0);
	fs.closeSync(fd);
	if (!head.equals(SQLITE_MAGIC) && fs.statSync(dbFile).size === 0 && (!expected || expected.size === 0)) {
		base.notes.push(`${m.name} is an empty file (0 bytes), not checked as a database`);
		fs.rmSync(dbFile, {force: true});
	} else {
		const rel = m.name;
		run.queue.add(dbFile, check => judgeDatabase(rel, check, run.dbByPath.get(rel)));
	}
}

/** What the manifest lists but the archive lacks, and an incomplete backup noted. */
function checkAgainstManifest(manifest: Manifest, files: ZipMember[], base: ZipBase): void {
	const inZip = new Set(files.map(m => m.name));
	for (const m of manifest.members) {
		if (!inZip.has(m.path)) {
			base.problems.push({
				where: `member ${JSON.stringify(m.path)}`,
				what: 'listed in the manifest but missing from the archive',
			});
		}
	}

	for (const d of manifest.databases) {
		if (!inZip.has(d.path)) {
			base.problems.push({
				where: `database ${JSON.stringify(d.path)}`,
				what: 'listed in the manifest but missing from the archive',
			});
		}
	}

	if (!manifest.complete) {
		base.notes.push(
			`the backup was incomplete when ` +
				`taken: ${manifest.skipped.map(s => `${s.path} (${s.reason})`).join('; ') || 'see its manifest'}`,
		);
	}
}
