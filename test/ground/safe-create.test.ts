/**
 * The one creator of files (source/ground/safe-create.ts) on a real file system: a link at a new file's
 * name, at a replaced file's name or as an own folder is refused (FailClosed, kind symlink) and its
 * target untouched; temp names are random (no pid in them); a failed replace leaves no temp behind.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {FailClosed} from '../../source/ground/errors.js';
import {
	createExclusive,
	ensureOwnFolder,
	openAppend,
	replaceFile,
	unguessableTemp,
	writeNewFile,
} from '../../source/ground/safe-create.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-safe-create-'));
afterAll(() => fs.rmSync(dir, {recursive: true, force: true}));

let n = 0;
/** A fresh folder with a victim file and a link `name` to it (or to nowhere). */
function scene(name: string, dangling = false): {folder: string; victim: string; link: string} {
	const folder = path.join(dir, `s${n++}`);
	fs.mkdirSync(folder);
	const victim = path.join(folder, 'victim');
	fs.writeFileSync(victim, 'precious\n');
	const link = path.join(folder, name);
	fs.symlinkSync(dangling ? path.join(folder, 'nowhere') : victim, link);
	return {folder, victim, link};
}

function refusedAsLink(fn: () => unknown): void {
	try {
		fn();
	} catch (error) {
		expect(error).toBeInstanceOf(FailClosed);
		expect((error as FailClosed).kind).toBe('symlink');
		expect((error as FailClosed).line()).toMatch(/symbolic link.*Next: /);
		return;
	}

	throw new Error('not refused');
}

describe('safe-create', () => {
	for (const dangling of [false, true]) {
		const what = dangling ? 'a dangling link' : 'a link to a victim';
		it(`a new file at ${what} is refused, never created through it`, () => {
			const s = scene('new.json', dangling);
			refusedAsLink(() => writeNewFile(s.link, 'x'));
			refusedAsLink(() => createExclusive(s.link));
			expect(fs.readFileSync(s.victim, 'utf8')).toBe('precious\n');
			expect(fs.existsSync(path.join(s.folder, 'nowhere'))).toBe(false);
		});

		it(`a replaced file that is ${what} is refused, the link kept, no temp left`, () => {
			const s = scene('hfx.prom', dangling);
			refusedAsLink(() => replaceFile(s.link, 'metrics\n', {mode: 0o644}));
			expect(fs.readFileSync(s.victim, 'utf8')).toBe('precious\n');
			expect(fs.lstatSync(s.link).isSymbolicLink()).toBe(true);
			expect(fs.readdirSync(s.folder).sort()).toEqual(['hfx.prom', 'victim']);
		});

		it(`an append to ${what} is refused`, () => {
			const s = scene('records.jsonl', dangling);
			expect(() => openAppend(s.link, w => new Error(`refused: ${w}`))).toThrow(/refused: a symbolic link/);
			expect(fs.readFileSync(s.victim, 'utf8')).toBe('precious\n');
		});
	}

	it('an own folder that is a link is refused; a real one is made 0700 or kept', () => {
		const s = scene('state-snapshots');
		fs.rmSync(s.link);
		fs.symlinkSync(dir, s.link);
		refusedAsLink(() => ensureOwnFolder(s.link));
		const real = path.join(s.folder, 'real');
		ensureOwnFolder(real);
		ensureOwnFolder(real);
		expect(fs.lstatSync(real).mode & 0o777).toBe(0o700);
	});

	it('replaces a plain file atomically with the mode asked; temp names are random, without the pid', () => {
		const folder = path.join(dir, 'plain');
		fs.mkdirSync(folder);
		const file = path.join(folder, 'hfx.prom');
		replaceFile(file, 'one\n', {mode: 0o644});
		replaceFile(file, 'two\n', {mode: 0o644, fsync: true});
		expect(fs.readFileSync(file, 'utf8')).toBe('two\n');
		expect(fs.statSync(file).mode & 0o777).toBe(0o644);
		expect(fs.readdirSync(folder)).toEqual(['hfx.prom']);
		const a = unguessableTemp(file);
		const b = unguessableTemp(file);
		expect(a).not.toBe(b);
		expect(path.basename(a)).toMatch(/^\.hfx\.prom\.[0-9a-f]{16}\.tmp$/);
		expect(path.basename(a)).not.toContain(String(process.pid));
	});
});
