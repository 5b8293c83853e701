/**
 * Verifying a zip (source/backup/verify/zip.ts): archives by the real ZipWriter (sealed, with an hfx
 * manifest) and by the tests' zip writer (Hermes' own archives: no seal, no manifest; and hostile
 * ones). Each check of a member against the central directory and the manifest, the notes for
 * what could not be checked, and the temp extraction gone after.
 */
import fs from 'node:fs';
import path from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {ZipWriter} from '../../../source/backup/create/zip-writer.js';
import {type DatabaseRecord, type Manifest, newManifest} from '../../../source/backup/manifest.js';
import {verifyZip} from '../../../source/backup/verify/zip.js';
import {type CraftEntry, cleanupTemps, craftZip, tempDir} from '../helpers.js';
import {tinyDb} from '../hostile-archives.js';

afterAll(cleanupTemps);

const MTIME = new Date('2026-06-01T00:00:00Z');
const CONFIG = Buffer.from('model: hermes-3\n');

/** A sealed hfx archive of config.yaml and state.db (2 messages), its manifest as `hfx backup` fills it. */
async function hfxArchive(dir: string, edit: (m: Manifest) => void = () => {}): Promise<string> {
	const file = path.join(dir, 'hfx.zip');
	const w = new ZipWriter(file);
	const m = newManifest('full', 'id', dir, MTIME, null);
	const options = {mtime: MTIME, compress: true};
	m.members.push(w.addBuffer('config.yaml', CONFIG, 'file', {...options, mode: 0o644}));
	m.members.push(w.addBuffer('state.db', tinyDb(dir, 2), 'db', {...options, mode: 0o600}));
	// The fields verify reads of a database record.
	const db: Partial<DatabaseRecord> = {
		path: 'state.db',
		integrity: 'ok',
		counts: {sessions: 1, messages: 2},
		schemaVersion: null,
	};
	m.databases.push(db as DatabaseRecord);
	edit(m);
	await w.finish(Buffer.from(JSON.stringify(m)));
	return file;
}

function hermesZip(dir: string, entries: CraftEntry[], comment = ''): string {
	const file = path.join(dir, 'hermes.zip');
	fs.writeFileSync(file, craftZip(entries, comment));
	return file;
}

describe('verifyZip: an hfx archive', () => {
	it('is sound: sealed, every member against the manifest, state.db checked, the extraction removed', async () => {
		const dir = tempDir('vz-sound');
		const tmpDir = tempDir('vz-sound-tmp');
		const r = await verifyZip(await hfxArchive(dir), {inlineChecks: true, tmpDir});
		expect(r.problems).toEqual([]);
		expect(r.notes).toEqual([]);
		expect([r.kind, r.status, r.exitCode, r.sealed, r.members]).toEqual(['zip', 'sound', 0, true, 2]);
		expect(r.seal).toMatch(/^[0-9a-f]{64}$/);
		expect(r.databases.map(d => [d.path, d.ok, d.counts.messages])).toEqual([['state.db', true, 2]]);
		expect(fs.readdirSync(tmpDir)).toEqual([]);
	});

	it('a database whose counts differ from the manifest, a member it lacks and one it has not', async () => {
		const dir = tempDir('vz-manifest');
		const file = await hfxArchive(dir, m => {
			m.databases[0]!.counts.messages = 3;
			m.members.push({...m.members[0]!, path: 'SOUL.md'});
			m.members = m.members.filter(x => x.path !== 'config.yaml');
			m.complete = false;
			m.skipped = [{path: 'big.bin', reason: 'too large'}];
		});
		const r = await verifyZip(file, {inlineChecks: true});
		expect(r.status).toBe('damaged');
		expect(r.problems).toEqual([
			{where: 'member "config.yaml"', what: 'not listed in the manifest'},
			{where: 'member "SOUL.md"', what: 'listed in the manifest but missing from the archive'},
		]);
		expect(r.databases[0]!.problems).toEqual(['table messages has 2 rows, expected 3']);
		expect(r.notes).toEqual(['the backup was incomplete when taken: big.bin (too large)']);
	});

	it("a member whose mode or bytes differ from the manifest's record", async () => {
		const dir = tempDir('vz-mode');
		const file = await hfxArchive(dir, m => {
			m.members[0]!.mode = 0o600;
			m.members[0]!.sha256 = '0'.repeat(64);
		});
		const r = await verifyZip(file, {inlineChecks: true});
		expect(r.problems).toEqual([
			{where: 'member "config.yaml"', what: 'sha256 differs from the manifest'},
			{where: 'member "config.yaml"', what: "mode 644 differs from the manifest's 600"},
		]);
	});
});

