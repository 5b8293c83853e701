/**
 * What real Hermes writes (test/fixtures/hermes-generations/: `hermes backup` and `hermes backup
 * --quick` of the v25 tree, see its README) verifies and restores with hfx: every database checked,
 * the counts those of the stores it was made from, the fixtures' bytes unchanged (each test works on
 * a copy). A zip wrapped in `.hermes/` (the prefix Hermes' own import strips) restores the same. A
 * restore over a store with newer messages (written by a second process, the sqlite3 CLI) says how
 * many it would drop before it asks, and the output never claims an hfx manifest these lack.
 */
import {spawnSync} from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import {afterAll, describe, expect, it} from 'vitest';
import {restoreArchive} from '../../../source/backup/restore/restore.js';
import {hfx, hfxJson} from '../../helpers/cli.js';
import {folderDigest} from '../../helpers/folder-digest.js';
import {ROOT} from '../../helpers/writer.js';

const FIXTURE = path.join(ROOT, 'test/fixtures/hermes-generations');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-hermes-archives-'));
const fixtureHashes = (): Record<string, string> =>
	Object.fromEntries(
		['hermes-backup.zip', 'hermes-quick-snapshot/manifest.json', 'hermes-quick-snapshot/state.db'].map(f => [
			f,
			crypto
				.createHash('sha256')
				.update(fs.readFileSync(path.join(FIXTURE, f)))
				.digest('hex'),
		]),
	);
const fixturesBefore = fixtureHashes();
afterAll(() => {
	fs.rmSync(dir, {recursive: true, force: true});
	// The fixtures' bytes never change.
	expect(fixtureHashes()).toEqual(fixturesBefore);
});

/** Sessions and messages of a fixture store, read from a private copy (the fixture is never opened). */
function counts(rel: string): {sessions: number; messages: number} {
	const copy = path.join(dir, rel.replaceAll('/', '_'));
	fs.copyFileSync(path.join(FIXTURE, 'root', rel), copy);
	const db = new Database(copy, {readonly: true});
	try {
		const n = (t: string) => (db.prepare(`SELECT count(*) AS n FROM ${t}`).get() as {n: number}).n;
		return {sessions: n('sessions'), messages: n('messages')};
	} finally {
		db.close();
	}
}

type Report = {
	exitCode: number;
	status: string;
	databases: Array<{path: string; ok: boolean; counts: Record<string, number>}>;
};

describe('archives made by Hermes itself', () => {
	it(
		'a `hermes backup` zip and a `hermes backup --quick` snapshot verify ' + 'sound, with the counts of their stores',
		() => {
			fs.cpSync(path.join(FIXTURE, 'hermes-backup.zip'), path.join(dir, 'hermes-backup.zip'));
			fs.cpSync(path.join(FIXTURE, 'hermes-quick-snapshot'), path.join(dir, 'snap'), {recursive: true});
			const zip = hfxJson<Report>(['verify', path.join(dir, 'hermes-backup.zip')]).json;
			expect(zip).toMatchObject({exitCode: 0, status: 'sound'});
			const byPath = Object.fromEntries(zip.databases.map(d => [d.path, d]));
			for (const rel of ['state.db', 'profiles/ops/state.db', 'profiles/work/state.db']) {
				expect(byPath[rel]?.ok).toBe(true);
				expect(byPath[rel]?.counts).toMatchObject(counts(rel));
			}

			const snap = hfxJson<Report>(['verify', path.join(dir, 'snap')]).json;
			expect(snap).toMatchObject({exitCode: 0, status: 'sound'});
			expect(snap.databases).toHaveLength(1);
			expect(snap.databases[0]!.counts).toMatchObject(counts('state.db'));
		},
	);
});

type Restored = {
	exitCode: number;
	status: string;
	root: string | null;
	mapping: Array<{archive: string; target: string}>;
	databases: Array<{path: string; ok: boolean; counts: Record<string, number>}>;
	comparison: Array<{
		path: string;
		dropped: {sessions: number; messages: number};
		added: {sessions: number; messages: number};
	}>;
	checked: {members: string; databases: string};
	notRestored: {outsideRoot: string[]; runtimeState: string[]; sidecars: string[]};
	preRestoreDir: string | null;
};

/** A copy of a fixture in its own folder (the tests never write beside the fixtures). */
function copyOf(name: string, tag: string): string {
	const where = fs.mkdtempSync(path.join(dir, `${tag}-`));
	const to = path.join(where, name === 'hermes-quick-snapshot' ? '20261201-075836' : name);
	fs.cpSync(path.join(FIXTURE, name), to, {recursive: true});
	return to;
}

