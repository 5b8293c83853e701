/**
 * `hfx files` on real WAL situations: an open transaction (W2), a flipped byte hiding committed
 * transactions (W5), a holder of a deleted -wal (W7), a rollback-journal store (W8); and each file
 * state judged (issue #17, class 7): a damaged WAL header hiding committed transactions (exit 1),
 * a main file cut in half (exit 2, one line), a hot -journal (exit 1). Evidence: the sha256 of
 * every file in the folder, before and after.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterAll, afterEach, describe, expect, it} from 'vitest';
import {StoreWriter} from '../../../source/simulator/store-writer.js';
import {evidenceState, hfx, hfxJson} from '../../helpers/cli.js';
import {folderDigest} from '../../helpers/folder-digest.js';
import {flipBytes} from '../../helpers/flip-bytes.js';
import {WriterProcess} from '../../helpers/writer.js';
import {SCENARIOS, T0} from '../../fixtures/scenarios.js';

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
	const id = await w.create({
		source: 'telegram',
		userId: 'u',
		sessionKey: 'agent:main:telegram:dm:9',
		chatId: '9',
		chatType: 'dm',
		startedAt: T0,
	});
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

function expectNoStack(stderr: string): void {
	expect(stderr).not.toMatch(/^\s+at /m);
	expect(stderr).not.toContain('internal error');
}

describe('hfx files judges each file state', () => {
	/** A stopped owner's WAL with exactly `commits` committed transactions (the setup checkpointed away first). */
	async function crashed(name: string, commits: number) {
		const {folder, db, w, id} = await writer(name);
		await w.send({op: 'exec', sql: 'PRAGMA wal_checkpoint(TRUNCATE)'});
		for (let i = 0; i < commits; i++) {
			await w.send({op: 'conversation', id, count: 5, from: T0 + i * 100, to: T0 + i * 100 + 50});
		}

		await w.kill();
		return {folder, db};
	}

	it.each([
		['a salt byte of the header (its stored checksum intact: every commit verifies)', [16], 5],
		["the header's magic (the byte order is tried both ways)", [3], 5],
		['the stored checksum words (nothing verifies; the commits are still counted)', [24, 28], 0],
	])(
		'a damaged WAL header hiding 5 committed transactions, %s: a finding, exit 1',
		async (_what, offsets, verified) => {
			const {folder, db} = await crashed('hdr', 5);
			expect(hfxJson(['files', '--db', db]).json.wal.commitFrames).toBe(5);
			flipBytes(`${db}-wal`, offsets);
			const before = folderDigest(folder);
			const {code, json, stderr} = hfxJson(['files', '--db', db]);
			expect(code).toBe(1);
			expect(stderr).toBe('');
			expect(json.wal.state).not.toBe('ok');
			expect(json.wal.behindBrokenHeader).toMatchObject({generationCommits: 5, verifiedCommits: verified});
			expect(json.states).toEqual([
				expect.objectContaining({kind: 'wal-header-damaged', state: 'finding', file: `${db}-wal`}),
			]);
			const text = hfx(['files', '--db', db]);
			expect(text.code).toBe(1);
			expect(text.stdout).toMatch(
				/FINDING state\.db-wal: the WAL header is unusable \([a-z-]+\) yet \d+ frames follow it with 5 committed transactions/,
			);
			expect(text.stdout).not.toContain('retrying');
			// scan reads what SQLite sees (the WAL as empty), and says so.
			expect(hfx(['scan', '--db', db]).stdout).toMatch(
				/note: the state\.db-wal header is unusable \([a-z-]+\) and \d+ frame slots follow it: SQLite reads that WAL as empty/,
			);
			expect(folderDigest(folder)).toEqual(before);
		},
	);

	it('a WAL header damaged with no frame after it is no finding (nothing is hidden)', async () => {
		const {folder, db} = await crashed('hdr-empty', 2);
		fs.truncateSync(`${db}-wal`, 32);
		flipBytes(`${db}-wal`, [16]);
		const before = folderDigest(folder);
		const {code, json} = hfxJson(['files', '--db', db]);
		expect(code).toBe(0);
		expect(json.states).toEqual([]);
		expect(folderDigest(folder)).toEqual(before);
	});

	it('a main file cut in half: unusable, exit 2 with one line on stderr; the report still printed', () => {
		const folder = fs.mkdtempSync(path.join(dir, 'cut-'));
		const db = path.join(folder, 'state.db');
		const sw = new StoreWriter(db, {shape: 'v30', journalMode: 'delete'});
		SCENARIOS[0]!.build(sw);
		sw.close();
		fs.truncateSync(db, Math.floor(fs.statSync(db).size / 2 / 4096) * 4096);
		const before = folderDigest(folder);
		const r = hfx(['files', '--db', db]);
		expect(r.code).toBe(2);
		expect(r.stderr.trim().split('\n')).toHaveLength(1);
		expectNoStack(r.stderr);
		expect(r.stderr).toMatch(
			/^hfx: .*state\.db: the main file is truncated: [\d,]+ bytes, but its header says \d+ pages × 4,096 = [\d,]+ bytes; \d+ pages are missing.*\. Next: /,
		);
		expect(r.stdout).toContain('UNUSABLE state.db: the main file is truncated');
		const json = hfxJson(['files', '--db', db]).json;
		expect(json.states[0]).toMatchObject({kind: 'main-truncated', state: 'unusable'});
		// Consistent with scan: the store cannot be read as it is.
		expect(hfx(['scan', '--db', db]).code).toBe(2);
		expect(folderDigest(folder)).toEqual(before);
	});

	it('a hot -journal (a writer killed mid-transaction, its pages spilled): a finding, exit 1', async () => {
		const folder = fs.mkdtempSync(path.join(dir, 'hot-'));
		const db = path.join(folder, 'state.db');
		const w = new WriterProcess(db, {journal: 'delete', cachePages: 5});
		writers.push(w);
		await w.started();
		const id = await w.create({
			source: 'telegram',
			userId: 'u',
			sessionKey: 'agent:main:telegram:dm:9',
			chatId: '9',
			chatType: 'dm',
			startedAt: T0,
		});
		await w.send({op: 'conversation', id, count: 3000, from: T0, to: T0 + 3000});
		await w.send({op: 'begin'});
		await w.send({op: 'exec', sql: "UPDATE messages SET content = content || 'x'"});
		// While the writer lives, the journal is its transaction's, not a finding.
		const live = hfxJson(['files', '--db', db]);
		expect(live.json.states.filter((s: {kind: string}) => s.kind === 'hot-journal')).toEqual([]);
		await w.kill();
		const journal = fs.readFileSync(`${db}-journal`).subarray(0, 8);
		expect(journal.toString('hex')).toBe('d9d505f920a163d7');
		const before = folderDigest(folder);
		const {code, json, stderr} = hfxJson(['files', '--db', db]);
		expect(code).toBe(1);
		expect(stderr).toBe('');
		expect(json.states).toEqual([
			expect.objectContaining({kind: 'hot-journal', state: 'finding', file: `${db}-journal`}),
		]);
		expect(hfx(['files', '--db', db]).stdout).toMatch(
			/FINDING state\.db-journal: a hot rollback journal \([\d,]+ bytes, a valid header, no process holds the store\): an interrupted write; SQLite rolls it back/,
		);
		expect(folderDigest(folder)).toEqual(before);
	});
});
