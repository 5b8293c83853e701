/**
 * The plan from a preflight passed down (issue #30 point 4): computePlan takes none of its own when given the
 * command's, and a look that went stale before the plan read the store is never trusted: a store written by a
 * second process in between (closed again, or still open with the write in its WAL) is planned as it now is.
 */
import {spawnSync} from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {computePlan} from '../../source/repair/apply.js';
import {preflight} from '../../source/store/open/preflight.js';
import {ShmReader} from '../../source/store/files/shm.js';
import {ROOT, WriterProcess} from '../helpers/writer.js';

const FIXTURE = path.resolve(ROOT, 'test/fixtures/hermes-v21-incident/state.db');
const LATER_ORPHAN = '20260808_052508_14665640';
const dirs: string[] = [];
const writers: WriterProcess[] = [];
afterAll(async () => {
	for (const w of writers) {
		await w.kill();
	}

	for (const d of dirs) {
		fs.rmSync(d, {recursive: true, force: true});
	}
});

function store(): string {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-plan-preflight-'));
	dirs.push(dir);
	fs.copyFileSync(FIXTURE, path.join(dir, 'state.db'));
	return path.join(dir, 'state.db');
}

/** A second process keys one orphan (as if Hermes had), then closes the store (its -wal and -shm go with it). */
function keyOrphanElsewhere(db: string, id: string): void {
	const script =
		"const D = require('better-sqlite3'); const db = new D(process.argv[1]); " +
		"db.prepare('UPDATE sessions SET session_key = ? WHERE id = ?').run('agent:main:elsewhere', process.argv[2]); " +
		'db.close();';
	const r = spawnSync(process.execPath, ['-e', script, db, id], {cwd: ROOT, encoding: 'utf8'});
	expect(r.status, r.stderr).toBe(0);
}

async function plan(db: string, pre?: ReturnType<typeof preflight>) {
	const reader = new ShmReader();
	try {
		return await computePlan(db, {owner: 'default', maxGapSeconds: 900, ...(pre ? {preflight: pre} : {})}, reader);
	} finally {
		await reader.close();
	}
}

describe("computePlan given the command's preflight", () => {
	it('plans the same as with a look of its own', async () => {
		const db = store();
		const own = await plan(db);
		const given = await plan(db, preflight(db));
		expect(given.hash).toBe(own.hash);
		expect(given.plan.adoptions.map(a => a.orphanId)).toContain(LATER_ORPHAN);
	});

	it('a look gone stale (the store written by another process since) is not trusted', async () => {
		const db = store();
		const stale = preflight(db);
		const before = await plan(db, stale);
		expect(before.plan.adoptions.map(a => a.orphanId)).toContain(LATER_ORPHAN);
		keyOrphanElsewhere(db, LATER_ORPHAN);
		const after = await plan(db, stale);
		expect(after.plan.adoptions.map(a => a.orphanId)).not.toContain(LATER_ORPHAN);
		expect(fs.readdirSync(path.dirname(db))).toEqual(['state.db']);
	});

	it('a look gone stale (the agent started and wrote since, its write still in the WAL) is not trusted', async () => {
		const db = store();
		const stale = preflight(db);
		expect(stale.sidecars.wal).toBeNull();
		const writer = new WriterProcess(db, {shape: 'v21'});
		writers.push(writer);
		await writer.started();
		await writer.send({
			op: 'exec',
			sql: `UPDATE sessions SET session_key = 'agent:main:x' WHERE id = '${LATER_ORPHAN}'`,
		});
		expect(fs.existsSync(`${db}-wal`)).toBe(true);
		const after = await plan(db, stale);
		expect(after.plan.adoptions.map(a => a.orphanId)).not.toContain(LATER_ORPHAN);
		expect(after.basis.mxFrame).toBeGreaterThan(0);
	});
});
