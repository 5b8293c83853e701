/**
 * Refusals: one line naming the file, the cause and the next safe step, and the one way a caught
 * refusal ends a command; the one errno → (cause, next step) mapping, on real errors of the OS.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {
	FailClosed,
	asRefusal,
	errnoWords,
	fileRefusal,
	isErrnoError,
	refusalExit,
	refusalLine,
} from '../../source/ground/errors.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-errors-'));
afterAll(() => fs.rmSync(dir, {recursive: true, force: true}));

/** The error a real call throws. */
function thrown(fn: () => unknown): unknown {
	try {
		fn();
	} catch (error) {
		return error;
	}

	throw new Error('expected the call to throw');
}

describe('refusals', () => {
	it('FailClosed prints the same one line as refusalLine', () => {
		const r = {file: '/x/state.db', reason: 'not a store', next: 'check the path'};
		expect(new FailClosed({...r, kind: 'not-hermes'}).line()).toBe(
			'hfx: /x/state.db: not a store. Next: check the path',
		);
		expect(refusalLine(r)).toBe(new FailClosed({...r, kind: 'usage'}).line());
	});

	it("refusalExit prints a refusal's line and returns its exit code; anything else is rethrown", () => {
		const lines: string[] = [];
		const code = refusalExit(
			new FailClosed({file: 'f', kind: 'usage', reason: 'why', next: 'then', exitCode: 1}),
			line => lines.push(line),
		);
		expect(code).toBe(1);
		expect(lines).toEqual(['hfx: f: why. Next: then']);
		expect(() => refusalExit(new TypeError('bug'), line => lines.push(line))).toThrow('bug');
		expect(lines).toHaveLength(1);
	});
});

describe('the one errno mapping', () => {
	fs.writeFileSync(path.join(dir, 'file'), 'x');
	fs.symlinkSync('loop-b', path.join(dir, 'loop-a'));
	fs.symlinkSync('loop-a', path.join(dir, 'loop-b'));
	const cases: Array<[string, () => unknown, RegExp]> = [
		[
			'ELOOP',
			() => fs.statSync(path.join(dir, 'loop-a')),
			/^hfx: .*loop-a: too many levels of symbolic links .*\(ELOOP\) while looking it up\. Next: look at the links/,
		],
		[
			'ENAMETOOLONG',
			() => fs.statSync(path.join(dir, 'n'.repeat(300))),
			/: the path is too long .*\(ENAMETOOLONG\) while looking it up\. Next: pass a shorter path/,
		],
		[
			'ENOTDIR',
			() => fs.readFileSync(path.join(dir, 'file', 'state.db')),
			/file\/state\.db: a part of the path is a file, not a folder \(ENOTDIR\) while opening it\./,
		],
		['EISDIR', () => fs.readFileSync(dir), /: a folder where a file was expected \(EISDIR\) while reading it\./],
		[
			'ENOENT',
			() => fs.openSync(path.join(dir, 'absent'), 'r'),
			/absent: no such file or folder \(ENOENT\) while opening it\./,
		],
		['ENOTEMPTY', () => fs.rmdirSync(dir), /: the folder is not empty \(ENOTEMPTY\) while removing the folder\./],
	];

	it.each(cases)('%s from the OS is one line naming the file, its true cause and the next step', (code, call, line) => {
		const error = thrown(call);
		expect(isErrnoError(error)).toBe(true);
		const lines: string[] = [];
		expect(refusalExit(error, l => lines.push(l))).toBe(2);
		expect(lines).toHaveLength(1);
		expect(lines[0]).not.toContain('\n');
		expect(lines[0]).toMatch(line);
		expect(asRefusal(error)?.kind).toBe(`errno-${code.toLowerCase()}`);
	});

	it('permission problems are told apart from link problems', () => {
		expect(errnoWords('EACCES').cause).toBe('permission denied');
		expect(errnoWords('ELOOP').cause).not.toMatch(/permission/);
		expect(errnoWords('EFBIG').cause).toMatch(/^file size limit reached \(ulimit -f/);
		expect(errnoWords('EIO').cause).toMatch(/I\/O error/);
		expect(errnoWords('EWHATEVER', 'odd thing happened').cause).toBe('the system said: odd thing happened');
	});

	it('a failed copy names the file written when the write failed, and the source otherwise', () => {
		const efbig = Object.assign(new Error("EFBIG: file too large, copyfile '/a/src' -> '/t/dst'"), {
			code: 'EFBIG',
			syscall: 'copyfile',
			path: '/a/src',
			dest: '/t/dst',
		});
		expect(fileRefusal(efbig).line()).toMatch(
			/^hfx: \/t\/dst: file size limit reached .*\(EFBIG\) while writing it \(a copy of \/a\/src\)\. Next: raise the limit/,
		);
		const eacces = Object.assign(new Error("EACCES: permission denied, copyfile '/a/src' -> '/t/dst'"), {
			code: 'EACCES',
			syscall: 'copyfile',
			path: '/a/src',
			dest: '/t/dst',
		});
		expect(fileRefusal(eacces).line()).toMatch(
			/^hfx: \/a\/src: permission denied \(EACCES\) while copying it to \/t\/dst\. Next: run hfx as the user that owns it/,
		);
	});

	it('a given file and doing win; a refusal passes through; a non-errno error is not a refusal', () => {
		const error = thrown(() => fs.statSync(path.join(dir, 'loop-a')));
		expect(fileRefusal(error, {file: '/x/state.db', doing: 'reading the database header'}).line()).toMatch(
			/^hfx: \/x\/state\.db: too many levels .* while reading the database header\./,
		);
		const refusal = new FailClosed({file: 'f', kind: 'usage', reason: 'r', next: 'n'});
		expect(fileRefusal(refusal)).toBe(refusal);
		expect(asRefusal(new TypeError('bug'))).toBeNull();
		expect(asRefusal(Object.assign(new Error('x'), {code: 'SQLITE_CORRUPT'}))).toBeNull();
	});
});
