/**
 * The check worker (source/backup/check/check-worker.ts) as the CLI runs it: the compiled
 * dist/backup/check/check-worker.js in a worker thread (hence the system tier: it reads dist/). Started
 * before its file, it waits for the file in its first message, answers with the check of that file
 * (a sound copy: ok with its counts; a file that is no database: not ok, in words) and exits. It loads its native
 * driver first and says so in the shared flag it is given, before any file.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {Worker} from 'node:worker_threads';
import Database from 'better-sqlite3';
import {afterAll, describe, expect, it} from 'vitest';
import type {DbCheck} from '../../../source/backup/check/db-check.js';
import {ROOT} from '../../helpers/writer.js';

const WORKER = path.join(ROOT, 'dist/backup/check/check-worker.js');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-check-worker-'));
afterAll(() => {
	fs.rmSync(dir, {recursive: true, force: true});
});

/** Starts the worker, waits a moment (it must wait for its file), then hands it `file`. */
async function checkInWorker(
	file: string,
): Promise<{check: DbCheck; exitCode: number; early: boolean; loaded: number; reading: number}> {
	const flag = new Int32Array(new SharedArrayBuffer(8));
	const worker = new Worker(WORKER, {workerData: {loaded: flag}});
	let early = false;
	worker.once('message', () => {
		early = true;
	});
	// The driver loaded and the flag set before any file comes (db-check-run.ts: nothing may stop it mid-load).
	const loaded = Atomics.wait(flag, 0, 0, 10_000) === 'timed-out' ? 0 : Atomics.load(flag, 0);
	await new Promise(resolve => setTimeout(resolve, 50));
	const heard = early;
	worker.removeAllListeners('message');
	const check = new Promise<DbCheck>(resolve => worker.once('message', resolve));
	const exited = new Promise<number>(resolve => worker.once('exit', resolve));
	worker.postMessage({file});
	const result = await check;
	// Read before the exit: slot 1 says the check began reading (what a stop waits for, at most).
	const reading = Atomics.load(flag, 1);
	return {check: result, exitCode: await exited, early: heard, loaded, reading};
}

describe('check-worker', () => {
	it('checks the file of its first message and exits', async () => {
		const file = path.join(dir, 'copy.db');
		const w = new Database(file);
		w.exec("CREATE TABLE sessions (id TEXT PRIMARY KEY); INSERT INTO sessions VALUES ('a'), ('b')");
		w.close();
		const {check, exitCode, early, loaded, reading} = await checkInWorker(file);
		expect(early).toBe(false);
		expect(loaded).toBe(1);
		expect(reading).toBe(1);
		expect(check).toMatchObject({ok: true, integrity: ['ok'], counts: {sessions: 2}});
		expect(exitCode).toBe(0);
	});

	it('a file that is no database: not ok, in words', async () => {
		const file = path.join(dir, 'junk.db');
		fs.writeFileSync(file, 'x'.repeat(4096));
		const {check} = await checkInWorker(file);
		expect(check.ok).toBe(false);
		expect(check.integrity.join(' ')).toMatch(/not a database/);
	});
});
