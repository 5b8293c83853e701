/**
 * The raw -wal reader against WAL files written by a real second process (the writer simulator),
 * and against copies damaged the way disks and crashes damage them (docs/sqlite-wal.md,
 * frame-classes, silent-loss, faults). SQLite itself (better-sqlite3, read-only, on copies) is the
 * oracle for what is visible.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import {afterAll, afterEach, describe, expect, it, vi} from 'vitest';
import {ShmReader} from '../../../source/store/files/shm.js';
import {
	type WalScan,
	WalTail,
	parseWalHeader,
	scanWal,
	scanWalFile,
	walFrameOffset,
} from '../../../source/store/wal/wal.js';
import {T0} from '../../fixtures/scenarios.js';
import {WriterProcess} from '../../helpers/writer.js';
import {prng} from '../../helpers/prng.js';

const dirs: string[] = [];
const writers: WriterProcess[] = [];
const reader = new ShmReader();

function tempDir(tag: string): string {
	const d = fs.mkdtempSync(path.join(os.tmpdir(), `hfx-wal-${tag}-`));
	dirs.push(d);
	return d;
}

afterEach(async () => {
	for (const w of writers.splice(0)) {
		await w.kill();
	}
});
afterAll(async () => {
	await reader.close();
	for (const d of dirs) {
		fs.rmSync(d, {recursive: true, force: true});
	}
});

async function liveStore(tag: string, options: {cachePages?: number} = {}) {
	const dir = tempDir(tag);
	const db = path.join(dir, 'state.db');
	const w = new WriterProcess(db, options);
	writers.push(w);
	await w.started();
	const id = await w.create({
		source: 'telegram',
		userId: 'u1',
		sessionKey: 'agent:main:telegram:dm:1',
		chatId: '1',
		chatType: 'dm',
		startedAt: T0,
	});
	return {dir, db, wal: `${db}-wal`, w, id};
}

/** Copies state.db and its -wal (not -shm: SQLite must rebuild the index from the WAL bytes). */
function copyStore(db: string, tag: string): string {
	const copy = path.join(tempDir(tag), 'state.db');
	fs.copyFileSync(db, copy);
	fs.copyFileSync(`${db}-wal`, `${copy}-wal`);
	return copy;
}

/** What SQLite sees in a copy, read-only. */
function messagesIn(copy: string): number {
	const db = new Database(copy, {readonly: true, fileMustExist: true});
	try {
		return db.prepare('SELECT count(*) FROM messages').pluck().get() as number;
	} finally {
		db.close();
	}
}

/**
 * A store with `rounds` transactions of 10 messages each, and for every commit frame the number of
 * messages SQLite must see when the WAL ends right after it.
 */
async function storeWithHistory(tag: string, rounds: number) {
	const s = await liveStore(tag);
	const history: Array<{commit: number; messages: number}> = [];
	let messages = 0;
	for (let i = 0; i < rounds; i++) {
		await s.w.send({op: 'conversation', id: s.id, count: 10, from: T0 + i * 100, to: T0 + i * 100 + 90});
		messages += 10;
		history.push({commit: scanWalFile(s.wal).lastCommitFrame, messages});
	}

	const scan = scanWalFile(s.wal);
	// No checkpoint happened: the main file holds only the schema-less first page, the WAL everything else.
	expect(scan.header!.checkpointSequence).toBe(0);
	expect(scan.frameSlots).toBeLessThan(1000);
	return {...s, history, messages, scan};
}

function messagesAtFrame(history: Array<{commit: number; messages: number}>, lastValidFrame: number): number {
	return history.filter(h => h.commit <= lastValidFrame).at(-1)?.messages ?? 0;
}

// -----------------------------------------------------------------------------------------------
// An independent, slow, obviously-written reference (docs/sqlite-wal.md, scan, with readUInt32 and
// % 2**32), for differential tests.

type Reference = {
	ok: boolean;
	slots: number;
	partial: number;
	valid: number;
	commits: number[];
	dbSize: number;
	breakAt: number;
	invalidTail: number;
	invalidTailCommits: number;
	unsealed: number;
	stale: number;
};

