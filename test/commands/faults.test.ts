/**
 * Faults during a backup or restore, with the real binary: kill -9 mid-way (no file under the
 * final name; the next run sweeps the debris and takes over the stale lock), a full disk (a small
 * tmpfs, mounted as root; a disk filled by another process mid-backup) and a file size limit
 * (`ulimit -f`): exit 1 or 2, one clear line, no debris.
 */
import {type ChildProcess, spawn, spawnSync} from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {hfx} from '../helpers/cli.js';
import {ROOT} from '../helpers/writer.js';
import {bigStore, cleanupTemps, listing, makeHome, tempDir} from '../backup/helpers.js';

const CLI = path.join(ROOT, 'dist/hfx.js');
const mounts: string[] = [];
afterAll(() => {
	for (const m of mounts.splice(0)) {
		spawnSync('umount', ['-l', m]);
	}

	cleanupTemps();
});

function ours(dir: string): string[] {
	return fs.readdirSync(dir).filter(n => /^hfx-backup-.*\.zip$/.test(n));
}

/** Bytes in our temp names (`.hfx-*.partial`, files and folders). */
function partialBytes(dir: string, match: (name: string) => boolean): number {
	let total = 0;
	for (const name of fs.readdirSync(dir)) {
		if (!name.startsWith('.hfx-') || !match(name)) {
			continue;
		}

		const p = path.join(dir, name);
		try {
			const st = fs.statSync(p);
			total += st.isDirectory()
				? fs.readdirSync(p).reduce((a, n) => a + fs.statSync(path.join(p, n)).size, 0)
				: st.size;
		} catch {
			// vanished between readdir and stat
		}
	}

	return total;
}

async function waitFor(condition: () => boolean, ms: number): Promise<boolean> {
	const until = Date.now() + ms;
	while (Date.now() < until) {
		if (condition()) {
			return true;
		}

		await new Promise(r => setTimeout(r, 1));
	}

	return false;
}

function exited(child: ChildProcess): Promise<{code: number | null; signal: string | null}> {
	return new Promise(resolve => {
		child.once('exit', (code, signal) => resolve({code, signal}));
	});
}

/** Mounts a tmpfs (root only); null when that is not permitted here. */
function tmpfs(options: string): string | null {
	if (process.getuid?.() !== 0) {
		return null;
	}

	const dir = tempDir('tmpfs');
	const r = spawnSync('mount', ['-t', 'tmpfs', '-o', options, 'tmpfs', dir], {encoding: 'utf8'});
	if (r.status !== 0) {
		return null;
	}

	mounts.push(dir);
	return dir;
}

const canMount = (() => {
	const probe = tmpfs('size=64k');
	return probe !== null;
})();

describe('kill -9 in the middle of a backup', () => {
	it.each([
		[
			'while the database is being copied',
			(out: string) => partialBytes(out, n => n.startsWith('.hfx-stage')) > 2_000_000,
			true,
		],
		[
			'while the archive is being written',
			(out: string) => partialBytes(out, n => n.startsWith('.hfx-backup')) > 2_000_000,
			false,
		],
	])(
		'%s: no file under the final name; the next run sweeps the debris and takes over the lock',
		async (_when, midway, duringCopy) => {
			const home = makeHome('kill');
			fs.rmSync(home.db);
			bigStore(home.db, 150_000);
			const out = tempDir('kill-out');
			const child = spawn(process.execPath, [CLI, 'backup', '--home', home.root, '-o', out], {stdio: 'ignore'});
			const done = exited(child);
			const caught = await waitFor(() => midway(out), 30_000);
			child.kill('SIGKILL');
			const how = await done;
			expect(caught).toBe(true);
			expect(how.signal).toBe('SIGKILL');
			expect(ours(out)).toEqual([]);
			expect(fs.readdirSync(out).some(n => n.endsWith('.partial'))).toBe(true);
			if (duringCopy) {
				// The stopped store is copied in place (#26): no private read copy of it in the staging folder.
				const stage = fs.readdirSync(out).find(n => n.startsWith('.hfx-stage'))!;
				expect(fs.readdirSync(path.join(out, stage)).some(n => n.startsWith('hfx-read-'))).toBe(false);
			}

			expect(fs.existsSync(path.join(home.root, '.hfx-backup.lock'))).toBe(true);
			// The next run: debris removed, stale lock taken over, one complete archive.
			const again = hfx(['backup', '--home', home.root, '-o', out]);
			expect(again.code).toBe(0);
			expect(again.stdout).toMatch(/removed \d+ leftover temp files? of an interrupted earlier run/);
			expect(fs.readdirSync(out).sort()).toEqual([...ours(out), 'hfx-records.jsonl'].sort());
			expect(ours(out)).toHaveLength(1);
			expect(fs.existsSync(path.join(home.root, '.hfx-backup.lock'))).toBe(false);
			expect(hfx(['verify', path.join(out, ours(out)[0]!)]).code).toBe(0);
		},
		120_000,
	);
});

