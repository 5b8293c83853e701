/**
 * Verifies a snapshot folder: every file against the manifest (sizes, sha256), databases checked
 * on a temp copy, files the manifest does not know about.
 */
import fs from 'node:fs';
import path from 'node:path';
import {FailClosed, errorCode, errorMessage} from '../../ground/errors.js';
import {CheckQueue} from './check-queue.js';
import {type Digest, Hasher, crcHex} from '../digest.js';
import {MANIFEST_NAME, type Manifest, ManifestError, type MemberRecord, parseManifest} from '../manifest.js';
import {removeTemp} from '../../ground/temps.js';
import {judgeMembers} from '../archive/member-policy.js';
import {
	type DbReport,
	type VerifyOptions,
	type VerifyReport,
	finish,
	judgeDatabase,
	noStoreProblems,
	policyProblems,
} from './report.js';
import {extractionFailure, makeTempDir} from './temp-extraction.js';
import type {Problem} from '../archive/zipread.js';
import {readChunks} from '../chunks.js';
import {readForeign} from '../../store/foreign-file.js';
import {createExclusive} from '../../ground/safe-create.js';

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

/** Parses the manifest into base.manifest; a Hermes quick snapshot's file sizes are returned instead. */
function readSnapshotManifest(
	base: {manifest: Manifest | null; problems: Problem[]; notes: string[]},
	text: Buffer,
): Record<string, number> | null {
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
				base.problems.push({
					where: 'manifest.json',
					what: error instanceof ManifestError ? error.message : errorMessage(error),
				});
			}
		} catch {
			base.problems.push({
				where: 'manifest.json',
				what: error instanceof ManifestError ? error.message : errorMessage(error),
			});
		}
	}

	return hermesFiles;
}

/** Reads `file` through `hasher`, copying it to `dbFile` when given; `onBytes` after each chunk. */
function hashFile(
	file: string,
	dbFile: string | undefined,
	tmp: string,
	hasher: Hasher,
	onBytes: (n: number) => void,
): void {
	const fd = fs.openSync(file, 'r');
	const out = dbFile ? createExclusive(dbFile, 0o600, 'a database under check') : undefined;
	try {
		readChunks(fd, chunk => {
			hasher.update(chunk);
			if (out !== undefined) {
				try {
					fs.writeSync(out, chunk);
				} catch (error) {
					throw extractionFailure(tmp, error);
				}
			}

			onBytes(chunk.length);
		});
	} finally {
		fs.closeSync(fd);
		if (out !== undefined) {
			fs.closeSync(out);
		}
	}
}

/** A file's digest against the manifest's size, sha256 and CRC-32. */
function compareDigest(
	problems: Problem[],
	where: string,
	d: Digest,
	size: number | undefined,
	expected: MemberRecord | undefined,
): void {
	if (d.size !== size) {
		problems.push({where, what: `size is ${d.size}, the manifest says ${size}`});
	}

	if (expected) {
		if (d.sha256 !== expected.sha256) {
			problems.push({where, what: 'sha256 differs from the manifest'});
		}

		if (crcHex(d.crc32) !== expected.crc32) {
			problems.push({where, what: `CRC-32 ${crcHex(d.crc32)} differs from the manifest's ${expected.crc32}`});
		}
	}
}

