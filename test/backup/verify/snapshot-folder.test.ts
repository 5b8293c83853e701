/**
 * Verifying a snapshot folder (source/backup/verify/snapshot-folder.ts): a real quick snapshot of a
 * real home (takeQuickSnapshot), copied and changed per test, and a Hermes quick snapshot (its own
 * manifest.json of file sizes) made by hand; every database checked on a temp copy that is gone after.
 */
import fs from 'node:fs';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {takeQuickSnapshot} from '../../../source/backup/create/snapshot.js';
import {MAX_MANIFEST_BYTES, verifySnapshot} from '../../../source/backup/verify/snapshot-folder.js';
import {cleanupTemps, makeHome, tempDir} from '../helpers.js';
import {tinyDb} from '../hostile-archives.js';

let snapshot: string;

beforeAll(async () => {
	const home = makeHome('snapf');
	snapshot = (await takeQuickSnapshot({home: home.root, label: 't'})).dir;
});

afterAll(cleanupTemps);

/** A fresh copy of the snapshot, and a private temp parent (to see the extraction removed). */
function copy(tag: string): {dir: string; tmpDir: string} {
	const dir = path.join(tempDir(tag), 'snap');
	fs.cpSync(snapshot, dir, {recursive: true});
	return {dir, tmpDir: tempDir(`${tag}-tmp`)};
}

describe('verifySnapshot: an hfx quick snapshot', () => {
	it('is sound as written: every file against the manifest, state.db checked, the temp copy removed', async () => {
		const {dir, tmpDir} = copy('snapf-sound');
		const r = await verifySnapshot(dir, {inlineChecks: true, tmpDir});
		expect(r.problems).toEqual([]);
		expect([r.kind, r.status, r.exitCode, r.sealed]).toEqual(['snapshot', 'sound', 0, false]);
		expect(r.manifest?.kind).toBe('quick');
		expect(r.members).toBe(r.manifest!.members.length);
		expect(r.databases.map(d => [d.path, d.ok])).toEqual([['state.db', true]]);
		expect(fs.readdirSync(tmpDir)).toEqual([]);
	});

	it('names a file of the wrong size, a link in place of a file, and an unlisted one', async () => {
		const {dir, tmpDir} = copy('snapf-bad');
		fs.appendFileSync(path.join(dir, 'config.yaml'), '#');
		const size = fs.statSync(path.join(dir, 'config.yaml')).size;
		fs.rmSync(path.join(dir, 'auth.json'));
		fs.symlinkSync('/etc/hostname', path.join(dir, 'auth.json'));
		fs.writeFileSync(path.join(dir, 'extra.txt'), 'x');
		const r = await verifySnapshot(dir, {inlineChecks: true, tmpDir});
		expect(r.status).toBe('damaged');
		expect(r.problems).toEqual([
			{where: 'file "auth.json"', what: 'unsafe member: symbolic link'},
			{where: 'file "config.yaml"', what: `size is ${size}, the manifest says ${size - 1}`},
			{where: 'file "config.yaml"', what: 'sha256 differs from the manifest'},
			{where: 'file "config.yaml"', what: expect.stringMatching(/^CRC-32 [0-9a-f]{8} differs from the manifest's/)},
			{where: 'file "extra.txt"', what: 'not listed in the manifest'},
		]);
		expect(fs.readdirSync(tmpDir)).toEqual([]);
	});

	it('an incomplete snapshot is noted with what was skipped', async () => {
		const {dir, tmpDir} = copy('snapf-incomplete');
		const file = path.join(dir, 'manifest.json');
		const raw = JSON.parse(fs.readFileSync(file, 'utf8')) as {hfx: {complete: boolean; skipped: unknown[]}};
		raw.hfx.complete = false;
		raw.hfx.skipped = [{path: 'big.bin', reason: 'too large'}];
		fs.writeFileSync(file, JSON.stringify(raw));
		const r = await verifySnapshot(dir, {inlineChecks: true, tmpDir});
		expect(r.notes).toContain('the snapshot was incomplete when taken: big.bin (too large)');
	});
});

describe('verifySnapshot: a Hermes quick snapshot', () => {
	function hermesSnapshot(files: Record<string, Buffer>, sizes?: Record<string, number>): string {
		const dir = tempDir('snapf-hermes');
		for (const [rel, data] of Object.entries(files)) {
			fs.writeFileSync(path.join(dir, rel), data);
		}

		const listed = sizes ?? Object.fromEntries(Object.entries(files).map(([rel, data]) => [rel, data.length]));
		fs.writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify({id: 'x', files: listed}));
		return dir;
	}

	it('checks the sizes its manifest.json lists and the databases, and says it did only that', async () => {
		const db = tinyDb(tempDir('snapf-db'), 3);
		const dir = hermesSnapshot({'state.db': db, 'config.yaml': Buffer.from('a: 1\n')});
		const r = await verifySnapshot(dir, {inlineChecks: true});
		expect(r.problems).toEqual([]);
		expect(r.manifest).toBeNull();
		expect(r.notes).toEqual(['a Hermes quick snapshot (no hfx manifest): checked file sizes and databases only']);
		expect(r.databases.map(d => [d.path, d.ok, d.counts.messages])).toEqual([['state.db', true, 3]]);
	});

	it('a listed file missing, and a snapshot with no store, are damage', async () => {
		const dir = hermesSnapshot({'config.yaml': Buffer.from('a: 1\n')}, {'config.yaml': 5, 'memories/MEMORY.md': 9});
		const r = await verifySnapshot(dir, {inlineChecks: true});
		expect(r.status).toBe('damaged');
		expect(r.problems).toEqual([
			expect.objectContaining({where: 'archive', noStore: true}),
			{where: 'file "memories/MEMORY.md"', what: 'listed in the manifest but missing'},
		]);
	});
});

describe('verifySnapshot: no snapshot folder', () => {
	it('a folder without manifest.json is unreadable (exit 2), and makes no temp folder', async () => {
		const dir = tempDir('snapf-none');
		const tmpDir = tempDir('snapf-none-tmp');
		const r = await verifySnapshot(dir, {tmpDir});
		expect([r.status, r.exitCode]).toEqual(['unreadable', 2]);
		expect(r.problems).toEqual([
			{
				where: path.join(dir, 'manifest.json'),
				what: 'no readable manifest.json (ENOENT): not a snapshot folder',
			},
		]);
		expect(fs.readdirSync(tmpDir)).toEqual([]);
	});

	it('a manifest.json that is not JSON is a problem; one over 16 MiB is not read at all', async () => {
		const dir = tempDir('snapf-json');
		fs.writeFileSync(path.join(dir, 'manifest.json'), '{not json');
		const r = await verifySnapshot(dir, {inlineChecks: true});
		expect(r.problems[0]).toEqual({
			where: 'manifest.json',
			what: expect.stringMatching(/^manifest.json is not valid JSON/),
		});
		expect(MAX_MANIFEST_BYTES).toBe(16 * 1_048_576);
		// A sparse file: nothing written, its 16 MiB of zeros read from no disk.
		fs.truncateSync(path.join(dir, 'manifest.json'), MAX_MANIFEST_BYTES + 1);
		const big = await verifySnapshot(dir, {inlineChecks: true});
		expect(big.status).toBe('unreadable');
		expect(big.problems).toEqual([
			{
				where: path.join(dir, 'manifest.json'),
				what: 'manifest.json is larger than 16 MiB: not a snapshot manifest',
			},
		]);
	});
});
