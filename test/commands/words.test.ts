/**
 * Issue #29, class 5: untrue or misleading words, each through the real binary. An archive with no
 * Hermes store is no sound backup; out of file descriptors is not a permission problem; a home
 * that is a file is named so; a refusal for lack of space leaves nothing behind.
 */
import {spawn, spawnSync} from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {cleanupTemps, craftZip, makeHome, tempDir} from '../backup/helpers.js';
import {hfx} from '../helpers/cli.js';
import {folderDigest} from '../helpers/folder-digest.js';
import {ROOT} from '../helpers/writer.js';
import {SCENARIOS, buildScenario} from '../fixtures/scenarios.js';

afterAll(() => {
	cleanupTemps();
});

const oneLine = (stderr: string): string[] => stderr.trim().split('\n');

/** verify says it is no backup (exit 1, never SOUND); restore refuses in one line and writes nothing. */
function expectNoStore(artifact: string): void {
	const v = hfx(['verify', artifact]);
	expect(v.code, v.stdout + v.stderr).toBe(1);
	expect(v.stdout).not.toMatch(/SOUND/);
	expect(v.stdout).toMatch(/NO HERMES STORE/);
	expect(oneLine(v.stderr)).toEqual([
		expect.stringMatching(/no Hermes store in it.*not a backup of a Hermes home.*Next: /) as string,
	]);
	const target = path.join(tempDir('words-target'), 'restored');
	const r = hfx(['restore', artifact, '--to', target, '--yes']);
	expect(r.code, r.stdout + r.stderr).toBe(2);
	expect(r.stdout).not.toMatch(/RESTORED/);
	expect(oneLine(r.stderr)).toEqual([
		expect.stringMatching(/no Hermes root in the archive.*nothing was written\. Next: /) as string,
	]);
	expect(fs.existsSync(target)).toBe(false);
}

describe('an archive with no Hermes store is not a sound backup', () => {
	it('an empty zip: not SOUND, not RESTORED', () => {
		const zip = path.join(tempDir('words-zip'), 'empty.zip');
		fs.writeFileSync(zip, craftZip([]));
		expectNoStore(zip);
	});

	it('a zip holding only config.yaml: not SOUND, not RESTORED', () => {
		const zip = path.join(tempDir('words-zip'), 'config-only.zip');
		fs.writeFileSync(zip, craftZip([{name: 'config.yaml', data: Buffer.from('model: x\n')}]));
		expectNoStore(zip);
	});

	it('a tar.gz holding only config.yaml: not SOUND, not RESTORED', () => {
		const dir = tempDir('words-tar');
		fs.writeFileSync(path.join(dir, 'config.yaml'), 'model: x\n');
		const tgz = path.join(tempDir('words-tar-out'), 'config-only.tar.gz');
		expect(spawnSync('tar', ['czf', tgz, '-C', dir, 'config.yaml']).status).toBe(0);
		expectNoStore(tgz);
	});

	it('a Hermes quick snapshot holding only config.yaml: not SOUND, not RESTORED', () => {
		const snap = path.join(tempDir('words-snap'), '20260101-000000');
		fs.mkdirSync(snap);
		fs.writeFileSync(path.join(snap, 'config.yaml'), 'model: x\n');
		fs.writeFileSync(path.join(snap, 'manifest.json'), JSON.stringify({files: {'config.yaml': 9}}));
		expectNoStore(snap);
	});

	it('hfx backup and backup --quick of a home with no store refuse in one line, nothing written', () => {
		const home = tempDir('words-nostore-home');
		fs.writeFileSync(path.join(home, 'config.yaml'), 'model: x\n');
		const out = tempDir('words-nostore-out');
		const before = folderDigest(home);
		for (const args of [
			['backup', '--home', home, '-o', out],
			['backup', '--quick', '--home', home],
		]) {
			const r = hfx(args);
			expect(r.code, r.stdout + r.stderr).toBe(2);
			expect(oneLine(r.stderr)).toEqual([expect.stringMatching(/no Hermes store here.*nothing was written/) as string]);
		}

		expect(folderDigest(home)).toEqual(before);
		expect(fs.readdirSync(out)).toEqual([]);
	});
});

