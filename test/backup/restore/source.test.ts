/**
 * What a restore reads from (source/backup/restore/source.ts): the members of an hfx zip (its
 * manifest names them), of Hermes' own zip (its root found, `.hermes/` stripped), of a tar.gz, and of
 * a snapshot folder (hfx's or Hermes' manifest), each with where it lands and what to re-check it
 * against; never a sidecar, and an archive's runtime state left out. Real archives and folders.
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import {afterAll, describe, expect, it} from 'vitest';
import {ZipWriter} from '../../../source/backup/create/zip-writer.js';
import {type Manifest, newManifest} from '../../../source/backup/manifest.js';
import {RUNTIME_STATE_NAMES, openSource} from '../../../source/backup/restore/source.js';
import type {Source} from '../../../source/backup/restore/types.js';
import {FailClosed} from '../../../source/ground/errors.js';
import {craftTar} from '../../reliability/craft-tar.js';
import {cleanupTemps, craftZip, tempDir} from '../helpers.js';

afterAll(cleanupTemps);

const MTIME = new Date('2026-06-01T00:00:00Z');
const b = (text: string) => Buffer.from(text);

/** Every member's bytes, read through the source as a restore stages them. */
async function read(source: Source): Promise<Record<string, string>> {
	const out: Record<string, string> = {};
	await source.each(source.members, async (m, data) => {
		const parts: Buffer[] = [];
		for await (const c of data) {
			parts.push(c);
		}

		out[m.path] = Buffer.concat(parts).toString();
	});
	return out;
}

async function refused(archive: string): Promise<FailClosed> {
	const e = await openSource(archive, null).then(
		() => null,
		(error: unknown) => error,
	);
	expect(e).toBeInstanceOf(FailClosed);
	return e as FailClosed;
}

async function opened<T>(archive: string, manifest: Manifest | null, fn: (s: Source) => Promise<T>): Promise<T> {
	const source = await openSource(archive, manifest);
	try {
		return await fn(source);
	} finally {
		source.close();
	}
}

describe('RUNTIME_STATE_NAMES', () => {
	it("are the names Hermes' import skips", () => {
		expect([...RUNTIME_STATE_NAMES].sort()).toEqual([
			'cron.pid',
			'gateway.lock',
			'gateway.pid',
			'gateway_state.json',
			'processes.json',
		]);
	});
});

describe('openSource: an hfx zip', () => {
	it("takes each member's path, mode, kind and hashes from the manifest; its runtime state is left out", async () => {
		const dir = tempDir('src-hfx');
		const file = path.join(dir, 'a.zip');
		const w = new ZipWriter(file);
		const manifest = newManifest('full', 'id', dir, MTIME, null);
		const add = (rel: string, text: string, kind: 'file' | 'db', mode: number) =>
			manifest.members.push(w.addBuffer(rel, b(text), kind, {mode, mtime: MTIME, compress: false}));
		add('state.db', 'db bytes', 'db', 0o600);
		add('profiles/w/config.yaml', 'cfg', 'file', 0o640);
		add('gateway.pid', '123', 'file', 0o644);
		await w.finish(b(JSON.stringify(manifest)));
		await opened(file, manifest, async source => {
			const [db, cfg] = manifest.members;
			expect(source.members).toEqual([
				{
					path: 'state.db',
					archivePath: 'state.db',
					size: 8,
					mode: 0o600,
					sha256: db!.sha256,
					crc32: db!.crc32,
					kind: 'db',
				},
				{
					path: 'profiles/w/config.yaml',
					archivePath: 'profiles/w/config.yaml',
					size: 3,
					mode: 0o640,
					sha256: cfg!.sha256,
					crc32: cfg!.crc32,
					kind: 'file',
				},
			]);
			expect(source.layout).toEqual({root: null, outside: [], runtime: ['gateway.pid'], sidecars: [], folded: []});
			expect(await read(source)).toEqual({'state.db': 'db bytes', 'profiles/w/config.yaml': 'cfg'});
		});
	});
});

