/**
 * The one clean-up policy for our temp artefacts (source/ground/temps.ts, backup/debris.ts): the names
 * verify and drill extract under, the sweep of a SIGKILLed run's debris in the temp folder (only
 * our names, only dead pids, only this user's, never through a link) and of a killed restore's
 * partials in the folders a restore stages into (nothing else in the target).
 */
import {spawn, spawnSync} from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {createBackup} from '../../source/backup/create/backup.js';
import {sweepDebris, sweepRestorePartials, tempPath} from '../../source/backup/debris.js';
import {restoreArchive} from '../../source/backup/restore/restore.js';
import {makeTempDir} from '../../source/backup/verify/temp-extraction.js';
import {OWN_TEMP, ownTempDir, removeTemp, sweepOwnTemps} from '../../source/ground/temps.js';
import {hfx} from '../helpers/cli.js';
import {ROOT} from '../helpers/writer.js';
import {cleanupTemps, makeHome, tempDir} from './helpers.js';

afterAll(cleanupTemps);

function deadPid(): number {
	return spawnSync('true').pid!;
}

describe('our temp names', () => {
	it(
		'verify extracts into hfx-verify-<pid>-<rand> (0700) in the temp folder ' +
			'it is given; drill and the read copy name theirs alike',
		() => {
			const tmp = tempDir('names');
			const dir = makeTempDir({tmpDir: tmp} as Parameters<typeof makeTempDir>[0]);
			expect(path.dirname(dir)).toBe(tmp);
			expect(path.basename(dir)).toMatch(new RegExp(`^hfx-verify-${process.pid}-[0-9a-f]{8}$`));
			expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
			const drill = ownTempDir('drill', tmp);
			expect(OWN_TEMP.exec(path.basename(drill))?.[1]).toBe('drill');
			removeTemp(dir);
			removeTemp(drill);
			expect(fs.readdirSync(tmp)).toEqual([]);
		},
	);
});

describe('the sweep of the temp folder', () => {
	it(
		'a verify killed with SIGKILL leaves its hfx-verify-<pid>-* extraction; ' + 'the next run of a command removes it',
		async () => {
			const home = makeHome('killed-verify');
			const backup = await createBackup({root: home.root, output: tempDir('killed-verify-out')});
			const tmp = tempDir('killed-verify-tmp');
			const child = spawn(process.execPath, [path.join(ROOT, 'dist/hfx.js'), 'verify', backup.archive!], {
				env: {...process.env, NO_COLOR: '1', TMPDIR: tmp, HFX_TEST_PAUSE_AT: 'temp-verify', HFX_TEST_PAUSE_MS: '20000'},
				stdio: ['ignore', 'ignore', 'pipe'],
			});
			const exited = new Promise(resolve => child.once('exit', (_c, signal) => resolve(signal)));
			await new Promise<void>((resolve, reject) => {
				const timer = setTimeout(() => reject(new Error('never paused at temp-verify')), 30_000);
				let err = '';
				child.stderr.on('data', (d: Buffer) => {
					err += d.toString();
					if (err.includes('paused at temp-verify')) {
						clearTimeout(timer);
						resolve();
					}
				});
			});
			child.kill('SIGKILL');
			expect(await exited).toBe('SIGKILL');
			expect(fs.readdirSync(tmp)).toEqual([expect.stringMatching(new RegExp(`^hfx-verify-${child.pid}-[0-9a-f]{8}$`))]);
			const next = hfx(['verify', backup.archive!], {env: {TMPDIR: tmp}});
			expect(next.code).toBe(0);
			expect(fs.readdirSync(tmp)).toEqual([]);
		},
	);

	it(
		'removes our names whose pid is dead (folders with a .env, files); keeps ' +
			"live pids, other names, other users' and links",
		async () => {
			const tmp = tempDir('sweep');
			const dead = deadPid();
			const live = spawn('sleep', ['30']);
			try {
				const gone = [`hfx-verify-${dead}-0a0b0c0d`, `hfx-drill-${dead}-11223344`, `hfx-read-${dead}-aabbccdd`];
				for (const name of gone.slice(0, 2)) {
					fs.mkdirSync(path.join(tmp, name));
					fs.writeFileSync(path.join(tmp, name, '.env'), 'ANTHROPIC_API_KEY=sk-ant-test\n');
				}

				fs.writeFileSync(path.join(tmp, gone[2]!), 'a file');
				const kept = [
					`hfx-verify-${live.pid}-0a0b0c0d`,
					`hfx-verify-${process.pid}-0a0b0c0d`,
					`hfx-verify-${dead}-0A0B0C0D`,
					`hfx-repair-int-${dead}-x`,
					`other-${dead}-0a0b0c0d`,
					`hfx-${dead}-0a0b0c0d`,
				];
				for (const name of kept) {
					fs.mkdirSync(path.join(tmp, name));
				}

				const outside = tempDir('outside');
				fs.writeFileSync(path.join(outside, 'keep'), 'x');
				fs.symlinkSync(outside, path.join(tmp, `hfx-drill-${dead}-99999999`));
				kept.push(`hfx-drill-${dead}-99999999`);
				if (process.getuid?.() === 0) {
					// Another user's folder under our name: not ours to remove.
					fs.mkdirSync(path.join(tmp, `hfx-read-${dead}-0f0f0f0f`));
					fs.chownSync(path.join(tmp, `hfx-read-${dead}-0f0f0f0f`), 65_534, 65_534);
					kept.push(`hfx-read-${dead}-0f0f0f0f`);
				}

				expect(sweepOwnTemps(tmp).sort()).toEqual([...gone].sort());
				expect(fs.readdirSync(tmp).sort()).toEqual([...kept].sort());
				expect(fs.readFileSync(path.join(outside, 'keep'), 'utf8')).toBe('x');
			} finally {
				live.kill('SIGKILL');
			}
		},
	);
});

