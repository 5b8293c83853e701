/**
 * The manifest of one of our zip archives read alone (source/backup/archive/read-manifest.ts): the
 * archive written by the real ZipWriter; every way it cannot be read is null, never a throw.
 */
import fs from 'node:fs';
import path from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {readArchiveManifest} from '../../../source/backup/archive/read-manifest.js';
import {ZipWriter} from '../../../source/backup/create/zip-writer.js';
import {newManifest} from '../../../source/backup/manifest.js';
import {cleanupTemps, craftZip, tempDir} from '../helpers.js';

afterAll(cleanupTemps);

const MTIME = new Date('2026-06-01T00:00:00Z');

describe('readArchiveManifest', () => {
	it("reads a sealed archive's manifest as written", async () => {
		const dir = tempDir('rm-sound');
		const manifest = newManifest('full', 'id-1', dir, MTIME, 'a label');
		const w = new ZipWriter(path.join(dir, 'a.zip'));
		manifest.members.push(
			w.addBuffer('config.yaml', Buffer.from('model: x\n'), 'file', {mode: 0o644, mtime: MTIME, compress: true}),
		);
		await w.finish(Buffer.from(JSON.stringify(manifest)));
		const read = await readArchiveManifest(path.join(dir, 'a.zip'));
		expect(read).toEqual(manifest);
		expect(read?.members.map(m => m.path)).toEqual(['config.yaml']);
	});

	it('is null for a zip without manifest.json, and for one whose manifest.json is no hfx manifest', async () => {
		const dir = tempDir('rm-none');
		const none = path.join(dir, 'none.zip');
		fs.writeFileSync(none, craftZip([{name: 'state.db', data: Buffer.from('x')}]));
		expect(await readArchiveManifest(none)).toBeNull();
		const foreign = path.join(dir, 'foreign.zip');
		fs.writeFileSync(foreign, craftZip([{name: 'manifest.json', data: Buffer.from('{"files":{"a":1}}')}]));
		expect(await readArchiveManifest(foreign)).toBeNull();
	});

	it('is null when the manifest bytes fail their CRC-32 (a byte of it changed in the archive)', async () => {
		const dir = tempDir('rm-crc');
		const manifest = Buffer.from(JSON.stringify(newManifest('full', 'id-2', dir, MTIME, null)));
		const good = craftZip([{name: 'manifest.json', data: manifest}]);
		const okFile = path.join(dir, 'ok.zip');
		fs.writeFileSync(okFile, good);
		expect((await readArchiveManifest(okFile))?.id).toBe('id-2');
		// Stored member: its data starts after the 30-byte local header and the name; flip one digit of its id.
		const at = good.indexOf('id-2', 30 + 'manifest.json'.length);
		good[at + 3] = '3'.charCodeAt(0);
		const bad = path.join(dir, 'bad.zip');
		fs.writeFileSync(bad, good);
		expect(await readArchiveManifest(bad)).toBeNull();
	});

	it('is null for a file that is no zip, an absent path and a folder', async () => {
		const dir = tempDir('rm-not');
		fs.writeFileSync(path.join(dir, 'x.zip'), 'not a zip at all');
		expect(await readArchiveManifest(path.join(dir, 'x.zip'))).toBeNull();
		expect(await readArchiveManifest(path.join(dir, 'absent.zip'))).toBeNull();
		expect(await readArchiveManifest(dir)).toBeNull();
	});
});
