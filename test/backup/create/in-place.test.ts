/**
 * `hfx backup` of a stopped store (WAL mode, neither -wal nor -shm) and of a crashed one (a writer SIGKILLed with its
 * last commits only in the -wal it leaves, its -shm held by nobody), through the real binary: the store is copied from
 * where it lies (sqlite-copy.ts, copyInPlace), never first copied whole into a private read folder. The archive holds
 * every committed row (the -wal's too), the temp folder stays empty and no private read copy ever appears under the
 * output (both sampled while the backup runs), every byte and name of the store's folder is unchanged, and a restore
 * of the archive gives the same rows. Before, both stores were copied into `.hfx-stage…/hfx-read-PID-…/` first.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import {afterAll, afterEach, describe, expect, it} from 'vitest';
import {hfx} from '../../helpers/cli.js';
import {folderHashes} from '../../helpers/folder-hashes.js';
import {hfxWatchingTmp} from '../../helpers/watched-run.js';
import {WriterProcess} from '../../helpers/writer.js';
import {T0} from '../../fixtures/scenarios.js';

const dirs: string[] = [];
const writers: WriterProcess[] = [];
afterEach(async () => {
	for (const w of writers.splice(0)) {
		await w.kill();
	}
});
afterAll(() => {
	for (const d of dirs) {
		fs.rmSync(d, {recursive: true, force: true});
	}
});

function tempDir(tag: string): string {
	const d = fs.mkdtempSync(path.join(os.tmpdir(), `hfx-backup-inplace-${tag}-`));
	dirs.push(d);
	return d;
}

/**
 * A home whose state.db a second process wrote (a chat and an orphan, 70 messages), then closed cleanly (`stopped`) or
 * was SIGKILLed (`crashed`: its commits only in the -wal).
 */
async function writtenHome(how: 'stopped' | 'crashed'): Promise<{home: string; db: string}> {
	const home = tempDir(how);
	const db = path.join(home, 'state.db');
	const w = new WriterProcess(db, {shape: 'v30'});
	writers.push(w);
	await w.started();
	const chat = await w.create({
		source: 'telegram',
		userId: 'u1',
		sessionKey: 'agent:main:telegram:dm:1',
		chatId: '1',
		chatType: 'dm',
		startedAt: T0,
	});
	await w.send({op: 'conversation', id: chat, count: 30, from: T0 + 5, to: T0 + 600});
	const orphan = await w.create({source: 'telegram', startedAt: T0 + 660});
	await w.send({op: 'conversation', id: orphan, count: 40, from: T0 + 700, to: T0 + 4000});
	if (how === 'crashed') {
		await w.kill();
		expect(fs.readdirSync(home).sort()).toEqual(['state.db', 'state.db-shm', 'state.db-wal']);
	} else {
		await w.send({op: 'close'}).catch(() => undefined);
		await new Promise(resolve => {
			w.child.exitCode === null ? w.child.once('exit', resolve) : resolve(undefined);
		});
		expect(fs.readdirSync(home)).toEqual(['state.db']);
	}

	return {home, db};
}

/**
 * `hfx backup --home HOME -o OUT/ --json` in the background with its own TMPDIR: every name seen in that TMPDIR and
 * under OUT while it ran (sampled every 2 ms).
 */
async function backupWatched(home: string, out: string, tmp: string) {
	const run = await hfxWatchingTmp(['backup', '--home', home, '-o', `${out}/`, '--json'], tmp, out);
	return {...run, seenInOut: run.seenInAlso};
}

type Rows = {sessions: unknown[]; messages: unknown[]};

/** Every session and message row of a database file of our own (a scratch copy or a restore), in id order. */
function rowsOf(db: string): Rows {
	const d = new Database(db, {readonly: true, fileMustExist: true});
	try {
		return {
			sessions: d.prepare('SELECT * FROM sessions ORDER BY id').all(),
			messages: d.prepare('SELECT * FROM messages ORDER BY id').all(),
		};
	} finally {
		d.close();
	}
}

/** What the store holds, committed: read from a scratch copy of its folder (SQLite recovers the -wal there). */
function committedRows(home: string): Rows {
	const scratch = tempDir('scratch');
	for (const name of fs.readdirSync(home)) {
		fs.copyFileSync(path.join(home, name), path.join(scratch, name));
	}

	return rowsOf(path.join(scratch, 'state.db'));
}

describe('hfx backup of a stopped or crashed store reads it in place: no private copy', () => {
	for (const how of ['stopped', 'crashed'] as const) {
		it(
			`${how}: every committed row in the archive (the -wal's too), nothing in TMPDIR, no private read copy under ` +
				'the output, the folder byte-identical, the restore the same rows',
			async () => {
				const {home} = await writtenHome(how);
				const committed = committedRows(home);
				expect(committed.messages).toHaveLength(70);
				if (how === 'crashed') {
					// The main file alone holds none of them: they are in the -wal only.
					const alone = path.join(tempDir('alone'), 'state.db');
					fs.copyFileSync(path.join(home, 'state.db'), alone);
					const d = new Database(alone, {readonly: true});
					expect(d.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'messages'").pluck().get()).toBe(0);
					d.close();
				}

				const before = folderHashes(home);
				const out = tempDir('out');
				const tmp = tempDir('tmp');
				const run = await backupWatched(home, out, tmp);
				expect(run.stderr).toBe('');
				expect(run.code).toBe(0);
				expect(run.seenInTmp).toEqual([]);
				// Before: `.hfx-stage…/hfx-read-PID-…/state.db` (and its -wal), a whole private copy of the store.
				expect(run.seenInOut.filter(n => /hfx-read-/.test(n))).toEqual([]);
				expect(folderHashes(home)).toEqual(before);
				expect(run.json.databases.map((d: {openMode: string}) => d.openMode)).toEqual(['in-place']);
				expect(run.json.databases[0].counts.messages).toBe(70);

				const to = path.join(tempDir('restore'), 'home');
				const restored = hfx(['restore', run.json.archive, '--to', to, '--yes']);
				expect(restored.code).toBe(0);
				expect(rowsOf(path.join(to, 'state.db'))).toEqual(committed);
				expect(folderHashes(home)).toEqual(before);
			},
		);
	}
});
