/**
 * Step 9 of a restore (restore.ts): every member staged beside its destination under a temp name, re-checked
 * against what the archive says of it as it is written (stageMember) and fsynced, with the mode (and, as root, the
 * owner) it
 * will have. Any failure is a refusal: the caller removes the staged files and nothing was written.
 */
import fs from 'node:fs';
import path from 'node:path';
import {FailClosed, errnoWords, errorCode, errorMessage} from '../../ground/errors.js';
import {Hasher, crcHex} from '../digest.js';
import type {ProgressFn} from '../progress.js';
import {refuse} from './refusals.js';

import {registerTemp} from '../../ground/temps.js';
import {testPause} from '../../ground/test-pause.js';
import {CREDENTIAL_NAMES} from '../create/walk.js';
import {createExclusive} from '../../ground/safe-create.js';
import {randomHex} from '../../ground/crypto.js';
import type {SourceMember, Source, PlannedMember} from './types.js';

type Owner = {uid: number; gid: number} | null;

/**
 * Stages every planned member; returns member path -> staged temp file. Pushes each temp file
 * (registered for removal on exit) to stagedFiles and each folder it creates to createdDirs, so the
 * caller can remove them all when anything fails.
 */
export async function stageAll(
	source: Source,
	plan: PlannedMember[],
	target: string,
	stagedFiles: string[],
	createdDirs: string[],
	onProgress?: ProgressFn,
): Promise<Map<string, string>> {
	const owner = targetOwner(target);
	const total = plan.reduce((a, p) => a + p.m.size, 0);
	let done = 0;
	const staged = new Map<string, string>();
	const byMember = new Map(plan.map(p => [p.m, p]));
	try {
		// In the source's order (a tar is read once, front to back).
		await source.each(
			plan.map(p => p.m),
			async (m, data) => {
				const p = byMember.get(m)!;
				mkdirs(path.dirname(p.dest), owner, createdDirs);
				const temp = path.join(
					path.dirname(p.dest),
					`.${path.basename(p.dest)}.hfx-p${process.pid}.${randomHex(8)}.partial`,
				);
				registerTemp(temp);
				stagedFiles.push(temp);
				await stageMember(data, p.m, temp, restoredMode(p.m), owner, n => {
					done += n;
					onProgress?.({phase: 'extract', label: p.m.path, done, total});
				});
				staged.set(p.m.path, temp);
				testPause('restore-staged');
			},
		);
	} catch (error) {
		if (error instanceof FailClosed) {
			throw new FailClosed({
				file: error.file,
				kind: error.kind,
				reason: `${error.reason}; nothing was written`,
				next: error.next,
			});
		}

		const code = errorCode(error);
		// The cause in the one errno mapping's words (EFBIG is a file size limit, not "fix the cause").
		const words = errnoWords(code ?? 'error', errorMessage(error));
		throw refuse(
			target,
			code === 'ENOSPC' ? 'no-space' : 'stage-failed',
			`staging the restored files failed ` +
				`(${code ?? 'error'}: ${code ? words.cause : errorMessage(error)}); the ` +
				`staged files were removed`,
			code === 'ENOSPC'
				? 'free space on the target and run the restore again'
				: `${words.next}, then run the restore again`,
		);
	}

	return staged;
}

/** Run as root: the restored files and folders get the target's owner (unless that is root too). */
function targetOwner(target: string): Owner {
	let owner: Owner = null;
	if (process.getuid?.() === 0) {
		try {
			const st = fs.statSync(fs.existsSync(target) ? target : path.dirname(target));
			owner = st.uid === 0 ? null : {uid: st.uid, gid: st.gid};
		} catch {
			owner = null;
		}
	}

	return owner;
}

/** Creates the missing folders down to `dir` (mode 0700), recording each one created. */
function mkdirs(dir: string, owner: Owner, createdDirs: string[]): void {
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
}

function restoredMode(m: SourceMember): number {
	const base = path.posix.basename(m.path);
	if (m.kind === 'db' || CREDENTIAL_NAMES.has(base)) {
		return 0o600;
	}

	return m.mode & 0o777 || 0o600;
}

/**
 * Writes one member to its staged file and checks it against what the archive says of it: its size
 * always (a tar's header, Hermes' manifest.json), its sha256 (hfx's manifest) and CRC-32 (a zip)
 * when known. Without a sha256 of its own, the member keeps the staged bytes' one: the read-back
 * after the renames compares with it.
 */
async function stageMember(
	data: AsyncIterable<Buffer>,
	m: SourceMember,
	staged: string,
	mode: number,
	owner: {uid: number; gid: number} | null,
	onBytes: (n: number) => void,
): Promise<void> {
	const hasher = new Hasher();
	const fd = createExclusive(staged, 0o600, 'a restored file');
	try {
		for await (const chunk of data) {
			hasher.update(chunk);
			fs.writeSync(fd, chunk);
			onBytes(chunk.length);
		}

		fs.fsyncSync(fd);
	} finally {
		fs.closeSync(fd);
	}

	const d = hasher.digest();
	if (d.size !== m.size || (m.sha256 && d.sha256 !== m.sha256) || (m.crc32 && crcHex(d.crc32) !== m.crc32)) {
		throw new FailClosed({
			file: m.archivePath,
			kind: 'changed-during-restore',
			reason:
				`the member read back while restoring differs from the verified archive ` +
				`(${d.size === m.size ? 'its bytes' : `${d.size} bytes, ${m.size} expected`}: ` +
				`the archive changed under us?)`,
			next: 'verify the archive again (hfx verify) and retry',
		});
	}

	m.sha256 ??= d.sha256;
	fs.chmodSync(staged, mode);
	if (owner) {
		fs.chownSync(staged, owner.uid, owner.gid);
	}
}
