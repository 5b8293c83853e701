/**
 * The flows around a destructive container operation, with the real binary:
 * backup -> gate (blocked: not drilled) -> drill -> gate (passes, prints the archive) ->
 * too old -> damaged after the drill (blocked, drill fails and is recorded); `hfx backups`
 * shows what was verified and drilled; verify and restore exit codes from the command line.
 */
import fs from 'node:fs';
import path from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {hfx, hfxJson} from '../helpers/cli.js';
import {cleanupTemps, craftZip, dump, listing, makeHome, tempDir, flip} from '../backup/helpers.js';

afterAll(cleanupTemps);

function only(dir: string): string {
	const names = fs.readdirSync(dir).filter(n => /^hfx-backup-.*\.zip$/.test(n));
	expect(names).toHaveLength(1);
	return path.join(dir, names[0]!);
}

describe('drill and gate', () => {
	it('gate passes only for a fresh, verified, drilled archive whose bytes are unchanged', async () => {
		const home = makeHome('gate');
		const out = tempDir('gate-out');
		// The home's only backup is an old quick snapshot nobody verified (makeHome's state-snapshots/20260101-000000).
		expect(hfx(['gate', '--home', home.root, '-o', out]).stderr).toMatch(
			/BLOCKED: no verified, drilled backup .*the newest, 20260101-000000, it is .* old .*Next: hfx backup/,
		);
		expect(hfx(['backup', '--home', home.root, '-o', out]).code).toBe(0);
		const archive = only(out);

		const blocked = hfx(['gate', '--home', home.root, '-o', out]);
		expect(blocked.code).toBe(1);
		expect(blocked.stdout).toBe('');
		expect(blocked.stderr).toContain('not drilled');
		expect(blocked.stderr).toContain(`Next: hfx restore --drill ${archive}`);

		const drill = hfx(['restore', '--drill', archive]);
		expect(drill.code).toBe(0);
		expect(drill.stdout).toContain('✓ DRILL PASSED');
		expect(drill.stdout).toMatch(/✓ state\.db \(default\): 2 sessions \(manifest: 2\), 1 orphan, 1 rollback risk/);
		expect(drill.stdout).toMatch(
			/✓ profiles\/work\/state\.db \(work\): 1 session \(manifest: 1\), 0 orphans, 0 rollback risks, healthy/,
		);
		expect(fs.readdirSync(out).sort()).toEqual([path.basename(archive), 'hfx-records.jsonl']);

		const pass = hfx(['gate', '--home', home.root, '-o', out]);
		expect(pass.code).toBe(0);
		expect(pass.stdout.trim()).toBe(archive);
		expect(pass.stderr).toMatch(/pass: .*verified and drilled/);
		const chained = hfx(['gate', '--home', home.root, '-o', out, '--max-age', '10m']);
		expect(chained.code).toBe(0);

		const listed = hfxJson(['backups', '--home', home.root, '-o', out]);
		expect(listed.code).toBe(0);
		const entry = listed.json.backups.find((b: {path: string}) => b.path === archive);
		expect(entry).toMatchObject({kind: 'hfx-archive', complete: true});
		expect(entry.verified).not.toBeNull();
		expect(entry.drilled).not.toBeNull();
		const table = hfx(['backups', '--home', home.root, '-o', out]);
		expect(table.stdout).toMatch(/hfx-backup-\S+\.zip\s+hfx-archive\s+.*yes\s+yes, .*yes, /);

		await new Promise(r => setTimeout(r, 2100));
		const old = hfx(['gate', '--home', home.root, '-o', out, '--max-age', '1s']);
		expect(old.code).toBe(1);
		expect(old.stderr).toMatch(/old \(max 1 second\)/);

		// Damage the archive but keep its size and mtime: only the recomputed seal notices.
		const st = fs.statSync(archive);
		const bytes = fs.readFileSync(archive);
		flip(bytes, 200, 0x04);
		fs.writeFileSync(archive, bytes);
		fs.utimesSync(archive, st.atime, st.mtime);
		const sealed = hfx(['gate', '--home', home.root, '-o', out]);
		expect(sealed.code).toBe(1);
		expect(sealed.stderr).toMatch(/seal mismatch/);

		const failed = hfx(['restore', '--drill', archive]);
		expect(failed.code).toBe(1);
		expect(failed.stdout).toContain('✗ DRILL FAILED');
		expect(failed.stderr).toMatch(/^hfx: .*the restore drill failed/);
		const after = hfxJson(['backups', '--home', home.root, '-o', out]);
		const e2 = after.json.backups.find((b: {path: string}) => b.path === archive);
		expect(e2.lastFailure.event).toBe('drill');
		expect(e2.drilled).toBeNull();
		expect(hfx(['gate', '--home', home.root, '-o', out]).code).toBe(1);
	});

	it('verify from the command line: 0 sound, 1 damaged with what and where, 2 unreadable', () => {
		const home = makeHome('verify-cli');
		const out = tempDir('verify-cli-out');
		expect(hfx(['backup', '--home', home.root, '-o', out]).code).toBe(0);
		const archive = only(out);
		const ok = hfx(['verify', archive]);
		expect(ok.code).toBe(0);
		expect(ok.stdout).toMatch(/^✓ SOUND {2}/);
		const bytes = fs.readFileSync(archive);
		const at = bytes.indexOf(Buffer.from('remember the milk'));
		expect(at).toBeGreaterThan(0);
		flip(bytes, at, 0x01);
		const damaged = path.join(out, 'damaged.zip');
		fs.writeFileSync(damaged, bytes);
		const bad = hfx(['verify', damaged]);
		expect(bad.code).toBe(1);
		expect(bad.stdout).toMatch(/✗ member "memories\/MEMORY\.md": CRC-32 mismatch/);
		expect(bad.stderr.trim().split('\n')).toHaveLength(1);
		const missing = hfx(['verify', path.join(out, 'nope.zip')]);
		expect(missing.code).toBe(2);
	});

	it(
		'restore from the command line: refuses zip-slip (exit 2), needs --yes ' + 'without a terminal, restores with it',
		() => {
			const dir = tempDir('restore-cli');
			const evil = path.join(dir, 'evil.zip');
			fs.writeFileSync(evil, craftZip([{name: '../../escaped.txt', data: Buffer.from('x')}]));
			const target = path.join(dir, 'target');
			const r = hfx(['restore', evil, '--to', target]);
			expect(r.code).toBe(2);
			expect(r.stderr.trim().split('\n')).toHaveLength(1);
			expect(r.stderr).toMatch(/member "\.\.\/\.\.\/escaped\.txt" is refused: "\.\." path segment/);
			expect(fs.existsSync(target)).toBe(false);

			const home = makeHome('restore-cli-home');
			const out = tempDir('restore-cli-out');
			expect(hfx(['backup', '--home', home.root, '-o', out]).code).toBe(0);
			const archive = only(out);
			const before = listing(home.root);
			const noYes = hfx(['restore', archive, '--home', home.root]);
			expect(noYes.code).toBe(2);
			expect(noYes.stderr).toMatch(/no confirmation was given; nothing was written\. Next: .*--yes/);
			expect(listing(home.root)).toEqual(before);
			const yes = hfx(['restore', archive, '--home', home.root, '--yes']);
			expect(yes.code).toBe(0);
			expect(yes.stdout).toMatch(/✓ RESTORED/);
			expect(yes.stdout).toMatch(/kept in .*backups\/pre-restore-\d{8}-\d{6}/);
			expect(dump(home.db)).toContain('"source":"telegram"');
			expect(hfx(['restore', archive]).code).toBe(2);
		},
	);
});

