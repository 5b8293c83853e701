/**
 * `hfx backup`'s engine (source/backup/create/backup.ts) in-process on a real Hermes home (real
 * stores the simulator wrote, config, credentials, clutter Hermes excludes): a dry run plans and
 * writes nothing; a backup writes one sealed, complete, 0600 archive in <root>/backups/ with every
 * store checked, the excluded clutter left out, and a record beside it; --keep prunes this home's
 * older complete archives (never the newest drilled one, never another home's); archiveIsComplete
 * reads the manifest. (Names and -o: naming.test.ts; the binary: test/commands/backups/backup.test.ts.)
 */
import fs from 'node:fs';
import path from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {
	DEFAULT_KEEP,
	archiveIsComplete,
	archiveStamp,
	createBackup,
	defaultBackupDir,
	pruneArchives,
} from '../../../source/backup/create/backup.js';
import {appendRecord, fingerprintOf, readRecords} from '../../../source/backup/records.js';
import {cleanupTemps, makeHome, tempDir} from '../helpers.js';

afterAll(cleanupTemps);

/** A clock one second apart per call, so that each archive has its own stamp. */
function clock(start = Date.UTC(2026, 0, 1)): () => Date {
	let t = start;
	return () => {
		t += 1000;
		return new Date(t);
	};
}

describe('archiveStamp and defaultBackupDir', () => {
	it('the stamp and the count of an archive name; <root>/backups', () => {
		expect(archiveStamp('hfx-backup-20260101-000000.zip')).toEqual({stamp: '20260101-000000', n: 1});
		expect(archiveStamp('hfx-backup-20260101-000000-3.zip')).toEqual({stamp: '20260101-000000', n: 3});
		expect(archiveStamp('hermes-backup-2026-01-01.zip')).toBeNull();
		expect(defaultBackupDir('/srv/hermes/')).toBe('/srv/hermes/backups');
		expect(DEFAULT_KEEP).toBe(3);
	});
});

describe('createBackup', () => {
	it('a dry run plans the stores and files and writes nothing', async () => {
		const home = makeHome('engine-dry');
		const before = fs.readdirSync(path.join(home.root, 'backups')).sort();
		const r = await createBackup({root: home.root, dryRun: true});
		expect(r).toMatchObject({dryRun: true, archive: null, manifest: null});
		expect(r.planned).toEqual(
			expect.arrayContaining([
				expect.objectContaining({path: 'state.db', kind: 'db'}),
				expect.objectContaining({path: 'profiles/work/state.db', kind: 'db'}),
				expect.objectContaining({path: 'config.yaml', kind: 'file'}),
			]),
		);
		expect(r.planned.map(p => p.path)).not.toContain('node_modules/left-pad/index.js');
		expect(fs.readdirSync(path.join(home.root, 'backups')).sort()).toEqual(before);
	});

	it('one sealed, complete, 0600 archive of every store, the clutter excluded, recorded beside it', async () => {
		const home = makeHome('engine');
		const r = await createBackup({root: home.root, now: clock()});
		expect(r).toMatchObject({exitCode: 0, verified: true, problems: [], recorded: true});
		expect(path.dirname(r.archive!)).toBe(path.join(home.root, 'backups'));
		expect(path.basename(r.archive!)).toBe('hfx-backup-20260101-000001.zip');
		expect((fs.statSync(r.archive!).mode & 0o777).toString(8)).toBe('600');
		expect(r.seal).toMatch(/^[0-9a-f]{64}$/);
		expect(r.databases.map(d => [d.path, d.integrity])).toEqual([
			['profiles/work/state.db', 'ok'],
			['state.db', 'ok'],
		]);
		expect(r.databases.find(d => d.path === 'state.db')!.counts.sessions).toBe(home.sessions);
		const members = r.manifest!.members.map(m => m.path);
		expect(members).toEqual(expect.arrayContaining(['state.db', 'config.yaml', 'memories/MEMORY.md']));
		for (const left of ['node_modules/left-pad/index.js', 'gateway.pid', 'cache/http/junk.bin']) {
			expect(members).not.toContain(left);
		}

		expect(r.credentials).toEqual(expect.arrayContaining(['.env', 'auth.json']));
		expect(await archiveIsComplete(r.archive!)).toBe(true);
		const rec = readRecords(path.join(home.root, 'backups')).find(x => x.artifact === path.basename(r.archive!));
		expect(rec).toMatchObject({event: 'backup', ok: true, seal: r.seal, size: fs.statSync(r.archive!).size});
	});

	it('--keep: the newest N of this home, the newest drilled one beyond them, never another home’s', async () => {
		const home = makeHome('engine-keep');
		const other = makeHome('engine-keep-other');
		const out = tempDir('engine-keep-out');
		const now = clock();
		const names: string[] = [];
		for (let i = 0; i < 4; i++) {
			names.push(path.basename((await createBackup({root: home.root, output: out, keep: 0, now})).archive!));
		}

		const foreign = path.basename((await createBackup({root: other.root, output: out, keep: 0, now})).archive!);
		appendRecord(out, {
			at: 1,
			event: 'drill',
			artifact: names[0]!,
			kind: 'archive',
			ok: true,
			exitCode: 0,
			...fingerprintOf(path.join(out, names[0]!)),
			summary: 'drilled',
		});
		const r = await pruneArchives(out, 2, names[3]!, fs.realpathSync(home.root));
		expect(r).toEqual({pruned: [names[1]!], keptDrilled: names[0]!});
		expect(
			fs
				.readdirSync(out)
				.filter(n => n.endsWith('.zip'))
				.sort(),
		).toEqual([names[0]!, names[2]!, names[3]!, foreign].sort());
		expect(readRecords(out).at(-1)).toMatchObject({event: 'prune', artifact: names[1], summary: 'pruned by --keep 2'});
		expect(await pruneArchives(out, 0, names[3]!, fs.realpathSync(home.root))).toEqual({pruned: [], keptDrilled: null});
	});

	it('archiveIsComplete: false for a file that is no archive of ours', async () => {
		const dir = tempDir('engine-junk');
		fs.writeFileSync(path.join(dir, 'x.zip'), 'no zip');
		expect(await archiveIsComplete(path.join(dir, 'x.zip'))).toBe(false);
	});
});
