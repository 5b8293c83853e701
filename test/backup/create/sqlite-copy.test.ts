/**
 * The consistent online copy under a real second process committing ~200 times a second: one
 * read transaction, the backup API inside it, no restarts, and a copy that passes integrity_check
 * with counts inside the window of what was committed. The control shows the hazard is real:
 * the unpinned default backup restarts under the same writer.
 */
import {spawnSync} from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import {afterAll, afterEach, describe, expect, it} from 'vitest';
import {copyDatabase, judgeCopy} from '../../../source/backup/create/sqlite-copy.js';
import {checkDatabaseFile} from '../../../source/backup/check/db-check-run.js';
import {FailClosed} from '../../../source/ground/errors.js';
import {Trickle, bigStore, cleanupTemps, counts, tempDir} from '../helpers.js';
import {ROOT} from '../../helpers/writer.js';

const trickles: Trickle[] = [];
afterEach(async () => {
	for (const t of trickles.splice(0)) {
		await t.stop();
	}
});
afterAll(cleanupTemps);

describe('copyDatabase under a live writer', () => {
	it(
		'copies one snapshot with no restarts; the copy passes integrity_check ' +
			'with counts inside the committed window',
		async () => {
			const dir = tempDir('live');
			const db = path.join(dir, 'state.db');
			bigStore(db, 60_000);
			const t = new Trickle(db, 200);
			trickles.push(t);
			await t.ready();
			await new Promise(r => setTimeout(r, 300));
			const before = counts(db).messages;
			const dest = path.join(tempDir('live-out'), 'copy.db');
			const copy = await copyDatabase(db, dest, {pagesPerStep: 64});
			const after = counts(db).messages;
			const commits = await t.stop();
			expect(commits).toBeGreaterThan(50);
			expect(after).toBeGreaterThan(before);
			expect(copy.restarts).toBe(0);
			expect(copy.steps).toBeGreaterThan(5);
			expect(copy.openMode).toBe('in-place');
			const check = await checkDatabaseFile(dest);
			const judged = judgeCopy(copy, check);
			expect(judged.problems).toEqual([]);
			expect(check.integrity).toEqual(['ok']);
			expect(check.counts.messages).toBeGreaterThanOrEqual(before);
			expect(check.counts.messages).toBeLessThanOrEqual(after);
			expect(check.counts.messages).toBe(copy.snapshotCounts.messages);
		},
	);

	it(
		"control: better-sqlite3's default backup() outside a read transaction " + 'restarts under the same writer',
		async () => {
			const dir = tempDir('control');
			const db = path.join(dir, 'state.db');
			bigStore(db, 60_000);
			const t = new Trickle(db, 200);
			trickles.push(t);
			await t.ready();
			const src = new Database(db, {readonly: true, fileMustExist: true});
			let restarts = 0;
			let last = Number.POSITIVE_INFINITY;
			const started = Date.now();
			try {
				await src.backup(path.join(dir, 'unpinned.db'), {
					progress({remainingPages}) {
						if (remainingPages > last) {
							restarts++;
						}

						last = remainingPages;
						if (restarts >= 3 || Date.now() - started > 5000) {
							throw new Error('stop');
						}

						return 64;
					},
				});
			} catch {
				// stopped on purpose
			} finally {
				src.close();
			}

			expect(restarts).toBeGreaterThan(0);
		},
	);

	it('fails closed on a database that is not SQLite, leaving no file at the destination', async () => {
		const dir = tempDir('notdb');
		const db = path.join(dir, 'state.db');
		fs.writeFileSync(db, 'definitely not sqlite'.repeat(50));
		const dest = path.join(dir, 'out.db');
		await expect(copyDatabase(db, dest)).rejects.toBeInstanceOf(FailClosed);
		expect(fs.readdirSync(dir)).toEqual(['state.db']);
	});

	it('reads a stopped WAL-mode store in place (no private copy) and creates nothing beside it', async () => {
		const dir = tempDir('stopped');
		const db = path.join(dir, 'state.db');
		bigStore(db, 500);
		const before = fs.readdirSync(dir).sort();
		const out = tempDir('stopped-out');
		const dest = path.join(out, 'copy.db');
		const copy = await copyDatabase(db, dest, {privateTmp: out});
		expect(copy.openMode).toBe('in-place');
		expect(fs.readdirSync(dir).sort()).toEqual(before);
		expect(fs.readdirSync(out)).toEqual(['copy.db']);
		expect((await checkDatabaseFile(dest)).counts.messages).toBe(500);
	});
});