/** 1 new session of 5 messages, committed by a second process (the sqlite3 CLI) into a restored store. */
function addNewerSession(db: string): void {
	const rows = Array.from(
		{length: 5},
		(_, i) =>
			`INSERT INTO messages (session_id, role, content, timestamp) VALUES ` +
			`('20261201_100000_0a0b0c0d', '${i % 2 ? 'assistant' : 'user'}', ` +
			`'newer ${i}', ${1_796_119_200 + i});`,
	).join('');
	const r = spawnSync(
		'sqlite3',
		[
			db,
			`BEGIN; INSERT INTO sessions (id, source, started_at) VALUES ` +
				`('20261201_100000_0a0b0c0d', 'telegram', 1796119200); ${rows} COMMIT;`,
		],
		{encoding: 'utf8'},
	);
	expect(r.status, r.stderr).toBe(0);
}

/** Hermes' own zip, unzipped into a scratch folder, changed by `change`, zipped again with the system zip. */
function hermesZipWith(tag: string, change: (work: string) => void): string {
	const work = fs.mkdtempSync(path.join(dir, `${tag}-`));
	expect(spawnSync('unzip', ['-q', path.join(FIXTURE, 'hermes-backup.zip'), '-d', work]).status).toBe(0);
	change(work);
	const zip = path.join(dir, `${tag}.zip`);
	expect(spawnSync('zip', ['-q', '-r', '-X', zip, '.'], {cwd: work}).status).toBe(0);
	return zip;
}

const STORES = ['state.db', 'profiles/ops/state.db', 'profiles/work/state.db'];

