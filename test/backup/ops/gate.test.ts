/**
 * The gate before a destructive operation (source/backup/ops/gate.ts), in-process on real files:
 * parseDuration reads "30m", "2h", "1d"...; recomputeSeal gives a sealed archive's seal again;
 * checkGate passes only for a backup of this home, young enough, complete, verified and drilled
 * and still the bytes drilled (an hfx archive by its seal and its manifest's home, a tarball by
 * the sha256 its drill recorded and its stores' newest sessions), and otherwise says what the
 * newest lacks and the next step.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import {afterAll, describe, expect, it} from 'vitest';
import {ZipWriter} from '../../../source/backup/create/zip-writer.js';
import {digestFile} from '../../../source/backup/digest.js';
import {newManifest} from '../../../source/backup/manifest.js';
import {DEFAULT_MAX_AGE_SECONDS, checkGate, parseDuration, recomputeSeal} from '../../../source/backup/ops/gate.js';
import {appendRecord, fingerprintOf} from '../../../source/backup/records.js';

const made: string[] = [];
afterAll(() => {
	for (const d of made) {
		fs.rmSync(d, {recursive: true, force: true});
	}
});

const NEWEST = '20260101_080000_a1b2c3';

function home(): {root: string; dir: string; now: number} {
	const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-gate-')));
	made.push(root);
	const w = new Database(path.join(root, 'state.db'));
	w.exec('CREATE TABLE sessions (id TEXT PRIMARY KEY)');
	w.prepare('INSERT INTO sessions VALUES (?)').run(NEWEST);
	w.close();
	const dir = path.join(root, 'backups');
	fs.mkdirSync(dir);
	return {root, dir, now: Date.now() / 1000};
}

/** An hfx archive whose manifest names `of` as its home. */
async function archive(dir: string, name: string, of: string): Promise<string> {
	const w = new ZipWriter(path.join(dir, name));
	w.addBuffer('config.yaml', Buffer.from('model: x\n'), 'file', {mode: 0o600, mtime: new Date(), compress: false});
	return (await w.finish(Buffer.from(JSON.stringify(newManifest('full', name, of, new Date(), null))))).seal;
}

function record(dir: string, name: string, event: 'verify' | 'drill', details: Record<string, unknown>, seal?: string) {
	appendRecord(dir, {
		at: Date.now() / 1000,
		event,
		artifact: name,
		kind: name.endsWith('.zip') ? 'archive' : 'tar',
		ok: true,
		exitCode: 0,
		...fingerprintOf(path.join(dir, name)),
		seal: seal ?? null,
		summary: 'sound',
		details,
	});
}

function gate(h: {root: string; dir: string; now: number}, maxAgeSeconds = DEFAULT_MAX_AGE_SECONDS) {
	return checkGate({root: h.root, dirs: [h.dir], maxAgeSeconds, now: h.now, home: h.root});
}

describe('parseDuration', () => {
	it('seconds by default, and s, m, h, d, w in their spellings', () => {
		expect(parseDuration('45')).toBe(45);
		expect(parseDuration('90s')).toBe(90);
		expect(parseDuration('30m')).toBe(1800);
		expect(parseDuration(' 2 hrs ')).toBe(7200);
		expect(parseDuration('1.5h')).toBe(5400);
		expect(parseDuration('1d')).toBe(86_400);
		expect(parseDuration('2W')).toBe(1_209_600);
		expect(DEFAULT_MAX_AGE_SECONDS).toBe(1800);
	});

	it('null for anything else', () => {
		for (const bad of ['', 'm', '-5m', '5 minutes ago', '1y', '5m5s']) {
			expect(parseDuration(bad)).toBeNull();
		}
	});
});

describe('recomputeSeal', () => {
	it("a sealed archive's seal again; null for a file that is no zip", async () => {
		const h = home();
		const seal = await archive(h.dir, 'hfx-backup-20260101-000000.zip', h.root);
		expect(await recomputeSeal(path.join(h.dir, 'hfx-backup-20260101-000000.zip'))).toBe(seal);
		fs.writeFileSync(path.join(h.dir, 'junk.zip'), 'no zip');
		expect(await recomputeSeal(path.join(h.dir, 'junk.zip'))).toBeNull();
	});
});