describe('a restore sweeps what a killed restore left staged', () => {
	it(
		'a restore SIGKILLed after staging leaves its .NAME.hfx-p<pid>.partial ' +
			'in the target; the next restore removes it and completes',
		async () => {
			const home = makeHome('killed-restore');
			const backup = await createBackup({root: home.root, output: tempDir('killed-restore-out')});
			const target = tempDir('killed-restore-target');
			const child = spawn(
				process.execPath,
				[path.join(ROOT, 'dist/hfx.js'), 'restore', backup.archive!, '--to', target, '--yes'],
				{
					env: {...process.env, NO_COLOR: '1', HFX_TEST_PAUSE_AT: 'restore-staged', HFX_TEST_PAUSE_MS: '20000'},
					stdio: ['ignore', 'ignore', 'pipe'],
				},
			);
			const exited = new Promise(resolve => child.once('exit', (_c, signal) => resolve(signal)));
			await new Promise<void>((resolve, reject) => {
				const timer = setTimeout(() => reject(new Error('never paused at restore-staged')), 30_000);
				let err = '';
				child.stderr.on('data', (d: Buffer) => {
					err += d.toString();
					if (err.includes('paused at restore-staged')) {
						clearTimeout(timer);
						resolve();
					}
				});
			});
			child.kill('SIGKILL');
			expect(await exited).toBe('SIGKILL');
			const partials = (dir: string): string[] =>
				fs
					.readdirSync(dir, {recursive: true})
					.map(String)
					.filter(n => n.endsWith('.partial'));
			const left = partials(target);
			expect(left).toHaveLength(1);
			expect(path.basename(left[0]!)).toMatch(new RegExp(`^\\..+\\.hfx-p${child.pid}\\.[0-9a-f]{16}\\.partial$`));
			const next = hfx(['restore', backup.archive!, '--to', target, '--yes']);
			expect(next.code).toBe(0);
			expect(partials(target)).toEqual([]);
		},
	);

	it(
		"dead pids' .<name>.hfx-p<pid>.partial beside the destinations go; live " + 'ones, links and other files stay',
		async () => {
			const home = makeHome('partials');
			const backup = await createBackup({root: home.root, output: tempDir('partials-out')});
			const target = tempDir('partials-target');
			const dead = deadPid();
			const live = spawn('sleep', ['30']);
			try {
				const deadPartial = path.join(target, `.state.db.hfx-p${dead}.partial`);
				fs.writeFileSync(deadPartial, Buffer.alloc(1_048_576));
				const kept = [`.state.db.hfx-p${live.pid}.partial`, '.state.db.partial', `state.db.hfx-p${dead}.partial`];
				for (const name of kept) {
					fs.writeFileSync(path.join(target, name), 'keep');
				}

				const victim = path.join(tempDir('partials-victim'), 'file');
				fs.writeFileSync(victim, 'keep');
				fs.symlinkSync(victim, path.join(target, `.config.yaml.hfx-p${dead}.partial`));
				kept.push(`.config.yaml.hfx-p${dead}.partial`);
				const r = await restoreArchive({archive: backup.archive!, target, mode: 'to', yes: true});
				expect(r.exitCode).toBe(0);
				expect(fs.existsSync(deadPartial)).toBe(false);
				for (const name of kept) {
					expect(fs.lstatSync(path.join(target, name), {throwIfNoEntry: false}), name).toBeDefined();
				}

				expect(fs.readFileSync(victim, 'utf8')).toBe('keep');
				expect(
					fs
						.readdirSync(target)
						.filter(n => n.endsWith('.partial'))
						.sort(),
				).toEqual([...kept].sort());
			} finally {
				live.kill('SIGKILL');
			}
		},
	);
});

