/**
 * The verifiers' temp extraction (source/backup/verify/temp-extraction.ts): a write failure there is
 * this machine's problem in the errno mapping's words, the up-front refusal when the folder cannot
 * hold the largest database, and the private folder it makes.
 */
import fs from 'node:fs';
import path from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {assertRoomFor, extractionFailure, makeTempDir} from '../../../source/backup/verify/temp-extraction.js';
import {FailClosed} from '../../../source/ground/errors.js';
import {OWN_TEMP, removeTemp} from '../../../source/ground/temps.js';
import {cleanupTemps, tempDir} from '../helpers.js';

afterAll(cleanupTemps);

const errno = (code: string, message = 'the OS said no') => Object.assign(new Error(message), {code});

describe('extractionFailure', () => {
	it('a full disk or quota is no-space, with the step to a larger TMPDIR', () => {
		for (const [code, cause] of [
			['ENOSPC', 'no space left on the device'],
			['EDQUOT', 'disk quota exceeded'],
		] as const) {
			const e = extractionFailure('/tmp/x', errno(code));
			expect(e).toBeInstanceOf(FailClosed);
			expect(e.toJSON()).toEqual({
				file: '/tmp/x',
				kind: 'no-space',
				reason:
					`cannot write the temp extraction for the database checks (${code}: ${cause}); ` +
					'the archive was not judged',
				next: 'free space there or point TMPDIR at a larger folder, then verify again',
			});
			expect(e.exitCode).toBe(2);
		}
	});

	it("any other failure is temp-write-failed, in that errno's words; an error without a code keeps its message", () => {
		const e = extractionFailure('/tmp/x', errno('EROFS'));
		expect(e.kind).toBe('temp-write-failed');
		expect(e.reason).toBe(
			'cannot write the temp extraction for the database checks (EROFS: read-only file system); ' +
				'the archive was not judged',
		);
		expect(e.next).toBe('write elsewhere (a writable folder), then verify again');
		const plain = extractionFailure('/tmp/x', new Error('boom'));
		expect(plain.kind).toBe('temp-write-failed');
		expect(plain.reason).toContain('(error: the system said: boom)');
	});
});

describe('assertRoomFor', () => {
	it('lets through what the folder can hold, and an unknown folder (the write fails later, in words)', () => {
		const dir = tempDir('room');
		expect(() => assertRoomFor(dir, 1024)).not.toThrow();
		expect(() => assertRoomFor(path.join(dir, 'absent'), Number.MAX_SAFE_INTEGER)).not.toThrow();
	});

	it('refuses more than the free space less a MiB, saying the MiB needed and free', () => {
		const dir = tempDir('room-full');
		const st = fs.statfsSync(dir);
		const free = Number(st.bavail) * Number(st.bsize);
		let error: unknown;
		try {
			assertRoomFor(dir, free);
		} catch (e) {
			error = e;
		}

		expect(error).toBeInstanceOf(FailClosed);
		const e = error as FailClosed;
		expect([e.file, e.kind, e.next]).toEqual([dir, 'no-space', 'point TMPDIR at a larger folder, then verify again']);
		expect(e.reason).toMatch(
			/^not enough free space for the temp extraction of the databases \(\d+ MiB needed, \d+ MiB free\)$/,
		);
		expect(() => assertRoomFor(dir, free - 2 * 1_048_576 - 65_536)).not.toThrow();
	});
});

describe('makeTempDir', () => {
	it('makes a new private hfx-verify folder under the given parent, a new one each time', () => {
		const parent = tempDir('mk');
		const a = makeTempDir({tmpDir: parent});
		const b = makeTempDir({tmpDir: parent});
		expect(a).not.toBe(b);
		for (const d of [a, b]) {
			expect(path.dirname(d)).toBe(parent);
			expect(OWN_TEMP.exec(path.basename(d))?.slice(1, 3)).toEqual(['verify', String(process.pid)]);
			expect(fs.statSync(d).mode & 0o777).toBe(0o700);
			removeTemp(d);
		}
	});
});