describe('resource exhaustion named right', () => {
	it('out of file descriptors (ulimit -n) is "too many open files", never a permission problem', () => {
		const home = makeHome('words-emfile');
		const said: string[] = [];
		// How many descriptors Node takes before hfx runs varies a little: sweep the limits where the store's open is
		// refused.
		for (let n = 22; n <= 34; n++) {
			const r = spawnSync(
				'bash',
				[
					'-c',
					`ulimit -n ${n}; exec "$@"`,
					'hfx',
					process.execPath,
					path.join(ROOT, 'dist/hfx.js'),
					'scan',
					'--db',
					home.db,
				],
				{encoding: 'utf8', env: {...process.env, NO_COLOR: '1'}, timeout: 60_000},
			);
			expect(r.stderr, `ulimit -n ${n}`).not.toMatch(/permission|sudo -u/i);
			expect(r.stderr, `ulimit -n ${n}`).not.toMatch(/^\s+at .*\(/m);
			said.push(...r.stderr.split('\n').filter(line => line.startsWith('hfx: ')));
		}

		expect(said.length).toBeGreaterThan(0);
		for (const line of said) {
			expect(line).toMatch(/too many open files.*\(EMFILE\).*Next: raise the open-file limit \(ulimit -n\)/);
		}
	});
});

describe('a home that is a file', () => {
	it('scan --home <a file> says the home is a file, never <file>/state.db', () => {
		const file = path.join(tempDir('words-home-file'), 'not-a-home');
		fs.writeFileSync(file, 'x\n');
		for (const command of ['scan', 'sessions', 'metrics']) {
			const r = hfx([command, '--home', file]);
			expect(r.code).toBe(2);
			expect(oneLine(r.stderr)).toEqual([
				expect.stringMatching(/not-a-home: a Hermes home must be a folder, and this is a file\. Next: /) as string,
			]);
			expect(r.stderr).not.toMatch(/not-a-home\/state\.db/);
		}
	});
});

/** A tmpfs of `size` (root only), or null where mount is not allowed. */
function smallTmpfs(size: string): {dir: string; dispose: () => void} | null {
	const dir = tempDir('words-tmpfs');
	if (spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir]).status !== 0) {
		return null;
	}

	return {dir, dispose: () => spawnSync('umount', [dir])};
}

describe('a refusal for lack of space leaves nothing behind', () => {
	it('backup --quick and repair --apply on a nearly full disk: refused, no empty state-snapshots/ left', context => {
		const fs2 = smallTmpfs('2m');
		if (!fs2) {
			context.skip();
			return;
		}

		try {
			const home = makeHome('words-full');
			fs.copyFileSync(home.db, path.join(fs2.dir, 'state.db'));
			// Room for the lock and a folder, not for a copy of the store.
			const free = fs.statfsSync(fs2.dir).bavail * fs.statfsSync(fs2.dir).bsize;
			fs.writeFileSync(path.join(fs2.dir, 'fill'), Buffer.alloc(Math.max(0, free - 64 * 1024)));
			const before = folderDigest(fs2.dir);
			for (const args of [
				['backup', '--quick', '--home', fs2.dir],
				['repair', '--apply', '--yes', '--db', path.join(fs2.dir, 'state.db')],
			]) {
				const r = hfx(args);
				expect(r.code, r.stdout + r.stderr).toBe(2);
				expect(r.stderr).toMatch(/no space|full/i);
				expect(fs.existsSync(path.join(fs2.dir, 'state-snapshots')), args.join(' ')).toBe(false);
				expect(folderDigest(fs2.dir)).toEqual(before);
			}
		} finally {
			fs2.dispose();
		}
	});
});

/**
 * Runs hfx until it announces `point` (source/ground/test-pause.ts), sends `signal` there, and resolves its exit code
 * and
 * output.
 */
