/**
 * The archive's manifest (source/backup/manifest.ts): newManifest records whose home it is (real
 * path, device, inode) and when; parseManifest reads ours, bare or inside Hermes' quick-snapshot
 * manifest, and refuses in words what is not JSON, not ours, of another version, or lacks its
 * members, databases or home; quickManifest wraps ours in Hermes' fields; manifestHome is the
 * recorded real path, or an older manifest's root resolved now.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {
	type Manifest,
	ManifestError,
	homeIdentity,
	manifestHome,
	newManifest,
	parseManifest,
	quickManifest,
	realPathOf,
} from '../../source/backup/manifest.js';
import {toolVersion} from '../../source/ground/version.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-manifest-'));
const home = path.join(dir, 'hermes');
fs.mkdirSync(home);
fs.symlinkSync(home, path.join(dir, 'link'));
afterAll(() => {
	fs.rmSync(dir, {recursive: true, force: true});
});

const CREATED = new Date('2026-03-04T05:06:07.890Z');

function manifest(): Manifest {
	const m = newManifest('full', '20260304-050607-abcd', path.join(dir, 'link'), CREATED, 'nightly');
	m.members.push(
		{path: 'state.db', size: 4096, mode: 0o600, mtime: CREATED.toISOString(), crc32: '0', sha256: 'a', kind: 'db'},
		{path: 'config.yaml', size: 10, mode: 0o644, mtime: CREATED.toISOString(), crc32: '1', sha256: 'b', kind: 'file'},
	);
	return m;
}

function refusal(text: string): string {
	try {
		parseManifest(text);
	} catch (error) {
		expect(error).toBeInstanceOf(ManifestError);
		return (error as Error).message;
	}

	throw new Error('accepted');
}

describe('newManifest', () => {
	it('records the kind, times, tool and whose home it is by its real path', () => {
		const m = manifest();
		const st = fs.statSync(home);
		expect(m).toMatchObject({
			format: 'hfx-backup',
			version: 1,
			kind: 'full',
			id: '20260304-050607-abcd',
			createdAt: '2026-03-04T05:06:07.890Z',
			createdAtEpoch: Math.floor(CREATED.getTime() / 1000),
			label: 'nightly',
			tool: {name: 'hfx', version: toolVersion()},
			complete: true,
			databases: [],
			skipped: [],
			excluded: [],
		});
		expect(m.source).toEqual({
			root: path.join(dir, 'link'),
			host: os.hostname(),
			uid: process.getuid!(),
			home: {realPath: fs.realpathSync(home), dev: st.dev, ino: st.ino},
		});
	});
});

describe('homeIdentity, realPathOf, manifestHome', () => {
	it('a path that does not resolve keeps its absolute form, with no device or inode', () => {
		expect(realPathOf(path.join(dir, 'link'))).toBe(fs.realpathSync(home));
		expect(homeIdentity('relative/gone')).toEqual({realPath: path.resolve('relative/gone'), dev: -1, ino: -1});
	});

	it('the recorded real path, or (an older manifest) its root resolved now', () => {
		const m = manifest();
		expect(manifestHome({...m, source: {...m.source, home: {realPath: '/elsewhere', dev: 1, ino: 2}}})).toBe(
			'/elsewhere',
		);
		const {home: _, ...older} = m.source;
		expect(manifestHome({...m, source: older})).toBe(fs.realpathSync(home));
	});
});

describe('parseManifest', () => {
	it('reads ours, bare, as a Buffer, or inside the quick-snapshot manifest', () => {
		const m = manifest();
		expect(parseManifest(JSON.stringify(m))).toEqual(m);
		expect(parseManifest(Buffer.from(JSON.stringify(m)))).toEqual(m);
		expect(parseManifest(JSON.stringify(quickManifest(m, [])))).toEqual(m);
	});

	it('refuses what is not JSON, not ours, or of another version', () => {
		expect(refusal('{"format":')).toMatch(/^manifest.json is not valid JSON \(/);
		expect(refusal('[]')).toBe('manifest.json is not an hfx manifest (no "format": "hfx-backup")');
		expect(refusal(JSON.stringify({...manifest(), format: 'hermes'}))).toContain('is not an hfx manifest');
		expect(refusal(JSON.stringify({...manifest(), version: 2}))).toBe(
			'manifest version 2 is not supported (this hfx reads version 1)',
		);
	});

	it('refuses a missing list, a malformed member or database, by its number', () => {
		const m = manifest();
		expect(refusal(JSON.stringify({...m, databases: undefined}))).toBe(
			'manifest.json lacks its members or databases list',
		);
		const badMember = {...m, members: [m.members[0], {...m.members[1], sha256: 5}]};
		expect(refusal(JSON.stringify(badMember))).toBe('manifest member #2 is malformed');
		expect(refusal(JSON.stringify({...m, databases: [{path: 'state.db'}]}))).toBe('manifest database #1 is malformed');
	});

	it('refuses a manifest that does not say whose home it is', () => {
		const m = manifest();
		const lacks = 'manifest.json lacks the home it was taken of (source.root / source.home)';
		expect(refusal(JSON.stringify({...m, source: undefined}))).toBe(lacks);
		expect(refusal(JSON.stringify({...m, source: {...m.source, root: 7}}))).toBe(lacks);
		expect(refusal(JSON.stringify({...m, source: {...m.source, home: {realPath: null}}}))).toBe(lacks);
		const {home: _, ...older} = m.source;
		expect(parseManifest(JSON.stringify({...m, source: older})).source.home).toBeUndefined();
	});
});

describe('quickManifest', () => {
	it("Hermes' fields around ours: the stamp, file sizes, the total and the failed stores", () => {
		const m = manifest();
		expect(quickManifest(m, ['profiles/work/state.db'])).toEqual({
			id: '20260304-050607-abcd',
			timestamp: '20260304-050607',
			label: 'nightly',
			file_count: 2,
			total_size: 4106,
			files: {'state.db': 4096, 'config.yaml': 10},
			failed_dbs: ['profiles/work/state.db'],
			oversized_skipped: [],
			hfx: m,
		});
	});
});