function referenceScan(buf: Buffer): Reference | null {
	if (buf.length < 32) {
		return null;
	}

	const magic = buf.readUInt32BE(0);
	if (magic !== 0x37_7f_06_82 && magic !== 0x37_7f_06_83) {
		return null;
	}

	const le = magic === 0x37_7f_06_82;
	const word = (o: number) => (le ? buf.readUInt32LE(o) : buf.readUInt32BE(o));
	const sum = (o: number, n: number, s: [number, number]): [number, number] => {
		let [a, b] = s;
		for (let i = o; i < o + n; i += 8) {
			a = (a + word(i) + b) % 2 ** 32;
			b = (b + word(i + 4) + a) % 2 ** 32;
		}

		return [a, b];
	};

	const ps = buf.readUInt32BE(8);
	let s = sum(0, 24, [0, 0]);
	const ok =
		buf.readUInt32BE(4) === 3_007_000 &&
		ps >= 512 &&
		ps <= 65_536 &&
		(ps & (ps - 1)) === 0 &&
		s[0] === buf.readUInt32BE(24) &&
		s[1] === buf.readUInt32BE(28);
	const r: Reference = {
		ok,
		slots: 0,
		partial: 0,
		valid: 0,
		commits: [],
		dbSize: 0,
		breakAt: 0,
		invalidTail: 0,
		invalidTailCommits: 0,
		unsealed: 0,
		stale: 0,
	};
	if (!ok) {
		return r;
	}

	const fsz = 24 + ps;
	r.slots = Math.floor((buf.length - 32) / fsz);
	r.partial = (buf.length - 32) % fsz;
	for (let i = 0; i < r.slots; i++) {
		const o = 32 + i * fsz;
		const same = buf.readUInt32BE(o + 8) === buf.readUInt32BE(16) && buf.readUInt32BE(o + 12) === buf.readUInt32BE(20);
		if (r.breakAt === 0) {
			if (same && buf.readUInt32BE(o) !== 0) {
				const next = sum(o + 24, ps, sum(o, 8, s));
				if (next[0] === buf.readUInt32BE(o + 16) && next[1] === buf.readUInt32BE(o + 20)) {
					s = next;
					r.valid = i + 1;
					if (buf.readUInt32BE(o + 4) !== 0) {
						r.commits.push(i + 1);
						r.dbSize = buf.readUInt32BE(o + 4);
					}

					continue;
				}
			}

			r.breakAt = i + 1;
		}

		if (same) {
			r.invalidTail++;
			if (buf.readUInt32BE(o + 4) !== 0) {
				r.invalidTailCommits++;
			}
		} else if (buf.readUInt32BE(o) !== 0 && buf.subarray(o + 8, o + 24).every(x => x === 0)) {
			r.unsealed++;
		} else {
			r.stale++;
		}
	}

	return r;
}

function expectMatchesReference(scan: WalScan, buf: Buffer, label: string): void {
	const ref = referenceScan(buf);
	expect(scan.state === 'ok', label).toBe(ref?.ok ?? false);
	if (!ref?.ok) {
		expect(scan.validFrames, label).toBe(0);
		return;
	}

	expect(
		{
			slots: scan.frameSlots,
			partial: scan.partialTailBytes,
			valid: scan.validFrames,
			commits: scan.commitFrames,
			last: scan.lastCommitFrame,
			dbSize: scan.dbSize,
			breakAt: scan.breakAt,
			invalidTail: scan.invalidTailFrames,
			invalidTailCommits: scan.invalidTailCommitFrames,
			unsealed: scan.unsealedFrames,
			stale: scan.staleFrames,
		},
		label,
	).toEqual({
		slots: ref.slots,
		partial: ref.partial,
		valid: ref.valid,
		commits: ref.commits.length,
		last: ref.commits.at(-1) ?? 0,
		dbSize: ref.dbSize,
		breakAt: ref.breakAt,
		invalidTail: ref.invalidTail,
		invalidTailCommits: ref.invalidTailCommits,
		unsealed: ref.unsealed,
		stale: ref.stale,
	});
}

/** Re-encodes the valid prefix of a WAL with big-endian checksums (what a big-endian host writes). */
function toBigEndianWal(buf: Buffer): Buffer {
	const ref = referenceScan(buf)!;
	const ps = buf.readUInt32BE(8);
	const out = Buffer.from(buf.subarray(0, 32 + ref.valid * (24 + ps)));
	out.writeUInt32BE(0x37_7f_06_83, 0);
	const sum = (o: number, n: number, s: [number, number]): [number, number] => {
		let [a, b] = s;
		for (let i = o; i < o + n; i += 8) {
			a = (a + out.readUInt32BE(i) + b) % 2 ** 32;
			b = (b + out.readUInt32BE(i + 4) + a) % 2 ** 32;
		}

		return [a, b];
	};

	let s = sum(0, 24, [0, 0]);
	out.writeUInt32BE(s[0], 24);
	out.writeUInt32BE(s[1], 28);
	for (let i = 0; i < ref.valid; i++) {
		const o = 32 + i * (24 + ps);
		s = sum(o + 24, ps, sum(o, 8, s));
		out.writeUInt32BE(s[0], o + 16);
		out.writeUInt32BE(s[1], o + 20);
	}

	return out;
}

function flip(buf: Buffer, at: number, mask: number): void {
	buf[at] = buf[at]! ^ mask;
}

/** Four 4-KiB pages of a writer's WAL: enough to be real, small enough for a unit test. */
let sampleWal: Buffer | undefined;
async function realWal(): Promise<Buffer> {
	if (!sampleWal) {
		const s = await storeWithHistory('sample', 12);
		sampleWal = fs.readFileSync(s.wal);
	}

	return sampleWal;
}