async function signalAt(
	point: string,
	signal: NodeJS.Signals,
	args: string[],
): Promise<{code: number | null; stdout: string; stderr: string}> {
	const child = spawn(process.execPath, [path.join(ROOT, 'dist/hfx.js'), ...args], {
		env: {...process.env, NO_COLOR: '1', HFX_TEST_PAUSE_AT: point, HFX_TEST_PAUSE_MS: '1500'},
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	let stdout = '';
	let stderr = '';
	let sent = false;
	child.stdout.on('data', (d: Buffer) => {
		stdout += d.toString();
	});
	child.stderr.on('data', (d: Buffer) => {
		stderr += d.toString();
		if (!sent && stderr.includes(`hfx-test: paused at ${point}`)) {
			sent = true;
			child.kill(signal);
		}
	});
	const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
	const code = await new Promise<number | null>(resolve => child.once('exit', c => resolve(c)));
	clearTimeout(timer);
	expect(sent, stderr).toBe(true);
	return {code, stdout, stderr};
}

describe('a read-only file system is named so', () => {
	it(
		'backup --quick and repair --apply on a home mounted read-only: ' +
			'"read-only file system", never ENOENT nor "run as the owner"',
		context => {
			const disk = smallTmpfs('8m');
			if (!disk) {
				context.skip();
				return;
			}

			try {
				const home = makeHome('words-ro');
				fs.copyFileSync(home.db, path.join(disk.dir, 'state.db'));
				expect(spawnSync('mount', ['-o', 'remount,ro', disk.dir]).status).toBe(0);
				const quick = hfx(['backup', '--quick', '--home', disk.dir]);
				expect(quick.code).toBe(2);
				expect(oneLine(quick.stderr)).toEqual([
					expect.stringMatching(
						/state-snapshots: read-only file system .*\(EROFS\).*Next: take a full backup to a writable folder with hfx backup -o DIR/,
					) as string,
				]);
				const repair = hfx(['repair', '--apply', '--yes', '--db', path.join(disk.dir, 'state.db')]);
				expect(repair.code).toBe(2);
				expect(oneLine(repair.stderr)).toEqual([
					expect.stringMatching(
						/hfx-audit\.jsonl: the audit trail cannot be written \(read-only file system, EROFS\)/,
					) as string,
				]);
				expect(repair.stderr).not.toMatch(/owner/);
			} finally {
				disk.dispose();
			}
		},
	);
});

describe('a write finished under a signal says what happened', () => {
	it(
		'a repair that applied under SIGTERM exits as applied (0), says applied, ' + 'and notes the signal in one line',
		async () => {
			const dir = tempDir('words-sigterm');
			const {dbPath} = buildScenario(SCENARIOS.find(s => s.id === 'R1')!, 'v30', {dir});
			const r = await signalAt('after-commit', 'SIGTERM', ['repair', '--db', dbPath, '--apply', '--yes']);
			expect(r.code, r.stdout + r.stderr).toBe(0);
			expect(r.stdout).toMatch(/now owns/);
			const noted = r.stderr.split('\n').filter(line => /SIGTERM/.test(line) && !line.startsWith('hfx-test:'));
			expect(noted.filter(line => /finished and was recorded.*exit 0/.test(line))).toHaveLength(1);
			// Applied for real: a second apply has nothing left to adopt.
			expect(hfx(['repair', '--db', dbPath, '--apply', '--yes']).code).toBe(0);
		},
	);
});

/** A process whose program is hfx (as /proc/PID/cmdline shows it) holding `file` open, like hfx's TUI between reads. */
async function hfxHolding(file: string): Promise<{pid: number; stop: () => Promise<void>}> {
	const bin = path.join(tempDir('words-holder'), 'hfx.js');
	fs.writeFileSync(
		bin,
		`const fs = require('node:fs'); fs.openSync(process.argv[2], 'r'); ` +
			`process.stdout.write('held\\n'); setInterval(() => {}, 1000);\n`,
	);
	const child = spawn(process.execPath, [bin, file], {stdio: ['ignore', 'pipe', 'inherit']});
	await new Promise<void>(resolve => child.stdout.once('data', () => resolve()));
	const exited = new Promise<void>(resolve => child.once('exit', () => resolve()));
	return {
		pid: child.pid!,
		async stop() {
			child.kill('SIGKILL');
			await exited;
		},
	};
}

describe('a store held by hfx itself names hfx, not the gateway', () => {
	it('a restore refused while hfx holds the target says quit hfx (pid), never stop the gateway', async () => {
		const home = makeHome('words-held-restore');
		const out = tempDir('words-held-out');
		expect(hfx(['backup', '--home', home.root, '-o', out]).code).toBe(0);
		const archive = path.join(out, fs.readdirSync(out).find(n => n.endsWith('.zip'))!);
		const holder = await hfxHolding(home.db);
		try {
			const before = folderDigest(home.root);
			const r = hfx(['restore', archive, '--home', home.root, '--yes']);
			expect(r.code, r.stdout + r.stderr).toBe(2);
			expect(oneLine(r.stderr)).toEqual([
				expect.stringMatching(new RegExp(`pid ${holder.pid} .*Next: quit hfx \\(pid ${holder.pid}`)) as string,
			]);
			expect(r.stderr).not.toMatch(/gateway/);
			expect(folderDigest(home.root)).toEqual(before);
		} finally {
			await holder.stop();
		}
	});

	it('repair --undo refused while hfx holds the store says quit hfx (pid), never stop the gateway', async () => {
		const dir = tempDir('words-held-undo');
		const {dbPath} = buildScenario(SCENARIOS.find(s => s.id === 'R1')!, 'v30', {dir});
		expect(hfx(['repair', '--db', dbPath, '--apply', '--yes']).code).toBe(0);
		const holder = await hfxHolding(dbPath);
		try {
			const r = hfx(['repair', '--db', dbPath, '--undo', '1', '--yes']);
			expect(r.code, r.stdout + r.stderr).toBe(2);
			expect(r.stdout + r.stderr).toMatch(new RegExp(`quit hfx \\(pid ${holder.pid}`));
			expect(r.stdout + r.stderr).not.toMatch(/stop the gateway/);
		} finally {
			await holder.stop();
		}
	});
});
