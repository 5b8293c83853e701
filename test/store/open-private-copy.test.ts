/**
 * The private read copy (store/open/open.ts: main file and -wal copied to the temp folder when a WAL store lacks one
 * of its -wal and -shm, here a crashed agent's -wal alone; a stopped one with neither, and a crashed one with both
 * that no process holds, are read in place, test/store/open/immutable-read.test.ts) under the one clean-up policy
 * (source/ground/temps.ts): named
 * hfx-read-<pid>-<rand>, gone after Ctrl-C, swept by the next run after kill -9, refused up front
 * when the temp folder cannot hold it. The real binary, TMPDIR pointed at a folder of the test's
 * own (so no other test's run sweeps it meanwhile); the store's bytes are unchanged throughout.
 */
import {spawn, spawnSync} from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {evidenceState, hfx} from '../helpers/cli.js';
import {ROOT} from '../helpers/writer.js';
import {SCENARIOS, buildScenario} from '../fixtures/scenarios.js';

const dirs: string[] = [];
const mounts: string[] = [];
afterAll(() => {
	for (const m of mounts.splice(0)) {
		spawnSync('umount', ['-l', m]);
	}

	for (const d of dirs) {
		fs.rmSync(d, {recursive: true, force: true});
	}
});

function temp(tag: string): string {
	const d = fs.mkdtempSync(path.join(os.tmpdir(), `hfx-privcopy-${tag}-`));
	dirs.push(d);
	return d;
}

const R1 = SCENARIOS.find(s => s.id === 'R1')!;

/**
 * -wal and -shm left beside a stopped store by a reader (the sqlite3 CLI) SIGKILLed while it had it open: a crashed
 * store, no holder.
 */
async function crash(dbPath: string): Promise<void> {
	const child = spawn('sqlite3', [dbPath], {stdio: ['pipe', 'ignore', 'ignore']});
	child.stdin.write('SELECT count(*) FROM sqlite_master;\n');
	while (!fs.existsSync(`${dbPath}-shm`)) {
		await new Promise(resolve => setTimeout(resolve, 10));
	}

	await new Promise(resolve => setTimeout(resolve, 100));
	const gone = new Promise(resolve => child.once('exit', resolve));
	child.kill('SIGKILL');
	await gone;
}

/**
 * A crashed store whose -shm is gone too (its -wal alone, no process holding it): SQLite would make a -shm beside it
 * even on a read-only open, so every read takes a private copy. (With its -shm, a crashed store is read in place:
 * test/store/open/immutable-read.test.ts.)
 */
async function store(tag: string) {
	const built = buildScenario(R1, 'v30', {dir: temp(tag)});
	await crash(built.dbPath);
	fs.rmSync(`${built.dbPath}-shm`);
	expect(fs.existsSync(`${built.dbPath}-wal`)).toBe(true);
	return built;
}

/** A pid that ran and is gone. */
function deadPid(): number {
	const r = spawnSync('true');
	return r.pid!;
}

/** `hfx scan` paused right after the private copy was made; resolves once it says so. */
async function pausedScan(dbPath: string, tmp: string) {
	const child = spawn(process.execPath, [path.join(ROOT, 'dist/hfx.js'), 'scan', '--db', dbPath], {
		env: {...process.env, NO_COLOR: '1', TMPDIR: tmp, HFX_TEST_PAUSE_AT: 'private-copy', HFX_TEST_PAUSE_MS: '1500'},
		stdio: ['ignore', 'ignore', 'pipe'],
	});
	const exit = new Promise<{code: number | null; signal: string | null}>(resolve =>
		child.once('exit', (code, signal) => resolve({code, signal})),
	);
	await new Promise<void>((resolve, reject) => {
		const timer = setTimeout(() => reject(new Error('never paused at private-copy')), 30_000);
		let err = '';
		child.stderr.on('data', (d: Buffer) => {
			err += d.toString();
			if (err.includes('paused at private-copy')) {
				clearTimeout(timer);
				resolve();
			}
		});
	});
	return {child, exit};
}