describe('copyDatabase: a stopped store that changes under its copy in place', () => {
	it('is copied again (the replaced file is another inode): one copy stands, in place, every row', async () => {
		const dir = tempDir('replaced');
		const db = path.join(dir, 'state.db');
		bigStore(db, 3000);
		// The same bytes under another inode, made before the copy (no fs open of the store while we read it).
		const replacement = path.join(dir, '.state.db.replacing');
		fs.copyFileSync(db, replacement);
		const out = tempDir('replaced-out');
		const dest = path.join(out, 'copy.db');
		let starts = 0;
		const copy = await copyDatabase(db, dest, {
			pagesPerStep: 8,
			privateTmp: out,
			onProgress({done}) {
				if (done === 0) {
					starts++;
				} else if (starts === 1 && fs.existsSync(replacement)) {
					fs.renameSync(replacement, db);
				}
			},
		});
		expect(starts).toBe(2);
		expect(copy.openMode).toBe('in-place');
		expect(fs.readdirSync(out)).toEqual(['copy.db']);
		expect(fs.readdirSync(dir)).toEqual(['state.db']);
		const judged = judgeCopy(copy, await checkDatabaseFile(dest));
		expect(judged.problems).toEqual([]);
		expect(copy.snapshotCounts.messages).toBe(3000);
	});
});

describe("copyDatabase: a stopped store's copy with no room is the output folder's full disk", () => {
	const canMount = process.getuid?.() === 0 && spawnSync('mount', ['--help']).status === 0;
	it.skipIf(!canMount)(
		'a stopped store read in place whose copy cannot fit: a no-space refusal naming our folder (exit 2 upstream), ' +
			"never the source's (a skipped database), and nothing left there",
		async () => {
			const home = tempDir('private-room');
			const db = path.join(home, 'state.db');
			bigStore(db, 20_000);
			expect(fs.existsSync(`${db}-wal`) || fs.statSync(db).size > 1 << 20).toBe(true);
			const stage = tempDir('private-room-stage');
			expect(spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', stage]).status).toBe(0);
			try {
				const error = await copyDatabase(db, path.join(stage, 'copy.db'), {privateTmp: stage}).then(
					() => null,
					(e: unknown) => e,
				);
				expect(error).toBeInstanceOf(FailClosed);
				expect((error as FailClosed).kind).toBe('no-space');
				expect((error as FailClosed).file).toBe(stage);
				expect((error as FailClosed).reason).toMatch(/^no space left on the device while copying .*state\.db/);
				expect(fs.readdirSync(stage)).toEqual([]);
			} finally {
				spawnSync('umount', ['-l', stage]);
			}
		},
	);
});

/**
 * The check worker started before its file (as the backup starts it before the copy), in the
 * compiled worker the CLI runs (dist/): the file handed over later is checked; a worker cancelled
 * unused, or given a file that is no database, never keeps the process alive or passes.
 */
const PENDING_CHILD =
	`
import fs from 'node:fs';
import {startCheck} from ${JSON.stringify(path.join(ROOT, 'dist/backup/check/db-check-run.js'))};
const [db, junk] = process.argv.slice(2);
const early = startCheck();
const unused = startCheck();
const bad = startCheck();
await new Promise(resolve => setTimeout(resolve, 300));
unused.cancel();
const ok = await early.run(db);
const notDb = await bad.run(junk);
process.stdout.write(JSON.stringify({ok: ok.ok, integrity: ok.integrity, messages: ok.counts.messages, ` +
	`notDb: notDb.ok, notDbWhy: notDb.integrity}));
`;

describe('startCheck: a check worker started ahead of its file', () => {
	it('checks the file handed over later; a cancelled or failing check lets the process exit', () => {
		const dir = tempDir('pending');
		const db = path.join(dir, 'copy.db');
		bigStore(db, 3000);
		const junk = path.join(dir, 'junk.db');
		fs.writeFileSync(junk, 'not sqlite at all '.repeat(400));
		const script = path.join(dir, 'pending.mjs');
		fs.writeFileSync(script, PENDING_CHILD);
		const r = spawnSync(process.execPath, [script, db, junk], {encoding: 'utf8', timeout: 30_000});
		expect(r.error).toBeUndefined();
		expect(r.status).toBe(0);
		const out = JSON.parse(r.stdout) as {
			ok: boolean;
			integrity: string[];
			messages: number;
			notDb: boolean;
			notDbWhy: string[];
		};
		expect(out.integrity).toEqual(['ok']);
		expect(out.ok).toBe(true);
		expect(out.messages).toBe(3000);
		expect(out.notDb).toBe(false);
		expect(out.notDbWhy.join(' ')).toMatch(/SQLITE_NOTADB|not a database/);
	});
});
