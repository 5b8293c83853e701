/**
 * verify catches damage anywhere: every single-byte flip of a real (small) archive, at every
 * offset: member data, local headers, data descriptors, the manifest, the central directory and
 * the end record. Plus the sound case, and snapshot folders.
 */
import {spawnSync} from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import {afterAll, describe, expect, it} from 'vitest';
import {createBackup} from '../../../source/backup/create/backup.js';
import {takeQuickSnapshot} from '../../../source/backup/create/snapshot.js';
import {verifyArtifact} from '../../../source/backup/verify/verify.js';
import {verifyZip} from '../../../source/backup/verify/zip.js';
import {openZip} from '../../../source/backup/archive/zipread.js';
import {hfx} from '../../helpers/cli.js';
import {cleanupTemps, makeHome, tempDir, flip} from '../helpers.js';
import {type HostileMember, pyTar, pyZip, tinyDb} from '../hostile-archives.js';

afterAll(cleanupTemps);

/** A tiny Hermes root: two small files and a 512-byte-page database, so every byte can be flipped. */
function tinyHome(): string {
	const root = tempDir('tiny');
	fs.writeFileSync(path.join(root, 'config.yaml'), 'terminal:\n  backend: local\n');
	fs.writeFileSync(path.join(root, '.env'), 'KEY=x\n', {mode: 0o600});
	const db = new Database(path.join(root, 'state.db'));
	db.pragma('page_size = 512');
	db.exec(
		'CREATE TABLE sessions (id TEXT PRIMARY KEY, source TEXT, started_at ' +
			'REAL); CREATE TABLE messages (id INTEGER PRIMARY KEY, session_id TEXT, ' +
			'content TEXT)',
	);
	db.exec("INSERT INTO sessions VALUES ('s1', 'cli', 1786060800)");
	db.exec("INSERT INTO messages (session_id, content) VALUES ('s1', 'hello'), ('s1', 'world')");
	db.close();
	return root;
}

describe('verify: a sound archive', () => {
	it('checks the seal, every member against the manifest and every database on a temp extraction', async () => {
		const home = makeHome('verify-sound');
		const out = tempDir('verify-sound-out');
		const backup = await createBackup({root: home.root, output: out});
		const r = await verifyArtifact(backup.archive!, {inlineChecks: true});
		expect(r.problems).toEqual([]);
		expect(r.status).toBe('sound');
		expect(r.exitCode).toBe(0);
		expect(r.sealed).toBe(true);
		expect(r.kind).toBe('zip');
		expect(r.members).toBe(backup.manifest!.members.length);
		const main = r.databases.find(d => d.path === 'state.db')!;
		expect(main.ok).toBe(true);
		expect(main.counts.sessions).toBe(home.sessions);
		expect(main.counts.messages).toBe(home.messages);
		expect(r.databases.find(d => d.path === 'profiles/work/state.db')!.schemaVersion).toBe(
			backup.manifest!.databases.find(d => d.path === 'profiles/work/state.db')!.schemaVersion,
		);
		// Nothing left in the temp folder.
		expect(fs.readdirSync(out).filter(n => n.startsWith('.hfx-'))).toEqual([]);
	});
});

describe('verify: every single-byte flip is caught', () => {
	it('never reports a flipped archive as sound, at any offset', async () => {
		const root = tinyHome();
		const out = tempDir('flip-out');
		const backup = await createBackup({root, output: out});
		const original = fs.readFileSync(backup.archive!);
		// The layout, so a failure says where it was.
		const z = await openZip(backup.archive!);
		const regions = z.members
			.map(m => ({name: m.name, at: m.entry.relativeOffsetOfLocalHeader}))
			.sort((a, b) => a.at - b.at);
		const cd = {start: z.cdOffset, end: z.eocdOffset};
		z.close();
		expect(original.length).toBeLessThan(12_000);
		expect((await verifyZip(backup.archive!, {inlineChecks: true})).exitCode).toBe(0);
		const where = (offset: number) => {
			if (offset >= cd.end) {
				return 'end record';
			}

			if (offset >= cd.start) {
				return 'central directory';
			}

			return `member ${[...regions].reverse().find(r => r.at <= offset)!.name}`;
		};

		const flipped = path.join(tempDir('flip'), 'flipped.zip');
		const missed: string[] = [];
		const byExit = {1: 0, 2: 0};
		for (let offset = 0; offset < original.length; offset++) {
			for (const mask of [0xff, 0x01]) {
				const copy = Buffer.from(original);
				flip(copy, offset, mask);
				fs.writeFileSync(flipped, copy);
				const r = await verifyZip(flipped, {inlineChecks: true});
				if (r.exitCode === 0) {
					missed.push(`offset ${offset} (${where(offset)}) ^0x${mask.toString(16)}`);
				} else {
					byExit[r.exitCode]++;
				}
			}
		}

		expect(missed).toEqual([]);
		expect(byExit[1] + byExit[2]).toBe(original.length * 2);
		// Most flips are located ("damaged"); only those that hide the end record are "unreadable".
		expect(byExit[1]).toBeGreaterThan(byExit[2]);
	}, 600_000);

	it('reports a truncated archive and a file that is not a zip as unreadable (exit 2)', async () => {
		const root = tinyHome();
		const backup = await createBackup({root, output: tempDir('trunc-out')});
		const dir = tempDir('trunc');
		const cut = path.join(dir, 'cut.zip');
		fs.writeFileSync(cut, fs.readFileSync(backup.archive!).subarray(0, 1000));
		expect((await verifyArtifact(cut)).exitCode).toBe(2);
		const text = path.join(dir, 'notes.txt');
		fs.writeFileSync(text, 'hello');
		const r = await verifyArtifact(text);
		expect(r.exitCode).toBe(2);
		expect(r.problems[0]!.what).toMatch(/not a zip, tar\.gz, tar or snapshot folder/);
	});
});

