/**
 * Folding an archived -wal into its database (source/backup/restore/wal-fold.ts): the pair a second
 * process left when it was SIGKILLed (the -wal holding commits the main file lacks), copied into a
 * private folder as a restore extracts it, folded there; a rollback-mode database's -wal ignored;
 * a pair SQLite cannot open refused with nothing written.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {foldWal} from '../../../source/backup/restore/wal-fold.js';
import {FailClosed} from '../../../source/ground/errors.js';
import {T0} from '../../fixtures/scenarios.js';
import {WriterProcess} from '../../helpers/writer.js';
import {cleanupTemps, counts, tempDir} from '../helpers.js';
import {tinyDb} from '../hostile-archives.js';

/** The writer's folder after its SIGKILL: state.db and a non-empty state.db-wal. */
let killed: string;
let messages: number;

beforeAll(async () => {
	killed = tempDir('fold-writer');
	const w = new WriterProcess(path.join(killed, 'state.db'));
	try {
		await w.started();
		const id = await w.create({source: 'cli', startedAt: T0});
		await w.send({op: 'conversation', id, count: 30, from: T0 + 1, to: T0 + 90});
	} finally {
		await w.kill();
	}

	messages = 30;
});

afterAll(cleanupTemps);

/** The pair copied into a new private folder, as a restore extracts it (no -shm: an archive's is never used). */
function extracted(tag: string, files: Record<string, string | Buffer>): string {
	const dir = tempDir(tag);
	for (const [name, from] of Object.entries(files)) {
		if (typeof from === 'string') {
			fs.copyFileSync(from, path.join(dir, name));
		} else {
			fs.writeFileSync(path.join(dir, name), from);
		}
	}

	return dir;
}

describe('foldWal', () => {
	it("folds every committed frame of the -wal into the copy, then removes the copy's -wal and -shm", () => {
		const wal = path.join(killed, 'state.db-wal');
		const walBytes = fs.statSync(wal).size;
		expect(walBytes).toBeGreaterThan(0);
		const dir = extracted('fold-ok', {'copy.db': path.join(killed, 'state.db'), 'copy.db-wal': wal});
		// Without its -wal the main file lacks even the writer's tables.
		const bare = extracted('fold-bare', {'copy.db': path.join(killed, 'state.db')});
		expect(() => counts(path.join(bare, 'copy.db'))).toThrow('no such table: sessions');

		const r = foldWal(dir, 'copy.db', '/archives/a.tar.gz');
		expect(r.walBytes).toBe(walBytes);
		expect(r.frames).toBeGreaterThan(0);
		expect(r.frames).toBeLessThanOrEqual((walBytes - 32) / (4096 + 24));
		expect(fs.readdirSync(dir)).toEqual(['copy.db']);
		expect(counts(path.join(dir, 'copy.db'))).toEqual({sessions: 1, messages});
		// The writer's own folder is untouched.
		expect(fs.statSync(wal).size).toBe(walBytes);
	});

	it('a rollback-mode database ignores its -wal: nothing folded, the -wal removed, the data as it was', () => {
		const scratch = tempDir('fold-rollback-src');
		const dir = extracted('fold-rollback', {'copy.db': tinyDb(scratch, 2), 'copy.db-wal': Buffer.alloc(100, 7)});
		expect(foldWal(dir, 'copy.db', '/a.tar')).toEqual({frames: 0, walBytes: 100});
		expect(fs.readdirSync(dir)).toEqual(['copy.db']);
		const db = new Database(path.join(dir, 'copy.db'), {readonly: true});
		try {
			expect(db.prepare('SELECT count(*) FROM messages').pluck().get()).toBe(2);
		} finally {
			db.close();
		}
	});

	it('a database SQLite cannot open is refused (wal-not-folded), naming the archive and the -wal', () => {
		const dir = extracted('fold-bad', {'copy.db': Buffer.alloc(4096, 0x41), 'copy.db-wal': Buffer.alloc(10)});
		let error: unknown;
		try {
			foldWal(dir, 'copy.db', '/archives/a.tar.gz');
		} catch (e) {
			error = e;
		}

		expect(error).toBeInstanceOf(FailClosed);
		expect((error as FailClosed).toJSON()).toEqual({
			file: '/archives/a.tar.gz',
			kind: 'wal-not-folded',
			reason:
				'the copy.db-wal in the archive cannot be folded into its database (SQLITE_NOTADB); ' +
				'a restore without it would lose its commits; nothing was written',
			next: 'check it with hfx verify /archives/a.tar.gz; restore from another backup (hfx backups)',
		});
	});
});