// -----------------------------------------------------------------------------------------------

describe('WAL header states', () => {
	it('names every way a header can be unusable, and parses a real one', async () => {
		expect(scanWalFile(path.join(tempDir('none'), 'x.db-wal')).state).toBe('no-file');
		expect(scanWal(Buffer.alloc(0)).state).toBe('empty');
		expect(scanWal(Buffer.alloc(31, 1)).state).toBe('too-short');
		expect(scanWal(Buffer.alloc(64, 0x41)).state).toBe('bad-magic');
		const wal = await realWal();
		const {state, header} = parseWalHeader(wal);
		expect(state).toBe('ok');
		expect(header).toMatchObject({
			magic: 0x37_7f_06_82,
			checksumOrder: 'le',
			formatVersion: 3_007_000,
			pageSize: 4096,
			checkpointSequence: 0,
			checksumValid: true,
		});

		const version = Buffer.from(wal);
		version.writeUInt32BE(3_007_001, 4);
		expect(scanWal(version).state).toBe('bad-version');
		const pageSize = Buffer.from(wal);
		pageSize.writeUInt32BE(1000, 8);
		expect(scanWal(pageSize).state).toBe('bad-page-size');
		// A header caught mid-rewrite (new salts, old checksum): retry, not corruption.
		const torn = Buffer.from(wal);
		torn.writeUInt32BE((torn.readUInt32BE(16) + 1) >>> 0, 16);
		const scan = scanWal(torn);
		expect(scan.state).toBe('header-checksum-mismatch');
		expect(scan.retry).toBe(true);
		expect(scan.validFrames).toBe(0);
		expect(scan.header!.checksumValid).toBe(false);
	});

	it(
		"behind an unusable header: walks the frames with frame 1's salts and " +
			'the stored checksums, the same in memory and from the file',
		async () => {
			const wal = await realWal();
			const intact = scanWal(wal);
			expect(intact.behindBrokenHeader).toBeNull();
			const damaged: Array<[string, Buffer, number | undefined, number]> = [];
			const salt = Buffer.from(wal);
			salt.writeUInt32BE((salt.readUInt32BE(16) ^ 0xff) >>> 0, 16);
			damaged.push(['a salt', salt, undefined, intact.commitFrames]);
			const magic = Buffer.from(wal);
			magic.writeUInt32BE(0x12_34_56_78, 0);
			damaged.push(['the magic', magic, undefined, intact.commitFrames]);
			const size = Buffer.from(wal);
			size.writeUInt32BE(1000, 8);
			damaged.push(["the page size (the main file's is given)", size, 4096, intact.commitFrames]);
			const sums = Buffer.from(wal);
			sums.writeUInt32BE((sums.readUInt32BE(24) ^ 1) >>> 0, 24);
			damaged.push(['the stored checksum (nothing verifies)', sums, undefined, 0]);
			for (const [what, buf, pageSize, verified] of damaged) {
				const scan = scanWal(buf, {pageSize});
				expect(scan.state, what).not.toBe('ok');
				expect(scan.behindBrokenHeader, what).toMatchObject({
					generationCommits: intact.commitFrames,
					verifiedCommits: verified,
					frameSlots: intact.frameSlots,
				});
				const file = path.join(tempDir('behind'), 'x.db-wal');
				fs.writeFileSync(file, buf);
				expect(scanWalFile(file, {pageSize}).behindBrokenHeader, what).toEqual(scan.behindBrokenHeader);
			}

			// Without the main file's page size, a damaged page size hides nothing it can count.
			expect(scanWal(size).behindBrokenHeader).toBeNull();
		},
	);
});

