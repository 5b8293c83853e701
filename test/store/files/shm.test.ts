/**
 * The -shm header read in a child process, against the wal-index a real writer process maintains.
 * The point of the child: this test process holds a SQLite connection to the same store, and its
 * POSIX locks (visible in /proc/locks) must survive the read (docs/sqlite-wal.md, posix-locks).
 */
import {spawnSync} from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {pathToFileURL} from 'node:url';
import Database from 'better-sqlite3';
import {afterAll, afterEach, describe, expect, it} from 'vitest';
import {parseProcLocks} from '../../../source/store/files/holders.js';
import {SHM_HEADER_BYTES, ShmReader, parseShmHeader} from '../../../source/store/files/shm.js';
import {scanWalFile, walFrameOffset} from '../../../source/store/wal/wal.js';
import {StoreWriter} from '../../../source/simulator/store-writer.js';
import {T0} from '../../fixtures/scenarios.js';
import {ROOT, WriterProcess} from '../../helpers/writer.js';

const dirs: string[] = [];
const writers: WriterProcess[] = [];
const readers: ShmReader[] = [];

function tempDir(tag: string): string {
	const d = fs.mkdtempSync(path.join(os.tmpdir(), `hfx-shm-${tag}-`));
	dirs.push(d);
	return d;
}

function newReader(options?: ConstructorParameters<typeof ShmReader>[0]): ShmReader {
	const r = new ShmReader(options);
	readers.push(r);
	return r;
}

afterEach(async () => {
	for (const w of writers.splice(0)) {
		await w.kill();
	}

	for (const r of readers.splice(0)) {
		await r.close();
	}
});
afterAll(() => {
	for (const d of dirs) {
		fs.rmSync(d, {recursive: true, force: true});
	}
});

/** A process that exists and is not a zombie. */
function processAlive(pid: number): boolean {
	try {
		return !/^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
	} catch {
		return false;
	}
}

async function waitFor(done: () => boolean, ms: number): Promise<void> {
	const until = Date.now() + ms;
	while (!done()) {
		if (Date.now() > until) {
			throw new Error(`condition not met within ${ms} ms`);
		}

		await new Promise(resolve => setTimeout(resolve, 50));
	}
}

async function liveStore(tag: string, conversations = 10) {
	const dir = tempDir(tag);
	const db = path.join(dir, 'state.db');
	const w = new WriterProcess(db);
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
	for (let i = 0; i < conversations; i++) {
		await w.send({op: 'conversation', id, count: 8, from: T0 + i * 100, to: T0 + i * 100 + 60});
	}

	return {dir, db, wal: `${db}-wal`, shm: `${db}-shm`, w, id};
}

/** SQLite's checksum over `buf` in the given word order (independent of the code under test). */
function checksum(buf: Buffer, le: boolean): [number, number] {
	let a = 0;
	let b = 0;
	for (let i = 0; i < buf.length; i += 8) {
		a = (a + (le ? buf.readUInt32LE(i) : buf.readUInt32BE(i)) + b) % 2 ** 32;
		b = (b + (le ? buf.readUInt32LE(i + 4) : buf.readUInt32BE(i + 4)) + a) % 2 ** 32;
	}

	return [a, b];
}

/** Writes header copy 1 (0..47) with a fresh checksum, and copies it to 48..95. */
function reseal(buf: Buffer, le: boolean): void {
	const [a, b] = checksum(buf.subarray(0, 40), le);
	if (le) {
		buf.writeUInt32LE(a, 40);
		buf.writeUInt32LE(b, 44);
	} else {
		buf.writeUInt32BE(a, 40);
		buf.writeUInt32BE(b, 44);
	}

	buf.copy(buf, 48, 0, 48);
}

function ourShmLocks(shmIno: number, pid: number) {
	return parseProcLocks(fs.readFileSync('/proc/locks', 'utf8')).filter(l => l.ino === shmIno && l.pid === pid);
}