describe('archives made by Hermes itself restore', () => {
	it(
		'a `hermes backup` zip: every store restored with the counts of its ' +
			'fixture store, checked as a Hermes zip can be',
		() => {
			const zip = copyOf('hermes-backup.zip', 'zip');
			const target = path.join(dir, 'zip-restored');
			const r = hfxJson<Restored>(['restore', zip, '--to', target, '--yes']);
			expect(r.code, r.stderr).toBe(0);
			expect(r.json.status).toBe('restored');
			expect(r.json.root).toBe('');
			for (const rel of STORES) {
				expect(r.json.databases.find(d => d.path === rel)).toMatchObject({ok: true, counts: counts(rel)});
				expect(r.json.mapping).toContainEqual({archive: rel, target: path.join(target, rel)});
			}

			expect(fs.readFileSync(path.join(target, 'SOUL.md')).length).toBe(513);
			expect(r.json.notRestored).toEqual({outsideRoot: [], runtimeState: [], sidecars: []});
			expect(r.json.checked.members).toMatch(/CRC-32 and size in the zip/);
			const text = hfx(['restore', zip, '--to', path.join(dir, 'zip-restored-2'), '--yes']);
			expect(text.code, text.stderr).toBe(0);
			expect(text.stdout).not.toMatch(/manifest/);
			expect(text.stdout).toContain('counts as verified in the archive');
		},
	);

	it(
		'the same zip wrapped in .hermes/ (zip -r of the folder, the prefix ' +
			"Hermes' import strips) restores onto the same paths",
		() => {
			const work = fs.mkdtempSync(path.join(dir, 'prefixed-'));
			expect(
				spawnSync('unzip', ['-q', path.join(FIXTURE, 'hermes-backup.zip'), '-d', path.join(work, '.hermes')]).status,
			).toBe(0);
			const zip = path.join(work, 'wrapped.zip');
			expect(spawnSync('zip', ['-q', '-r', '-X', zip, '.hermes'], {cwd: work}).status).toBe(0);
			const target = path.join(dir, 'prefixed-restored');
			const r = hfxJson<Restored>(['restore', zip, '--to', target, '--yes']);
			expect(r.code, r.stderr).toBe(0);
			expect(r.json.root).toBe('.hermes');
			expect(fs.existsSync(path.join(target, '.hermes'))).toBe(false);
			expect(r.json.mapping).toContainEqual({
				archive: '.hermes/profiles/work/state.db',
				target: path.join(target, 'profiles/work/state.db'),
			});
			for (const rel of STORES) {
				expect(r.json.databases.find(d => d.path === rel)).toMatchObject({ok: true, counts: counts(rel)});
			}
		},
	);

	it(
		"a Hermes zip's _external/ (files from outside HERMES_HOME, which " +
			"Hermes' import puts back under the user's home) is not restored into " +
			'the root, and the output says so',
		() => {
			const zip = hermesZipWith('external', work => {
				fs.mkdirSync(path.join(work, '_external/.honcho'), {recursive: true});
				fs.writeFileSync(path.join(work, '_external/.honcho/config.json'), '{}\n');
			});
			const target = path.join(dir, 'external-restored');
			const r = hfxJson<Restored>(['restore', zip, '--to', target, '--yes']);
			expect(r.code, r.stderr).toBe(0);
			expect(r.json.notRestored.outsideRoot).toEqual(['_external/.honcho/config.json']);
			expect(fs.existsSync(path.join(target, '_external'))).toBe(false);
			expect(fs.existsSync(path.join(target, 'profiles/work/state.db'))).toBe(true);
			expect(hfx(['restore', zip, '--to', path.join(dir, 'external-restored-2'), '--yes']).stdout).toContain(
				'not restored: 1 member outside the Hermes root (first: _external/.honcho/config.json)',
			);
		},
	);

	it(
		"the source machine's runtime state in a Hermes zip (gateway_state.json, " +
			"processes.json, gateway.lock, a profile's gateway.pid) is left out as " +
			"Hermes' import leaves it out, and said so; everything else lands",
		() => {
			const runtime = ['gateway_state.json', 'processes.json', 'gateway.lock', 'profiles/work/gateway.pid'];
			const zip = hermesZipWith('runtime', work => {
				for (const rel of runtime) {
					fs.writeFileSync(path.join(work, rel), '{"gateway_state": "stopped"}\n');
				}

				fs.writeFileSync(path.join(work, 'config.yaml'), 'model: x\n');
			});
			const target = path.join(dir, 'runtime-restored');
			const r = hfxJson<Restored>(['restore', zip, '--to', target, '--yes']);
			expect(r.code, r.stderr).toBe(0);
			expect([...r.json.notRestored.runtimeState].sort()).toEqual([...runtime].sort());
			for (const rel of runtime) {
				expect(fs.existsSync(path.join(target, rel)), rel).toBe(false);
			}

			expect(fs.readFileSync(path.join(target, 'config.yaml'), 'utf8')).toBe('model: x\n');
			expect(r.json.databases.find(d => d.path === 'profiles/work/state.db')).toMatchObject({
				ok: true,
				counts: counts('profiles/work/state.db'),
			});
			const text = hfx(['restore', zip, '--to', path.join(dir, 'runtime-restored-2'), '--yes']).stdout;
			expect(text).toMatch(
				/not restored: .*gateway_state\.json.*\(runtime state of the machine the archive was taken on/,
			);
		},
	);

	it("a quick snapshot (Hermes' manifest.json, no hfx manifest) verifies, restores its files and drills", () => {
		const snap = copyOf('hermes-quick-snapshot', 'snap');
		expect(hfxJson<Report>(['verify', snap]).json.exitCode).toBe(0);
		const target = path.join(dir, 'snap-restored');
		const r = hfxJson<Restored>(['restore', snap, '--to', target, '--yes']);
		expect(r.code, r.stderr).toBe(0);
		expect(r.json.databases).toEqual([
			expect.objectContaining({
				path: 'state.db',
				ok: true,
				counts: expect.objectContaining(counts('state.db')) as unknown,
			}),
		]);
		expect(fs.readdirSync(target).filter(n => !n.startsWith('hfx-audit'))).toEqual(['state.db']);
		expect(r.json.checked.members).toMatch(/size in Hermes' manifest\.json/);
		const drill = hfxJson<{exitCode: number; ok: boolean}>(['restore', '--drill', snap]);
		expect(drill.json).toMatchObject({exitCode: 0, ok: true});
	});

	it.each([['hermes-backup.zip'], ['hermes-quick-snapshot']])(
		'%s over a store with newer messages: the dry run and the confirmation say how many it would drop, nothing written',
		async name => {
			const archive = copyOf(name, 'newer');
			const home = path.join(dir, `newer-home-${name}`);
			expect(hfxJson(['restore', archive, '--to', home, '--yes']).code).toBe(0);
			addNewerSession(path.join(home, 'state.db'));
			const before = folderDigest(home);
			const dry = hfxJson<Restored>(['restore', archive, '--home', home, '--dry-run']);
			expect(dry.code, dry.stderr).toBe(1);
			expect(dry.json.comparison.find(c => c.path === 'state.db')).toMatchObject({
				dropped: {sessions: 1, messages: 5},
				added: {sessions: 0, messages: 0},
			});
			let question = '';
			await expect(
				restoreArchive({
					archive,
					target: home,
					mode: 'home',
					confirm: async q => {
						question = q;
						return false;
					},
				}),
			).rejects.toThrow(/not confirmed; nothing was written/);
			expect(question).toContain('state.db: the restore would DROP 1 session and 5 messages');
			expect(folderDigest(home)).toEqual(before);
		},
	);
});
