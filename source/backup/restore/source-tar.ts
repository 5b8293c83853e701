/**
 * A tar or tar.gz as a restore's source (archive/tarread.ts reads it; verify/tar.ts verified it first):
 *   1. one pass lists the members; the Hermes root is found (archive/root.ts) and every file under
 *      it maps to the same path under the target; members outside it are not restored;
 *   2. sidecars (-wal, -shm, -journal) are never members: a -wal's committed frames are folded into
 *      a private copy of its database (wal-fold.ts), which is what gets staged; a -journal (a hot
 *      rollback journal) is refused, since rolling it back is not a restore's call;
 *   3. staging reads the archive once more, member by member in archive order.
 * A tar has no checksums of its data: each member is checked against the size in its header.
 */
import fs from 'node:fs';
import path from 'node:path';
import {FailClosed} from '../../ground/errors.js';
import {ownTempDir, removeTemp} from '../../ground/temps.js';
import {findHermesRoot, underRoot} from '../archive/root.js';
import {digestFile} from '../digest.js';
import {normalizeName, refusalReason, sidecarSuffix} from '../archive/member-policy.js';
import {emptyLayout, refuseRoot} from './layout.js';
import {refuse} from './refusals.js';

import {type TarMember, readTar, writeMember} from '../archive/tarread.js';
import {foldWal} from './wal-fold.js';
import type {SourceMember, Source, Layout} from './types.js';

type Listed = {files: TarMember[]; names: string[]};

/** Pass 1: the regular files the member policy lets through, and their normalized names. */
async function listFiles(archive: string, gz: boolean): Promise<Listed> {
	const files: TarMember[] = [];
	await readTar(archive, {
		gz,
		async onMember(m) {
			if (
				m.type === 'file' &&
				!refusalReason({name: m.name, type: m.type, linkTarget: m.linkName || null, size: m.size})
			) {
				files.push({...m, name: normalizeName(m.name)});
			}
		},
	});
	return {files, names: files.map(f => f.name)};
}

/** Splits the files under the root into members and sidecars; the rest is outside. */
function membersOf(
	archive: string,
	listed: Listed,
	layout: Layout & {root: string},
): {members: SourceMember[]; wals: Map<string, TarMember>} {
	const all = new Set(listed.names);
	const members: SourceMember[] = [];
	const wals = new Map<string, TarMember>();
	for (const f of listed.files) {
		const rel = underRoot(f.name, layout.root);
		if (rel === null) {
			layout.outside.push(f.name);
			continue;
		}

		const suffix = sidecarSuffix(f.name, all);
		if (suffix === '-journal' && f.size > 0) {
			throw refuse(
				archive,
				'unsafe-member',
				`${f.name} is a hot rollback journal beside its database: restoring ` +
					`would mean rolling it back, which hfx leaves to the operator`,
				'extract the archive by hand into a scratch folder and open the database there with sqlite3',
			);
		}

		if (suffix) {
			layout.sidecars.push(f.name);
			if (suffix === '-wal' && f.size > 0) {
				wals.set(f.name.slice(0, -4), f);
			}

			continue;
		}

		members.push({
			path: rel,
			archivePath: f.name,
			size: f.size,
			mode: f.mode || 0o644,
			sha256: null,
			crc32: null,
			kind: rel.endsWith('.db') ? 'db' : 'file',
		});
	}

	return {members, wals};
}

/**
 * Pass 2 (only with a non-empty -wal): each such database and its -wal extracted into our temp folder, folded there.
 */
async function foldAll(
	archive: string,
	gz: boolean,
	members: SourceMember[],
	wals: Map<string, TarMember>,
	tmp: string,
	layout: Layout,
): Promise<Map<string, string>> {
	const folded = new Map<string, string>();
	const dbs = new Map(
		members.filter(m => wals.has(m.archivePath)).map((m, i) => [m.archivePath, {m, dir: path.join(tmp, `f${i}`)}]),
	);
	if (dbs.size === 0) {
		return folded;
	}

	await readTar(archive, {
		gz,
		async onMember(t, data) {
			const name = normalizeName(t.name);
			const db = dbs.get(name) ?? dbs.get(name.endsWith('-wal') ? name.slice(0, -4) : '');
			if (t.type === 'file' && db) {
				fs.mkdirSync(db.dir, {recursive: true, mode: 0o700});
				await writeMember(data, path.join(db.dir, name === db.m.archivePath ? 'copy.db' : 'copy.db-wal'), t.size);
			}
		},
	});
	for (const [archivePath, {m, dir}] of dbs) {
		const r = foldWal(dir, 'copy.db', archive);
		const file = path.join(dir, 'copy.db');
		const d = digestFile(file);
		// What gets staged is the folded copy: its size and sha256 are what staging and the read-back check.
		m.size = d.size;
		m.sha256 = d.sha256;
		folded.set(archivePath, file);
		layout.folded.push({db: m.path, wal: `${archivePath}-wal`, frames: r.frames, walBytes: r.walBytes});
	}

	return folded;
}

export async function openTarSource(archive: string, gz: boolean, options: {tmpDir?: string}): Promise<Source> {
	const listed = await listFiles(archive, gz);
	const found = findHermesRoot(listed.names);
	if (!found.ok) {
		throw refuseRoot(archive, found);
	}

	const layout = {...emptyLayout(found.root), root: found.root};
	const {members, wals} = membersOf(archive, listed, layout);
	const tmp = ownTempDir('restore', options.tmpDir);
	let folded: Map<string, string>;
	try {
		folded = await foldAll(archive, gz, members, wals, tmp, layout);
	} catch (error) {
		removeTemp(tmp);
		throw error;
	}

	return {
		members,
		layout,
		each: async (selected, fn) => eachMember(archive, gz, selected, folded, fn),
		close: () => removeTemp(tmp),
	};
}

/** Pass 3: the selected members in archive order (a folded database from its private copy); every one must be met. */
async function eachMember(
	archive: string,
	gz: boolean,
	selected: SourceMember[],
	folded: Map<string, string>,
	fn: (m: SourceMember, data: AsyncIterable<Buffer>) => Promise<void>,
): Promise<void> {
	const wanted = new Map(selected.map(m => [m.archivePath, m]));
	const met = new Set<string>();
	await readTar(archive, {
		gz,
		async onMember(t, data) {
			const name = normalizeName(t.name);
			const m = t.type === 'file' ? wanted.get(name) : undefined;
			if (!m || met.has(name)) {
				return;
			}

			met.add(name);
			const copy = folded.get(name);
			await fn(m, copy ? fs.createReadStream(copy, {highWaterMark: 1 << 20}) : data);
		},
	});
	const missing = selected.find(m => !met.has(m.archivePath));
	if (missing) {
		throw new FailClosed({
			file: archive,
			kind: 'changed-during-restore',
			reason: `the member ${missing.archivePath} is no longer in the archive (it changed since it was verified?)`,
			next: 'verify the archive again (hfx verify) and retry',
		});
	}
}
