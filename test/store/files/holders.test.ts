import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterAll, afterEach, describe, expect, it} from 'vitest';
import {
	type Holder,
	type HolderReport,
	describeHolder,
	findHolders,
	findHoldersOfAll,
	hfxRole,
	parseProcLocks,
	procLocksDevice,
	stopHoldersStep,
} from '../../../source/store/files/holders.js';
import {T0} from '../../fixtures/scenarios.js';
import {WriterProcess} from '../../helpers/writer.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-holders-'));
const writers: WriterProcess[] = [];
afterEach(async () => {
	for (const w of writers.splice(0)) {
		await w.kill();
	}
});
afterAll(() => fs.rmSync(dir, {recursive: true, force: true}));

async function liveWriter(name: string) {
	const db = path.join(dir, name);
	const w = new WriterProcess(db);
	writers.push(w);
	await w.started();
	const id = await w.create({source: 'telegram', startedAt: T0});
	await w.send({op: 'conversation', id, count: 5, from: T0, to: T0 + 10});
	return {db, w};
}

describe('holders of the store files', () => {
	it('names the writer process, the files it holds and its SQLite locks', async () => {
		const {db, w} = await liveWriter('a.db');
		const report = findHolders(db);
		expect(report.method).toBe('proc');
		const h = report.holders.find(x => x.pid === w.pid);
		expect(h).toBeDefined();
		expect(new Set(h!.files.map(f => f.role))).toEqual(new Set(['db', 'wal', 'shm']));
		expect(h!.locks.some(l => l.role === 'shm')).toBe(true);
		expect(h!.holdsDeletedWal).toBe(false);
		expect(describeHolder(h!)).toContain(`pid ${w.pid}`);
		expect(report.holders.map(x => x.pid)).not.toContain(process.pid);
	});

	it('finds the holders of several stores in one walk of /proc, each as findHolders alone does', async () => {
		const a = await liveWriter('all-a.db');
		const b = await liveWriter('all-b.db');
		const gone = path.join(dir, 'all-none.db');
		const [ra, rb, rn] = findHoldersOfAll([a.db, b.db, gone]);
		const shape = (r: HolderReport | undefined) =>
			r?.holders.map(h => ({pid: h.pid, files: h.files.map(f => [f.role, f.deleted]), locks: h.locks.length}));
		expect(ra!.holders.map(h => h.pid)).toEqual([a.w.pid]);
		expect(rb!.holders.map(h => h.pid)).toEqual([b.w.pid]);
		expect(rn!.holders).toEqual([]);
		expect(shape(ra)).toEqual(shape(findHolders(a.db)));
		expect(shape(rb)).toEqual(shape(findHolders(b.db)));
	});

	it('sees nobody once the writer is gone', async () => {
		const {db, w} = await liveWriter('b.db');
		await w.kill();
		expect(findHolders(db).holders).toEqual([]);
	});

	it('W7: flags a process that holds a deleted -wal inode (an old WAL generation)', async () => {
		const {db, w} = await liveWriter('c.db');
		fs.unlinkSync(`${db}-wal`);
		const report = findHolders(db);
		const h = report.holders.find(x => x.pid === w.pid)!;
		expect(h.holdsDeletedWal).toBe(true);
		expect(h.files.find(f => f.role === 'wal')!.target).toMatch(/c\.db-wal \(deleted\)$/);
		expect(describeHolder(h)).toContain('deleted wal');
	});
});

describe('an hfx holder named for what it is', () => {
	const holder = (pid: number, cmdline: string): Holder => ({
		pid,
		command: 'node',
		cmdline,
		files: [{role: 'db', fd: 21, target: '/h/state.db', deleted: false}],
		locks: [],
		holdsDeletedWal: false,
	});

	it('the live view (no command), a watch, another command; nothing for any other process', () => {
		expect(hfxRole(holder(1, 'node /opt/hfx/dist/hfx.js --db /h/state.db'))).toBe('hfx live view');
		expect(hfxRole(holder(2, '/usr/local/bin/hfx'))).toBe('hfx live view');
		expect(hfxRole(holder(3, 'node /opt/hfx/dist/hfx.js watch --textfile /x.prom'))).toBe('hfx watch');
		expect(hfxRole(holder(4, 'hfx backup -o /b'))).toBe('hfx backup');
		expect(hfxRole(holder(5, 'python3 -m hermes gateway run'))).toBeNull();
		expect(describeHolder(holder(1, 'node /opt/hfx/dist/hfx.js --db /h/state.db'))).toBe(
			'pid 1 (hfx live view: node /opt/hfx/dist/hfx.js --db /h/state.db) holds db',
		);
	});

	it('says how each lets go, and names the gateway only for a process that is not hfx', () => {
		const step = stopHoldersStep([holder(1, 'node /o/hfx.js'), holder(3, 'hfx watch')], 'run it again');
		expect(step).toBe('quit hfx (pid 1: the hfx live view, with q; pid 3: hfx watch, with Ctrl-C), then run it again');
		expect(stopHoldersStep([holder(1, 'node /o/hfx.js'), holder(7, 'python3 gateway')], 'go')).toMatch(
			/^quit hfx \(pid 1: the hfx live view, with q\), and stop the gateway/,
		);
	});
});

describe('/proc/locks parsing', () => {
	it('parses POSIX advisory lines and encodes devices as the kernel prints them', () => {
		const rows = parseProcLocks(
			'1: POSIX  ADVISORY  READ 1234 fe:00:5678 1073741826 1073742335\n2: ' +
				'OFDLCK ADVISORY  WRITE -1 08:01:99 0 EOF\n3: -> POSIX ADVISORY WRITE 77 ' +
				'fe:00:5678 120 120\n',
		);
		expect(rows).toHaveLength(3);
		expect(rows[0]).toMatchObject({pid: 1234, device: 'fe:00', ino: 5678, access: 'READ', start: '1073741826'});
		expect(rows[2]).toMatchObject({pid: 77, access: 'WRITE'});
		expect(procLocksDevice((0xfe << 8) | 0x01)).toBe('fe:01');
	});
});