describe('ShmReader against a live writer process', () => {
	it('reads a consistent wal-index header that agrees with the raw WAL scan and the db header', async () => {
		const s = await liveStore('live');
		const reader = newReader();
		const scan = scanWalFile(s.wal);
		const r = await reader.read(s.db);
		expect(r.error).toBeNull();
		const shm = r.shm!;
		expect(shm.isInit).toBe(1);
		expect(shm.consistent).toBe(true);
		expect(shm.copiesEqual).toBe(true);
		expect(shm.checksumValid).toBe(true);
		expect(shm.iVersion).toBe(3_007_000);
		expect(shm.mxFrame).toBe(scan.lastCommitFrame);
		expect(shm.mxFrame).toBeGreaterThan(0);
		expect(shm.nBackfill).toBeLessThanOrEqual(shm.mxFrame);
		expect([shm.salt1, shm.salt2]).toEqual([scan.header!.salt1, scan.header!.salt2]);
		expect(shm.pageSize).toBe(scan.pageSize);
		expect(shm.nPage).toBe(scan.dbSize);
		expect(shm.bigEndCksum).toBe(scan.header!.checksumOrder === 'be' ? 1 : 0);
		expect(shm.readMarks[0]).toBe(0);
		// aFrameCksum is the running checksum after frame mxFrame: the one stored in that frame.
		const frame = Buffer.alloc(24);
		const fd = fs.openSync(s.wal, 'r');
		fs.readSync(fd, frame, 0, 24, walFrameOffset(shm.mxFrame, scan.pageSize));
		fs.closeSync(fd);
		expect(shm.frameChecksum).toEqual([frame.readUInt32BE(16), frame.readUInt32BE(20)]);

		expect(r.dbHeader!.sqliteVersionNumber).toBeGreaterThan(3_000_000);
		expect(r.dbHeader!.journalMode).toBe('wal');
		expect(r.dbHeader!.pageSize).toBe(scan.pageSize);
		const pid = reader.lastChildPid;
		expect(pid).toBeDefined();
		expect(pid).not.toBe(process.pid);
		// Nothing stays resident: the child that read is gone once the read returns.
		expect(processAlive(pid!)).toBe(false);

		// The next read (another child) sees the writer's next commits.
		await s.w.send({op: 'conversation', id: s.id, count: 3, from: T0 + 9000, to: T0 + 9010});
		const next = await reader.read(s.db);
		expect(reader.lastChildPid).not.toBe(pid);
		expect(next.shm!.mxFrame).toBe(scanWalFile(s.wal).lastCommitFrame);
		expect(next.shm!.mxFrame).toBeGreaterThan(shm.mxFrame);
		expect(next.shm!.iChange).not.toBe(shm.iChange);
	});

	it(
		"leaves the POSIX locks of this process's own SQLite connection in place " +
			'(the read happens in another process)',
		async () => {
			const s = await liveStore('locks');
			const reader = newReader();
			const ro = new Database(s.db, {readonly: true, fileMustExist: true});
			try {
				ro.prepare('SELECT count(*) FROM messages').get();
				const shmIno = fs.statSync(s.shm).ino;
				const before = ourShmLocks(shmIno, process.pid);
				expect(before.length).toBeGreaterThan(0);
				const r = await reader.read(s.db);
				expect(r.shm!.consistent).toBe(true);
				expect(ourShmLocks(shmIno, process.pid)).toEqual(before);
				expect(reader.lastChildPid).not.toBe(process.pid);
				// Control, on this throwaway store: the same open+close done here drops them. This is why
				// the read lives in a child, and it shows the check above can fail.
				fs.closeSync(fs.openSync(s.shm, 'r'));
				expect(ourShmLocks(shmIno, process.pid)).toEqual([]);
			} finally {
				ro.close();
			}
		},
	);

	it('reads the -shm a SIGKILLed writer left behind', async () => {
		const s = await liveStore('killed', 5);
		await s.w.kill();
		const r = await newReader().read(s.db);
		expect(r.error).toBeNull();
		expect(r.shm!.mxFrame).toBe(scanWalFile(s.wal).lastCommitFrame);
	});
});

