/**
 * The check of a private copy reads it with plain reads and a bounded page cache, never a memory
 * map: a map makes the whole copy resident (a backup of the 785 MB bench store peaked at ~870 MB).
 * Proved on the connection's own settings and on the memory of a real process checking a real
 * 60 MB copy in the worker thread, as the CLI does.
 */
import {spawnSync} from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {CHECK_CACHE_KIB, checkDatabaseFileSync, openCheckConnection} from '../../../source/backup/check/db-check.js';
import {ROOT} from '../../helpers/writer.js';
import {bigStore, cleanupTemps, counts, tempDir} from '../helpers.js';

afterAll(cleanupTemps);

/** Checks `file` in the compiled worker (dist/, as the CLI runs it), sampling this process's RssFile every 2 ms. */
const CHILD =
	`
import fs from 'node:fs';
import {checkDatabaseFile} from ${JSON.stringify(path.join(ROOT, 'dist/backup/check/db-check-run.js'))};
const field = name => Number(new RegExp(name + ':\\\\s+(\\\\d+) ` +
	`kB').exec(fs.readFileSync('/proc/self/status', 'utf8'))[1]);
const before = field('RssFile');
let peak = before;
const poll = setInterval(() => { peak = Math.max(peak, field('RssFile')); }, 2);
const check = await checkDatabaseFile(process.argv[2]);
clearInterval(poll);
process.stdout.write(JSON.stringify({ok: check.ok, integrity: check.integrity, counts: check.counts, ` +
	`beforeKb: before, peakKb: peak}));
`;

describe('the check of a copy: no memory map', () => {
	it("opens the copy read-only with mmap_size 0 and SQLite's default 2 MiB cache", () => {
		const db = path.join(tempDir('check-conn'), 'copy.db');
		bigStore(db, 100);
		const conn = openCheckConnection(db);
		try {
			expect(conn.readonly).toBe(true);
			expect(conn.pragma('mmap_size', {simple: true})).toBe(0);
			expect(conn.pragma('cache_size', {simple: true})).toBe(-CHECK_CACHE_KIB);
		} finally {
			conn.close();
		}

		const check = checkDatabaseFileSync(db);
		expect(check.integrity).toEqual(['ok']);
		expect(check.counts.messages).toBe(100);
	});

	it.runIf(process.platform === 'linux')(
		'a real process checking a 60 MB copy in the worker keeps its file-backed memory flat',
		() => {
			const db = path.join(tempDir('check-rss'), 'copy.db');
			bigStore(db, 140_000);
			const size = fs.statSync(db).size;
			expect(size).toBeGreaterThan(55 * 1_048_576);
			// A file, not `-e`: the worker inherits the parent's execArgv, and --input-type would stop it.
			const script = path.join(path.dirname(db), 'check.mjs');
			fs.writeFileSync(script, CHILD);
			const r = spawnSync(process.execPath, [script, db], {encoding: 'utf8', timeout: 60_000});
			expect(r.stderr).toBe('');
			const out = JSON.parse(r.stdout) as {
				ok: boolean;
				integrity: string[];
				counts: Record<string, number>;
				beforeKb: number;
				peakKb: number;
			};
			expect(out.integrity).toEqual(['ok']);
			expect(out.ok).toBe(true);
			expect(out.counts.messages).toBe(counts(db).messages);
			// A map of the copy would add about its size (60 MB); the worker's own code is a few MB.
			expect((out.peakKb - out.beforeKb) * 1024).toBeLessThan(size / 4);
		},
	);
});