describe('verifyZip: a zip without our seal', () => {
	it("Hermes' own archive: no seal, no manifest, noted; its members by CRC-32 and its store checked", async () => {
		const dir = tempDir('vz-hermes');
		const file = hermesZip(dir, [
			{name: '.hermes/config.yaml', data: CONFIG},
			{name: '.hermes/state.db', data: tinyDb(dir, 4)},
		]);
		const r = await verifyZip(file, {inlineChecks: true});
		expect([r.status, r.sealed, r.manifest]).toEqual(['sound', false, null]);
		expect(r.notes).toEqual([
			'no hfx seal in the archive comment (not written by hfx backup): checked CRC-32s, structure and databases only',
			'no manifest.json (a Hermes archive?): members checked by CRC-32 only',
		]);
		expect(r.databases.map(d => [d.path, d.ok, d.counts.messages])).toEqual([['.hermes/state.db', true, 4]]);
	});

	it('an hfx manifest without a seal is damage; so is a seal without a manifest', async () => {
		const dir = tempDir('vz-noseal');
		const manifest = Buffer.from(JSON.stringify(newManifest('full', 'id', dir, MTIME, null)));
		const unsealed = await verifyZip(
			hermesZip(dir, [
				{name: 'state.db', data: tinyDb(dir, 1)},
				{name: 'manifest.json', data: manifest},
			]),
			{inlineChecks: true},
		);
		expect(unsealed.problems).toContainEqual({
			where: expect.stringMatching(/^end record comment \(byte \d+\)$/),
			what: 'an hfx archive must carry its seal in the comment; it is missing or damaged',
		});
		const dir2 = tempDir('vz-nomanifest');
		const sealedOnly = await verifyZip(
			hermesZip(dir2, [{name: 'state.db', data: tinyDb(dir2, 1)}], `hfx-seal-v1 sha256:${'0'.repeat(64)}`),
			{inlineChecks: true},
		);
		expect(sealedOnly.problems).toContainEqual({
			where: 'archive',
			what: 'manifest.json is missing from an hfx archive',
		});
		expect(sealedOnly.problems.some(p => /does not match its seal/.test(p.what))).toBe(true);
	});

	it('a member whose data fails its CRC-32, and an empty *.db noted but not checked', async () => {
		const dir = tempDir('vz-crc');
		const bytes = craftZip([
			{name: 'config.yaml', data: CONFIG},
			{name: 'state.db', data: tinyDb(dir, 1)},
			{name: 'empty.db', data: Buffer.alloc(0)},
		]);
		const at = 30 + 'config.yaml'.length;
		bytes[at] = bytes[at]! ^ 0x20;
		const file = path.join(dir, 'crc.zip');
		fs.writeFileSync(file, bytes);
		const r = await verifyZip(file, {inlineChecks: true});
		expect(r.problems).toEqual([
			{
				where: 'member "config.yaml"',
				what: expect.stringMatching(/^CRC-32 mismatch: the data gives [0-9a-f]{8}, the archive says [0-9a-f]{8}$/),
			},
		]);
		expect(r.notes).toContain('empty.db is an empty file (0 bytes), not checked as a database');
		expect(r.databases.map(d => d.path)).toEqual(['state.db']);
	});

	it('a member the policy refuses is a problem and is never extracted or checked', async () => {
		const dir = tempDir('vz-refused');
		const file = hermesZip(dir, [
			{name: 'state.db', data: tinyDb(dir, 1)},
			{name: '../evil.db', data: tinyDb(dir, 2)},
		]);
		const r = await verifyZip(file, {inlineChecks: true});
		expect(r.status).toBe('damaged');
		expect(r.problems.map(p => p.where)).toEqual(['member #2 "../evil.db"']);
		expect(r.problems[0]!.what).toMatch(/; a restore refuses this archive$/);
		expect(r.databases.map(d => d.path)).toEqual(['state.db']);
	});
});

describe('verifyZip: no zip', () => {
	it('is unreadable (exit 2) with the reason, and leaves no temp folder', async () => {
		const dir = tempDir('vz-not');
		const tmpDir = tempDir('vz-not-tmp');
		fs.writeFileSync(path.join(dir, 'x.zip'), 'not a zip');
		const r = await verifyZip(path.join(dir, 'x.zip'), {tmpDir});
		expect([r.status, r.exitCode]).toEqual(['unreadable', 2]);
		expect(r.problems).toEqual([
			{where: 'archive', what: 'no zip end record found (not a zip file, or its last bytes are damaged or cut off)'},
		]);
		expect(fs.readdirSync(tmpDir)).toEqual([]);
	});
});
