/**
 * The records file (source/backup/records.ts), on real files: appendRecord appends one JSON line
 * and readRecords reads them back (a torn or foreign line ignored); a link, a folder or a hard-linked
 * file is refused in words before anything is written, and never read; an unwritable folder is
 * false, not thrown. statusFor says verified/drilled of this very file: the latest outcome wins, a
 * record of another size, mtime or seal no longer counts (changed since recorded).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {
	type BackupRecord,
	RECORDS_NAME,
	appendRecord,
	assertRecordsFile,
	fingerprintOf,
	readRecords,
	recordsFile,
	statusFor,
} from '../../source/backup/records.js';

const made: string[] = [];
function folder(): string {
	const d = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-records-'));
	made.push(d);
	return d;
}

afterAll(() => {
	for (const d of made) {
		fs.chmodSync(d, 0o755);
		fs.rmSync(d, {recursive: true, force: true});
	}
});

function rec(over: Partial<BackupRecord> = {}): Omit<BackupRecord, 'v'> {
	return {
		at: 100,
		event: 'verify',
		artifact: 'hfx-backup-20260101-000000.zip',
		kind: 'archive',
		ok: true,
		exitCode: 0,
		size: 10,
		mtimeMs: 1000,
		summary: 'sound',
		...over,
	};
}

describe('appendRecord and readRecords', () => {
	it('one line per record, read back in order; a torn or foreign line ignored', () => {
		const dir = folder();
		expect(recordsFile(dir)).toBe(path.join(dir, RECORDS_NAME));
		expect(readRecords(dir)).toEqual([]);
		expect(appendRecord(dir, rec({event: 'backup'}))).toBe(true);
		expect(appendRecord(dir, rec())).toBe(true);
		fs.appendFileSync(recordsFile(dir), '{"v":2,"artifact":"a","event":"verify"}\n{"v":1,"artifact":"x","ev');
		const lines = fs.readFileSync(recordsFile(dir), 'utf8').split('\n');
		expect(JSON.parse(lines[0]!)).toEqual({v: 1, ...rec({event: 'backup'})});
		expect(readRecords(dir).map(r => r.event)).toEqual(['backup', 'verify']);
	});

	it('refuses a link, a hard-linked file and a folder in words, writing nothing, and reads none of them', () => {
		const dir = folder();
		const target = path.join(dir, 'elsewhere.txt');
		fs.writeFileSync(target, '{"v":1,"artifact":"a","event":"verify"}\n');
		fs.symlinkSync(target, recordsFile(dir));
		expect(() => assertRecordsFile(dir)).toThrow(
			/a symbolic link \(to .*elsewhere.txt\): hfx appends its records only/,
		);
		expect(() => appendRecord(dir, rec())).toThrow(/hfx appends its records only to a plain file of its own/);
		expect(fs.readFileSync(target, 'utf8').split('\n')).toHaveLength(2);
		expect(readRecords(dir)).toEqual([]);

		fs.unlinkSync(recordsFile(dir));
		fs.linkSync(target, recordsFile(dir));
		expect(() => assertRecordsFile(dir)).toThrow(/a file with 2 hard links/);
		expect(() => appendRecord(dir, rec())).toThrow(/hard link/);
		expect(fs.readFileSync(target, 'utf8').split('\n')).toHaveLength(2);

		fs.unlinkSync(recordsFile(dir));
		fs.mkdirSync(recordsFile(dir));
		expect(() => assertRecordsFile(dir)).toThrow(/not a regular file/);
	});

	it('an absent file is fine before the first record', () => {
		expect(() => assertRecordsFile(folder())).not.toThrow();
	});

	it('a folder it cannot write to: false, nothing thrown', () => {
		const dir = folder();
		fs.chmodSync(dir, 0o555);
		const canWrite = (() => {
			try {
				fs.writeFileSync(path.join(dir, 'probe'), '');
				return true;
			} catch {
				return false;
			}
		})();
		// As root the mode does not stop a write: the case needs an ordinary user.
		expect(appendRecord(dir, rec())).toBe(canWrite);
		expect(appendRecord(path.join(dir, 'gone'), rec())).toBe(false);
	});
});

describe('fingerprintOf', () => {
	it('size and whole-millisecond mtime of a file; nulls for a folder or nothing', () => {
		const dir = folder();
		const file = path.join(dir, 'a.zip');
		fs.writeFileSync(file, 'abcd');
		fs.utimesSync(file, 1000, 1000.0004);
		expect(fingerprintOf(file)).toEqual({size: 4, mtimeMs: 1_000_000});
		expect(fingerprintOf(dir)).toEqual({size: null, mtimeMs: null});
		expect(fingerprintOf(path.join(dir, 'none'))).toEqual({size: null, mtimeMs: null});
	});
});

describe('statusFor', () => {
	const A = 'hfx-backup-20260101-000000.zip';
	const fp = {size: 10, mtimeMs: 1000, seal: 's1'};
	const r = (over: Partial<BackupRecord>): BackupRecord => ({v: 1, ...rec(over)});

	it('verified and drilled by the latest outcome; a later failure is the last failure', () => {
		const records = [
			r({event: 'backup', at: 10, createdAt: 9, seal: 's1'}),
			r({event: 'drill', at: 20}),
			r({event: 'verify', at: 30, ok: false, exitCode: 1}),
			r({artifact: 'other.zip', event: 'verify', at: 40}),
		];
		const s = statusFor(records, A, fp);
		expect(s.createdAt).toBe(9);
		expect(s.seal).toBe('s1');
		expect(s.drilled?.at).toBe(20);
		expect(s.verified).toBeNull();
		expect(s.lastFailure?.at).toBe(30);
		expect(s.changedSinceRecorded).toBe(false);
	});

	it('a failure older than the last success is no last failure', () => {
		const s = statusFor([r({at: 10, ok: false}), r({at: 20})], A, fp);
		expect(s.verified?.at).toBe(20);
		expect(s.lastFailure).toBeNull();
	});

	it('another size, mtime or seal: the records no longer count, the file changed since', () => {
		for (const moved of [{size: 11}, {mtimeMs: 2000}, {seal: 's2'}]) {
			const s = statusFor([r({at: 10, seal: 's1'})], A, {...fp, ...moved});
			expect(s.verified).toBeNull();
			expect(s.changedSinceRecorded).toBe(true);
		}
	});

	it('a record without size or mtime matches any; nothing recorded is no change', () => {
		expect(statusFor([r({size: null, mtimeMs: null})], A, fp).verified).not.toBeNull();
		expect(statusFor([], A, fp)).toMatchObject({verified: null, drilled: null, changedSinceRecorded: false});
	});
});
