/**
 * Seed 004's Docker procedure on the real binary (issue #28, point 1): `tar czf … -C <parent> data`
 * of a volume while its agent runs, so the tarball holds state.db with its -wal and -shm. verify
 * calls it SOUND with a note (the -wal's commits a restore folds, the sidecars never restored); the
 * same verdict is in `hfx backups` (text and --json); gate accepts a verified, drilled archive of
 * every kind hfx restores under the same whose-home and freshness rules; --keep covers the stamped
 * tarballs in the folder it prunes, and says so.
 */
import fs from 'node:fs';
import path from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {hfx, hfxJson} from '../helpers/cli.js';
import {utcStamp} from '../../source/backup/stamp.js';
import {T0} from '../fixtures/scenarios.js';
import {cleanupTemps, liveVolumeTarball, tempDir} from '../backup/helpers.js';

const FIXTURE = path.resolve(import.meta.dirname, '../fixtures/hermes-generations');

afterAll(cleanupTemps);

/** Seed 004's naming: the volume's name and a UTC stamp. */
const stamped = (dir: string, stamp: string): string => path.join(dir, `hermes-data-${stamp}.tar.gz`);

describe('a tarball of a running volume (seed 004)', () => {
	it(
		"verify: SOUND, exit 0, with the -wal's commits a restore folds and the " +
			'sidecars never restored; backups says the same',
		async () => {
			const out = tempDir('t28-verify-out');
			const archive = stamped(out, '20261201-120000');
			const {volume, messages} = await liveVolumeTarball('t28-verify', archive);
			const r = hfx(['verify', archive]);
			expect(r.code, r.stderr).toBe(0);
			expect(r.stderr).toBe('');
			expect(r.stdout).toMatch(/^✓ SOUND {2}\S+hermes-data-20261201-120000\.tar\.gz {2}\(tar\.gz archive, /);
			expect(r.stdout).toMatch(
				new RegExp(`✓ data/state\\.db: integrity_check ok, \\d+ sessions, ${messages} messages`),
			);
			expect(r.stdout).toMatch(
				/note: taken while an agent had data\/state\.db open: its -wal holds [1-9]\d* commits? \(\d+ frames\) that a restore folds into data\/state\.db .*; data\/state\.db-wal and data\/state\.db-shm are never restored as files/,
			);
			expect(r.stdout).not.toMatch(/DAMAGED|✗/);
			const json = hfxJson<{
				status: string;
				exitCode: number;
				problems: unknown[];
				live: Array<{database: string; commits: number; sidecars: string[]}>;
			}>(['verify', archive]);
			expect(json.json).toMatchObject({status: 'sound', exitCode: 0, problems: []});
			expect(json.json.live).toEqual([
				expect.objectContaining({database: 'data/state.db', sidecars: ['data/state.db-wal', 'data/state.db-shm']}),
			]);
			expect(json.json.live[0]!.commits).toBeGreaterThan(0);

			const listed = hfx(['backups', '--home', volume, '-o', out]);
			expect(listed.code, listed.stderr).toBe(0);
			const row = listed.stdout.split('\n').find(l => l.includes('hermes-data-20261201-120000.tar.gz'))!;
			// HOME: placed by its stores' newest sessions (recorded by the verify), as gate places it.
			expect(row).toMatch(/\btar\b.*yes, just now \(taken live\)\s+no\s+this$/);
			expect(row).not.toMatch(/FAILED/);
			const entries = hfxJson<{
				backups: Array<{name: string; owner: string; verified: {live: string | null} | null; lastFailure: unknown}>;
			}>(['backups', '--home', volume, '-o', out]);
			const entry = entries.json.backups.find(b => b.name === path.basename(archive))!;
			expect(entry.owner).toBe('this');
			expect(entry.lastFailure).toBeNull();
			expect(entry.verified?.live).toMatch(
				/its -wal holds [1-9]\d* commits? that a restore folds, its 2 sidecars are never restored/,
			);
		},
	);
});

describe('gate accepts every kind hfx restores, under the same whose-home and freshness rules', () => {
	it(
		'a tarball of the running volume: blocked until drilled, then passes; ' +
			'never for another home; not once its bytes changed or it is too old',
		async () => {
			const out = tempDir('t28-gate-out');
			const archive = stamped(out, utcStamp());
			const {volume} = await liveVolumeTarball('t28-gate', archive);
			expect(hfx(['verify', archive]).code).toBe(0);
			const blocked = hfx(['gate', '--home', volume, '-o', out]);
			expect(blocked.code).toBe(1);
			expect(blocked.stdout).toBe('');
			expect(blocked.stderr).toMatch(
				new RegExp(
					`BLOCKED: .*the ` +
						`newest, ${path.basename(archive).replaceAll('.', '\\.')}, not drilled. ` +
						`Next: hfx restore --drill ${archive.replaceAll('.', '\\.')}`,
				),
			);

			expect(hfx(['restore', '--drill', archive]).code).toBe(0);
			const pass = hfx(['gate', '--home', volume, '-o', out]);
			expect(pass.code, pass.stderr).toBe(0);
			expect(pass.stdout.trim()).toBe(archive);
			expect(pass.stderr).toMatch(
				/pass: hermes-data-\d{8}-\d{6}\.tar\.gz: a tarball, .* old, verified and drilled, bytes unchanged since the drill/,
			);
			const json = hfxJson<{ok: boolean; candidates: Array<{path: string; kind: string; owner: string}>}>([
				'gate',
				'--home',
				volume,
				'-o',
				out,
			]);
			expect(json.json.ok).toBe(true);
			expect(json.json.candidates.find(c => c.path === archive)).toMatchObject({kind: 'tar', owner: 'this'});
			// Freshness: the same rule as for an hfx archive.
			expect(hfx(['gate', '--home', volume, '-o', out, '--max-age', '0']).stderr).toMatch(
				/BLOCKED: .*old \(max 0 seconds\)/,
			);

			// Another home (its own sessions): the same folder never passes for it.
			const other = await liveVolumeTarball('t28-gate-b', path.join(tempDir('t28-gate-b-scratch'), 'b.tar.gz'), {
				startedAt: T0 + 200_000,
			});
			const forOther = hfx(['gate', '--home', other.volume, '-o', out]);
			expect(forOther.code).toBe(1);
			expect(forOther.stderr).toMatch(/BLOCKED: .*\(1 backup there is of another home: never passing for /);
			const otherJson = hfxJson<{candidates: Array<{path: string; owner: string; missing: string[]}>}>([
				'gate',
				'--home',
				other.volume,
				'-o',
				out,
			]);
			expect(otherJson.json.candidates.find(c => c.path === archive)).toMatchObject({
				owner: 'other',
				missing: [
					expect.stringMatching(/newest session \S+ is not in this home's state\.db: an archive of another home/),
				],
			});

			// Its bytes changed after the drill (size and mtime kept: the gzip header's mtime field carries no checksum).
			const st = fs.statSync(archive);
			const bytes = fs.readFileSync(archive);
			bytes[5] = bytes[5]! ^ 0x01;
			fs.writeFileSync(archive, bytes);
			fs.utimesSync(archive, st.atime, st.mtime);
			const changed = hfx(['gate', '--home', volume, '-o', out]);
			expect(changed.code).toBe(1);
			expect(changed.stderr).toMatch(/sha256 mismatch/);
		},
	);

	it('a Hermes zip (hermes backup) and a Hermes quick snapshot of this home pass once drilled', () => {
		const zipDir = tempDir('t28-gate-zip');
		const zip = path.join(zipDir, 'hermes-backup-2026-12-01-075836.zip');
		fs.copyFileSync(path.join(FIXTURE, 'hermes-backup.zip'), zip);
		// The home: what that zip restores (so its sessions are this home's).
		const home = path.join(tempDir('t28-gate-zip-home'), 'home');
		expect(hfx(['restore', zip, '--to', home, '--yes']).code).toBe(0);
		expect(hfx(['gate', '--home', home, '-o', zipDir]).stderr).toMatch(
			/BLOCKED: .*hermes-backup-2026-12-01-075836\.zip, .*not drilled/,
		);
		expect(hfx(['restore', '--drill', zip]).code).toBe(0);
		const pass = hfx(['gate', '--home', home, '-o', zipDir]);
		expect(pass.code, pass.stderr).toBe(0);
		expect(pass.stdout.trim()).toBe(zip);
		expect(pass.stderr).toMatch(/pass: .*: a Hermes archive, /);

		// A quick snapshot Hermes took, in the home's own state-snapshots/ (and no archive in -o).
		const snapshot = path.join(home, 'state-snapshots', utcStamp());
		fs.cpSync(path.join(FIXTURE, 'hermes-quick-snapshot'), snapshot, {recursive: true});
		const none = tempDir('t28-gate-none');
		expect(hfx(['gate', '--home', home, '-o', none]).stderr).toMatch(
			new RegExp(`BLOCKED: .*the newest, ${path.basename(snapshot)}, not verified; not drilled`),
		);
		expect(hfx(['restore', '--drill', snapshot]).code).toBe(0);
		const snap = hfx(['gate', '--home', home, '-o', none]);
		expect(snap.code, snap.stderr).toBe(0);
		expect(snap.stdout.trim()).toBe(snapshot);
		expect(snap.stderr).toMatch(/pass: .*: a quick snapshot, .*verified and drilled, verified again now/);
	});
});

describe("retention: --keep covers seed 004's tarballs in the folder it prunes", () => {
	it(
		"keeps the newest N of this home's series, says so, never counts a " + 'tarball whose home no record names',
		async () => {
			const out = tempDir('t28-keep-out');
			const names = ['20261120-030000', '20261121-030000', '20261122-030000'].map(s => stamped(out, s));
			const {volume} = await liveVolumeTarball('t28-keep', names[0]!);
			for (const n of names.slice(1)) {
				fs.copyFileSync(names[0]!, n);
			}

			for (const n of names) {
				expect(hfx(['verify', n]).code).toBe(0);
			}

			// A stamped tarball nobody verified: never counted, never pruned.
			const unverified = path.join(out, 'hermes-data-20261119-030000.tar.gz');
			fs.copyFileSync(names[0]!, unverified);
			const r = hfx(['backup', '--home', volume, '-o', out, '--keep', '2']);
			expect(r.code, r.stderr).toBe(0);
			expect(r.stdout).toContain(
				`--keep 2 covers the tarballs hermes-data-*.tar.gz here: 2 kept, pruned ${path.basename(names[0]!)}`,
			);
			expect(r.stdout).toContain(
				`not counted by --keep: ${path.basename(unverified)} (no verify or drill ` +
					`has recorded whose home it is: hfx verify FILE)`,
			);
			expect(fs.existsSync(names[0]!)).toBe(false);
			expect(fs.existsSync(names[1]!) && fs.existsSync(names[2]!) && fs.existsSync(unverified)).toBe(true);
			const records = fs.readFileSync(path.join(out, 'hfx-records.jsonl'), 'utf8');
			expect(records).toContain(`"event":"prune","artifact":"${path.basename(names[0]!)}"`);
			const json = hfxJson<{
				tarballs: {series: Array<{pattern: string; kept: number; pruned: string[]}>; unknown: string[]};
			}>(['backup', '--home', volume, '-o', out, '--keep', '1']);
			expect(json.json.tarballs.series).toEqual([
				expect.objectContaining({pattern: 'hermes-data-*.tar.gz', kept: 1, pruned: [path.basename(names[1]!)]}),
			]);
			expect(json.json.tarballs.unknown).toEqual([path.basename(unverified)]);
		},
	);
});