describe('whose archive: one -o folder for two homes', () => {
	const archives = (dir: string) =>
		fs
			.readdirSync(dir)
			.filter(n => /^hfx-backup-.*\.zip$/.test(n))
			.sort();

	it("backing up B never prunes A's archive; --keep counts and prunes only the home's own", () => {
		const a = makeHome('keep-a');
		const b = makeHome('keep-b');
		const out = tempDir('keep-shared');
		expect(hfx(['backup', '--home', a.root, '-o', out, '--keep', '1']).code).toBe(0);
		const [aFirst] = archives(out);
		expect(hfx(['backup', '--home', b.root, '-o', out, '--keep', '1']).code).toBe(0);
		expect(hfx(['backup', '--home', b.root, '-o', out, '--keep', '1']).code).toBe(0);
		// A's archive survives two backups of B with --keep 1; B keeps one of its own.
		expect(archives(out)).toHaveLength(2);
		expect(archives(out)).toContain(aFirst);
		const listed = hfxJson(['backups', '--home', a.root, '-o', out]);
		const owners = listed.json.backups
			.filter((e: {kind: string}) => e.kind === 'hfx-archive')
			.map((e: {name: string; owner: string; home: string}) => [e.name === aFirst ? 'A' : 'B', e.owner, e.home]);
		expect(owners.sort()).toEqual([
			['A', 'this', fs.realpathSync(a.root)],
			['B', 'other', fs.realpathSync(b.root)],
		]);
		expect(hfx(['backups', '--home', a.root, '-o', out]).stdout).toContain(`OTHER: ${fs.realpathSync(b.root)}`);
		// A second backup of A prunes A's first, never B's.
		const bOnly = archives(out).find(n => n !== aFirst)!;
		const again = hfxJson(['backup', '--home', a.root, '-o', out, '--keep', '1']);
		expect(again.code).toBe(0);
		expect(again.json.pruned).toEqual([aFirst]);
		expect(archives(out)).toContain(bOnly);
		expect(archives(out)).toHaveLength(2);
	});

	it(
		"gate --home A never passes on B's verified, drilled archive; it passes " + 'for B, and for B through a link to B',
		() => {
			const a = makeHome('gate-a');
			const b = makeHome('gate-b');
			const out = tempDir('gate-shared');
			expect(hfx(['backup', '--home', b.root, '-o', out]).code).toBe(0);
			const bArchive = only(out);
			expect(hfx(['restore', '--drill', bArchive]).code).toBe(0);
			const blocked = hfx(['gate', '--home', a.root, '-o', out]);
			expect(blocked.code).toBe(1);
			expect(blocked.stdout).toBe('');
			expect(blocked.stderr).toMatch(/BLOCKED: .*\(1 backup there is of another home: never passing for .*gate-a/);
			const json = hfxJson(['gate', '--home', a.root, '-o', out]);
			expect(json.json.candidates[0]).toMatchObject({owner: 'other', home: fs.realpathSync(b.root)});
			expect(json.json.candidates[0].missing[0]).toMatch(/an archive of another home/);
			expect(hfx(['gate', '--home', b.root, '-o', out]).code).toBe(0);
			// The same home by another path (a symbolic link to it) is the same home.
			const link = path.join(tempDir('gate-link'), 'b-link');
			fs.symlinkSync(b.root, link);
			expect(hfx(['gate', '--home', link, '-o', out]).stdout.trim()).toBe(bArchive);
		},
	);

	it("a record claiming B's archive for A is not enough: the gate reads the archive's own manifest", () => {
		const a = makeHome('forged-a');
		const b = makeHome('forged-b');
		const out = tempDir('forged-shared');
		expect(hfx(['backup', '--home', b.root, '-o', out]).code).toBe(0);
		const bArchive = only(out);
		expect(hfx(['restore', '--drill', bArchive]).code).toBe(0);
		const records = path.join(out, 'hfx-records.jsonl');
		const lines = fs.readFileSync(records, 'utf8').trim().split('\n');
		const drill = JSON.parse(lines.at(-1)!) as {details: {home: string}};
		drill.details.home = fs.realpathSync(a.root);
		fs.appendFileSync(records, `${JSON.stringify(drill)}\n`);
		const forged = hfx(['gate', '--home', a.root, '-o', out]);
		expect(forged.code).toBe(1);
		expect(forged.stderr).toMatch(/its manifest names another home/);
	});
});

describe('hfx doctor', () => {
	it('on a folder with a config.yaml: where it lives, what the sandbox keeps, the backups and the WAL state', () => {
		const home = makeHome('doctor-cli');
		const r = hfx(['doctor', '--home', home.root]);
		expect(r.code).toBe(1);
		expect(r.stdout).toContain(`Hermes root  ${home.root}`);
		expect(r.stdout).toMatch(/ {2}mount {6}\S+ {2}\S+/);
		expect(r.stdout).toContain('config.yaml  terminal.backend: docker, terminal.container_persistent: false');
		expect(r.stdout).toContain(
			'the sandbox is re-created at every restart of the agent (terminal.container_persistent: false)',
		);
		expect(r.stdout).toContain('Last verified backup: none');
		expect(r.stdout).toMatch(/Store default: .*state\.db, .*WAL mode/);
		expect(r.stdout).toMatch(/^! no verified backup in /m);
		expect(hfx(['backup', '--home', home.root]).code).toBe(0);
		const {json} = hfxJson(['doctor', '--home', home.root]);
		expect(json.lastVerified).toMatchObject({drilled: false});
		expect(json.warnings.some((w: string) => /no verified backup/.test(w))).toBe(false);
		expect(json.config).toMatchObject({found: true, backend: 'docker', containerPersistent: false});
	});
});