describe('W1: a writer process commits N transactions', () => {
	it('counts its commits and frames; committed-pending equals the -shm mxFrame - nBackfill', async () => {
		const s = await liveStore('w1');
		const base = scanWalFile(s.wal);
		const n = 15;
		for (let i = 0; i < n; i++) {
			await s.w.send({op: 'conversation', id: s.id, count: 3 + i, from: T0 + i * 100, to: T0 + i * 100 + 50});
		}

		const afterN = scanWalFile(s.wal);
		expect(afterN.state).toBe('ok');
		expect(afterN.commitFrames).toBe(base.commitFrames + n);
		expect(afterN.breakAt).toBe(0);
		expect(afterN.inFlightFrames).toBe(0);
		expect(afterN.lastCommitFrame).toBe(afterN.validFrames);
		expect(afterN.validFrames).toBe(afterN.frameSlots);
		expect(afterN.recentCommits).toHaveLength(Math.min(16, afterN.commitFrames));
		expect(afterN.recentCommits.at(-1)!.frame).toBe(afterN.lastCommitFrame);
		for (const c of afterN.recentCommits) {
			expect(c.frames).toBeGreaterThanOrEqual(1);
			expect(c.pages).toBeLessThanOrEqual(c.frames);
		}

		const first = await reader.read(s.db);
		expect(first.error).toBeNull();
		expect(first.shm!.mxFrame).toBe(afterN.lastCommitFrame);

		// Pin a read mark at the current mxFrame, commit more, and let the writer checkpoint: it
		// can only backfill up to our read mark, so nBackfill lands strictly inside the WAL.
		const pinned = afterN.lastCommitFrame;
		const ro = new Database(s.db, {readonly: true, fileMustExist: true});
		ro.exec('BEGIN');
		ro.prepare('SELECT count(*) FROM messages').get();
		for (let i = 0; i < 5; i++) {
			await s.w.send({op: 'conversation', id: s.id, count: 4, from: T0 + 5000 + i * 100, to: T0 + 5000 + i * 100 + 50});
		}

		await s.w.send({op: 'exec', sql: 'PRAGMA wal_checkpoint(PASSIVE)'});
		ro.exec('COMMIT');
		ro.close();

		const {shm, error} = await reader.read(s.db);
		expect(error).toBeNull();
		const scan = scanWalFile(s.wal, {nBackfill: shm!.nBackfill});
		expect(shm!.nBackfill).toBe(pinned);
		expect(scan.commitFrames).toBe(base.commitFrames + n + 5);
		expect(scan.lastCommitFrame).toBe(shm!.mxFrame);
		expect(scan.checkpointedFrames).toBe(pinned);
		expect(scan.pendingCheckpointFrames).toBe(shm!.mxFrame - shm!.nBackfill);
		expect(scan.pendingCheckpointFrames).toBeGreaterThan(0);
		expect(scan.nBackfillBeyondCommit).toBe(false);
		expect(scan.checkpointedFrames! + scan.pendingCheckpointFrames! + scan.inFlightFrames).toBe(scan.validFrames);
	});
});

describe('W2: a writer holds an open transaction that spilled to the WAL', () => {
	it('reports valid frames after the last commit as in flight, then as committed after COMMIT', async () => {
		const s = await liveStore('w2', {cachePages: 20});
		await s.w.send({op: 'conversation', id: s.id, count: 5, from: T0, to: T0 + 10});
		const base = scanWalFile(s.wal);
		await s.w.send({op: 'begin'});
		await s.w.send({op: 'conversation', id: s.id, count: 5000, from: T0 + 100, to: T0 + 10_000});
		const mid = scanWalFile(s.wal);
		expect(mid.lastCommitFrame).toBe(base.lastCommitFrame);
		expect(mid.commitFrames).toBe(base.commitFrames);
		expect(mid.inFlightFrames).toBeGreaterThan(0);
		expect(mid.validFrames).toBe(mid.lastCommitFrame + mid.inFlightFrames);
		// Once the transaction rewrote a spilled page in place, the chain breaks there and SQLite
		// writes the further frames unsealed (zero salts and checksums) until COMMIT: in flight, no
		// commit SQLite ignores, and nothing from an older generation.
		expect(mid.invalidTailCommitFrames).toBe(0);
		expect(mid.silentlyInvisible).toBe(false);
		expect(mid.staleFrames).toBe(0);
		expect(mid.unsealedFrames).toBeGreaterThan(0);
		expect(mid.validFrames + mid.invalidTailFrames + mid.unsealedFrames).toBe(mid.frameSlots);
		const {shm} = await reader.read(s.db);
		expect(shm!.mxFrame).toBe(base.lastCommitFrame);

		await s.w.send({op: 'commit'});
		const done = scanWalFile(s.wal);
		expect(done.commitFrames).toBe(base.commitFrames + 1);
		expect(done.inFlightFrames).toBe(0);
		expect(done.breakAt).toBe(0);
		expect(done.lastCommitFrame).toBeGreaterThan(mid.validFrames);
		expect(done.lastCommitFrame).toBeGreaterThanOrEqual(mid.frameSlots);
		expect(done.recentCommits.at(-1)!.frames).toBe(done.lastCommitFrame - base.lastCommitFrame);
		expect(messagesIn(copyStore(s.db, 'w2-copy'))).toBe(5005);
	});
});

describe('W3: a writer killed with SIGKILL after commits', () => {
	it('leaves a valid header and every committed frame valid', async () => {
		const s = await storeWithHistory('w3', 30);
		await s.w.kill();
		const scan = scanWalFile(s.wal);
		expect(scan.state).toBe('ok');
		expect(scan.header!.checksumValid).toBe(true);
		expect(scan.breakAt).toBe(0);
		expect(scan.partialTailBytes).toBe(0);
		expect(scan.inFlightFrames).toBe(0);
		expect(scan.validFrames).toBe(scan.frameSlots);
		expect(scan.lastCommitFrame).toBe(s.history.at(-1)!.commit);
		const {shm} = await reader.read(s.db);
		expect(shm!.mxFrame).toBe(scan.lastCommitFrame);
		expect(messagesIn(copyStore(s.db, 'w3-copy'))).toBe(s.messages);
	});
});