describe('debris.ts, in process: the names it makes and what its sweeps take', () => {
	it('a temp name embeds this pid and a random part; the sweep of its folder spares it while this runs', () => {
		const dir = tempDir('debris-own');
		const mine = tempPath(dir, 'zip');
		expect(path.dirname(mine)).toBe(dir);
		expect(path.basename(mine)).toMatch(new RegExp(`^\\.hfx-zip\\.p${process.pid}\\.[0-9a-f]{8}\\.partial$`));
		expect(tempPath(dir, 'zip')).not.toBe(mine);
		fs.writeFileSync(mine, 'x');
		expect(sweepDebris(dir)).toEqual([]);
		expect(fs.existsSync(mine)).toBe(true);
	});

	it("sweeps a dead pid's .partial temp, file or folder, and nothing that is not ours or not a partial", () => {
		const dir = tempDir('debris-dead');
		const dead = deadPid();
		const names = [
			`.hfx-zip.p${dead}.0badc0de.partial`,
			`.state.db.hfx-p${dead}.0123456789abcdef.partial`,
			`.hfx-zip.p${dead}.0badc0de.tmp`,
			`hfx-zip.p${dead}.0badc0de.partial`,
			'state.db',
		];
		for (const name of names) {
			fs.writeFileSync(path.join(dir, name), 'x');
		}
		fs.mkdirSync(path.join(dir, `.hfx-walk-p${dead}-x.partial`));
		expect(sweepDebris(dir).sort()).toEqual([
			`.hfx-walk-p${dead}-x.partial`,
			`.hfx-zip.p${dead}.0badc0de.partial`,
			`.state.db.hfx-p${dead}.0123456789abcdef.partial`,
		]);
		expect(fs.readdirSync(dir).sort()).toEqual(names.slice(2).sort());
		expect(sweepDebris(path.join(dir, 'no-such-folder'))).toEqual([]);
	});

	it("before a restore stages, removes only dead restores' staged regular files, once a folder", () => {
		const dir = tempDir('debris-restore');
		const dead = deadPid();
		const staged = path.join(dir, `.state.db.hfx-p${dead}.0123456789abcdef.partial`);
		const live = path.join(dir, `.state.db.hfx-p${process.pid}.0123456789abcdef.partial`);
		const folder = path.join(dir, `.config.yaml.hfx-p${dead}.partial`);
		fs.writeFileSync(staged, 'x');
		fs.writeFileSync(live, 'x');
		fs.mkdirSync(folder);
		expect(sweepRestorePartials([dir, dir, path.join(dir, 'gone')])).toEqual([staged]);
		expect(fs.existsSync(live)).toBe(true);
		expect(fs.existsSync(folder)).toBe(true);
	});
});
