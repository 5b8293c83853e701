/**
 * Restore fails closed: hostile members and damaged archives write nothing; a held store is
 * refused; a restore over a folder with a stale -wal yields exactly the archive's data, keeps
 * what was there in backups/pre-restore-<time>/ and restores credentials 0600.
 */
import {spawnSync} from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import {afterAll, afterEach, describe, expect, it} from 'vitest';
import {createBackup} from '../../../source/backup/create/backup.js';
import {restoreArchive} from '../../../source/backup/restore/restore.js';
import {takeQuickSnapshot} from '../../../source/backup/create/snapshot.js';
import {FailClosed} from '../../../source/ground/errors.js';
import {T0} from '../../fixtures/scenarios.js';
import {WriterProcess} from '../../helpers/writer.js';
import {hfx} from '../../helpers/cli.js';
import {cleanupTemps, counts, craftZip, dump, listing, makeHome, tempDir, flip} from '../helpers.js';
import {type HostileMember, pyZip, tinyDb} from '../hostile-archives.js';

const writers: WriterProcess[] = [];
afterEach(async () => {
	for (const w of writers.splice(0)) {
		await w.kill();
	}
});
afterAll(cleanupTemps);

function sha(file: string): string {
	return crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

async function refusal(p: Promise<unknown>): Promise<FailClosed> {
	try {
		await p;
	} catch (error) {
		if (error instanceof FailClosed) {
			return error;
		}

		throw error;
	}

	throw new Error('expected a refusal');
}

describe('hostile archives are refused before anything is written', () => {
	const outside = `hfx-escaped-${process.pid}`;
	const cases: Array<[string, string, number | undefined, RegExp]> = [
		['zip-slip', `../${outside}`, undefined, /"\.\." path segment/],
		['absolute path', `/tmp/${outside}-abs`, undefined, /absolute path/],
		['symlink', 'memories', 0o120_777, /symbolic link/],
		['device', 'dev-null', 0o020_644, /device member/],
		['nested zip-slip', `skills/../../${outside}`, undefined, /"\.\." path segment/],
	];
	it.each(cases)('%s member', async (_label, name, mode, why) => {
		const dir = tempDir('hostile');
		const archive = path.join(dir, 'evil.zip');
		fs.writeFileSync(
			archive,
			craftZip([
				{name: 'config.yaml', data: Buffer.from('model: x\n')},
				{name, data: Buffer.from(mode === 0o120_777 ? '/etc' : 'pwned\n'), mode: mode === undefined ? undefined : mode},
			]),
		);
		const target = path.join(dir, 'target');
		fs.mkdirSync(target);
		fs.writeFileSync(path.join(target, 'keep.txt'), 'mine');
		const before = listing(dir);
		const error = await refusal(restoreArchive({archive, target, mode: 'to', yes: true}));
		expect(error.kind).toBe('unsafe-member');
		expect(error.reason).toMatch(why);
		expect(error.reason).toContain(JSON.stringify(name));
		expect(error.exitCode).toBe(2);
		expect(listing(dir)).toEqual(before);
		expect(fs.existsSync(path.join(path.dirname(dir), outside))).toBe(false);
		expect(fs.existsSync(`/tmp/${outside}-abs`)).toBe(false);
	});

	it('refuses to write through a symlink inside the target', async () => {
		const home = makeHome('through-link');
		const backup = await createBackup({root: home.root, output: tempDir('through-link-out')});
		const target = tempDir('through-link-target');
		const elsewhere = tempDir('elsewhere');
		fs.symlinkSync(elsewhere, path.join(target, 'skills'));
		const error = await refusal(restoreArchive({archive: backup.archive!, target, mode: 'to', yes: true}));
		expect(error.kind).toBe('symlink-in-target');
		expect(fs.readdirSync(elsewhere)).toEqual([]);
		expect(fs.readdirSync(target)).toEqual(['skills']);
	});

	it('refuses a damaged archive and writes nothing', async () => {
		const home = makeHome('damaged');
		const backup = await createBackup({root: home.root, output: tempDir('damaged-out')});
		const bytes = fs.readFileSync(backup.archive!);
		flip(bytes, Math.floor(bytes.length / 3), 0x10);
		fs.writeFileSync(backup.archive!, bytes);
		const target = tempDir('damaged-target');
		const error = await refusal(restoreArchive({archive: backup.archive!, target, mode: 'to', yes: true}));
		expect(error.kind).toBe('archive-damaged');
		expect(error.reason).toMatch(/nothing was written/);
		expect(fs.readdirSync(target)).toEqual([]);
	});
});

describe('restore over a live or stale store', () => {
	it('refuses while a process holds the target database', async () => {
		const home = makeHome('held');
		const backup = await createBackup({root: home.root, output: tempDir('held-out')});
		const w = new WriterProcess(home.db);
		writers.push(w);
		await w.started();
		await w.send({op: 'ping'});
		const before = listing(home.root);
		const dbSha = sha(home.db);
		const error = await refusal(restoreArchive({archive: backup.archive!, target: home.root, mode: 'home', yes: true}));
		expect(error.kind).toBe('in-use');
		expect(error.reason).toContain(`pid ${w.pid}`);
		expect(error.next).toMatch(/stop the gateway/);
		expect(listing(home.root)).toEqual(before);
		expect(sha(home.db)).toBe(dbSha);
	});

	it('refuses while a process still holds a deleted -wal of the target (an old WAL generation)', async () => {
		const home = makeHome('deleted-wal');
		const backup = await createBackup({root: home.root, output: tempDir('deleted-wal-out')});
		const w = new WriterProcess(home.db);
		writers.push(w);
		await w.started();
		const id = await w.create({source: 'telegram', startedAt: T0 + 70_000});
		await w.send({op: 'conversation', id, count: 5, from: T0 + 70_001, to: T0 + 70_100});
		fs.rmSync(`${home.db}-wal`);
		const error = await refusal(restoreArchive({archive: backup.archive!, target: home.root, mode: 'home', yes: true}));
		expect(error.kind).toBe('deleted-wal-held');
		expect(error.reason).toMatch(/holds a deleted -wal of this database/);
		expect(error.reason).toContain(`pid ${w.pid}`);
	});

	it(
		"yields exactly the archive's data over a stale -wal, keeps the old " + 'files, restores credentials 0600',
		async () => {
			const home = makeHome('stale');
			const atBackup = dump(home.db);
			const backup = await createBackup({root: home.root, output: tempDir('stale-out')});
			// After the backup an agent writes 300 more messages and dies: a stale -wal full of them.
			const w = new WriterProcess(home.db);
			writers.push(w);
			await w.started();
			const id = await w.create({source: 'discord', startedAt: T0 + 50_000});
			await w.send({op: 'conversation', id, count: 300, from: T0 + 50_001, to: T0 + 60_000});
			await w.kill();
			const staleWal = `${home.db}-wal`;
			expect(fs.statSync(staleWal).size).toBeGreaterThan(0);
			// (Reading it first: a reader may rebuild the -shm; what the restore finds is what it keeps.)
			expect(counts(home.db).messages).toBe(home.messages + 300);
			const found = {db: sha(home.db), wal: sha(staleWal), shm: sha(`${home.db}-shm`)};

			const r = await restoreArchive({archive: backup.archive!, target: home.root, mode: 'home', yes: true});
			expect(r.exitCode).toBe(0);
			expect(r.failed).toEqual([]);
			expect(r.postProblems).toEqual([]);
			// The old -wal and -shm were moved aside: nothing can replay them over the restored file.
			expect(fs.existsSync(staleWal)).toBe(false);
			expect(fs.existsSync(`${home.db}-shm`)).toBe(false);
			expect(r.preRestoreDir).not.toBeNull();
			const pre = r.preRestoreDir!;
			expect(sha(path.join(pre, 'state.db'))).toBe(found.db);
			expect(sha(path.join(pre, 'state.db-wal'))).toBe(found.wal);
			expect(sha(path.join(pre, 'state.db-shm'))).toBe(found.shm);
			// Exactly the archive's data, even after a writer opens it again.
			expect(dump(home.db)).toBe(atBackup);
			const reopened = new Database(home.db);
			reopened.pragma('journal_mode = wal');
			expect(reopened.prepare('SELECT count(*) FROM messages').pluck().get()).toBe(home.messages);
			reopened.close();
			expect(dump(home.db)).toBe(atBackup);
			// Credentials and databases 0600, whatever they were.
			for (const rel of ['.env', 'auth.json', 'state.db', 'profiles/work/state.db']) {
				expect(fs.statSync(path.join(home.root, rel)).mode & 0o777, rel).toBe(0o600);
			}

			expect(fs.readFileSync(path.join(home.root, 'memories/MEMORY.md'), 'utf8')).toContain('remember the milk');
			expect(r.databases.map(d => d.ok)).toEqual([true, true]);
		},
	);

	it('asks before replacing anything; without a confirmation it writes nothing', async () => {
		const home = makeHome('confirm');
		const backup = await createBackup({root: home.root, output: tempDir('confirm-out')});
		const before = listing(home.root);
		const noPrompt = await refusal(restoreArchive({archive: backup.archive!, target: home.root, mode: 'home'}));
		expect(noPrompt.kind).toBe('needs-confirmation');
		const questions: string[] = [];
		const declined = await refusal(
			restoreArchive({
				archive: backup.archive!,
				target: home.root,
				mode: 'home',
				confirm: async q => {
					questions.push(q);
					return false;
				},
			}),
		);
		expect(declined.kind).toBe('not-confirmed');
		expect(questions[0]).toMatch(/Type "restore"/);
		expect(listing(home.root)).toEqual(before);
		const r = await restoreArchive({
			archive: backup.archive!,
			target: home.root,
			mode: 'home',
			confirm: async () => true,
		});
		expect(r.exitCode).toBe(0);
	});

	it('restores into a new folder with --to, and from a quick snapshot', async () => {
		const home = makeHome('to');
		const backup = await createBackup({root: home.root, output: tempDir('to-out')});
		const target = path.join(tempDir('to-target'), 'fresh');
		const r = await restoreArchive({archive: backup.archive!, target, mode: 'to'});
		expect(r.exitCode).toBe(0);
		expect(r.preRestoreDir).toBeNull();
		expect(fs.readdirSync(target).sort()).toEqual([
			'.env',
			'SOUL.md',
			'auth.json',
			'cache',
			'config.yaml',
			'cron',
			'memories',
			'profiles',
			'skills',
			'state.db',
		]);
		expect(dump(path.join(target, 'state.db'))).toBe(dump(home.db));

		const snap = await takeQuickSnapshot({home: home.root});
		const target2 = path.join(tempDir('snap-target'), 'home');
		const r2 = await restoreArchive({archive: snap.dir, target: target2, mode: 'to'});
		expect(r2.exitCode).toBe(0);
		expect(dump(path.join(target2, 'state.db'))).toBe(dump(home.db));
	});
});

/**
 * Every entry under `dir` (links as links, never followed) with the sha256 of each file: "0 bytes changed" made
 * checkable.
 */
function treeState(dir: string): Record<string, string> {
	const out: Record<string, string> = {};
	const walk = (rel: string) => {
		for (const name of fs.readdirSync(path.join(dir, rel)).sort()) {
			const r = rel ? `${rel}/${name}` : name;
			const st = fs.lstatSync(path.join(dir, r));
			if (st.isSymbolicLink()) {
				out[r] = `link:${fs.readlinkSync(path.join(dir, r))}`;
			} else if (st.isDirectory()) {
				out[`${r}/`] = 'dir';
				walk(r);
			} else if (st.isFIFO()) {
				out[r] = 'fifo';
			} else {
				out[r] = `${(st.mode & 0o777).toString(8)}:${sha(path.join(dir, r))}`;
			}
		}
	};

	walk('');
	return out;
}

/** A target that looks like a home: a database and credentials to lose. */
function occupiedTarget(tag: string, db: Buffer): string {
	const target = tempDir(tag);
	fs.writeFileSync(path.join(target, 'state.db'), db);
	fs.writeFileSync(path.join(target, '.env'), `KEY=${tag}\n`, {mode: 0o600});
	return target;
}

describe('the member policy in restore: sidecars and hostile members never written, one line, 0 bytes changed', () => {
	it(
		'a zip listing state.db-wal before state.db: refused up front, exit 2, ' +
			'the target byte for byte as it was (binary)',
		async () => {
			const dir = tempDir('wal-first-restore');
			const archive = pyZip(path.join(dir, 'wal-first.zip'), [
				{name: 'config.yaml', data: 'model: x\n'},
				{name: 'state.db-wal', data: Buffer.alloc(4096, 1)},
				{name: 'state.db', data: tinyDb(dir, 5)},
			]);
			const target = occupiedTarget('wal-first-target', tinyDb(dir, 2));
			const before = treeState(target);
			const error = await refusal(restoreArchive({archive, target, mode: 'home', yes: true}));
			expect(error.kind).toBe('unsafe-member');
			expect(error.reason).toMatch(/"state\.db-wal" is refused: a SQLite -wal sidecar.*nothing was written/);
			const cli = hfx(['restore', archive, '--home', target, '--yes']);
			expect(cli.code).toBe(2);
			expect(cli.stderr.trim().split('\n')).toHaveLength(1);
			expect(cli.stderr).not.toMatch(/\n\s+at /);
			expect(cli.stderr).toMatch(/state\.db-wal.*nothing was written/);
			expect(treeState(target)).toEqual(before);
		},
	);

	const hostile: Array<[string, HostileMember]> = [
		['a symbolic link state.db -> /etc/shadow', {name: 'state.db', symlink: '/etc/shadow'}],
		['a repeated config.yaml', {name: 'config.yaml', data: 'model: evil\n'}],
		['./config.yaml beside config.yaml', {name: './config.yaml', data: 'model: evil\n'}],
		['a -shm sidecar', {name: 'profiles/work/state.db-shm', data: Buffer.alloc(32768)}],
		['a -journal sidecar', {name: 'state.db-journal', data: Buffer.alloc(512)}],
	];
	it.each(hostile)('%s: refused by the binary, one line, exit 2, the target unchanged', (_label, member) => {
		const dir = tempDir('hostile-restore');
		const archive = pyZip(path.join(dir, 'h.zip'), [{name: 'config.yaml', data: 'model: x\n'}, member]);
		const target = occupiedTarget('hostile-restore-target', tinyDb(dir));
		const before = treeState(target);
		const cli = hfx(['restore', archive, '--home', target, '--yes']);
		expect(cli.code).toBe(2);
		expect(cli.stderr.trim().split('\n')).toHaveLength(1);
		expect(cli.stderr).toMatch(/is refused: .*nothing was written/);
		expect(treeState(target)).toEqual(before);
	});
});

describe("pre-restore copies: this restore's own folder, never through a link", () => {
	it(
		'two restores in the same second keep both sets of copies ' + '(pre-restore-<stamp> and -1), nothing overwritten',
		async () => {
			const home = makeHome('twice');
			const backup = await createBackup({root: home.root, output: tempDir('twice-out')});
			const now = () => new Date('2026-12-01T10:00:00Z');
			fs.writeFileSync(path.join(home.root, '.env'), 'KEY=first\n');
			const first = {db: sha(home.db), env: sha(path.join(home.root, '.env'))};
			const r1 = await restoreArchive({archive: backup.archive!, target: home.root, mode: 'home', yes: true, now});
			fs.writeFileSync(path.join(home.root, '.env'), 'KEY=second\n');
			const r2 = await restoreArchive({archive: backup.archive!, target: home.root, mode: 'home', yes: true, now});
			expect(path.basename(r1.preRestoreDir!)).toBe('pre-restore-20261201-100000');
			expect(path.basename(r2.preRestoreDir!)).toBe('pre-restore-20261201-100000-1');
			expect(sha(path.join(r1.preRestoreDir!, 'state.db'))).toBe(first.db);
			expect(sha(path.join(r1.preRestoreDir!, '.env'))).toBe(first.env);
			expect(fs.readFileSync(path.join(r2.preRestoreDir!, '.env'), 'utf8')).toBe('KEY=second\n');
		},
	);

	it('a pre-restore folder that is a planted link is never reused or followed', async () => {
		const home = makeHome('planted-pre');
		const backup = await createBackup({root: home.root, output: tempDir('planted-pre-out')});
		const elsewhere = tempDir('planted-pre-elsewhere');
		fs.mkdirSync(path.join(home.root, 'backups'), {recursive: true});
		fs.symlinkSync(elsewhere, path.join(home.root, 'backups', 'pre-restore-20261201-100000'));
		const r = await restoreArchive({
			archive: backup.archive!,
			target: home.root,
			mode: 'home',
			yes: true,
			now: () => new Date('2026-12-01T10:00:00Z'),
		});
		expect(r.exitCode).toBe(0);
		expect(path.basename(r.preRestoreDir!)).toBe('pre-restore-20261201-100000-1');
		expect(fs.readdirSync(elsewhere)).toEqual([]);
	});

	it(
		'a gateway.pid that is a FIFO is refused in one line (whether the ' +
			'gateway runs cannot be told), never read blocking, nothing written ' +
			'(binary)',
		async () => {
			const home = makeHome('fifo-pid');
			const backup = await createBackup({root: home.root, output: tempDir('fifo-pid-out')});
			fs.rmSync(path.join(home.root, 'gateway.pid'), {force: true});
			expect(spawnSync('mkfifo', [path.join(home.root, 'gateway.pid')]).status).toBe(0);
			const before = treeState(home.root);
			const started = Date.now();
			const cli = hfx(['restore', backup.archive!, '--home', home.root, '--yes']);
			expect(Date.now() - started).toBeLessThan(30_000);
			expect(cli.code).toBe(2);
			expect(cli.stderr.trim().split('\n')).toEqual([
				expect.stringMatching(
					/gateway\.pid: .*FIFO, not a regular file.*whether the gateway runs cannot be told; nothing was written\. Next: stop the gateway/,
				) as string,
			]);
			expect(treeState(home.root)).toEqual(before);
		},
	);

	it(
		'a symlinked backups/ is refused in one line before anything is written: ' +
			'no credential leaves the target (binary)',
		async () => {
			const home = makeHome('linked-backups');
			const backup = await createBackup({root: home.root, output: tempDir('linked-backups-out')});
			const elsewhere = tempDir('linked-backups-elsewhere');
			fs.rmSync(path.join(home.root, 'backups'), {recursive: true, force: true});
			fs.symlinkSync(elsewhere, path.join(home.root, 'backups'));
			const before = treeState(home.root);
			const error = await refusal(
				restoreArchive({archive: backup.archive!, target: home.root, mode: 'home', yes: true}),
			);
			expect(error.kind).toBe('symlink-in-target');
			expect(error.file).toBe(path.join(home.root, 'backups'));
			const cli = hfx(['restore', backup.archive!, '--home', home.root, '--yes']);
			expect(cli.code).toBe(2);
			expect(cli.stderr.trim().split('\n')).toHaveLength(1);
			expect(cli.stderr).toMatch(/backups.*symbolic link.*nothing was written/);
			expect(fs.readdirSync(elsewhere)).toEqual([]);
			expect(treeState(home.root)).toEqual(before);
		},
	);
});

describe("a failure that is not the archive's is one line too", () => {
	it(
		'a temp folder that does not exist: verify and restore each say so in ' +
			'one line, exit 2, the target unchanged (binary)',
		() => {
			const dir = tempDir('no-tmp');
			const archive = pyZip(path.join(dir, 'a.zip'), [
				{name: 'config.yaml', data: 'model: x\n'},
				{name: 'state.db', data: tinyDb(dir)},
			]);
			const target = occupiedTarget('no-tmp-target', tinyDb(dir, 3));
			const before = treeState(target);
			const env = {TMPDIR: path.join(dir, 'missing')};
			const verify = hfx(['verify', archive], {env});
			expect(verify.code).toBe(2);
			expect(verify.stderr.trim().split('\n')).toEqual([
				`hfx: ${env.TMPDIR}: the temp folder does not exist; hfx makes its ` +
					`working folders (private read copies, extractions, drills) there and ` +
					`nowhere else. Next: point TMPDIR at a folder this user can write (e.g. ` +
					`TMPDIR=/var/tmp), then run again`,
			]);
			const restore = hfx(['restore', archive, '--home', target, '--yes'], {env});
			expect(restore.code).toBe(2);
			expect(restore.stderr.trim().split('\n')).toEqual([
				expect.stringMatching(
					/missing: the temp folder does not exist; .*; nothing was written\. Next: point TMPDIR/,
				) as string,
			]);
			expect(treeState(target)).toEqual(before);
			const drill = hfx(['restore', '--drill', archive], {env});
			expect(drill.code).toBe(2);
			expect(drill.stderr.trim().split('\n')).toEqual([
				expect.stringMatching(/missing: the temp folder does not exist; .*Next: point TMPDIR/) as string,
			]);
		},
	);
});
