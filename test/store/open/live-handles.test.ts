/**
 * store/open/live-handles.ts: which files this process holds a SQLite connection to. With none open (the live view
 * between its reads, where it looks at the store before each), the answer is had without looking at the file.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterAll, describe, expect, it, vi} from 'vitest';
import {hasLiveHandle, liveHeader, registerLiveHandle} from '../../../source/store/open/live-handles.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-live-handles-'));
afterAll(() => fs.rmSync(dir, {recursive: true, force: true}));

describe('live handles', () => {
	it('tells a file held from one not held, under another name for it too', () => {
		const file = path.join(dir, 'a.db');
		const other = path.join(dir, 'b.db');
		fs.writeFileSync(file, 'x');
		fs.writeFileSync(other, 'y');
		fs.linkSync(file, path.join(dir, 'a-link.db'));
		const release = registerLiveHandle(file);
		expect(hasLiveHandle(file)).toBe(true);
		expect(hasLiveHandle(path.join(dir, 'a-link.db'))).toBe(true);
		expect(hasLiveHandle(other)).toBe(false);
		release();
		expect(hasLiveHandle(file)).toBe(false);
	});

	it('stats nothing to say so while this process holds no connection at all', () => {
		const file = path.join(dir, 'c.db');
		fs.writeFileSync(file, 'x');
		const stat = vi.spyOn(fs, 'statSync');
		try {
			expect(hasLiveHandle(file)).toBe(false);
			expect(liveHeader(file)).toBeUndefined();
			// Before: a stat of the file for each question, three a refresh.
			expect(stat).not.toHaveBeenCalled();
		} finally {
			stat.mockRestore();
		}
	});
});
