/**
 * Issue 29, class 1: a link planted at any path hfx writes is never written through. For every
 * output path (the metrics and watch textfile, the temp name the textfile writer used to take, a
 * backup's -o file, its records file, the backup lock, the default backups/ folder,
 * state-snapshots/ and its records file, the audit trail and its head, a restore's backups/), a link
 * to a victim file, a link to a victim folder and a dangling link are planted; the real binary
 * runs; the victim's bytes (sha256) and the folder's listing are unchanged, the dangling link's
 * target is not created, the link is still the link, and a refusal is one line naming it.
 */
import {spawn, spawnSync} from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {cleanupTemps, makeHome, tempDir} from '../backup/helpers.js';
import {hfx} from '../helpers/cli.js';
import {ROOT} from '../helpers/writer.js';

afterAll(cleanupTemps);

/** sha256 of every file under `p` (a file or a folder), by relative name: what must not change. */
function fingerprint(p: string): Record<string, string> {
	const st = fs.lstatSync(p);
	if (!st.isDirectory()) {
		return {'.': crypto.createHash('sha256').update(fs.readFileSync(p)).digest('hex')};
	}

	const out: Record<string, string> = {};
	for (const name of fs.readdirSync(p, {recursive: true}) as string[]) {
		const f = path.join(p, name);
		out[name] = fs.lstatSync(f).isFile()
			? crypto.createHash('sha256').update(fs.readFileSync(f)).digest('hex')
			: 'folder';
	}

	return out;
}

type Victim = {kind: 'file' | 'folder' | 'dangling'; target: string};

function victim(kind: Victim['kind']): Victim {
	const dir = tempDir('victim');
	if (kind === 'file') {
		return {
			kind,
			target: fs.writeFileSync(path.join(dir, 'passwd'), 'root:x:0:0::/root:/bin/bash\n') ?? path.join(dir, 'passwd'),
		};
	}

	if (kind === 'folder') {
		fs.writeFileSync(path.join(dir, 'keep'), 'untouched\n');
		return {kind, target: dir};
	}

	return {kind, target: path.join(dir, 'nowhere', 'x')};
}

type Case = {
	name: string;
	/** Where the link is planted, given the home root and an output folder. */
	at: (root: string, out: string) => string;
	args: (root: string, out: string) => string[];
};

let archive = '';

const CASES: Case[] = [
	{
		name: 'metrics --textfile target',
		at: (_r, out) => path.join(out, 'hfx.prom'),
		args: (r, out) => ['metrics', '--home', r, '--textfile', path.join(out, 'hfx.prom')],
	},
	{
		name: 'watch --textfile target',
		at: (_r, out) => path.join(out, 'hfx.prom'),
		args: (r, out) => ['watch', '--home', r, '--interval', '1s', '--textfile', path.join(out, 'hfx.prom')],
	},
	{
		name: 'backup -o FILE.zip',
		at: (_r, out) => path.join(out, 'mine.zip'),
		args: (r, out) => ['backup', '--home', r, '-o', path.join(out, 'mine.zip')],
	},
	{
		name: 'backup records file',
		at: (_r, out) => path.join(out, 'hfx-records.jsonl'),
		args: (r, out) => ['backup', '--home', r, '-o', out],
	},
	{
		name: 'backup lock',
		at: r => path.join(r, '.hfx-backup.lock'),
		args: (r, out) => ['backup', '--home', r, '-o', out],
	},
	{name: 'default backups/ folder', at: r => path.join(r, 'backups'), args: r => ['backup', '--home', r]},
	{
		name: 'state-snapshots/ folder',
		at: r => path.join(r, 'state-snapshots'),
		args: r => ['backup', '--quick', '--home', r],
	},
	{
		name: 'state-snapshots/ records file',
		at: r => path.join(r, 'state-snapshots', 'hfx-records.jsonl'),
		args: r => ['backup', '--quick', '--home', r],
	},
	{
		name: 'audit trail',
		at: r => path.join(r, 'hfx-audit.jsonl'),
		args: r => ['repair', '--apply', '--yes', '--db', path.join(r, 'state.db')],
	},
	{
		name: 'audit head',
		at: r => path.join(r, 'hfx-audit.head'),
		args: r => ['repair', '--apply', '--yes', '--db', path.join(r, 'state.db')],
	},
	{
		name: 'restore backups/ (pre-restore copies)',
		at: r => path.join(r, 'backups'),
		args: r => ['restore', archive, '--home', r, '--yes'],
	},
];

beforeAll(() => {
	const h = makeHome('links-archive');
	const out = tempDir('links-archives');
	const r = hfx(['backup', '--home', h.root, '-o', out]);
	expect(r.code, r.stderr).toBe(0);
	archive = path.join(out, fs.readdirSync(out).find(n => n.endsWith('.zip'))!);
});