describe('W4: a WAL truncated in the middle of a frame (copy)', () => {
	it('keeps the valid prefix, counts the partial bytes, and SQLite sees exactly the last valid commit', async () => {
		const s = await storeWithHistory('w4', 30);
		const ps = s.scan.pageSize;
		const cuts = [s.history[4]!.commit + 1, s.history[12]!.commit, s.history[20]!.commit + 2, s.history[29]!.commit];
		for (const k of cuts) {
			const copy = copyStore(s.db, `w4-${k}`);
			fs.truncateSync(`${copy}-wal`, walFrameOffset(k, ps) + 1000);
			const scan = scanWalFile(`${copy}-wal`);
			expect(scan.validFrames, `cut in frame ${k}`).toBe(k - 1);
			expect(scan.partialTailBytes).toBe(1000);
			expect(scan.breakAt).toBe(0);
			expect(scan.lastCommitFrame).toBe(s.history.filter(h => h.commit <= k - 1).at(-1)!.commit);
			expect(scan.inFlightFrames).toBe(k - 1 - scan.lastCommitFrame);
			const expected = messagesAtFrame(s.history, k - 1);
			expect(expected).toBeLessThan(s.messages);
			expect(messagesIn(copy), `cut in frame ${k}`).toBe(expected);
		}
	});
});

describe('W5: one flipped byte in a committed frame (copy)', () => {
	it(
		'breaks the chain at that frame; the later committed frames carry ' +
			'current salts and SQLite silently drops them',
		async () => {
			const s = await storeWithHistory('w5', 30);
			const ps = s.scan.pageSize;
			const k = s.history[14]!.commit + 1;
			const copy = copyStore(s.db, 'w5');
			const fd = fs.openSync(`${copy}-wal`, 'r+');
			const at = walFrameOffset(k, ps) + 24 + 1234;
			const one = Buffer.alloc(1);
			fs.readSync(fd, one, 0, 1, at);
			flip(one, 0, 0x5a);
			fs.writeSync(fd, one, 0, 1, at);
			fs.closeSync(fd);

			const scan = scanWalFile(`${copy}-wal`);
			expect(scan.breakAt).toBe(k);
			expect(scan.breakReason).toBe('checksum-mismatch');
			expect(scan.validFrames).toBe(k - 1);
			expect(scan.lastCommitFrame).toBe(s.history[14]!.commit);
			expect(scan.invalidTailFrames).toBe(scan.frameSlots - k + 1);
			const lostCommits = s.history.filter(h => h.commit >= k).length;
			expect(lostCommits).toBe(15);
			expect(scan.invalidTailCommitFrames).toBe(lostCommits);
			expect(scan.staleFrames).toBe(0);
			expect(scan.silentlyInvisible).toBe(true);
			// SQLite opens it without any error and shows only what precedes the flipped byte.
			expect(messagesIn(copy)).toBe(s.history[14]!.messages);
			expect(messagesIn(copy)).toBeLessThan(s.messages);
		},
	);
});

describe('a WAL reset: the writer checkpoints, then writes again', () => {
	it(
		'rewrites from frame 1 with new salts; the old generation is counted ' + 'stale; WalTail reports salts-changed',
		async () => {
			const s = await storeWithHistory('reset', 20);
			const tail = new WalTail(s.wal);
			const before = tail.poll();
			expect(before.reset).toBeNull();
			expect(before.scan).toEqual(s.scan);
			await s.w.send({op: 'exec', sql: 'PRAGMA wal_checkpoint(PASSIVE)'});
			const {shm} = await reader.read(s.db);
			expect(shm!.nBackfill).toBe(shm!.mxFrame);
			expect(tail.poll().reset).toBeNull();

			await s.w.send({op: 'conversation', id: s.id, count: 2, from: T0 + 9000, to: T0 + 9001});
			const after = scanWalFile(s.wal);
			const h0 = s.scan.header!;
			expect(after.header!.checkpointSequence).toBe(h0.checkpointSequence + 1);
			// Salt-1 plus one and the next checkpoint sequence say it was reset; salt-2 is drawn afresh at random, and a
			// draw equal to the last (1 in 2^32) is still a reset, so it is not asserted.
			expect(after.header!.salt1).toBe((h0.salt1 + 1) >>> 0);
			expect(after.frameSlots).toBe(s.scan.frameSlots);
			expect(after.commitFrames).toBe(1);
			expect(after.validFrames).toBeLessThan(10);
			expect(after.breakAt).toBe(after.validFrames + 1);
			expect(after.breakReason).toBe('salt-mismatch');
			expect(after.staleFrames).toBe(after.frameSlots - after.validFrames);
			expect(after.invalidTailFrames).toBe(0);
			expect(after.silentlyInvisible).toBe(false);

			const polled = tail.poll();
			expect(polled.reset).toBe('salts-changed');
			expect(polled.scan).toEqual(after);
			expect(polled.newCommitCount).toBe(1);
			expect(messagesIn(copyStore(s.db, 'reset-copy'))).toBe(s.messages + 2);
		},
	);
});

