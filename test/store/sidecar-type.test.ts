/**
 * A file beside the store that is not a regular file (a FIFO named state.db-wal, a directory named
 * state.db-shm) is refused in one line, exit 2, nothing written: reading it, or letting SQLite open
 * it, would hang (a FIFO blocks its reader until a writer comes) or read what is not a WAL. A FIFO
 * given as an archive is no archive, and is never opened.
 */
import {execFileSync} from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {hfx} from '../helpers/cli.js';
import {ROOT} from '../helpers/writer.js';

const dirs: string[] = [];
afterAll(() => {
	for (const d of dirs) {
		fs.rmSync(d, {recursive: true, force: true});
	}
});

function storeWith(sidecar: string, make: (p: string) => void): {dir: string; db: string} {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-sidecar-'));
	dirs.push(dir);
	const db = path.join(dir, 'state.db');
	fs.copyFileSync(path.join(ROOT, 'test/fixtures/hermes-v21-incident/state.db'), db);
	make(path.join(dir, `state.db${sidecar}`));
	return {dir, db};
}

describe('a sidecar that is not a regular file', () => {
	it.each([
		['-wal', 'a FIFO', (p: string) => execFileSync('mkfifo', [p])],
		['-shm', 'a directory', (p: string) => fs.mkdirSync(p)],
	])('%s as %s: every command refuses it in one line, exit 2, without hanging or writing', (sidecar, what, make) => {
		const {dir, db} = storeWith(sidecar, make);
		const listing = fs.readdirSync(dir).sort();
		for (const command of ['scan', 'files', 'sessions', 'routing', 'repair']) {
			const started = Date.now();
			const r = hfx([command, '--db', db]);
			expect(r.code, command).toBe(2);
			expect(Date.now() - started, command).toBeLessThan(20_000);
			const lines = r.stderr.trim().split('\n');
			expect(lines, command).toHaveLength(1);
			expect(lines[0], command).toContain(`state.db${sidecar}: ${what}, not a regular file`);
			expect(lines[0], command).toContain('Next: move it aside');
			expect(fs.readdirSync(dir).sort(), command).toEqual(listing);
		}
	});
});

describe('a FIFO given as an archive', () => {
	it('verify and restore refuse it without opening it (a FIFO read would block forever)', () => {
		const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-fifo-archive-'));
		dirs.push(dir);
		const fifo = path.join(dir, 'backup.zip');
		execFileSync('mkfifo', [fifo]);
		expect(hfx(['verify', fifo]).code).toBe(2);
		const restore = hfx(['restore', fifo, '--to', path.join(dir, 'out'), '--yes']);
		expect(restore.code).toBe(2);
		expect(fs.existsSync(path.join(dir, 'out'))).toBe(false);
	});
});
