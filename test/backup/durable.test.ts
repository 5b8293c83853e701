/**
 * fsync of files and folders (source/backup/durable.ts), on real files: a folder and a file are
 * synced; a folder whose filesystem refuses fsync (EINVAL, as /proc does) is let through, since the
 * rename stays atomic; a missing folder or file is thrown as it is; a file's EINVAL is not hidden.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {fsyncDir, fsyncFile} from '../../source/backup/durable.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-durable-'));
afterAll(() => {
	fs.rmSync(dir, {recursive: true, force: true});
});

describe('fsyncDir', () => {
	it('syncs a folder', () => {
		expect(() => fsyncDir(dir)).not.toThrow();
	});

	it('lets a folder through whose filesystem refuses fsync (EINVAL)', () => {
		expect(() => fsyncDir('/proc')).not.toThrow();
	});

	it('throws a missing folder as it is', () => {
		expect(() => fsyncDir(path.join(dir, 'gone'))).toThrow(expect.objectContaining({code: 'ENOENT'}));
	});
});

describe('fsyncFile', () => {
	it('syncs a file and leaves it as it was', () => {
		const file = path.join(dir, 'records.json');
		fs.writeFileSync(file, '{"a":1}');
		fsyncFile(file);
		expect(fs.readFileSync(file, 'utf8')).toBe('{"a":1}');
	});

	it('throws a missing file, and a refused fsync, as they are', () => {
		expect(() => fsyncFile(path.join(dir, 'gone'))).toThrow(expect.objectContaining({code: 'ENOENT'}));
		expect(() => fsyncFile('/proc/self/status')).toThrow(expect.objectContaining({code: 'EINVAL'}));
	});
});