describe('ShmReader without a usable -shm', () => {
	it('returns shm null, not an error, when there is no -shm (rollback-journal store)', async () => {
		const dir = tempDir('nosh');
		const db = path.join(dir, 'state.db');
		const w = new StoreWriter(db, {shape: 'v30', journalMode: 'delete'});
		w.createSession({source: 'cli', startedAt: T0});
		w.close();
		const listing = fs.readdirSync(dir).sort();
		const r = await newReader().read(db);
		expect(r).toMatchObject({shm: null, error: null});
		expect(r.dbHeader!.journalMode).toBe('rollback');
		expect(fs.readdirSync(dir).sort()).toEqual(listing);
	});

	it('names a missing database', async () => {
		const r = await newReader().read(path.join(tempDir('nodb'), 'state.db'));
		expect(r.shm).toBeNull();
		expect(r.dbHeader).toBeNull();
		expect(r.error).toMatch(/ENOENT/);
	});

	it('retries a header that never becomes consistent, then returns it with shm-unstable', async () => {
		const s = await liveStore('unstable', 3);
		await s.w.kill();
		const dir = tempDir('unstable-copy');
		const db = path.join(dir, 'state.db');
		fs.copyFileSync(s.db, db);
		const shm = fs.readFileSync(s.shm);
		shm.writeUInt32LE(shm.readUInt32LE(48 + 16) + 1, 48 + 16);
		fs.writeFileSync(`${db}-shm`, shm);
		const r = await newReader().read(db);
		expect(r.error).toMatch(/shm-unstable/);
		expect(r.attempts).toBe(8);
		expect(r.shm!.copiesEqual).toBe(false);
		expect(r.shm!.consistent).toBe(false);
		expect(r.dbHeader).not.toBeNull();
	});

	it('kills a reader that does not answer within the timeout, and leaves no process behind', async () => {
		const s = await liveStore('silent', 2);
		const dir = tempDir('silent');
		const hang = path.join(dir, 'hang.sh');
		fs.writeFileSync(hang, '#!/bin/sh\nexec sleep 30\n', {mode: 0o755});
		const reader = newReader({headCommand: [hang], timeoutMs: 300});
		const started = Date.now();
		const r = await reader.read(s.db);
		expect(Date.now() - started).toBeLessThan(5000);
		expect(r.error).toMatch(/timeout/);
		expect(r.shm).toBeNull();
		await waitFor(() => !processAlive(reader.lastChildPid!), 2000);
		// The default reader on the same store is fine.
		expect((await newReader().read(s.db)).error).toBeNull();
	});

	it('says so when the reading program is missing, instead of failing later', async () => {
		const s = await liveStore('noprog', 2);
		const r = await newReader({headCommand: ['/nonexistent/head']}).read(s.db);
		expect(r.shm).toBeNull();
		expect(r.error).toMatch(/reader-unavailable/);
	});

	it('names a -shm it may not read (EACCES), without treating it as absent', async () => {
		const s = await liveStore('perm', 2);
		const dir = tempDir('perm');
		const db = path.join(dir, 'state.db');
		fs.copyFileSync(s.db, db);
		fs.copyFileSync(s.shm, `${db}-shm`);
		fs.chmodSync(dir, 0o755);
		fs.chmodSync(db, 0o644);
		if (process.getuid?.() === 0) {
			// root reads anything: read as nobody, in a child, a -shm only root may read.
			fs.chmodSync(`${db}-shm`, 0o600);
			const shmModule = pathToFileURL(path.join(ROOT, 'dist/store/files/shm.js')).href;
			const code = `
				const {ShmReader} = await import(${JSON.stringify(shmModule)});
				const r = await new ShmReader().read(${JSON.stringify(db)});
				console.log(JSON.stringify({shm: r.shm, error: r.error, db: r.dbHeader !== null}));
			`;
			const out = spawnSync(process.execPath, ['--input-type=module', '-e', code], {
				encoding: 'utf8',
				uid: 65_534,
				gid: 65_534,
				timeout: 20_000,
			});
			expect(out.stderr).toBe('');
			expect(JSON.parse(out.stdout)).toEqual({shm: null, error: 'EACCES', db: true});
		} else {
			fs.chmodSync(`${db}-shm`, 0o000);
			const r = await newReader().read(db);
			expect({shm: r.shm, error: r.error, db: r.dbHeader !== null}).toEqual({shm: null, error: 'EACCES', db: true});
		}
	});
});

