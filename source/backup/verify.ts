/**
 * `hfx verify ARCHIVE|SNAPSHOT`: is this backup sound, byte by byte and by SQLite?
 *
 *   zip (ours or Hermes'): structure, seal, every member's CRC-32 and sha256 against the
 *     manifest, unsafe member names, and every database's integrity_check and counts on a temp
 *     extraction, compared with the manifest.
 *   snapshot folder: every file against the manifest (sizes, sha256), databases checked on a
 *     temp copy, files the manifest does not know about.
 *   tar.gz / tar (`tar czf` of a Hermes home or of a Docker volume's data folder): gzip integrity
 *     (CRC-32 + length trailer), tar integrity (header checksums, sizes, end blocks), and the
 *     same database checks, with each database's -wal replayed as SQLite would.
 *
 * Exit 0 sound, 1 damaged (what and where), 2 unreadable.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import {FailClosed, errorCode, errorMessage} from '../errors.js';
import {type DbCheck, compareCounts} from './db-check.js';
import {Hasher, crcHex, registerTemp, removeTemp} from './fsutil.js';
import {MANIFEST_NAME, type Manifest, ManifestError, parseManifest} from './manifest.js';
import type {ProgressFn} from './progress.js';
import {appendRecord, fingerprintOf} from './records.js';
import {checkDatabaseFile} from './sqlite-copy.js';
import {TarDamaged, TarReader, type TarSink} from './tar.js';
import {type OpenedZip, type Problem, ZipUnreadable, openZip, readMember, structuralProblems, unsafeNameReason} from './zipread.js';

export type ArtifactKind = 'zip' | 'snapshot' | 'tar.gz' | 'tar' | 'unknown';

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
	ms: number;
};

export type VerifyOptions = {
	onProgress?: ProgressFn;
	/** Parent folder for the temp extraction (default: the OS temp folder). */
	tmpDir?: string;
	/** Run the database checks inline instead of in a worker. */
	inlineChecks?: boolean;
};

const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1');

export function detectKind(p: string): ArtifactKind {
	let st: fs.Stats;
	try {
		st = fs.statSync(p);
	} catch {
		return 'unknown';
	}

	if (st.isDirectory()) {
		return 'snapshot';
	}

	let head = Buffer.alloc(0);
	try {
		const fd = fs.openSync(p, 'r');
		try {
			head = Buffer.alloc(512);
			const n = fs.readSync(fd, head, 0, 512, 0);
			head = head.subarray(0, n);
		} finally {
			fs.closeSync(fd);
		}
	} catch {
		return 'unknown';
	}

	if (head.length >= 4 && head[0] === 0x50 && head[1] === 0x4b && (head[2] === 3 || head[2] === 5) && (head[3] === 4 || head[3] === 6)) {
		return 'zip';
	}

	if (head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b) {
		return 'tar.gz';
	}

	if (head.length >= 263 && head.subarray(257, 262).toString('latin1') === 'ustar') {
		return 'tar';
	}

	// A damaged zip whose first bytes were hit: still try the zip reader when the name says so.
	return /\.zip$/i.test(p) ? 'zip' : 'unknown';
}

function finish(report: Omit<VerifyReport, 'status' | 'exitCode' | 'ms'>, started: number, unreadable = false): VerifyReport {
	const damaged = report.problems.length > 0 || report.databases.some(d => !d.ok);
	const status = unreadable ? 'unreadable' : (damaged ? 'damaged' : 'sound');
	return {...report, status, exitCode: status === 'sound' ? 0 : (status === 'damaged' ? 1 : 2), ms: performance.now() - started};
}

/** A write to our temp extraction failed: that is this machine's problem, not damage (exit 2). */
function extractionFailure(dir: string, error: unknown): FailClosed {
	const code = errorCode(error) ?? 'error';
	return new FailClosed({file: dir, kind: 'no-space', reason: `cannot write the temp extraction for the database checks (${code}: ${errorMessage(error)}); the archive was not judged`, next: 'free space there or point TMPDIR at a larger folder, then verify again'});
}

