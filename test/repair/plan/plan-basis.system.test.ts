/**
 * What a repair plan is bound to (source/repair/plan/plan-basis.ts), on real SQLite files read through
 * the real -shm reader (it starts `head`, hence the system tier): a stopped store has no WAL position
 * (frame 0, no salts) but its header's change counter; a store a connection holds in WAL mode has
 * its frame and salts, and a commit moves them; a -shm whose header never reads consistent is
 * refused. basisDifference names every part that moved, and nothing for an equal basis.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import {afterAll, afterEach, describe, expect, it} from 'vitest';
import {type PlanBasis, basisDifference, readPlanBasis} from '../../../source/repair/plan/plan-basis.js';
import {ShmReader} from '../../../source/store/files/shm.js';

const dirs: string[] = [];
const open: Database.Database[] = [];
const reader = new ShmReader();

function store(): string {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-plan-basis-'));
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
afterAll(async () => {
	await reader.close();
});

const BASIS: PlanBasis = {dev: 1, ino: 2, mxFrame: 5, salts: [10, 20], changeCounter: 7, rowsHash: 'h1'};

describe('basisDifference', () => {
	it('null for an equal basis', () => {
		expect(basisDifference(BASIS, {...BASIS, salts: [10, 20]})).toBeNull();
	});

	it('names each part that moved, in order', () => {
		expect(basisDifference(BASIS, {...BASIS, ino: 3})).toBe('state.db was replaced (another inode)');
		expect(basisDifference(BASIS, {...BASIS, dev: 9})).toBe('state.db was replaced (another inode)');
		expect(basisDifference(BASIS, {...BASIS, rowsHash: 'h2'})).toBe('the rows the plan touches changed');
		expect(basisDifference(BASIS, {...BASIS, salts: [10, 21]})).toBe('the WAL moved (frame 5 → 5)');
		expect(basisDifference(BASIS, {...BASIS, mxFrame: 0, salts: null, changeCounter: 8, rowsHash: 'h2'})).toBe(
			'the rows the plan touches changed; the WAL moved (frame 5 → 0); the database header changed ' +
				'(change counter 7 → 8)',
		);
	});
});

describe('readPlanBasis', () => {
	it('a stopped store: its identity and change counter, no WAL position', async () => {
		const db = store();
		const st = fs.statSync(db);
		const basis = await readPlanBasis(db, 'rows', reader);
		expect(basis).toMatchObject({dev: st.dev, ino: st.ino, mxFrame: 0, salts: null, rowsHash: 'rows'});
		expect(basis.changeCounter).toBe(fs.readFileSync(db).readUInt32BE(24));
	});

	it('a store held in WAL mode: the frame and salts, moved by a commit', async () => {
		const db = store();
		const held = new Database(db);
		open.push(held);
		held.pragma('wal_autocheckpoint = 0');
		held.prepare("INSERT INTO sessions VALUES ('b')").run();
		const before = await readPlanBasis(db, 'rows', reader);
		expect(before.mxFrame).toBeGreaterThan(0);
		expect(before.salts).toHaveLength(2);
		held.prepare("INSERT INTO sessions VALUES ('c')").run();
		const after = await readPlanBasis(db, 'rows', reader);
		expect(after.mxFrame).toBeGreaterThan(before.mxFrame);
		expect(basisDifference(before, after)).toBe(`the WAL moved (frame ${before.mxFrame} → ${after.mxFrame})`);
	});

	it('refuses a -shm whose header never reads consistent', async () => {
		const db = store();
		fs.writeFileSync(`${db}-shm`, Buffer.alloc(32_768));
		await expect(readPlanBasis(db, 'rows', reader)).rejects.toThrow(/^the -shm header stayed inconsistent \(/);
	});
});
