/**
 * Archive names within one second: the newest must always sort first, also after pruning freed a
 * lower number (three backups in one second with --keep 1 once kept two archives).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {resolveOutput, sortArchives} from '../../../source/backup/create/backup.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-naming-'));
afterAll(() => fs.rmSync(dir, {recursive: true, force: true}));

describe('archive names', () => {
	const stamp = '20261129-181201';
	const next = () => path.basename(resolveOutput(dir, `${dir}/`, stamp).file);

	it('numbers archives of the same second upwards, never reusing a number freed by pruning', () => {
		expect(next()).toBe(`hfx-backup-${stamp}.zip`);
		fs.writeFileSync(path.join(dir, next()), '');
		expect(next()).toBe(`hfx-backup-${stamp}-2.zip`);
		fs.writeFileSync(path.join(dir, next()), '');
		// --keep 1 pruned the first one: the next is still above the survivor, and sorts first.
		fs.rmSync(path.join(dir, `hfx-backup-${stamp}.zip`));
		const third = next();
		expect(third).toBe(`hfx-backup-${stamp}-3.zip`);
		fs.writeFileSync(path.join(dir, third), '');
		expect(sortArchives(fs.readdirSync(dir))[0]).toBe(third);
	});

	it('names a folder yet to be made, and refuses one it cannot list (here a file) instead of guessing', () => {
		expect(path.basename(resolveOutput(dir, `${dir}/new/`, stamp).file)).toBe(`hfx-backup-${stamp}.zip`);
		const file = path.join(dir, 'not-a-folder');
		fs.writeFileSync(file, '');
		expect(() => resolveOutput(dir, `${file}/`, stamp)).toThrow(/the output folder cannot be listed \(ENOTDIR/);
	});

	it("-o DIR means the folder when DIR exists or has no .zip ending; only a .zip name is the archive's file", () => {
		const folder = path.join(dir, 'backups');
		expect(resolveOutput(dir, folder, stamp)).toEqual({
			dir: folder,
			file: path.join(folder, `hfx-backup-${stamp}.zip`),
			explicitFile: false,
		});
		expect(resolveOutput(dir, path.join(dir, 'mine.zip'), stamp)).toEqual({
			dir,
			file: path.join(dir, 'mine.zip'),
			explicitFile: true,
		});
		const zipFolder = path.join(dir, 'old.zip');
		fs.mkdirSync(zipFolder);
		expect(resolveOutput(dir, zipFolder, stamp).dir).toBe(zipFolder);
	});
});