describe('the private read copy under the one clean-up policy', () => {
	it.each([
		['SIGINT', 130],
		['SIGTERM', 143],
		['SIGHUP', 129],
	] as const)(
		'%s (Ctrl-C and kin) while the copy is open leaves no copy of the conversations in the temp folder',
		async (signal, code) => {
			const {dir, dbPath} = await store(`sig-${signal}`);
			const tmp = temp(`tmp-${signal}`);
			const before = evidenceState(dir);
			const run = await pausedScan(dbPath, tmp);
			const names = fs.readdirSync(tmp);
			expect(names).toHaveLength(1);
			expect(names[0]).toMatch(new RegExp(`^hfx-read-${run.child.pid}-[0-9a-f]{8}$`));
			expect(fs.readdirSync(path.join(tmp, names[0]!))).toContain('state.db');
			run.child.kill(signal);
			const exit = await run.exit;
			// Not killed by the signal: our handler ran the clean-up (then exited 128+N, or the read had already finished).
			expect(exit.signal).toBeNull();
			expect([0, 1, code]).toContain(exit.code);
			expect(fs.readdirSync(tmp)).toEqual([]);
			expect(evidenceState(dir)).toEqual(before);
		},
	);

	it('kill -9 leaves the copy; the next run of any command sweeps our dead debris and nothing else', async () => {
		const {dir, dbPath} = await store('kill');
		const tmp = temp('tmp-kill');
		const before = evidenceState(dir);
		const run = await pausedScan(dbPath, tmp);
		run.child.kill('SIGKILL');
		expect((await run.exit).signal).toBe('SIGKILL');
		const left = fs.readdirSync(tmp);
		expect(left).toHaveLength(1);
		// Debris a killed verify or drill would leave (with a .env), and what must stay.
		const dead = deadPid();
		fs.mkdirSync(path.join(tmp, `hfx-drill-${dead}-00ff00ff`));
		fs.writeFileSync(path.join(tmp, `hfx-drill-${dead}-00ff00ff`, '.env'), 'OPENAI_API_KEY=sk-test\n');
		const keep = [
			`hfx-verify-${process.pid}-0123abcd`,
			'hfx-read-not-ours',
			`hfx-read-${dead}-short`,
			`notes-${dead}-00ff00ff`,
		];
		for (const name of keep) {
			fs.mkdirSync(path.join(tmp, name));
		}

		// A planted link with our name: the link is left, never followed into its target.
		const outside = temp('outside');
		fs.writeFileSync(path.join(outside, 'precious'), 'x');
		fs.symlinkSync(outside, path.join(tmp, `hfx-verify-${dead}-deadbeef`));
		const next = hfx(['sessions', '--db', dbPath], {env: {TMPDIR: tmp}});
		expect(next.code).not.toBe(2);
		expect(fs.readdirSync(tmp).sort()).toEqual([...keep, `hfx-verify-${dead}-deadbeef`].sort());
		expect(fs.readFileSync(path.join(outside, 'precious'), 'utf8')).toBe('x');
		expect(evidenceState(dir)).toEqual(before);
	});

	it(
		'a temp folder too small for the copy is refused up front in one line ' + 'with the size needed; nothing is copied',
		async () => {
			const {dir, dbPath} = buildScenario(R1, 'v30', {dir: temp('space')});
			spawnSync('sqlite3', [dbPath, 'CREATE TABLE pad(b); INSERT INTO pad VALUES (zeroblob(3000000));']);
			expect(fs.existsSync(`${dbPath}-wal`)).toBe(false);
			await crash(dbPath);
			fs.rmSync(`${dbPath}-shm`);
			const tmp = temp('tmpfs');
			if (process.getuid?.() !== 0 || spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', tmp]).status !== 0) {
				console.warn('skipped: mounting a tmpfs needs root');
				return;
			}

			mounts.push(tmp);
			const before = evidenceState(dir);
			const r = hfx(['scan', '--db', dbPath], {env: {TMPDIR: tmp}});
			expect(r.code).toBe(2);
			expect(r.stderr.trim().split('\n')).toHaveLength(1);
			const size = fs.statSync(dbPath).size;
			expect(r.stderr).toContain(
				`a private read copy needs ${Math.ceil(size / 1_048_576)} MiB (${size} bytes) in ${tmp}`,
			);
			expect(r.stderr).toContain('TMPDIR');
			expect(fs.readdirSync(tmp)).toEqual([]);
			expect(evidenceState(dir)).toEqual(before);
		},
	);
});
