/**
 * `hfx files` on real WAL situations: an open transaction (W2), a flipped byte hiding committed
 * transactions (W5), a holder of a deleted -wal (W7), a rollback-journal store (W8).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterAll, afterEach, describe, expect, it} from 'vitest';
import {StoreWriter} from '../../source/simulator/store-writer.js';
import {evidenceState, hfx, hfxJson} from '../helpers/cli.js';
import {WriterProcess} from '../helpers/writer.js';
import {SCENARIOS, T0} from '../fixtures/scenarios.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-files-'));
const writers: WriterProcess[] = [];
afterEach(async () => {
	for (const w of writers.splice(0)) {
		await w.kill();
	}
});
afterAll(() => fs.rmSync(dir, {recursive: true, force: true}));

async function writer(name: string, options: {cachePages?: number} = {}) {
	const folder = fs.mkdtempSync(path.join(dir, `${name}-`));
	const db = path.join(folder, 'state.db');
	const w = new WriterProcess(db, options);
	writers.push(w);
	await w.started();
	const id = await w.create({source: 'telegram', userId: 'u', sessionKey: 'agent:main:telegram:dm:9', chatId: '9', chatType: 'dm', startedAt: T0});
	return {folder, db, w, id};
}

describe('hfx files', () => {
	it('W1/W3: shows committed frames pending checkpoint, matching the -shm', async () => {
		const {db, w, id} = await writer('w1');
		for (let i = 0; i < 20; i++) {
			await w.send({op: 'conversation', id, count: 5, from: T0 + i * 100, to: T0 + i * 100 + 50});
		}

		await w.kill();
		const {code, json} = hfxJson(['files', '--db', db]);
		expect(code).toBe(0);
		expect(json.wal.commitFrames).toBeGreaterThanOrEqual(21);
		expect(json.wal.lastCommitFrame).toBe(json.shm.mxFrame);
		expect(json.wal.inFlightFrames + json.wal.unsealedFrames).toBe(0);
		expect(json.holders.holders).toEqual([]);
	});

	it('W2: an open transaction that spilled to the WAL shows as in flight, not as damage', async () => {
		const {db, w, id} = await writer('w2', {cachePages: 20});
		await w.send({op: 'begin'});
		await w.send({op: 'conversation', id, count: 3000, from: T0, to: T0 + 3000});
		const r = hfx(['files', '--db', db]);
		expect(r.code).toBe(0);
		expect(r.stdout).toMatch(/in flight, uncommitted\s+[1-9][\d,]*/);
		expect(r.stdout).not.toContain('CHECKSUM BREAK');
		expect(r.stdout).toContain(`pid ${w.pid}`);
	});

	it('W5: a flipped byte in a committed frame is reported as committed data SQLite silently does not see', async () => {
		const {folder, db, w, id} = await writer('w5');
		for (let i = 0; i < 30; i++) {
			await w.send({op: 'conversation', id, count: 5, from: T0 + i * 100, to: T0 + i * 100 + 50});
		}

		await w.kill();
		const scan = hfxJson(['files', '--db', db]).json.wal;
		const pageSize = scan.pageSize as number;
		const k = Math.floor(scan.lastCommitFrame / 2);
		const wal = `${db}-wal`;
		const offset = 32 + (k - 1) * (24 + pageSize) + 24 + 100;
		const fd = fs.openSync(wal, 'r+');
		const b = Buffer.alloc(1);
		fs.readSync(fd, b, 0, 1, offset);
		b[0] = b[0]! ^ 0xff;
		fs.writeSync(fd, b, 0, 1, offset);
		fs.closeSync(fd);
		const before = evidenceState(folder);
		const {code, json} = hfxJson(['files', '--db', db]);
		expect(code).toBe(1);
		expect(json.wal.breakAt).toBe(k);
		expect(json.wal.breakReason).toBe('checksum-mismatch');
		expect(json.wal.silentlyInvisible).toBe(true);
		expect(json.wal.invalidTailCommitFrames).toBeGreaterThan(0);
		expect(hfx(['files', '--db', db]).stdout).toContain(`CHECKSUM BREAK at frame ${k}`);
		expect(evidenceState(folder)).toEqual(before);
	});

	it('W7: names the process that holds a deleted -wal inode', async () => {
		const {db, w, id} = await writer('w7');
		await w.send({op: 'conversation', id, count: 5, from: T0, to: T0 + 50});
		fs.unlinkSync(`${db}-wal`);
		const r = hfx(['files', '--db', db]);
		expect(r.code).toBe(1);
		expect(r.stdout).toContain(`pid ${w.pid} holds a DELETED -wal`);
	});

	it('W8: a rollback-journal store says it is not in WAL mode', () => {
		const folder = fs.mkdtempSync(path.join(dir, 'w8-'));
		const db = path.join(folder, 'state.db');
		const sw = new StoreWriter(db, {shape: 'v21', journalMode: 'delete'});
		SCENARIOS[0]!.build(sw);
		sw.close();
		const r = hfx(['files', '--db', db]);
		expect(r.code).toBe(0);
		expect(r.stdout).toContain('not in WAL mode');
	});
});