/** Refuses up front when the temp folder cannot hold the largest database to check. */
function assertRoomFor(dir: string, bytes: number): void {
	try {
		const st = fs.statfsSync(dir);
		const free = Number(st.bavail) * Number(st.bsize);
		if (free < bytes + 1_048_576) {
			throw new FailClosed({file: dir, kind: 'no-space', reason: `not enough free space for the temp extraction of the databases (${Math.ceil(bytes / 1_048_576)} MiB needed, ${Math.floor(free / 1_048_576)} MiB free)`, next: 'point TMPDIR at a larger folder, then verify again'});
		}
	} catch (error) {
		if (error instanceof FailClosed) {
			throw error;
		}
	}
}

function makeTempDir(options: VerifyOptions): string {
	const dir = fs.mkdtempSync(path.join(options.tmpDir ?? os.tmpdir(), 'hfx-verify-'));
	registerTemp(dir);
	return dir;
}

/** Compares a database check with the manifest's record of it. */
export function judgeDatabase(rel: string, check: DbCheck, expected: Manifest['databases'][number] | undefined, walBytes: number | null = null): DbReport {
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

/** Runs database checks one at a time behind the reading (a worker thread each, in the CLI). */
class CheckQueue {
	private chain: Promise<void> = Promise.resolve();
	readonly results: Array<Promise<DbReport>> = [];
	constructor(private readonly inline: boolean) {}

	add(file: string, judge: (check: DbCheck) => DbReport): void {
		const result = this.chain.then(async () => judge(await checkDatabaseFile(file, {inline: this.inline})));
		this.chain = result.then(() => {
			fs.rmSync(file, {force: true});
			for (const s of ['-wal', '-shm', '-journal']) {
				fs.rmSync(`${file}${s}`, {force: true});
			}
		}, () => {});
		this.results.push(result);
	}

	async all(): Promise<DbReport[]> {
		return Promise.all(this.results);
	}
}

// ---------------------------------------------------------------------------------------------
// zip

export async function verifyZip(file: string, options: VerifyOptions = {}): Promise<VerifyReport> {
	const started = performance.now();
	const base = {path: path.resolve(file), kind: 'zip' as const, manifest: null as Manifest | null, sealed: false, seal: null as string | null, members: 0, bytes: 0, problems: [] as Problem[], databases: [] as DbReport[], notes: [] as string[]};
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
	try {
		base.sealed = z.seal !== null;
		base.seal = z.seal;
		base.bytes = z.size;
		const files = z.members.filter(m => m.type !== 'dir');
		base.members = files.filter(m => m.name !== MANIFEST_NAME).length;
		const seen = new Map<string, number>();
		for (const m of z.members) {
			const why = unsafeNameReason(m.name, m.type);
			if (why) {
				base.problems.push({where: `member #${m.index + 1} ${JSON.stringify(m.name)}`, what: `unsafe member: ${why}; a restore refuses this archive`});
			}

			seen.set(m.name, (seen.get(m.name) ?? 0) + 1);
		}

		for (const [name, n] of seen) {
			if (n > 1) {
				base.problems.push({where: `member ${JSON.stringify(name)}`, what: `appears ${n} times`});
			}
		}

		options.onProgress?.({phase: 'seal', label: path.basename(file), done: 0, total: z.eocdOffset});
		let sealDone = 0;
		const structure = structuralProblems(z, {onBytes(n) {
			sealDone += n;
			options.onProgress?.({phase: 'seal', label: path.basename(file), done: sealDone, total: z.eocdOffset});
		}});
		base.problems.push(...structure.problems);
		if (!z.seal && !z.comment.toString('latin1').includes('sha256:')) {
			base.notes.push('no hfx seal in the archive comment (not written by hfx backup): checked CRC-32s, structure and databases only');
		}

		// The manifest first.
		const manifestMember = z.members.find(m => m.name === MANIFEST_NAME);
		if (manifestMember) {
			const chunks: Buffer[] = [];
			try {
				const d = await readMember(z, manifestMember, c => chunks.push(c));
				if (!d.crcOk) {
					base.problems.push({where: `member ${MANIFEST_NAME}`, what: `CRC-32 mismatch (data ${crcHex(d.crc32)}, central directory ${crcHex(manifestMember.entry.crc32)})`});
				}

				base.manifest = parseManifest(Buffer.concat(chunks));
			} catch (error) {
				base.problems.push({where: `member ${MANIFEST_NAME}`, what: error instanceof ManifestError ? error.message : `unreadable (${errorMessage(error)})`});
			}
		} else if (z.seal) {
			base.problems.push({where: 'archive', what: 'manifest.json is missing from an hfx archive'});
		} else {
			base.notes.push('no manifest.json (a Hermes archive?): members checked by CRC-32 only');
		}

		const manifest = base.manifest;
		if (manifest && !z.seal) {
			base.problems.push({where: `end record comment (byte ${z.eocdOffset + 22})`, what: 'an hfx archive must carry its seal in the comment; it is missing or damaged'});
		}

		const byPath = new Map((manifest?.members ?? []).map(m => [m.path, m]));
		const dbByPath = new Map((manifest?.databases ?? []).map(d => [d.path, d]));
		const queue = new CheckQueue(options.inlineChecks ?? false);
		const total = files.reduce((a, m) => a + m.entry.uncompressedSize, 0);
		const dbSizes = files.filter(m => (byPath.get(m.name)?.kind ?? (m.name.endsWith('.db') ? 'db' : 'file')) === 'db').map(m => m.entry.uncompressedSize);
		assertRoomFor(tmp, Math.max(0, ...dbSizes) * 2);
		let done = 0;
		let dbIndex = 0;
		for (const m of files) {
			if (m.name === MANIFEST_NAME) {
				continue;
			}

			const where = `member ${JSON.stringify(m.name)}`;
			const expected = byPath.get(m.name);
			if (manifest && !expected) {
				base.problems.push({where, what: 'not listed in the manifest'});
			}

			const isDb = expected ? expected.kind === 'db' : m.name.endsWith('.db');
			let out: number | undefined;
			let dbFile: string | undefined;
			if (isDb && !unsafeNameReason(m.name, m.type)) {
				dbFile = path.join(tmp, `db-${dbIndex++}.db`);
				out = fs.openSync(dbFile, 'wx', 0o600);
			}

			try {
				const d = await readMember(z, m, chunk => {
					if (out !== undefined) {
						try {
							fs.writeSync(out, chunk);
						} catch (error) {
							throw extractionFailure(tmp, error);
						}
					}

					done += chunk.length;
					options.onProgress?.({phase: 'members', label: m.name, done, total});
				});
				if (!d.crcOk) {
					base.problems.push({where, what: `CRC-32 mismatch: the data gives ${crcHex(d.crc32)}, the archive says ${crcHex(m.entry.crc32)}`});
				}

				if (expected) {
					if (d.size !== expected.size) {
						base.problems.push({where, what: `size is ${d.size}, the manifest says ${expected.size}`});
					}

					if (crcHex(d.crc32) !== expected.crc32) {
						base.problems.push({where, what: `CRC-32 ${crcHex(d.crc32)} differs from the manifest's ${expected.crc32}`});
					}

					if (d.sha256 !== expected.sha256) {
						base.problems.push({where, what: 'sha256 differs from the manifest'});
					}

					if (m.mode !== null && m.mode !== expected.mode) {
						base.problems.push({where, what: `mode ${m.mode.toString(8)} differs from the manifest's ${expected.mode.toString(8)}`});
					}
				}
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
				const head = Buffer.alloc(16);
				const fd = fs.openSync(dbFile, 'r');
				fs.readSync(fd, head, 0, 16, 0);
				fs.closeSync(fd);
				if (!head.equals(SQLITE_MAGIC) && fs.statSync(dbFile).size === 0 && (!expected || expected.size === 0)) {
					base.notes.push(`${m.name} is an empty file (0 bytes), not checked as a database`);
					fs.rmSync(dbFile, {force: true});
				} else {
					const rel = m.name;
					queue.add(dbFile, check => judgeDatabase(rel, check, dbByPath.get(rel)));
				}
			}
		}

		if (manifest) {
			const inZip = new Set(files.map(m => m.name));
			for (const m of manifest.members) {
				if (!inZip.has(m.path)) {
					base.problems.push({where: `member ${JSON.stringify(m.path)}`, what: 'listed in the manifest but missing from the archive'});
				}
			}

			for (const d of manifest.databases) {
				if (!inZip.has(d.path)) {
					base.problems.push({where: `database ${JSON.stringify(d.path)}`, what: 'listed in the manifest but missing from the archive'});
				}
			}

			if (!manifest.complete) {
				base.notes.push(`the backup was incomplete when taken: ${manifest.skipped.map(s => `${s.path} (${s.reason})`).join('; ') || 'see its manifest'}`);
			}
		}

		options.onProgress?.({phase: 'check', label: 'databases', done: 0, total: queue.results.length});
		base.databases = await queue.all();
		return finish(base, started);
	} finally {
		z.close();
		removeTemp(tmp);
	}
}

// ---------------------------------------------------------------------------------------------
// snapshot folder

function listFiles(dir: string, rel = ''): Array<{rel: string; st: fs.Stats}> {
	const out: Array<{rel: string; st: fs.Stats}> = [];
	for (const name of fs.readdirSync(path.join(dir, rel)).sort()) {
		const r = rel ? `${rel}/${name}` : name;
		const st = fs.lstatSync(path.join(dir, r));
		if (st.isDirectory()) {
			out.push(...listFiles(dir, r));
		} else {
			out.push({rel: r, st});
		}
	}

	return out;
}

export async function verifySnapshot(dir: string, options: VerifyOptions = {}): Promise<VerifyReport> {
	const started = performance.now();
	const base = {path: path.resolve(dir), kind: 'snapshot' as const, manifest: null as Manifest | null, sealed: false, seal: null as string | null, members: 0, bytes: 0, problems: [] as Problem[], databases: [] as DbReport[], notes: [] as string[]};
	const manifestPath = path.join(dir, MANIFEST_NAME);
	let text: Buffer;
	try {
		text = fs.readFileSync(manifestPath);
	} catch (error) {
		base.problems.push({where: manifestPath, what: `no readable manifest.json (${errorCode(error) ?? errorMessage(error)}): not a snapshot folder`});
		return finish(base, started, true);
	}

	let hermesFiles: Record<string, number> | null = null;
	try {
		base.manifest = parseManifest(text);
	} catch (error) {
		try {
			const raw = JSON.parse(text.toString()) as {files?: Record<string, number>};
			if (raw && typeof raw.files === 'object' && raw.files !== null) {
				hermesFiles = raw.files;
				base.notes.push('a Hermes quick snapshot (no hfx manifest): checked file sizes and databases only');
			} else {
				base.problems.push({where: 'manifest.json', what: error instanceof ManifestError ? error.message : errorMessage(error)});
			}
		} catch {
			base.problems.push({where: 'manifest.json', what: error instanceof ManifestError ? error.message : errorMessage(error)});
		}
	}

	let listing: Array<{rel: string; st: fs.Stats}>;
	try {
		listing = listFiles(dir).filter(f => f.rel !== MANIFEST_NAME);
	} catch (error) {
		base.problems.push({where: dir, what: `cannot list the folder (${errorCode(error) ?? errorMessage(error)})`});
		return finish(base, started, true);
	}

	const tmp = makeTempDir(options);
	try {
		const manifest = base.manifest;
		const expectedSizes = new Map<string, number>(manifest ? manifest.members.map(m => [m.path, m.size]) : Object.entries(hermesFiles ?? {}));
		const byPath = new Map((manifest?.members ?? []).map(m => [m.path, m]));
		const dbByPath = new Map((manifest?.databases ?? []).map(d => [d.path, d]));
		const queue = new CheckQueue(options.inlineChecks ?? false);
		const total = listing.reduce((a, f) => a + f.st.size, 0);
		let done = 0;
		let dbIndex = 0;
		base.members = listing.length;
		base.bytes = total;
		for (const f of listing) {
			const where = `file ${JSON.stringify(f.rel)}`;
			if (!f.st.isFile()) {
				base.problems.push({where, what: `unsafe member: ${f.st.isSymbolicLink() ? 'symbolic link' : 'not a regular file'}`});
				continue;
			}

			if (!expectedSizes.has(f.rel)) {
				base.problems.push({where, what: 'not listed in the manifest'});
				continue;
			}

			const expected = byPath.get(f.rel);
			const isDb = expected ? expected.kind === 'db' : f.rel.endsWith('.db');
			const dbFile = isDb ? path.join(tmp, `db-${dbIndex++}.db`) : undefined;
			const hasher = new Hasher();
			try {
				const fd = fs.openSync(path.join(dir, f.rel), 'r');
				const out = dbFile ? fs.openSync(dbFile, 'wx', 0o600) : undefined;
				try {
					const buf = Buffer.allocUnsafe(1 << 20);
					let pos = 0;
					for (;;) {
						const n = fs.readSync(fd, buf, 0, buf.length, pos);
						if (n <= 0) {
							break;
						}

						const chunk = buf.subarray(0, n);
						hasher.update(chunk);
						if (out !== undefined) {
							try {
								fs.writeSync(out, chunk);
							} catch (error) {
								throw extractionFailure(tmp, error);
							}
						}

						pos += n;
						done += n;
						options.onProgress?.({phase: 'members', label: f.rel, done, total});
					}
				} finally {
					fs.closeSync(fd);
					if (out !== undefined) {
						fs.closeSync(out);
					}
				}
			} catch (error) {
				if (error instanceof FailClosed) {
					throw error;
				}

				base.problems.push({where, what: `unreadable (${errorCode(error) ?? errorMessage(error)})`});
				continue;
			}

			const d = hasher.digest();
			if (d.size !== expectedSizes.get(f.rel)) {
				base.problems.push({where, what: `size is ${d.size}, the manifest says ${expectedSizes.get(f.rel)}`});
			}

			if (expected) {
				if (d.sha256 !== expected.sha256) {
					base.problems.push({where, what: 'sha256 differs from the manifest'});
				}

				if (crcHex(d.crc32) !== expected.crc32) {
					base.problems.push({where, what: `CRC-32 ${crcHex(d.crc32)} differs from the manifest's ${expected.crc32}`});
				}
			}

			if (dbFile) {
				queue.add(dbFile, check => judgeDatabase(f.rel, check, dbByPath.get(f.rel)));
			}
		}

		const present = new Set(listing.map(f => f.rel));
		for (const rel of expectedSizes.keys()) {
			if (!present.has(rel)) {
				base.problems.push({where: `file ${JSON.stringify(rel)}`, what: 'listed in the manifest but missing'});
			}
		}

		if (manifest && !manifest.complete) {
			base.notes.push(`the snapshot was incomplete when taken: ${manifest.skipped.map(s => `${s.path} (${s.reason})`).join('; ')}`);
		}

		base.databases = await queue.all();
		return finish(base, started);
	} finally {
		removeTemp(tmp);
	}
}

// ---------------------------------------------------------------------------------------------
// tar.gz / tar

export async function verifyTar(file: string, options: VerifyOptions = {}): Promise<VerifyReport> {
	const started = performance.now();
	const gz = detectKind(file) === 'tar.gz';
	const base = {path: path.resolve(file), kind: (gz ? 'tar.gz' : 'tar') as ArtifactKind, manifest: null as Manifest | null, sealed: false, seal: null as string | null, members: 0, bytes: 0, problems: [] as Problem[], databases: [] as DbReport[], notes: [] as string[]};
	const tmp = makeTempDir(options);
	// Database files and their sidecars, grouped by their folder inside the tar.
	const groups = new Map<string, {dir: string; dbs: string[]; wal: Map<string, number>}>();
	const symlinks: string[] = [];
	let names = 0;
	try {
		const size = fs.statSync(file).size;
		const reader = new TarReader(entry => {
			names++;
			if (entry.type === 'symlink' || entry.type === 'hardlink') {
				symlinks.push(entry.name);
			}

			if (entry.type !== 'file') {
				return null;
			}

			base.bytes += entry.size;
			const clean = entry.name.replace(/^(\.\/)+/, '');
			const folder = path.posix.dirname(clean);
			const name = path.posix.basename(clean);
			const isDb = name.endsWith('.db');
			const isWal = name.endsWith('.db-wal');
			const isJournal = name.endsWith('.db-journal');
			if (!isDb && !isWal && !isJournal) {
				return null;
			}

			let group = groups.get(folder);
			if (!group) {
				group = {dir: path.join(tmp, `g${groups.size}`), dbs: [], wal: new Map()};
				fs.mkdirSync(group.dir);
				groups.set(folder, group);
			}

			if (isDb) {
				group.dbs.push(name);
			} else if (isWal) {
				group.wal.set(name.slice(0, -4), entry.size);
			}

			const fd = fs.openSync(path.join(group.dir, name), 'w', 0o600);
			const sink: TarSink = {
				write(chunk) {
					fs.writeSync(fd, chunk);
				},
				end() {
					fs.closeSync(fd);
				},
			};
			return sink;
		});
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

		if (gz && base.problems.length === 0 && names === 0) {
			base.problems.push({where: 'archive', what: 'the gzip stream holds no tar entries'});
		}

		if (reader.trailingGarbage > 0) {
			base.problems.push({where: 'after the end-of-archive blocks', what: `${reader.trailingGarbage} non-zero bytes`});
		}

		base.members = reader.entries;
		if (symlinks.length > 0) {
			base.notes.push(`${symlinks.length} link member(s) (${symlinks.slice(0, 3).join(', ')}${symlinks.length > 3 ? ', …' : ''}): extract with care`);
		}

		const queue = new CheckQueue(options.inlineChecks ?? false);
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

		base.databases = await queue.all();
		if (base.databases.length === 0 && base.problems.length === 0) {
			base.notes.push('no *.db file in this archive: only gzip and tar integrity were checked');
		}

		return finish(base, started);
	} finally {
		removeTemp(tmp);
	}
}

/** Verifies any of the three kinds. */
export async function verifyArtifact(p: string, options: VerifyOptions = {}): Promise<VerifyReport> {
	const kind = detectKind(p);
	switch (kind) {
		case 'zip': {
			return verifyZip(p, options);
		}

		case 'snapshot': {
			return verifySnapshot(p, options);
		}

		case 'tar':
		case 'tar.gz': {
			return verifyTar(p, options);
		}

		default: {
			const exists = fs.existsSync(p);
			return {
				path: path.resolve(p),
				kind: 'unknown',
				status: 'unreadable',
				exitCode: 2,
				manifest: null,
				sealed: false,
				seal: null,
				members: 0,
				bytes: 0,
				problems: [{where: path.resolve(p), what: exists ? 'not a zip, tar.gz, tar or snapshot folder (unrecognised first bytes)' : 'no such file or folder'}],
				databases: [],
				notes: [],
				ms: 0,
			};
		}
	}
}

/** Appends the outcome beside the artifact (hfx-records.jsonl). False when that folder is read-only. */
export function recordVerification(report: VerifyReport): boolean {
	if (report.kind === 'unknown') {
		return false;
	}

	const dir = path.dirname(report.path);
	const fp = fingerprintOf(report.path);
	const problems = [...report.problems.map(p => `${p.where}: ${p.what}`), ...report.databases.filter(d => !d.ok).map(d => `${d.path}: ${d.problems.join('; ')}`)];
	return appendRecord(dir, {
		at: Date.now() / 1000,
		event: 'verify',
		level: 'full',
		artifact: path.basename(report.path),
		kind: report.kind === 'snapshot' ? 'snapshot' : (report.kind === 'zip' ? 'archive' : 'tar'),
		ok: report.exitCode === 0,
		exitCode: report.exitCode,
		size: fp.size,
		mtimeMs: fp.mtimeMs,
		seal: report.seal,
		createdAt: report.manifest?.createdAtEpoch ?? null,
		summary: report.exitCode === 0 ? `sound: ${report.members} members, ${report.databases.length} databases checked` : `${report.status}: ${problems.slice(0, 5).join('; ')}`,
		details: {complete: report.manifest?.complete ?? null},
	});
}
