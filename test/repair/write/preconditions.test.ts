/**
 * holderChecks (source/repair/write/preconditions.ts), on real files in a temp folder: a store nobody
 * holds passes both checks; this process's own connection is not "another process" but, once its
 * -wal is unlinked under it, it holds a deleted WAL generation a write would split from, named by
 * pid with the next step. (Another process holding the store: test/repair/apply.test.ts and
 * test/ui/repair/repair-flow.system.test.tsx drive the real ones.)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import {afterEach, describe, expect, it} from 'vitest';
import {holderChecks} from '../../../source/repair/write/preconditions.js';

const dirs: string[] = [];
const open: Database.Database[] = [];

function walStore(): string {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-preconditions-'));
	dirs.push(dir);
	const db = path.join(dir, 'state.db');
	const w = new Database(db);
	w.pragma('journal_mode = WAL');
	w.exec("CREATE TABLE sessions (id TEXT PRIMARY KEY); INSERT INTO sessions VALUES ('a')");
	w.close();
	return db;
}

afterEach(() => {
	for (const d of open.splice(0)) {
		d.close();
	}

	for (const d of dirs.splice(0)) {
		fs.rmSync(d, {recursive: true, force: true});
	}
});

describe('holderChecks', () => {
	it('a store nobody holds: both checks hold, with no next step', () => {
		const checks = holderChecks(walStore());
		expect(checks.map(c => [c.id, c.ok, c.next])).toEqual([
			['no-holders', true, null],
			['no-deleted-wal', true, null],
		]);
		expect(checks[0]!.label).toBe('no other process holds state.db, -wal or -shm');
		expect(checks[0]!.detail).toMatch(/^none seen in \/proc/);
		expect(checks[1]!.detail).toBe('none');
	});

	it("this process's own connection is no other holder; its deleted -wal is, named by pid", () => {
		const db = walStore();
		const mine = new Database(db);
		open.push(mine);
		mine.prepare("INSERT INTO sessions VALUES ('b')").run();
		expect(fs.existsSync(`${db}-wal`)).toBe(true);
		expect(holderChecks(db).every(c => c.ok)).toBe(true);

		fs.unlinkSync(`${db}-wal`);
		const [others, deleted] = holderChecks(db);
		expect(others!.ok).toBe(true);
		expect(deleted).toMatchObject({id: 'no-deleted-wal', ok: false});
		expect(deleted!.detail).toContain(`pid ${process.pid} (`);
		expect(deleted!.detail).toContain('deleted wal');
		expect(deleted!.next).toBe(
			`stop pid ${process.pid} first: it holds an old WAL generation that a write now would split from`,
		);
	});
});