describe('checkGate', () => {
	it('nothing there: no backup of this home, and the next step', async () => {
		const h = home();
		const r = await gate(h);
		expect(r).toMatchObject({ok: false, archive: null, candidates: []});
		expect(r.reason).toBe(
			`no backup of ${h.root} in ${h.dir} or its state-snapshots/. Next: hfx backup, then hfx restore --drill ` +
				'<the new archive>',
		);
	});

	it('an hfx archive of this home, verified and drilled, its seal unchanged: passes', async () => {
		const h = home();
		const name = `hfx-backup-${new Date().toISOString().replaceAll(/[-:]/g, '').replace('T', '-').slice(0, 15)}.zip`;
		const seal = await archive(h.dir, name, h.root);
		record(h.dir, name, 'drill', {home: h.root, complete: true}, seal);
		const r = await gate(h);
		expect(r.ok).toBe(true);
		expect(r.archive).toBe(path.join(h.dir, name));
		expect(r.reason).toMatch(
			new RegExp(`^${name}: an hfx archive, complete, .* old, verified and drilled, bytes unchanged since the drill$`),
		);
	});

	it('an hfx archive whose manifest names another home never passes, whatever its records say', async () => {
		const h = home();
		const name = 'hfx-backup-20990101-000000.zip';
		const seal = await archive(h.dir, name, '/elsewhere');
		record(h.dir, name, 'drill', {home: h.root, complete: true}, seal);
		const r = await gate({...h, now: Date.UTC(2099, 0, 1, 0, 5) / 1000});
		expect(r.ok).toBe(false);
		expect(r.candidates[0]!.missing).toEqual(['its manifest names another home']);
	});

	it('a tarball placed by its newest sessions passes by the sha256 its drill recorded; changed, refused', async () => {
		const h = home();
		const name = 'hermes-data-20990101-000000.tar.gz';
		const file = path.join(h.dir, name);
		fs.writeFileSync(file, 'tar bytes');
		const identity = [{path: 'state.db', newest: [NEWEST]}];
		record(h.dir, name, 'drill', {identity, sha256: digestFile(file).sha256});
		const at = {...h, now: Date.UTC(2099, 0, 1, 0, 10) / 1000};
		expect(await gate(at)).toMatchObject({ok: true, archive: file});

		record(h.dir, name, 'drill', {identity, sha256: 'f'.repeat(64)});
		const r = await gate(at);
		expect(r.ok).toBe(false);
		expect(r.reason).toContain('its bytes no longer match the drilled archive (sha256 mismatch)');
		expect(r.reason).toMatch(/Next: hfx backup, then hfx restore --drill <the new archive>$/);
	});

	it('says what the newest lacks: too old, not verified, not drilled, whose home unknown; next a drill', async () => {
		const h = home();
		const name = 'hermes-data-20260101-000000.tar.gz';
		fs.writeFileSync(path.join(h.dir, name), 'tar bytes');
		const r = await gate({...h, now: Date.UTC(2026, 0, 1, 0, 20) / 1000});
		expect(r.candidates[0]!.missing).toEqual([
			'whose home it is is unknown: it has no manifest, and only a verify or a drill records whose home it is ' +
				"(its stores' newest sessions)",
			'not verified',
			'not drilled',
		]);
		expect(r.reason).toMatch(
			/^no verified, drilled backup newer than 30 minutes: the newest, hermes-data-20260101-000000.tar.gz, /,
		);
		expect(r.reason).toMatch(/Next: hfx restore --drill .*hermes-data-20260101-000000.tar.gz$/);
		expect((await gate({...h, now: Date.UTC(2026, 0, 2) / 1000}, 60)).candidates[0]!.missing).toContain(
			'it is 24.0 hours old (max 60 seconds)',
		);
	});

	it("another home's tarball is named apart and never passes", async () => {
		const h = home();
		const name = 'hermes-data-20990101-000000.tar.gz';
		const file = path.join(h.dir, name);
		fs.writeFileSync(file, 'tar bytes');
		record(h.dir, name, 'drill', {identity: [{path: 'state.db', newest: ['2025_x']}], sha256: digestFile(file).sha256});
		const r = await gate({...h, now: Date.UTC(2099, 0, 1, 0, 10) / 1000});
		expect(r.ok).toBe(false);
		expect(r.candidates[0]!.owner).toBe('other');
		expect(r.reason).toContain(`(1 backup there is of another home: never passing for ${h.root})`);
	});
});