describe('parseShmHeader', () => {
	it('decodes both copies, the checksum, read marks and page size the way walIndexTryHdr checks them', async () => {
		const s = await liveStore('parse', 4);
		await s.w.kill();
		// No SQLite connection in this process to this store: a plain read is harmless here.
		const real = fs.readFileSync(s.shm).subarray(0, SHM_HEADER_BYTES);
		const base = parseShmHeader(real);
		expect(base.consistent).toBe(true);
		expect(base.readMarks).toHaveLength(5);
		expect(() => parseShmHeader(real.subarray(0, 100))).toThrow(RangeError);

		const copy1Only = Buffer.from(real);
		copy1Only.writeUInt32LE(base.mxFrame + 1, 16);
		expect(parseShmHeader(copy1Only)).toMatchObject({
			mxFrame: base.mxFrame + 1,
			copiesEqual: false,
			checksumValid: false,
			consistent: false,
		});

		const bothUnsealed = Buffer.from(copy1Only);
		bothUnsealed.copy(bothUnsealed, 48, 0, 48);
		expect(parseShmHeader(bothUnsealed)).toMatchObject({copiesEqual: true, checksumValid: false, consistent: false});

		const resealed = Buffer.from(bothUnsealed);
		reseal(resealed, true);
		expect(parseShmHeader(resealed)).toMatchObject({
			mxFrame: base.mxFrame + 1,
			copiesEqual: true,
			checksumValid: true,
			consistent: true,
		});

		const notInit = Buffer.from(real);
		notInit[12] = 0;
		reseal(notInit, true);
		expect(parseShmHeader(notInit)).toMatchObject({
			isInit: 0,
			checksumValid: true,
			copiesEqual: true,
			consistent: false,
		});

		const big = Buffer.from(real);
		big.writeUInt16LE(1, 14);
		big.writeUInt32LE(0xff_ff_ff_ff, 104);
		big.writeUInt32LE(77, 108);
		big.writeUInt32LE(123, 96);
		big.writeUInt32LE(456, 128);
		reseal(big, true);
		expect(parseShmHeader(big)).toMatchObject({
			szPage: 1,
			pageSize: 65_536,
			nBackfill: 123,
			nBackfillAttempted: 456,
			consistent: true,
		});
		expect(parseShmHeader(big).readMarks.slice(1, 3)).toEqual([null, 77]);
	});

	it("decodes a big-endian host's header when told the byte order", async () => {
		const s = await liveStore('be', 2);
		await s.w.kill();
		const le = fs.readFileSync(s.shm).subarray(0, SHM_HEADER_BYTES);
		const base = parseShmHeader(le);
		const be = Buffer.from(le);
		for (const o of [0, 4, 8, 16, 20, 24, 28, 96, 100, 104, 108, 112, 116, 128]) {
			be.writeUInt32BE(le.readUInt32LE(o), o);
		}

		be.writeUInt16BE(le.readUInt16LE(14), 14);
		reseal(be, false);
		const parsed = parseShmHeader(be, {littleEndian: false});
		expect(parsed.consistent).toBe(true);
		expect({...parsed, byteOrder: 'le', checksum: null}).toEqual({...base, checksum: null});
	});
});