describe('verify: quick snapshot folders', () => {
	it('is sound as written, and names the damaged, extra or missing file', async () => {
		const home = makeHome('verify-snap');
		const snap = await takeQuickSnapshot({home: home.root, label: 'v'});
		expect(snap.verified).toBe(true);
		const sound = await verifyArtifact(snap.dir, {inlineChecks: true});
		expect(sound.problems).toEqual([]);
		expect(sound.exitCode).toBe(0);
		expect(sound.kind).toBe('snapshot');
		expect(sound.databases.map(d => d.path)).toEqual(['state.db']);

		const cfg = path.join(snap.dir, 'config.yaml');
		const bytes = fs.readFileSync(cfg);
		flip(bytes, 3, 0x20);
		fs.writeFileSync(cfg, bytes);
		const damaged = await verifyArtifact(snap.dir, {inlineChecks: true});
		expect(damaged.exitCode).toBe(1);
		expect(damaged.problems.map(p => p.where)).toContain('file "config.yaml"');
		flip(bytes, 3, 0x20);
		fs.writeFileSync(cfg, bytes);

		fs.writeFileSync(path.join(snap.dir, 'extra.txt'), 'x');
		expect((await verifyArtifact(snap.dir, {inlineChecks: true})).problems).toEqual([
			{where: 'file "extra.txt"', what: 'not listed in the manifest'},
		]);
		fs.rmSync(path.join(snap.dir, 'extra.txt'));

		const db = path.join(snap.dir, 'state.db');
		const dbBytes = fs.readFileSync(db);
		flip(dbBytes, dbBytes.length - 100, 0xff);
		fs.writeFileSync(db, dbBytes);
		const dbDamaged = await verifyArtifact(snap.dir, {inlineChecks: true});
		expect(dbDamaged.exitCode).toBe(1);
		expect(dbDamaged.problems.some(p => p.where === 'file "state.db"' && /sha256/.test(p.what))).toBe(true);

		fs.rmSync(db);
		const missing = await verifyArtifact(snap.dir, {inlineChecks: true});
		expect(missing.problems).toContainEqual({where: 'file "state.db"', what: 'listed in the manifest but missing'});
	});
});

