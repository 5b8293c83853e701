/**
 * The verifiers' check queue (source/backup/verify/check-queue.ts): real SQLite files checked one
 * at a time in the order given (inline), each removed with its sidecars once judged, and a sound
 * one's inventory read first when asked.
 */
import fs from 'node:fs';
import path from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import type {DbCheck} from '../../../source/backup/check/db-check.js';
import {CheckQueue} from '../../../source/backup/verify/check-queue.js';
import {type DbReport, judgeDatabase} from '../../../source/backup/verify/report.js';
import {cleanupTemps, tempDir} from '../helpers.js';
import {tinyDb} from '../hostile-archives.js';

afterAll(cleanupTemps);

/** A store of one session with `messages` messages, and sidecar files beside it. */
function store(dir: string, name: string, messages: number): string {
	const file = path.join(dir, name);
	fs.writeFileSync(file, tinyDb(dir, messages));
	for (const s of ['-wal', '-shm', '-journal']) {
		fs.writeFileSync(`${file}${s}`, '');
	}

	return file;
}

describe('CheckQueue', () => {
	it('checks each file in the order added, then removes it and its sidecars', async () => {
		const dir = tempDir('cq');
		const files = [store(dir, 'a.db', 2), store(dir, 'b.db', 5)];
		const order: string[] = [];
		const q = new CheckQueue(true);
		for (const f of files) {
			q.add(f, (check: DbCheck) => {
				order.push(path.basename(f));
				return judgeDatabase(path.basename(f), check, undefined);
			});
		}

		expect(q.results).toHaveLength(2);
		const reports = await q.all();
		expect(order).toEqual(['a.db', 'b.db']);
		expect(reports.map(r => [r.path, r.ok, r.counts.messages, r.counts.sessions])).toEqual([
			['a.db', true, 2, 1],
			['b.db', true, 5, 1],
		]);
		expect(reports[0]!.inventory).toBeUndefined();
		expect(fs.readdirSync(dir)).toEqual([]);
	});

	it("with the inventory asked, a sound store's sessions are read before it goes, a damaged one's not", async () => {
		const dir = tempDir('cq-inv');
		const good = store(dir, 'good.db', 3);
		const bad = path.join(dir, 'bad.db');
		fs.writeFileSync(bad, Buffer.alloc(4096, 0x41));
		const q = new CheckQueue(true, true);
		q.add(good, check => judgeDatabase('good.db', check, undefined));
		q.add(bad, check => judgeDatabase('bad.db', check, undefined));
		const [g, b] = await q.all();
		expect(g!.inventory).toEqual({sessions: {s1: {messages: 3, maxId: 3}}});
		expect(b!.ok).toBe(false);
		expect(b!.inventory).toBeUndefined();
		expect(b!.problems[0]).toMatch(/^integrity_check: /);
		expect(fs.readdirSync(dir)).toEqual([]);
	});

	it('a judge that throws fails its own result only: the next check still runs', async () => {
		const dir = tempDir('cq-throw');
		const q = new CheckQueue(true);
		q.add(store(dir, 'a.db', 1), () => {
			throw new Error('judge failed');
		});
		const next = store(dir, 'b.db', 1);
		q.add(next, check => judgeDatabase('b.db', check, undefined));
		await expect(q.results[0]).rejects.toThrow('judge failed');
		const b: DbReport = await q.results[1]!;
		expect(b.ok).toBe(true);
		expect(fs.existsSync(next)).toBe(false);
	});
});
