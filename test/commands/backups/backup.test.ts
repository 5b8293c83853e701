/**
 * `hfx backup` as an operator runs it (the real binary): exit codes 0/1/2, the archive (0600,
 * manifest, credentials warning), --dry-run, --keep, the lock, the evidence left untouched, and
 * a backup taken while a second process commits ~200 times a second.
 */
import {spawnSync} from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterAll, afterEach, describe, expect, it} from 'vitest';
import {processStartTicks} from '../../../source/ground/liveness.js';
import {evidenceState, hfx, hfxJson} from '../../helpers/cli.js';
import {ROOT} from '../../helpers/writer.js';
import {Trickle, bigStore, cleanupTemps, counts, listing, makeHome, tempDir} from '../../backup/helpers.js';

const trickles: Trickle[] = [];
afterEach(async () => {
	for (const t of trickles.splice(0)) {
		await t.stop();
	}
});
afterAll(cleanupTemps);

function ours(dir: string): string[] {
	return fs
		.readdirSync(dir)
		.filter(n => /^hfx-backup-.*\.zip$/.test(n))
		.sort();
}

describe('hfx backup', () => {
	it(
		'writes one verified 0600 archive of the whole root, changes nothing in ' +
			'the root, warns about credentials (exit 0)',
		() => {
			const home = makeHome('cli');
			const out = tempDir('cli-out');
			const before = {
				root: listing(home.root),
				evidence: evidenceState(home.root),
				profile: evidenceState(path.dirname(home.profileDb)),
			};
			const r = hfx(['backup', '--home', home.root, '-o', out]);
			expect(r.stderr).toBe('');
			expect(r.code).toBe(0);
			const [name] = ours(out);
			expect(name).toMatch(/^hfx-backup-\d{8}-\d{6}\.zip$/);
			const archive = path.join(out, name!);
			expect(fs.statSync(archive).mode & 0o777).toBe(0o600);
			expect(r.stdout).toContain(`→ ${archive}`);
			expect(r.stdout).toMatch(
				/✓ state\.db: schema v30, \d+ sessions, \d+ messages, integrity_check ok; one snapshot \(0 restarts/,
			);
			expect(r.stdout).toContain('never send it to anyone');
			expect(fs.readdirSync(out).sort()).toEqual([name, 'hfx-records.jsonl']);
			expect(listing(home.root)).toEqual(before.root);
			expect(evidenceState(home.root)).toEqual(before.evidence);
			expect(evidenceState(path.dirname(home.profileDb))).toEqual(before.profile);
		},
	);

	it('--json reports members, databases (restarts 0, counts) and the excluded list', () => {
		const home = makeHome('cli-json');
		const out = tempDir('cli-json-out');
		const {code, json} = hfxJson(['backup', '--home', home.root, '-o', out]);
		expect(code).toBe(0);
		expect(json.verified).toBe(true);
		expect(json.members).toBe(11);
		expect(json.credentials.sort()).toEqual(['.env', 'auth.json']);
		const main = json.databases.find((d: {path: string}) => d.path === 'state.db');
		expect(main).toMatchObject({
			integrity: 'ok',
			restarts: 0,
			schemaVersion: 30,
			counts: {sessions: home.sessions, messages: home.messages},
		});
		expect(json.excluded.map((e: {path: string}) => e.path)).toEqual(
			expect.arrayContaining(['node_modules/', 'models/', 'gateway.pid', 'backups/', 'state-snapshots/']),
		);
		expect(json.phases).toHaveProperty('copy');
	});

	it("defaults to <root>/backups/ and never touches Hermes' own archives there", () => {
		const home = makeHome('cli-default');
		const r = hfx(['backup', '--home', home.root]);
		expect(r.code).toBe(0);
		const dir = path.join(home.root, 'backups');
		expect(ours(dir)).toHaveLength(1);
		expect(fs.existsSync(path.join(dir, 'hermes-backup-2026-01-01-000000.zip'))).toBe(true);
	});

	it('--dry-run lists what would go in and writes nothing', () => {
		const home = makeHome('cli-dry');
		const out = path.join(tempDir('cli-dry-out'), 'not-created');
		const before = listing(home.root);
		const r = hfx(['backup', '--home', home.root, '-o', `${out}/`, '--dry-run']);
		expect(r.code).toBe(0);
		expect(r.stdout).toContain('nothing written');
		expect(r.stdout).toMatch(/db {3}state\.db/);
		expect(fs.existsSync(out)).toBe(false);
		expect(listing(home.root)).toEqual(before);
	});

	it('exit 1 when something is skipped: listed, the archive kept, nothing pruned', () => {
		const home = makeHome('cli-skip');
		const out = tempDir('cli-skip-out');
		for (let i = 0; i < 3; i++) {
			expect(hfx(['backup', '--home', home.root, '-o', out, '--keep', '1']).code).toBe(0);
		}

		expect(ours(out)).toHaveLength(1);
		fs.writeFileSync(path.join(home.root, 'kanban.db'), 'not a database, whatever the name says'.repeat(30));
		const r = hfx(['backup', '--home', home.root, '-o', out, '--keep', '1']);
		expect(r.code).toBe(1);
		expect(r.stdout).toMatch(/✗ skipped kanban\.db: not a SQLite database/);
		expect(r.stdout).toContain('INCOMPLETE');
		expect(ours(out)).toHaveLength(2);
	});

	it(
		'--keep N prunes only older complete archives of ours, after the new one ' +
			'is verified, and keeps the newest drilled one',
		() => {
			const home = makeHome('cli-keep');
			const out = tempDir('cli-keep-out');
			fs.writeFileSync(path.join(out, 'hermes-backup-2026-01-01-000000.zip'), "Hermes' own");
			fs.writeFileSync(path.join(out, 'notes.zip'), "someone else's");
			expect(hfx(['backup', '--home', home.root, '-o', out]).code).toBe(0);
			const first = path.join(out, ours(out)[0]!);
			expect(hfx(['restore', '--drill', first]).code).toBe(0);
			for (let i = 0; i < 4; i++) {
				expect(hfx(['backup', '--home', home.root, '-o', out, '--keep', '2']).code).toBe(0);
			}

			const left = ours(out);
			expect(left).toHaveLength(3);
			expect(left).toContain(path.basename(first));
			expect(fs.existsSync(path.join(out, 'hermes-backup-2026-01-01-000000.zip'))).toBe(true);
			expect(fs.existsSync(path.join(out, 'notes.zip'))).toBe(true);
			const last = hfx(['backup', '--home', home.root, '-o', out, '--keep', '2']);
			expect(last.stdout).toContain(`kept ${path.basename(first)} beyond --keep: it is the newest drilled archive`);
		},
	);

	it('exit 2 while another backup runs (the lock in the root), one line naming it, nothing written', () => {
		const home = makeHome('cli-lock');
		const out = tempDir('cli-lock-out');
		const lock = path.join(home.root, '.hfx-backup.lock');
		fs.writeFileSync(
			lock,
			JSON.stringify({
				pid: process.pid,
				startTicks: processStartTicks(process.pid),
				host: os.hostname(),
				started: new Date().toISOString(),
				what: 'hfx backup (test)',
			}),
		);
		const r = hfx(['backup', '--home', home.root, '-o', out]);
		expect(r.code).toBe(2);
		expect(r.stderr.trim().split('\n')).toHaveLength(1);
		expect(r.stderr).toContain(lock);
		expect(r.stderr).toMatch(/another backup is already running \(pid \d+/);
		expect(fs.readdirSync(out)).toEqual([]);
		expect(hfx(['backup', '--home', home.root, '--quick']).code).toBe(2);
		fs.rmSync(lock);
	});

	it('refuses an existing archive name and a missing root (exit 2)', () => {
		const home = makeHome('cli-exists');
		const out = tempDir('cli-exists-out');
		fs.writeFileSync(path.join(out, 'mine.zip'), 'precious');
		const r = hfx(['backup', '--home', home.root, '-o', path.join(out, 'mine.zip')]);
		expect(r.code).toBe(2);
		expect(r.stderr).toMatch(/never overwrites a backup/);
		expect(fs.readFileSync(path.join(out, 'mine.zip'), 'utf8')).toBe('precious');
		const missing = hfx(['backup', '--home', path.join(out, 'nope')]);
		expect(missing.code).toBe(2);
		expect(missing.stderr).toMatch(/no Hermes root here/);
	});

	it(
		'a backup while a second process commits ~200 times a second: no ' +
			'restarts, integrity ok, counts inside the committed window',
		async () => {
			const home = makeHome('cli-live');
			fs.rmSync(home.db);
			bigStore(home.db, 80_000);
			const t = new Trickle(home.db, 200);
			trickles.push(t);
			await t.ready();
			await new Promise(r => setTimeout(r, 300));
			const out = tempDir('cli-live-out');
			const before = counts(home.db).messages;
			const r = hfxJson(['backup', '--home', home.root, '-o', out]);
			const after = counts(home.db).messages;
			const commits = await t.stop();
			expect(r.stderr).toBe('');
			expect(r.code).toBe(0);
			expect(after - before).toBeGreaterThan(20);
			expect(commits).toBeGreaterThan(after - before);
			const main = r.json.databases.find((d: {path: string}) => d.path === 'state.db');
			expect(main.restarts).toBe(0);
			expect(main.steps).toBeGreaterThan(1);
			expect(main.openMode).toBe('in-place');
			expect(main.integrity).toBe('ok');
			expect(main.counts.messages).toBeGreaterThanOrEqual(before);
			expect(main.counts.messages).toBeLessThanOrEqual(after);
			// The archived copy verifies on its own, with the same counts.
			const v = hfxJson(['verify', r.json.archive]);
			expect(v.code).toBe(0);
			expect(v.json.databases.find((d: {path: string}) => d.path === 'state.db').counts.messages).toBe(
				main.counts.messages,
			);
		},
	);

	it('--quick writes a verified snapshot in state-snapshots/', () => {
		const home = makeHome('cli-quick');
		const {code, json} = hfxJson(['backup', '--home', home.root, '--quick', '--label', 'before-repair']);
		expect(code).toBe(0);
		expect(json.verified).toBe(true);
		expect(path.basename(json.snapshot)).toMatch(/^\d{8}-\d{6}-before-repair$/);
		expect(path.dirname(json.snapshot)).toBe(path.join(home.root, 'state-snapshots'));
		expect(hfx(['verify', json.snapshot]).code).toBe(0);
	});

	it.skipIf(!fs.existsSync('/usr/bin/script'))(
		'draws a progress bar on a terminal (stderr), and none without one',
		() => {
			const home = makeHome('cli-tty');
			fs.rmSync(home.db);
			bigStore(home.db, 30_000);
			const out = tempDir('cli-tty-out');
			const cmd = `"${process.execPath}" "${path.join(ROOT, 'dist/hfx.js')}" backup --home "${home.root}" -o "${out}"`;
			const tty = spawnSync('script', ['-qec', cmd, '/dev/null'], {
				encoding: 'utf8',
				env: {...process.env, NO_COLOR: '1', COLUMNS: '100'},
			});
			expect(tty.status).toBe(0);
			expect(tty.stdout).toMatch(/\[[█░]+\] +\d+% {2}(copying|archiving|checking|reading back) /);
			const piped = hfx(['backup', '--home', home.root, '-o', out]);
			expect(piped.code).toBe(0);
			expect(piped.stderr).toBe('');
			expect(piped.stdout).not.toContain('%');
		},
	);
});