describe('WalTail', () => {
	it(
		'equals a full rescan after each append, open transaction, commit and ' + 'reset, reading only what changed',
		async () => {
			const s = await liveStore('tail', {cachePages: 20});
			const tail = new WalTail(s.wal);
			let prev = tail.poll().scan;
			const check = (label: string, expectReset: string | null = null) => {
				const p = tail.poll();
				const full = scanWal(fs.readFileSync(s.wal));
				expect(p.scan, label).toEqual(full);
				expect(p.reset, label).toBe(expectReset);
				if (!expectReset) {
					expect(p.appendedFrames, label).toBe(Math.max(0, full.validFrames - prev.validFrames));
					expect(p.newCommitCount, label).toBe(full.commitFrames - prev.commitFrames);
					expect(
						p.newCommits.map(c => c.frame),
						label,
					).toEqual(full.recentCommits.filter(c => c.frame > prev.lastCommitFrame).map(c => c.frame));
				}

				prev = full;
				return p;
			};

			for (let i = 0; i < 40; i++) {
				await s.w.send({op: 'conversation', id: s.id, count: 10, from: T0 + i * 100, to: T0 + i * 100 + 90});
			}

			check('bulk');
			for (let i = 0; i < 4; i++) {
				await s.w.send({op: 'conversation', id: s.id, count: 1, from: T0 + 10_000 + i, to: T0 + 10_000 + i});
				const p = check(`append ${i}`);
				expect(p.newCommitCount).toBe(1);
				// O(new frames): the header, the last commit's frame header and the new frames.
				expect(p.bytesRead).toBeLessThanOrEqual(32 + 2 * 24 + (p.appendedFrames + 1) * p.scan.frameSize);
				expect(p.bytesRead).toBeLessThan(p.scan.fileSize / 4);
			}

			await s.w.send({op: 'begin'});
			await s.w.send({op: 'conversation', id: s.id, count: 3000, from: T0 + 20_000, to: T0 + 30_000});
			const open = check('open transaction').scan;
			expect(open.commitFrames).toBe(prev.commitFrames);
			expect(open.inFlightFrames + open.invalidTailFrames + open.unsealedFrames).toBeGreaterThan(0);
			expect(open.silentlyInvisible).toBe(false);
			await s.w.send({op: 'conversation', id: s.id, count: 500, from: T0 + 30_001, to: T0 + 31_000});
			check('open transaction grows');
			await s.w.send({op: 'commit'});
			expect(check('commit').newCommitCount).toBe(1);
			expect(check('idle').bytesRead).toBeLessThanOrEqual(32 + 2 * 24);

			await s.w.send({op: 'exec', sql: 'PRAGMA wal_checkpoint(PASSIVE)'});
			await s.w.send({op: 'conversation', id: s.id, count: 1, from: T0 + 40_000, to: T0 + 40_000});
			expect(check('reset', 'salts-changed').scan.staleFrames).toBeGreaterThan(0);
			// After a reset the old generation stays behind the write head: polls must not re-read it.
			for (let i = 0; i < 3; i++) {
				await s.w.send({op: 'conversation', id: s.id, count: 2, from: T0 + 41_000 + i, to: T0 + 41_000 + i});
				const p = check(`append after reset ${i}`);
				expect(p.scan.staleFrames).toBeGreaterThan(0);
				// Reads double in size until the break, so at most twice the new frames, plus one landmark frame.
				expect(p.bytesRead).toBeLessThanOrEqual(32 + 3 * 24 + (2 * (p.appendedFrames + 1) + 1) * p.scan.frameSize);
				expect(p.bytesRead).toBeLessThan(p.scan.fileSize / 4);
			}

			// An open transaction inside the old generation's slots: the file does not grow, the chain
			// breaks at pages rewritten in place and later frames are unsealed, while polls go on.
			await s.w.send({op: 'begin'});
			for (let i = 0; i < 4; i++) {
				await s.w.send({
					op: 'conversation',
					id: s.id,
					count: 400,
					from: T0 + 50_000 + i * 1000,
					to: T0 + 50_900 + i * 1000,
				});
				const p = check(`open transaction after reset ${i}`);
				expect(p.scan.commitFrames).toBe(4);
				expect(p.scan.staleFrames).toBeGreaterThan(0);
			}

			expect(prev.unsealedFrames + prev.invalidTailFrames).toBeGreaterThan(0);
			await s.w.send({op: 'commit'});
			expect(check('commit after reset').scan.commitFrames).toBe(5);
		},
	);

	it('reads only what changed when a poll comes after a reset of the same file, reset after reset', async () => {
		// hfx watch polls every 15 s while the agent restarts its -wal every few seconds: every poll follows a reset.
		const s = await liveStore('tail-resets', {cachePages: 20});
		const tail = new WalTail(s.wal);
		for (let i = 0; i < 40; i++) {
			await s.w.send({op: 'conversation', id: s.id, count: 10, from: T0 + i * 100, to: T0 + i * 100 + 90});
		}

		tail.poll();
		for (let round = 0; round < 3; round++) {
			await s.w.send({op: 'exec', sql: 'PRAGMA wal_checkpoint(PASSIVE)'});
			await s.w.send({op: 'conversation', id: s.id, count: 2, from: T0 + 9000 + round, to: T0 + 9000 + round});
			const p = tail.poll();
			expect(p.reset, `round ${round}`).toBe('salts-changed');
			expect(p.scan, `round ${round}`).toEqual(scanWal(fs.readFileSync(s.wal)));
			expect(p.scan.staleFrames, `round ${round}`).toBeGreaterThan(0);
			if (round > 0) {
				// The new generation (read in doubling batches) and the slots the last generation held, not the file.
				expect(p.bytesRead, `round ${round}`).toBeLessThan(p.scan.fileSize / 4);
			}
		}
	});

	it('walks a large WAL in reads of at most 256 KiB: the buffer a tail keeps between polls stays small', async () => {
		// Issue #26: with 4 MiB reads the TUI's Files pane and hfx watch each kept a 4 MiB buffer for their whole life.
		const s = await liveStore('tail-chunk', {cachePages: 20});
		for (let i = 0; i < 40; i++) {
			await s.w.send({op: 'conversation', id: s.id, count: 10, from: T0 + i * 100, to: T0 + i * 100 + 90});
		}

		expect(fs.statSync(s.wal).size).toBeGreaterThan(1024 * 1024);
		const whole = scanWal(fs.readFileSync(s.wal));
		const reads = vi.spyOn(fs, 'readSync');
		try {
			const scan = new WalTail(s.wal).poll().scan;
			const lengths = reads.mock.calls.map(call => Number((call as unknown[])[3]));
			expect(lengths.length).toBeGreaterThan(4);
			expect(Math.max(...lengths)).toBeLessThanOrEqual(256 * 1024);
			expect(scan).toEqual(whole);
		} finally {
			reads.mockRestore();
		}
	});

	it('reports a truncated and an overwritten WAL and rescans from frame 1', async () => {
		const wal = await realWal();
		const dir = tempDir('tail-copy');
		const file = path.join(dir, 'x.db-wal');
		fs.writeFileSync(file, wal);
		const tail = new WalTail(file);
		const first = tail.poll().scan;
		expect(first.validFrames).toBeGreaterThan(10);

		// Overwritten: same size and header, but the last commit frame is no longer the one we saw.
		const at = walFrameOffset(first.lastCommitFrame, first.pageSize) + 16;
		const changed = Buffer.from(wal);
		flip(changed, at, 0xff);
		fs.writeFileSync(file, changed);
		const over = tail.poll();
		expect(over.reset).toBe('overwritten');
		expect(over.scan).toEqual(scanWal(changed));
		expect(over.scan.breakAt).toBe(first.lastCommitFrame);

		// Restored: we resumed from the previous commit, so this is just two more valid frames.
		fs.writeFileSync(file, wal);
		const restored = tail.poll();
		expect(restored.reset).toBeNull();
		expect(restored.scan).toEqual(first);

		// Truncated below the last commit we had seen.
		fs.truncateSync(file, walFrameOffset(5, first.pageSize));
		const cut = tail.poll();
		expect(cut.reset).toBe('truncated');
		expect(cut.scan).toEqual(scanWal(fs.readFileSync(file)));
		expect(cut.scan.validFrames).toBe(4);

		// Gone (a clean close deletes the WAL), then a fresh one.
		fs.rmSync(file);
		const gone = tail.poll();
		expect(gone.scan.state).toBe('no-file');
		expect(gone.reset).toBe('truncated');
		fs.writeFileSync(file, wal);
		const back = tail.poll();
		expect(back.reset).toBeNull();
		expect(back.scan).toEqual(first);
		expect(back.appendedFrames).toBe(first.validFrames);

		// A torn header is "retry" and does not lose the resume point.
		const torn = Buffer.from(wal);
		// Salt-2 flipped, not overwritten: SQLite draws it at random, and a constant could already be there.
		torn.writeUInt32BE((torn.readUInt32BE(20) ^ 0x3039) >>> 0, 20);
		fs.writeFileSync(file, torn);
		const t = tail.poll();
		expect(t.scan.retry).toBe(true);
		expect(t.reset).toBeNull();
		fs.writeFileSync(file, wal);
		const again = tail.poll();
		expect(again.reset).toBeNull();
		expect(again.appendedFrames).toBe(0);
		expect(again.scan).toEqual(first);
	});
});

