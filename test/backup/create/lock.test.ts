/**
 * One backup at a time per Hermes root (source/backup/create/lock.ts), on real files: the lock is
 * created with its holder's pid, start ticks, host and job, and released at most once, only while
 * it is still this process's; a lock whose process runs (on this host, or any on another host) is
 * refused in words; a lock whose process is gone, or whose pid now runs another process, or that is
 * no lock at all (junk) is taken over; a link planted at its name is refused, its target untouched.
 * No Hermes lock held: no holder.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {
	HERMES_LOCK_NAME,
	LOCK_NAME,
	acquireBackupLock,
	hermesBackupLockHolder,
} from '../../../source/backup/create/lock.js';
import {FailClosed} from '../../../source/ground/errors.js';
import {processStartTicks} from '../../../source/ground/liveness.js';

const made: string[] = [];
afterAll(() => {
	for (const d of made) {
		fs.rmSync(d, {recursive: true, force: true});
	}
});

function root(): string {
	const d = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-lock-'));
	made.push(d);
	return d;
}

/** A pid no process has (above the kernel's pid_max). */
const GONE = 2 ** 22 + 1;

function planted(dir: string, body: Record<string, unknown>): string {
	const file = path.join(dir, LOCK_NAME);
	fs.writeFileSync(
		file,
		JSON.stringify({host: os.hostname(), started: '2026-01-01T00:00:00Z', what: 'hfx backup', ...body}),
	);
	return file;
}

function refusal(dir: string): FailClosed {
	try {
		acquireBackupLock(dir, 'hfx backup');
	} catch (error) {
		return error as FailClosed;
	}

	throw new Error('the lock was taken');
}

describe('acquireBackupLock', () => {
	it('creates the lock with its holder, and releases it at most once', () => {
		const dir = root();
		const lock = acquireBackupLock(dir, 'hfx backup -o /b');
		expect(lock.path).toBe(path.join(dir, LOCK_NAME));
		const body = JSON.parse(fs.readFileSync(lock.path, 'utf8'));
		expect(body).toMatchObject({
			pid: process.pid,
			startTicks: processStartTicks(process.pid),
			host: os.hostname(),
			what: 'hfx backup -o /b',
		});
		expect((fs.statSync(lock.path).mode & 0o777).toString(8)).toBe('600');
		lock.release();
		expect(fs.existsSync(lock.path)).toBe(false);
		planted(dir, {pid: 1, startTicks: null});
		lock.release();
		expect(fs.existsSync(lock.path)).toBe(true);
	});

	it('a release leaves a lock that is no longer its own', () => {
		const dir = root();
		const lock = acquireBackupLock(dir, 'hfx backup');
		planted(dir, {pid: 1, startTicks: null});
		lock.release();
		expect(JSON.parse(fs.readFileSync(lock.path, 'utf8')).pid).toBe(1);
	});

	it('refuses while a running process holds it, naming it', () => {
		const dir = root();
		planted(dir, {pid: 1, startTicks: null, started: '2026-01-01T00:00:00Z'});
		const f = refusal(dir);
		expect(f).toBeInstanceOf(FailClosed);
		expect(f.kind).toBe('backup-running');
		expect(f.reason).toBe('another backup is already running (pid 1, hfx backup, since 2026-01-01T00:00:00Z)');
		expect(f.next).toBe('wait for it to finish; if no hfx runs any more, remove the lock file');
	});

	it('a lock of another host counts as held, whatever its pid', () => {
		const dir = root();
		planted(dir, {pid: GONE, startTicks: null, host: 'nas-01'});
		expect(refusal(dir).reason).toMatch(/^another backup is already running \(pid \d+ on nas-01, hfx backup, since /);
	});

	it('takes over a stale lock: its process gone, its pid reused, or no lock body at all', () => {
		for (const body of [
			{pid: GONE, startTicks: null},
			{pid: process.pid, startTicks: 'not-my-start'},
		]) {
			const dir = root();
			planted(dir, body);
			const lock = acquireBackupLock(dir, 'hfx backup');
			expect(JSON.parse(fs.readFileSync(lock.path, 'utf8')).pid).toBe(process.pid);
			lock.release();
		}

		const dir = root();
		fs.writeFileSync(path.join(dir, LOCK_NAME), 'not json');
		acquireBackupLock(dir, 'hfx backup').release();
	});

	it('a link planted at the lock name is refused in words, never written through nor removed', () => {
		const dir = root();
		const target = path.join(dir, 'precious');
		fs.writeFileSync(target, 'keep me');
		fs.symlinkSync(target, path.join(dir, LOCK_NAME));
		const f = refusal(dir);
		expect(f.kind).toBe('symlink');
		expect(f.reason).toContain('hfx never writes its backup lock through a link');
		expect(fs.readFileSync(target, 'utf8')).toBe('keep me');
		expect(fs.lstatSync(path.join(dir, LOCK_NAME)).isSymbolicLink()).toBe(true);
	});
});

describe('hermesBackupLockHolder', () => {
	it("null when Hermes' lock file is absent, or present and held by nobody", () => {
		const dir = root();
		expect(hermesBackupLockHolder(dir)).toBeNull();
		fs.writeFileSync(path.join(dir, HERMES_LOCK_NAME), '');
		expect(hermesBackupLockHolder(dir)).toBeNull();
	});
});
