/**
 * The verifiers' check queue as the CLI runs it (the compiled queue, each check in a worker thread):
 * `settle` stops a running check and resolves only once it is gone, so that the folder it checks in
 * can be removed. A check opening a WAL-mode copy read-only creates the copy's -wal and -shm: one
 * still running after its folder's removal began made that removal fail (ENOTEMPTY, CI 2026-12-04).
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import {afterAll, afterEach, describe, expect, it} from 'vitest';
import type * as Queue from '../../../source/backup/verify/check-queue.js';
import type * as Report from '../../../source/backup/verify/report.js';
import {ROOT} from '../../helpers/writer.js';
import {cleanupTemps, tempDir} from '../helpers.js';

const {CheckQueue} = (await import(path.join(ROOT, 'dist/backup/verify/check-queue.js'))) as typeof Queue;
const {judgeDatabase} = (await import(path.join(ROOT, 'dist/backup/verify/report.js'))) as typeof Report;

afterAll(cleanupTemps);
afterEach(() => {
	delete process.env.HFX_TEST_PAUSE_AT;
	delete process.env.HFX_TEST_PAUSE_MS;
});

/** A WAL-mode database with no sidecars beside it (a verifier's extracted copy). */
function walCopy(dir: string): string {
	const file = path.join(dir, 'state.db');
	const db = new Database(file);
	db.pragma('journal_mode = wal');
	db.exec("CREATE TABLE sessions (id TEXT PRIMARY KEY); INSERT INTO sessions VALUES ('a')");
	db.close();
	expect(fs.readdirSync(dir)).toEqual(['state.db']);
	return file;
}

const sleep = async (ms: number) => new Promise(resolve => setTimeout(resolve, ms));

describe('CheckQueue in the worker', () => {
	it('settle stops a check held before it opens its copy: nothing is created in its folder after', async () => {
		const dir = tempDir('cq-settle');
		const file = walCopy(dir);
		// Read by the worker at its start: the check waits 1.5 s before opening the copy.
		process.env.HFX_TEST_PAUSE_AT = 'check-open';
		process.env.HFX_TEST_PAUSE_MS = '1500';
		const q = new CheckQueue(false);
		q.add(file, check => judgeDatabase('state.db', check, undefined));
		await sleep(600);
		await q.settle();
		const after = fs.readdirSync(dir).sort();
		await sleep(1500);
		expect(fs.readdirSync(dir).sort()).toEqual(after);
		expect(after.filter(f => f.endsWith('-wal') || f.endsWith('-shm'))).toEqual([]);
		const [report] = await q.all();
		expect(report!.ok).toBe(false);
	});

	it('a check added after settle is never run', async () => {
		const dir = tempDir('cq-after');
		const file = walCopy(dir);
		const q = new CheckQueue(false);
		await q.settle();
		q.add(file, check => judgeDatabase('state.db', check, undefined));
		const [report] = await q.all();
		expect(report!.integrity).toEqual(['not checked: the verification stopped before this database']);
		expect(fs.existsSync(`${file}-shm`)).toBe(false);
	});

	it('unsettled, a check of a WAL-mode copy writes its sidecars (why settle comes before the removal)', async () => {
		const dir = tempDir('cq-plain');
		const file = walCopy(dir);
		const q = new CheckQueue(false);
		let seen: string[] = [];
		q.add(file, check => {
			seen = fs.readdirSync(dir).sort();
			return judgeDatabase('state.db', check, undefined);
		});
		const [report] = await q.all();
		expect(report!.ok).toBe(true);
		expect(seen).toEqual(['state.db', 'state.db-shm', 'state.db-wal']);
	});
});
