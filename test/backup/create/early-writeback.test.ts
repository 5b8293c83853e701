/**
 * Early writeback: the fdatasyncs run while a file is written, the descriptor is closed once none
 * runs, a failure is thrown at close (never dropped), and both users (the archive stream and the
 * staging copy of a database) still produce files that verify sound.
 */
import fs from 'node:fs';
import path from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {ZipWriter} from '../../../source/backup/create/zip-writer.js';
import {EarlyWriteback} from '../../../source/backup/create/early-writeback.js';
import {copyDatabase} from '../../../source/backup/create/sqlite-copy.js';
import {checkDatabaseFileSync} from '../../../source/backup/check/db-check.js';
import {MANIFEST_NAME} from '../../../source/backup/manifest.js';
import {openZip, readMember} from '../../../source/backup/archive/zipread.js';
import {bigStore, cleanupTemps, counts, tempDir} from '../helpers.js';

afterAll(cleanupTemps);

const MIB = 1_048_576;
const openFds = (): number => fs.readdirSync('/proc/self/fd').length;

describe('EarlyWriteback', () => {
	it('fdatasyncs while the file grows, one at a time, and closes its descriptor', async () => {
		const file = path.join(tempDir('wb'), 'out.bin');
		const fd = fs.openSync(file, 'w');
		const fdsBefore = openFds();
		const wb = new EarlyWriteback(file, 2 * MIB);
		const chunk = Buffer.alloc(MIB, 0x5a);
		for (let i = 1; i <= 12; i++) {
			fs.writeSync(fd, chunk);
			wb.progress(i * MIB);
			// Each sync waited for (was: a 5 ms timer, which a slow disk outlasts): the count does not hang on the disk.
			await wb.settled();
		}

		// Once every 2 MiB: at 2, 4, ..., 12 MiB. Below `every` since the last start: nothing more starts.
		expect(wb.started).toBe(6);
		wb.progress(12 * MIB + 1);
		expect(wb.started).toBe(6);
		expect(openFds()).toBe(fdsBefore + 1);

		// One at a time: past the interval again while one runs, none starts.
		fs.writeSync(fd, Buffer.concat([chunk, chunk, chunk, chunk]));
		wb.progress(14 * MIB);
		wb.progress(16 * MIB);
		expect(wb.started).toBe(7);
		await wb.settled();
		wb.progress(16 * MIB);
		expect(wb.started).toBe(8);
		await wb.close();
		expect(openFds()).toBe(fdsBefore);
		fs.closeSync(fd);
		expect(fs.statSync(file).size).toBe(16 * MIB);
	});

	it('does nothing for a file smaller than its interval', async () => {
		const wb = new EarlyWriteback(path.join(tempDir('wb-small'), 'never-created.bin'), 64 * MIB);
		wb.progress(10 * MIB);
		expect(wb.started).toBe(0);
		await expect(wb.close()).resolves.toBeUndefined();
	});

	it('keeps a failure and throws it at close', async () => {
		const wb = new EarlyWriteback(path.join(tempDir('wb-fail'), 'missing', 'out.bin'), MIB);
		wb.progress(2 * MIB);
		await expect(wb.close()).rejects.toMatchObject({code: 'ENOENT'});
	});
});

describe('early writeback in its users', () => {
	it('an archive streamed with a writeback every MiB reads back member for member', async () => {
		const dir = tempDir('wb-zip');
		const file = path.join(dir, 'a.zip');
		const data = Buffer.alloc(6 * MIB);
		for (let i = 0; i < data.length; i += 4) {
			data.writeUInt32LE((i * 2_654_435_761) >>> 0, i);
		}

		const src = path.join(dir, 'member.bin');
		fs.writeFileSync(src, data);
		const writer = new ZipWriter(file, {writebackEvery: MIB});
		const member = await writer.addFd('member.bin', fs.openSync(src, 'r'), 'file', {
			mode: 0o600,
			mtime: new Date(),
			compress: false,
		});
		const written = await writer.finish(Buffer.from(JSON.stringify({members: [member]})));
		expect(writer.writebacks).toBeGreaterThanOrEqual(1);
		expect(fs.statSync(file).size).toBe(written.bytes);
		const z = await openZip(file);
		try {
			expect(z.seal).toBe(written.seal);
			expect(z.members.map(m => m.name).sort()).toEqual([MANIFEST_NAME, 'member.bin'].sort());
			const chunks: Buffer[] = [];
			const back = await readMember(z, z.members.find(m => m.name === 'member.bin')!, chunk =>
				chunks.push(Buffer.from(chunk)),
			);
			expect(back.crcOk).toBe(true);
			expect(back.sha256).toBe(member.sha256);
			expect(Buffer.concat(chunks).equals(data)).toBe(true);
		} finally {
			z.close();
		}
	});

	it('a staging copy written with a writeback every MiB is the same database', async () => {
		const dir = tempDir('wb-copy');
		const db = path.join(dir, 'state.db');
		bigStore(db, 20_000);
		const dest = path.join(tempDir('wb-copy-out'), 'copy.db');
		const copy = await copyDatabase(db, dest, {writebackEvery: MIB, pagesPerStep: 64});
		expect(copy.writebacks).toBeGreaterThanOrEqual(1);
		const check = checkDatabaseFileSync(dest);
		expect(check.integrity).toEqual(['ok']);
		expect(check.counts.messages).toBe(counts(db).messages);
		expect(check.counts).toEqual(copy.snapshotCounts);
	});
});
