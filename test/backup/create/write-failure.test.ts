/**
 * Why a write failed (source/backup/create/write-failure.ts): an errno, or the one behind SQLite's
 * code (SQLITE_FULL is ENOSPC, SQLITE_IOERR_* is EIO), becomes the one-line refusal with its kind,
 * the cause in the one errno mapping's words and where the output can move (-o DIR for a backup, a
 * full backup elsewhere for a quick snapshot); an unknown error says its code and message; a
 * FailClosed passes through. freeBytes is the folder's free space, null when unknown.
 */
import fs from 'node:fs';
import os from 'node:os';
import {describe, expect, it} from 'vitest';
import {WRITE_ELSEWHERE, freeBytes, writeFailure} from '../../../source/backup/create/write-failure.js';
import {FailClosed, fileSizeLimit} from '../../../source/ground/errors.js';

const TARGET = '/backups/hfx-backup-20260101-000000.zip';

function err(code: string, message: string): Error {
	return Object.assign(new Error(message), {code});
}

describe('writeFailure', () => {
	it('ENOSPC: no space, the partial output removed, move with -o DIR', () => {
		const f = writeFailure(TARGET, err('ENOSPC', 'ENOSPC: no space left on device, write'), 'writing the archive');
		expect(f).toBeInstanceOf(FailClosed);
		expect(f.file).toBe(TARGET);
		expect(f.kind).toBe('no-space');
		expect(f.reason).toBe(
			'no space left on the device while writing the archive (ENOSPC); the partial output was removed',
		);
		expect(f.next).toBe('free space there or write elsewhere with -o DIR (df -h shows free space)');
	});

	it("SQLite's full and I/O codes stand for ENOSPC and EIO; EIO keeps SQLite's message", () => {
		const full = writeFailure(TARGET, err('SQLITE_FULL', 'database or disk is full'), 'copying state.db');
		expect(full.kind).toBe('no-space');
		expect(full.reason).toContain('(SQLITE_FULL, ENOSPC)');
		const io = writeFailure(TARGET, err('SQLITE_IOERR_WRITE', 'disk I/O error'), 'copying state.db');
		expect(io.kind).toBe(fileSizeLimit() === null ? 'io-error' : 'file-too-large');
		if (fileSizeLimit() === null) {
			expect(io.reason).toBe(
				'I/O error from the device while copying state.db (SQLITE_IOERR_WRITE, EIO: disk I/O error); ' +
					'the partial output was removed',
			);
			expect(io.next).toBe('check the disk (dmesg) and write elsewhere with -o DIR');
		}

		// A message that says full is full, whatever the code.
		expect(writeFailure(TARGET, err('SQLITE_ERROR', 'SQLITE_FULL: x'), 'x').kind).toBe('no-space');
	});

	it('a quick snapshot moves to a full backup elsewhere, having no -o', () => {
		const f = writeFailure(TARGET, err('EROFS', 'read-only'), 'writing the snapshot', WRITE_ELSEWHERE.quick);
		expect(f.kind).toBe('not-writable');
		expect(f.next).toBe(WRITE_ELSEWHERE.quick.choose);
		expect(f.next).toContain('hfx backup -o DIR');
	});

	it('an errno with no write words of its own takes the mapping’s next step and an errno kind', () => {
		const f = writeFailure(TARGET, err('ENAMETOOLONG', 'name too long'), 'naming the archive');
		expect(f.kind).toBe('errno-enametoolong');
		expect(f.reason).toMatch(/^the path is too long .* while naming the archive \(ENAMETOOLONG\)/);
		expect(f.next).toBe('pass a shorter path (cd to the folder first, or use a shorter link to it)');
	});

	it('an error with no errno: its code and message, the partial output removed', () => {
		const f = writeFailure(TARGET, err('ERR_SOMETHING', 'it broke'), 'sealing the archive');
		expect(f.kind).toBe('write-failed');
		expect(f.reason).toBe('failed while sealing the archive (ERR_SOMETHING: it broke); the partial output was removed');
		expect(writeFailure(TARGET, new Error('plain'), 'x').reason).toBe(
			'failed while x (error: plain); the partial output was removed',
		);
	});

	it('a FailClosed passes through as it is', () => {
		const refusal = new FailClosed({file: 'f', kind: 'no-space', reason: 'r', next: 'n'});
		expect(writeFailure(TARGET, refusal, 'x')).toBe(refusal);
	});
});

describe('freeBytes', () => {
	it("the folder's free space; null for a folder that is not there", () => {
		const s = fs.statfsSync(os.tmpdir());
		const free = freeBytes(os.tmpdir());
		expect(free).toBeGreaterThan(0);
		expect(Math.abs(free! - s.bavail * s.bsize)).toBeLessThan(64 * 1024 * 1024);
		expect(freeBytes('/no/such/folder')).toBeNull();
	});
});