describe('byte orders and alignment', () => {
	it('classifies a big-endian-checksum WAL and an unaligned buffer exactly like the native one', async () => {
		const wal = await realWal();
		const native = scanWal(wal);
		const be = toBigEndianWal(wal);
		const beScan = scanWal(be);
		expect(beScan.header!.checksumOrder).toBe('be');
		expect(beScan.header!.checksumValid).toBe(true);
		expect({...beScan, header: null}).toEqual({...native, header: null});
		for (const buf of [wal, be]) {
			const unaligned = Buffer.alloc(buf.length + 1).subarray(1);
			buf.copy(unaligned);
			expect(unaligned.byteOffset % 4).not.toBe(0);
			expect(scanWal(unaligned)).toEqual(scanWal(buf));
		}

		// A flipped byte is found at the same frame in either order.
		const k = 7;
		for (const buf of [wal, be]) {
			const bad = Buffer.from(buf);
			flip(bad, walFrameOffset(k, 4096) + 24 + 99, 1);
			expect(scanWal(bad).breakAt).toBe(k);
		}
	});
});

describe('garbage in, no exception out', () => {
	it('random truncations and byte flips of a real WAL never throw and agree with the reference scan', async () => {
		const wal = await realWal();
		const original = scanWal(wal);
		expectMatchesReference(original, wal, 'original');
		const rnd = prng(20_260_301);
		const dir = tempDir('fuzz');
		for (let i = 0; i < 300; i++) {
			let buf = Buffer.from(wal);
			const kind = i % 3;
			if (kind !== 1) {
				buf = buf.subarray(0, Math.floor(rnd() * (wal.length + 1)));
			}

			if (kind !== 0) {
				const flips = 1 + Math.floor(rnd() * 3);
				for (let f = 0; f < flips && buf.length > 0; f++) {
					// Half of the flips in the first frame headers, where the interesting fields are.
					const at = rnd() < 0.5 ? Math.floor(rnd() * Math.min(buf.length, 32 + 24)) : Math.floor(rnd() * buf.length);
					flip(buf, at, 1 << Math.floor(rnd() * 8));
				}
			}

			const label = `case ${i}`;
			let scan: WalScan | undefined;
			expect(() => {
				scan = scanWal(buf);
			}, label).not.toThrow();
			expect(scan!.validFrames, label).toBeLessThanOrEqual(scan!.frameSlots);
			expect(scan!.validFrames, label).toBeLessThanOrEqual(original.validFrames);
			expect(
				scan!.lastCommitFrame +
					scan!.inFlightFrames +
					scan!.invalidTailFrames +
					scan!.unsealedFrames +
					scan!.staleFrames,
				label,
			).toBe(scan!.frameSlots);
			expectMatchesReference(scan!, buf, label);
			if (i % 10 === 0) {
				const file = path.join(dir, `f${i}.db-wal`);
				fs.writeFileSync(file, buf);
				expect(scanWalFile(file), label).toEqual(scanWal(buf));
			}
		}
	});

	it('a random non-WAL buffer and a random buffer behind a valid header yield nothing valid', () => {
		const rnd = prng(7);
		for (let i = 0; i < 50; i++) {
			const buf = Buffer.alloc(Math.floor(rnd() * 20_000));
			for (let j = 0; j < buf.length; j++) {
				buf[j] = Math.floor(rnd() * 256);
			}

			expect(scanWal(buf).validFrames).toBe(0);
		}
	});
});