describe('Ctrl-C (SIGINT) or SIGTERM in the middle of a backup', () => {
	it.each([
		['SIGINT', 130],
		['SIGTERM', 143],
	] as const)(
		'%s: exit %i, temp files and the lock removed, nothing under a final name',
		async (signal, code) => {
			const home = makeHome(`sig-${signal}`);
			fs.rmSync(home.db);
			bigStore(home.db, 150_000);
			const out = tempDir(`sig-${signal}-out`);
			const child = spawn(process.execPath, [CLI, 'backup', '--home', home.root, '-o', out], {stdio: 'ignore'});
			const done = exited(child);
			expect(await waitFor(() => partialBytes(out, n => n.startsWith('.hfx-')) > 2_000_000, 30_000)).toBe(true);
			child.kill(signal);
			expect((await done).code).toBe(code);
			expect(fs.readdirSync(out)).toEqual([]);
			expect(fs.existsSync(path.join(home.root, '.hfx-backup.lock'))).toBe(false);
		},
		60_000,
	);

	// Node aborts the process when a worker thread is stopped while it loads a native addon (db-check-run.ts): CI saw
	// SIGTERM end a backup by a signal. The check worker is held before its driver loads; the exit must wait for it.
	it('SIGTERM while the check worker loads its driver: the exit waits for it, exit 143, nothing left', async () => {
		const home = makeHome('sig-load');
		const out = tempDir('sig-load-out');
		const env = {
			...process.env,
			HFX_TEST_PAUSE_AT: 'check-worker-load',
			HFX_TEST_PAUSE_MS: '1500',
			HFX_TEST_MARK: 'check-worker-loaded',
		};
		const child = spawn(process.execPath, [CLI, 'backup', '--home', home.root, '-o', out], {
			env,
			stdio: ['ignore', 'ignore', 'pipe'],
		});
		let stderr = '';
		child.stderr!.on('data', d => (stderr += String(d)));
		const done = exited(child);
		expect(await waitFor(() => stderr.includes('paused at check-worker-load'), 30_000)).toBe(true);
		child.kill('SIGTERM');
		expect(await done).toEqual({code: 143, signal: null});
		expect(stderr).toContain('hfx-test: at check-worker-loaded');
		expect(fs.readdirSync(out)).toEqual([]);
		expect(fs.existsSync(path.join(home.root, '.hfx-backup.lock'))).toBe(false);
	}, 60_000);
});