/** Every listed file against the manifest; databases are copied into `tmp` and queued for their check. */
function checkFiles(
	dir: string,
	tmp: string,
	listing: Array<{rel: string; st: fs.Stats}>,
	expectedSizes: Map<string, number>,
	base: {manifest: Manifest | null; members: number; bytes: number; problems: Problem[]},
	options: VerifyOptions,
	queue: CheckQueue,
): void {
	const manifest = base.manifest;
	const byPath = new Map((manifest?.members ?? []).map(m => [m.path, m]));
	const dbByPath = new Map((manifest?.databases ?? []).map(d => [d.path, d]));
	const total = listing.reduce((a, f) => a + f.st.size, 0);
	let done = 0;
	let dbIndex = 0;
	base.members = listing.length;
	base.bytes = total;
	for (const f of listing) {
		const where = `file ${JSON.stringify(f.rel)}`;
		if (!f.st.isFile()) {
			base.problems.push({
				where,
				what: `unsafe member: ${f.st.isSymbolicLink() ? 'symbolic link' : 'not a regular file'}`,
			});
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
			hashFile(path.join(dir, f.rel), dbFile, tmp, hasher, n => {
				done += n;
				options.onProgress?.({phase: 'members', label: f.rel, done, total});
			});
		} catch (error) {
			if (error instanceof FailClosed) {
				throw error;
			}

			base.problems.push({where, what: `unreadable (${errorCode(error) ?? errorMessage(error)})`});
			continue;
		}

		compareDigest(base.problems, where, hasher.digest(), expectedSizes.get(f.rel), expected);
		if (dbFile) {
			queue.add(dbFile, check => judgeDatabase(f.rel, check, dbByPath.get(f.rel)));
		}
	}
}

/** A snapshot's manifest lists its files: far below this. */
export const MAX_MANIFEST_BYTES = 16 * 1_048_576;

export async function verifySnapshot(dir: string, options: VerifyOptions = {}): Promise<VerifyReport> {
	const started = performance.now();
	const base = {
		path: path.resolve(dir),
		kind: 'snapshot' as const,
		manifest: null as Manifest | null,
		sealed: false,
		seal: null as string | null,
		members: 0,
		bytes: 0,
		problems: [] as Problem[],
		databases: [] as DbReport[],
		notes: [] as string[],
	};
	const manifestPath = path.join(dir, MANIFEST_NAME);
	let text: Buffer;
	try {
		// Non-blocking and bounded (a FIFO named manifest.json would hang a plain read); a manifest is small.
		const read = readForeign(manifestPath, {maxBytes: MAX_MANIFEST_BYTES, what: 'it as the manifest'});
		if (read.truncated) {
			base.problems.push({
				where: manifestPath,
				what: `manifest.json is larger than ${MAX_MANIFEST_BYTES / 1_048_576} MiB: not a snapshot manifest`,
			});
			return finish(base, started, true);
		}

		text = read.bytes;
	} catch (error) {
		base.problems.push({
			where: manifestPath,
			what: `no readable manifest.json (${errorCode(error) ?? errorMessage(error)}): not a snapshot folder`,
		});
		return finish(base, started, true);
	}

	const hermesFiles = readSnapshotManifest(base, text);
	let listing: Array<{rel: string; st: fs.Stats}>;
	try {
		listing = listFiles(dir).filter(f => f.rel !== MANIFEST_NAME);
	} catch (error) {
		base.problems.push({where: dir, what: `cannot list the folder (${errorCode(error) ?? errorMessage(error)})`});
		return finish(base, started, true);
	}

	const tmp = makeTempDir(options);
	const queue = new CheckQueue(options.inlineChecks ?? false, options.inventory ?? false);
	try {
		const manifest = base.manifest;
		const expectedSizes = new Map<string, number>(
			manifest ? manifest.members.map(m => [m.path, m.size]) : Object.entries(hermesFiles ?? {}),
		);
		// The member policy over the names a restore would write (the manifest's): clashes, sidecars, "..".
		base.problems.push(
			...policyProblems(judgeMembers([...expectedSizes].map(([name, size]) => ({name, type: 'file' as const, size})))),
		);
		base.problems.push(...noStoreProblems([...expectedSizes.keys()]));
		checkFiles(dir, tmp, listing, expectedSizes, base, options, queue);
		const present = new Set(listing.map(f => f.rel));
		for (const rel of expectedSizes.keys()) {
			if (!present.has(rel)) {
				base.problems.push({where: `file ${JSON.stringify(rel)}`, what: 'listed in the manifest but missing'});
			}
		}

		if (manifest && !manifest.complete) {
			base.notes.push(
				`the snapshot was incomplete when taken: ${manifest.skipped.map(s => `${s.path} (${s.reason})`).join('; ')}`,
			);
		}

		base.databases = await queue.all();
		return finish(base, started);
	} finally {
		await queue.settle();
		removeTemp(tmp);
	}
}