describe('verify: hostile members are damage, in tar and zip alike (one member policy)', () => {
	const config = {name: 'config.yaml', data: 'model: x\n'};
	const tarCases: Array<[string, HostileMember, RegExp]> = [
		['a "../" member', {name: '../escape', data: 'pwned\n'}, /"\.\." path segment/],
		['an absolute member', {name: '/tmp/hfx-abs', data: 'pwned\n'}, /absolute path/],
		['a character device', {name: 'dev-null', device: 'chr'}, /device member/],
		['a block device', {name: 'disk', device: 'blk'}, /device member/],
		['a FIFO', {name: 'pipe', device: 'fifo'}, /fifo member/],
		['a hard link', {name: 'copy.yaml', hardlink: 'config.yaml'}, /hard link to "config\.yaml"/],
		['a symbolic link', {name: 'memories', symlink: '/etc'}, /symbolic link to "\/etc"/],
		['a sidecar', {name: 'state.db-wal', data: 'not really a wal'}, /-wal sidecar/],
		['a repeated name', {name: 'config.yaml', data: 'model: y\n'}, /appears more than once/],
	];
	it.each(tarCases)('tar.gz with %s', async (_label, member, why) => {
		const out = pyTar(path.join(tempDir('hostile-tar'), 'h.tar.gz'), [config, member]);
		const r = await verifyArtifact(out, {inlineChecks: true});
		expect(r.status).toBe('damaged');
		expect(r.exitCode).toBe(1);
		expect(r.problems.map(p => `${p.where}: ${p.what}`).join('\n')).toMatch(why);
	});

	it('a tar whose only state.db is a symbolic link to /etc/shadow: damaged, never read through the link', async () => {
		const out = pyTar(path.join(tempDir('shadow'), 'h.tar.gz'), [
			config,
			{name: 'data/state.db', symlink: '/etc/shadow'},
		]);
		const r = await verifyArtifact(out, {inlineChecks: true});
		expect(r.exitCode).toBe(1);
		expect(r.databases).toEqual([]);
		expect(r.problems[0]).toEqual({
			where: 'member #2 "data/state.db"',
			what: expect.stringMatching(/symbolic link to "\/etc\/shadow"/) as string,
		});
		// The binary: one line on stderr naming the member, exit 1.
		const cli = hfx(['verify', out]);
		expect(cli.code).toBe(1);
		expect(cli.stderr.trim().split('\n')).toHaveLength(1);
		expect(cli.stderr).toMatch(/data\/state\.db.*symbolic link/);
		expect(cli.stdout).toMatch(/DAMAGED/);
	});

	it('a zip listing state.db-wal BEFORE state.db (and after): a finding either way', async () => {
		const dir = tempDir('wal-first');
		const db = tinyDb(dir);
		for (const order of [
			['state.db-wal', 'state.db'],
			['state.db', 'state.db-wal'],
		]) {
			const out = pyZip(path.join(dir, `${order[0]}.zip`), [
				config,
				...order.map(n => ({name: n, data: n === 'state.db' ? db : Buffer.alloc(32)})),
			]);
			const r = await verifyArtifact(out, {inlineChecks: true});
			expect(r.exitCode).toBe(1);
			expect(r.problems.filter(p => /sidecar/.test(p.what)).map(p => p.where)).toEqual([
				`member #${order.indexOf('state.db-wal') + 2} "state.db-wal"`,
			]);
		}
	});

	const zipCases: Array<[string, HostileMember[], RegExp]> = [
		['a symbolic link', [{name: 'state.db', symlink: '/etc/shadow'}], /symbolic link/],
		['a repeated name', [{name: 'config.yaml', data: 'other\n'}], /appears more than once/],
		['two names for one path', [{name: './config.yaml', data: 'other\n'}], /lands on the same path/],
		[
			'a folder path written twice over',
			[
				{name: 'skills//greet/', data: ''},
				{name: 'skills/greet', data: 'x'},
			],
			/lands on the same path|needs the folder/,
		],
	];
	it.each(zipCases)('zip with %s', async (_label, members, why) => {
		const out = pyZip(path.join(tempDir('hostile-zip'), 'h.zip'), [config, ...members]);
		const r = await verifyArtifact(out, {inlineChecks: true});
		expect(r.exitCode).toBe(1);
		expect(r.problems.map(p => p.what).join('\n')).toMatch(why);
	});

	it('a symbolic link stored by Info-ZIP (zip -y) is damage', async () => {
		const dir = tempDir('zip-y');
		fs.writeFileSync(path.join(dir, 'config.yaml'), 'x\n');
		fs.symlinkSync('/etc/shadow', path.join(dir, 'state.db'));
		const r0 = spawnSync('zip', ['-q', '-y', 'out.zip', 'config.yaml', 'state.db'], {cwd: dir, encoding: 'utf8'});
		expect(r0.status, r0.stderr).toBe(0);
		const r = await verifyArtifact(path.join(dir, 'out.zip'), {inlineChecks: true});
		expect(r.exitCode).toBe(1);
		expect(r.databases).toEqual([]);
		expect(r.problems.map(p => `${p.where}: ${p.what}`)).toContainEqual(
			expect.stringMatching(/"state\.db": unsafe member: symbolic link/),
		);
	});
});

describe('verify: an archive path that is no regular file is never read', () => {
	it('a FIFO named *.zip: openZip refuses it at once (never blocks), as verify and gate reach it', async () => {
		const dir = tempDir('fifo-zip');
		const fifo = path.join(dir, 'hfx-backup-20261201-000000.zip');
		expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
		const started = Date.now();
		await expect(openZip(fifo)).rejects.toThrow(/a FIFO, not a regular file/);
		expect(Date.now() - started).toBeLessThan(2000);
		const r = hfx(['verify', fifo]);
		expect(r.code).toBe(2);
		expect(r.stdout).toBe('');
		expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(/a FIFO, not a file or folder/) as string]);
	});

	it(
		'a snapshot folder whose manifest.json is a FIFO: verify and restore ' +
			'name it and never block (the manifest is read non-blocking, bounded)',
		() => {
			const dir = tempDir('fifo-manifest');
			const snap = path.join(dir, '20261201-000000');
			fs.mkdirSync(snap);
			fs.writeFileSync(path.join(snap, 'state.db'), tinyDb(dir));
			expect(spawnSync('mkfifo', [path.join(snap, 'manifest.json')]).status).toBe(0);
			const started = Date.now();
			const r = hfx(['verify', snap]);
			expect(Date.now() - started).toBeLessThan(20_000);
			expect(r.code).not.toBe(0);
			expect(r.code).not.toBeNull();
			expect(`${r.stdout}${r.stderr}`).toMatch(
				/manifest\.json.*FIFO, not a regular file|FIFO, not a regular file.*manifest/s,
			);
			const restored = hfx(['restore', snap, '--to', path.join(dir, 'out'), '--yes']);
			expect(restored.code).toBe(2);
			expect(fs.existsSync(path.join(dir, 'out'))).toBe(false);
		},
	);
});