// The tmpfs cases mount a small tmpfs, which needs root; without it they are skipped (the ulimit -f
// cases below cover a full output on any machine).
describe(`a full disk${canMount ? '' : ' (SKIPPED: mounting a tmpfs needs root)'}`, () => {
	it.skipIf(!canMount)('tmpfs too small for the archive: exit 2 before writing, one line, nothing written', () => {
		const home = makeHome('tmpfs-small');
		fs.rmSync(home.db);
		bigStore(home.db, 8000);
		const out = tmpfs('size=2m')!;
		const rootBefore = listing(home.root);
		const r = hfx(['backup', '--home', home.root, '-o', out]);
		expect(r.code).toBe(2);
		expect(r.stderr.trim().split('\n')).toHaveLength(1);
		expect(r.stderr).toMatch(
			new RegExp(
				`^hfx: ${out}: not enough free space for the archive: about \\d+ MiB ` +
					`needed, \\d+ MiB free\\. Next: free space there or write elsewhere with -o DIR`,
			),
		);
		expect(fs.readdirSync(out)).toEqual([]);
		expect(listing(home.root)).toEqual(rootBefore);
	});

	it.skipIf(!canMount)(
		'the disk fills up during the backup (another process): exit 2, "no space left", no debris',
		async () => {
			const home = makeHome('tmpfs-fill');
			fs.rmSync(home.db);
			bigStore(home.db, 100_000);
			const out = tmpfs('size=200m')!;
			const rootBefore = listing(home.root);
			const child = spawn(process.execPath, [CLI, 'backup', '--home', home.root, '-o', out], {
				stdio: ['ignore', 'pipe', 'pipe'],
			});
			let stderr = '';
			child.stderr!.on('data', (d: Buffer) => {
				stderr += d.toString();
			});
			const done = exited(child);
			expect(await waitFor(() => partialBytes(out, n => n.startsWith('.hfx-stage')) > 0, 30_000)).toBe(true);
			// Another process takes all but ~1 MiB of what is left (the backup is still writing meanwhile).
			let filled = false;
			for (let slack = 1 << 20; slack < 64 << 20 && !filled; slack *= 2) {
				const st = fs.statfsSync(out);
				const free = Number(st.bavail) * Number(st.bsize);
				filled =
					spawnSync('fallocate', ['-l', String(Math.max(4096, free - slack)), path.join(out, 'filler')]).status === 0;
			}

			expect(filled).toBe(true);
			const {code} = await done;
			expect(code).toBe(2);
			expect(stderr.trim().split('\n')).toHaveLength(1);
			expect(stderr).toMatch(
				/no space left on the device while .*the partial output was removed\. Next: free space there or write elsewhere with -o DIR/,
			);
			expect(fs.readdirSync(out)).toEqual(['filler']);
			expect(listing(home.root)).toEqual(rootBefore);
		},
		60_000,
	);

	it.skipIf(!canMount)('restore into a full disk: exit 2, nothing written', () => {
		const home = makeHome('tmpfs-restore');
		const archiveDir = tempDir('tmpfs-restore-out');
		expect(hfx(['backup', '--home', home.root, '-o', archiveDir]).code).toBe(0);
		const archive = path.join(archiveDir, ours(archiveDir)[0]!);
		const disk = tmpfs('size=128k')!;
		const r = hfx(['restore', archive, '--to', path.join(disk, 'home')]);
		expect(r.code).toBe(2);
		expect(r.stderr).toMatch(
			/staging the restored files failed \(ENOSPC.*nothing was written\. Next: free space on the target/,
		);
		expect(fs.readdirSync(disk)).toEqual([]);
	});

	it.skipIf(!canMount)('verify with no room for its temp extraction: exit 2 ("not judged"), never "damaged"', () => {
		const home = makeHome('tmpfs-verify');
		const archiveDir = tempDir('tmpfs-verify-out');
		expect(hfx(['backup', '--home', home.root, '-o', archiveDir]).code).toBe(0);
		const tiny = tmpfs('size=64k')!;
		const r = hfx(['verify', path.join(archiveDir, ours(archiveDir)[0]!)], {env: {TMPDIR: tiny}});
		expect(r.code).toBe(2);
		expect(r.stderr).toMatch(/not enough free space for the temp extraction .*TMPDIR/);
		expect(fs.readdirSync(tiny)).toEqual([]);
	});
});

describe('a file size limit (ulimit -f)', () => {
	function limited(blocksKb: number, args: string[]) {
		return spawnSync(
			'bash',
			['-c', `ulimit -f ${blocksKb}; exec "${process.execPath}" "${CLI}" "$@"`, 'hfx', ...args],
			{encoding: 'utf8', env: {...process.env, NO_COLOR: '1'}},
		);
	}

	it('while SQLite copies the database: exit 2, one clear line, no debris', () => {
		const home = makeHome('ulimit-db');
		fs.rmSync(home.db);
		bigStore(home.db, 10_000);
		const out = tempDir('ulimit-db-out');
		const rootBefore = listing(home.root);
		const r = limited(1024, ['backup', '--home', home.root, '-o', out]);
		expect([1, 2]).toContain(r.status);
		expect(r.stderr.trim().split('\n')).toHaveLength(1);
		expect(r.stderr).toMatch(/file size limit|ulimit -f/);
		expect(fs.readdirSync(out)).toEqual([]);
		expect(listing(home.root)).toEqual(rootBefore);
	});

	it('while the archive is written: exit 2, one clear line, no debris', () => {
		const home = makeHome('ulimit-zip');
		for (const n of [1, 2, 3]) {
			// Incompressible (deflate must not shrink it below the limit): a hash chain.
			const chunks: Buffer[] = [];
			let h = Buffer.from(`seed-${n}`);
			for (let i = 0; i < 900_000 / 32; i++) {
				h = crypto.createHash('sha256').update(h).digest();
				chunks.push(h);
			}

			fs.writeFileSync(path.join(home.root, 'memories', `big-${n}.bin`), Buffer.concat(chunks));
		}

		const out = tempDir('ulimit-zip-out');
		const rootBefore = listing(home.root);
		const r = limited(2048, ['backup', '--home', home.root, '-o', out]);
		expect(r.status).toBe(2);
		expect(r.stderr.trim().split('\n')).toHaveLength(1);
		expect(r.stderr).toMatch(
			/file size limit reached \(ulimit -f allows [\d,]+ bytes per file\) while writing the archive \(EFBIG/,
		);
		expect(fs.readdirSync(out)).toEqual([]);
		expect(listing(home.root)).toEqual(rootBefore);
	});
});