describe("openSource: Hermes' own zip", () => {
	it('strips the .hermes/ root; leaves out what is outside, _external/, sidecars and runtime state', async () => {
		const dir = tempDir('src-hermes');
		const file = path.join(dir, 'h.zip');
		fs.writeFileSync(
			file,
			craftZip([
				{name: '.hermes/state.db', data: b('db'), mode: 0o100644},
				{name: '.hermes/state.db-wal', data: b('wal')},
				{name: '.hermes/config.yaml', data: b('cfg'), mode: 0o100640},
				{name: '.hermes/_external/.honcho/x', data: b('ext')},
				{name: '.hermes/gateway_state.json', data: b('{}')},
				{name: 'elsewhere/notes.txt', data: b('n')},
			]),
		);
		await opened(file, null, async source => {
			expect(source.members.map(m => [m.path, m.archivePath, m.mode, m.kind, m.sha256])).toEqual([
				['state.db', '.hermes/state.db', 0o644, 'db', null],
				['config.yaml', '.hermes/config.yaml', 0o640, 'file', null],
			]);
			expect(source.members[0]!.crc32).toBe(zlib.crc32(b('db')).toString(16).padStart(8, '0'));
			expect(source.layout).toEqual({
				root: '.hermes',
				outside: ['.hermes/_external/.honcho/x', 'elsewhere/notes.txt'],
				runtime: ['.hermes/gateway_state.json'],
				sidecars: [],
				folded: [],
			});
			expect(await read(source)).toEqual({'state.db': 'db', 'config.yaml': 'cfg'});
		});
	});

	it('refuses two Hermes roots; a zip with no store is read from its top (verify refused it)', async () => {
		const dir = tempDir('src-noroot');
		fs.writeFileSync(
			path.join(dir, 'two.zip'),
			craftZip([
				{name: 'a/state.db', data: b('1')},
				{name: 'b/state.db', data: b('2')},
			]),
		);
		const e = await refused(path.join(dir, 'two.zip'));
		expect([e.kind, e.file]).toEqual(['no-hermes-root', path.join(dir, 'two.zip')]);
		expect(e.reason).toMatch(/^the archive holds more than one Hermes root \(a\/, b\/\)/);
		fs.writeFileSync(path.join(dir, 'none.zip'), craftZip([{name: 'notes.txt', data: b('n')}]));
		await opened(path.join(dir, 'none.zip'), null, async source => {
			expect([source.layout.root, source.members.map(m => m.path)]).toEqual(['', ['notes.txt']]);
		});
	});
});

describe('openSource: a tar.gz', () => {
	it('maps the root onto the target and leaves its runtime state out too', async () => {
		const dir = tempDir('src-tar');
		const file = craftTar(path.join(dir, 'v.tar.gz'), [
			{name: 'data/state.db', data: b('db')},
			{name: 'data/gateway.pid', data: b('1')},
		]);
		await opened(file, null, async source => {
			expect(source.members.map(m => m.path)).toEqual(['state.db']);
			expect(source.layout.runtime).toEqual(['data/gateway.pid']);
			expect(await read(source)).toEqual({'state.db': 'db'});
		});
	});

	it('refuses a tar with no Hermes root in it', async () => {
		const dir = tempDir('src-tar-none');
		const file = craftTar(path.join(dir, 'n.tar.gz'), [{name: 'etc/hosts', data: b('h')}]);
		const e = await refused(file);
		expect([e.kind, e.reason]).toEqual([
			'no-hermes-root',
			'no Hermes root in the archive (no state.db and no profiles/*/state.db in any folder); nothing was written',
		]);
	});
});

describe('openSource: a snapshot folder', () => {
	it("hfx's: the manifest's members, sidecars dropped, its runtime state kept (it stays on its machine)", async () => {
		const dir = tempDir('src-snap');
		const manifest = newManifest('quick', 'id', dir, MTIME, null);
		for (const [rel, kind] of [
			['state.db', 'db'],
			['state.db-wal', 'file'],
			['gateway_state.json', 'file'],
		] as const) {
			fs.writeFileSync(path.join(dir, rel), rel);
			manifest.members.push({path: rel, size: rel.length, mode: 0o600, mtime: '', crc32: 'c', sha256: 's', kind});
		}

		await opened(dir, manifest, async source => {
			expect(source.members.map(m => [m.path, m.sha256, m.crc32, m.kind])).toEqual([
				['state.db', 's', 'c', 'db'],
				['gateway_state.json', 's', 'c', 'file'],
			]);
			expect(source.layout.root).toBeNull();
			expect(await read(source)).toEqual({'state.db': 'state.db', 'gateway_state.json': 'gateway_state.json'});
		});
	});

	it("Hermes': the files its manifest.json lists, private mode, no hashes", async () => {
		const dir = tempDir('src-hsnap');
		fs.writeFileSync(path.join(dir, 'state.db'), 'db');
		fs.mkdirSync(path.join(dir, 'cron'));
		fs.writeFileSync(path.join(dir, 'cron', 'jobs.json'), '{}');
		fs.writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify({files: {'state.db': 2, 'cron/jobs.json': 2}}));
		await opened(dir, null, async source => {
			expect(source.members).toEqual([
				{path: 'state.db', archivePath: 'state.db', size: 2, mode: 0o600, sha256: null, crc32: null, kind: 'db'},
				{
					path: 'cron/jobs.json',
					archivePath: 'cron/jobs.json',
					size: 2,
					mode: 0o600,
					sha256: null,
					crc32: null,
					kind: 'file',
				},
			]);
			expect(source.layout.root).toBe('');
			expect(await read(source)).toEqual({'state.db': 'db', 'cron/jobs.json': '{}'});
		});
	});
});