describe('throughput (printed, not asserted)', () => {
	it('scans a large real WAL', async () => {
		const s = await liveStore('speed');
		await s.w.send({
			op: 'exec',
			sql:
				`WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x ` +
				`< 12000) INSERT INTO messages (session_id, role, content, timestamp) ` +
				`SELECT '${s.id}', 'user', hex(randomblob(1500)), ${T0} + x FROM c`,
		});
		const buf = fs.readFileSync(s.wal);
		let scan = scanWal(buf);
		const times: number[] = [];
		for (let i = 0; i < 5; i++) {
			const t = performance.now();
			scan = scanWal(buf);
			times.push(performance.now() - t);
		}

		const t = performance.now();
		const fromFile = scanWalFile(s.wal);
		const fileMs = performance.now() - t;
		times.sort((a, b) => a - b);
		const mb = buf.length / 1e6;
		console.log(
			`scanWal: ${mb.toFixed(1)} MB, ${scan.validFrames} frames: ` +
				`median ${(mb / (times[2]! / 1000)).toFixed(0)} MB/s, ` +
				`best ${(mb / (times[0]! / 1000)).toFixed(0)} MB/s; from file (chunked ` +
				`reads) ${(mb / (fileMs / 1000)).toFixed(0)} MB/s`,
		);
		expect(scan.validFrames).toBe(scan.frameSlots);
		expect(scan.validFrames).toBeGreaterThan(5000);
		expect(fromFile).toEqual(scan);
	});
});