/** A home and an output folder with a link planted at the case's path (what was there moved away). */
function plant(c: Case, v: Victim): {root: string; out: string; link: string} {
	const h = makeHome('links');
	const out = tempDir('links-out');
	const link = c.at(h.root, out);
	fs.rmSync(link, {recursive: true, force: true});
	fs.symlinkSync(v.target, link);
	return {root: h.root, out, link};
}

describe('a link planted at a path hfx writes is never followed', () => {
	for (const c of CASES) {
		for (const kind of ['file', 'folder', 'dangling'] as const) {
			it(`${c.name}: a link to a ${kind === 'dangling' ? 'nowhere (dangling)' : `victim ${kind}`}`, () => {
				const v = victim(kind);
				const before = kind === 'dangling' ? null : fingerprint(v.target);
				const {root, out, link} = plant(c, v);
				const r = hfx(c.args(root, out), {env: {HFX_NO_COMPILE_CACHE: '1'}});
				expect(r.stderr).not.toMatch(/^\s+at |internal error/m);
				if (kind === 'dangling') {
					expect(fs.existsSync(path.dirname(v.target))).toBe(false);
				} else {
					expect(fingerprint(v.target)).toEqual(before);
				}

				expect(fs.readlinkSync(link)).toBe(v.target);
				expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(2);
				const lines = r.stderr.trim().split('\n');
				expect(lines).toHaveLength(1);
				expect(lines[0]).toMatch(/link/i);
				expect(lines[0]).toContain('Next: ');
			});
		}
	}
});

describe("the textfile's temp name cannot be guessed", () => {
	it(
		'a link planted at the name the writer used to take ' +
			'(.hfx.prom.<pid>.tmp, the pid hfx runs as) is not followed',
		() => {
			const h = makeHome('links-temp');
			const out = tempDir('links-temp-out');
			const v = victim('file');
			const before = fingerprint(v.target);
			// exec keeps the shell's pid: the link names exactly the pid hfx will have.
			const script = `ln -s "$1" "$2/.hfx.prom.$$.tmp" && shift 2 && exec "$@"`;
			const r = spawnSync(
				'bash',
				[
					'-c',
					script,
					'plant',
					v.target,
					out,
					process.execPath,
					path.join(ROOT, 'dist/hfx.js'),
					'metrics',
					'--home',
					h.root,
					'--textfile',
					path.join(out, 'hfx.prom'),
				],
				{encoding: 'utf8', env: {...process.env, NO_COLOR: '1'}},
			);
			expect(fingerprint(v.target)).toEqual(before);
			expect(r.status, r.stderr).toBeLessThanOrEqual(1);
			expect(fs.lstatSync(path.join(out, 'hfx.prom')).isFile()).toBe(true);
			expect(fs.readFileSync(path.join(out, 'hfx.prom'), 'utf8')).toContain('hfx_store_up{');
			const names = fs.readdirSync(out);
			expect(names).toHaveLength(2);
			expect(fs.readlinkSync(path.join(out, names.find(n => n.endsWith('.tmp'))!))).toBe(v.target);
		},
	);
});

describe('a link planted while watch follows', () => {
	it(
		'the next rewrite of the textfile refuses it in one line, the watch goes ' +
			'on (as for any textfile write that fails), the victim untouched',
		async () => {
			const h = makeHome('links-watch');
			const out = tempDir('links-watch-out');
			const file = path.join(out, 'hfx.prom');
			const v = victim('file');
			const before = fingerprint(v.target);
			const child = spawn(
				process.execPath,
				[path.join(ROOT, 'dist/hfx.js'), 'watch', '--home', h.root, '--interval', '1s', '--textfile', file],
				{env: {...process.env, NO_COLOR: '1'}, stdio: ['ignore', 'pipe', 'pipe']},
			);
			let stderr = '';
			child.stderr.on('data', (d: Buffer) => {
				stderr += d.toString();
			});
			let exitCode: number | null | undefined;
			child.once('exit', code => {
				exitCode = code;
			});
			try {
				for (let i = 0; i < 200 && !fs.existsSync(file); i++) {
					await new Promise(resolve => setTimeout(resolve, 100));
				}

				expect(fs.lstatSync(file).isFile()).toBe(true);
				fs.rmSync(file);
				fs.symlinkSync(v.target, file);
				// The textfile is rewritten at every reading (every 1 s): the next one meets the link.
				for (let i = 0; i < 300 && !/symbolic link/.test(stderr); i++) {
					await new Promise(resolve => setTimeout(resolve, 100));
				}

				// Several more readings: each refuses the link again, silently (the one line stands), and the watch runs on.
				await new Promise(resolve => setTimeout(resolve, 3000));
				expect(exitCode).toBeUndefined();
			} finally {
				child.kill('SIGKILL');
			}

			expect(fingerprint(v.target)).toEqual(before);
			expect(fs.readlinkSync(file)).toBe(v.target);
			const lines = stderr.trim().split('\n');
			expect(lines).toHaveLength(1);
			expect(lines[0]).toMatch(/symbolic link.*Next: /);
		},
	);
});
