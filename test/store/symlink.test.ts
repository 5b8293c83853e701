/**
 * Symbolic links (issue 17, class 2). SQLite resolves a linked database before opening it, so the
 * live -wal and -shm lie beside the link's target: hfx resolves the store's real path once and
 * reads the db and its sidecars there (on the old code it looked beside the link and read a
 * private copy without the WAL: every session committed since the last checkpoint missing). A
 * sidecar that is a link is refused with its true cause; files hfx appends to or writes into are
 * never reached through a planted link. Real binary, real stores written by a second process,
 * real links; every fault proves every byte of both folders unchanged.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {T0} from '../fixtures/scenarios.js';
import {hfx, hfxJson} from '../helpers/cli.js';
import {folderHashes, oneLine} from '../helpers/folder-hashes.js';
import {WriterProcess} from '../helpers/writer.js';

const dirs: string[] = [];
afterAll(() => {
	for (const d of dirs) {
		fs.rmSync(d, {recursive: true, force: true});
	}
});

function tempDir(tag: string): string {
	const d = fs.mkdtempSync(path.join(os.tmpdir(), `hfx-link-${tag}-`));
	dirs.push(d);
	return d;
}

/**
 * <base>/data/state.db written by a real writer that is then SIGKILLed (its -wal and -shm stay,
 * three sessions committed only in the WAL), and <base>/home/state.db a link to it.
 */
async function linkedCrashedStore(tag: string): Promise<{base: string; home: string; link: string; real: string}> {
	const base = tempDir(tag);
	const data = path.join(base, 'data');
	const home = path.join(base, 'home');
	fs.mkdirSync(data);
	fs.mkdirSync(home);
	const real = path.join(data, 'state.db');
	const w = new WriterProcess(real);
	await w.started();
	for (let i = 0; i < 3; i++) {
		const id = await w.create({
			source: 'telegram',
			userId: `u${i}`,
			sessionKey: `agent:main:telegram:dm:${i}`,
			chatId: String(i),
			chatType: 'dm',
			startedAt: T0 + i * 100,
		});
		await w.send({op: 'conversation', id, count: 4, from: T0 + i * 100 + 5, to: T0 + i * 100 + 50});
	}

	await w.kill();
	const link = path.join(home, 'state.db');
	fs.symlinkSync('../data/state.db', link);
	return {base, home, link, real};
}

describe('a symlinked state.db', () => {
	it(
		'is read at its target: the -wal beside the target (all committed ' +
			'sessions), the link and its target in the facts, no byte of either ' +
			'folder changed',
		async () => {
			const {base, home, link, real} = await linkedCrashedStore('read');
			expect(fs.statSync(`${real}-wal`).size).toBeGreaterThan(0);
			// A stale -wal beside the link (an older copy of the store left it): never the one read.
			fs.writeFileSync(path.join(home, 'state.db-wal'), Buffer.alloc(4096, 1));
			const before = folderHashes(base);
			const direct = hfxJson(['scan', '--db', real]);
			expect(direct.json.database.sessionCount).toBe(3);
			for (const args of [
				['scan', '--db', link],
				['scan', '--home', home],
				['sessions', '--db', link],
			]) {
				const r = hfxJson(args);
				expect(r.code, args.join(' ')).not.toBe(2);
				if (args[0] === 'scan') {
					expect(r.json.database.sessionCount, args.join(' ')).toBe(3);
					expect(r.json.database.path).toBe(real);
					expect(r.json.database.link).toEqual({path: link, target: real});
					expect(r.json.database.sizes.wal).toBe(fs.statSync(`${real}-wal`).size);
				}
			}

			const files = hfxJson(['files', '--db', link]);
			expect(files.json.database.link).toEqual({path: link, target: real});
			expect(files.json.sizes.wal).toBe(fs.statSync(`${real}-wal`).size);
			expect(files.json.sizes.shm).toBe(fs.statSync(`${real}-shm`).size);
			const text = hfx(['scan', '--db', link]).stdout;
			expect(text).toContain(`${link} is a symbolic link to ${real}`);
			expect(text).toContain("state.db-wal beside the link is not this store's");
			expect(folderHashes(base)).toEqual(before);
		},
	);

	it('a link that leads nowhere is one refusal naming the target, exit 2, nothing written', () => {
		const base = tempDir('dangling');
		const link = path.join(base, 'state.db');
		fs.symlinkSync('gone/state.db', link);
		const before = folderHashes(base);
		const r = hfx(['scan', '--db', link]);
		expect(r.code).toBe(2);
		expect(oneLine(r.stderr)).toContain('a symbolic link to gone/state.db, which does not exist');
		expect(folderHashes(base)).toEqual(before);
	});
});

describe('a symlinked state.db with its agent running', () => {
	it(
		"hfx files finds the agent holding the target's files and locks (the " +
			"/proc names are the real paths); the link's folder is unchanged",
		async () => {
			const base = tempDir('live');
			fs.mkdirSync(path.join(base, 'data'));
			fs.mkdirSync(path.join(base, 'home'));
			const real = path.join(base, 'data', 'state.db');
			const link = path.join(base, 'home', 'state.db');
			const w = new WriterProcess(real);
			try {
				await w.started();
				await w.create({source: 'cli', startedAt: T0});
				fs.symlinkSync(real, link);
				const before = folderHashes(path.join(base, 'home'));
				const r = hfxJson(['files', '--db', link]);
				expect(r.code, r.stderr).not.toBe(2);
				const holder = r.json.holders.holders.find((h: {pid: number}) => h.pid === w.pid);
				expect(holder, JSON.stringify(r.json.holders)).toBeDefined();
				expect(holder.locks.some((l: {role: string}) => l.role === 'shm')).toBe(true);
				expect(r.json.sizes.wal).toBe(fs.statSync(`${real}-wal`).size);
				expect(folderHashes(path.join(base, 'home'))).toEqual(before);
			} finally {
				await w.kill();
			}
		},
	);
});

describe('a sidecar that is a symbolic link', () => {
	it.each(['-wal', '-shm'])(
		'state.db%s as a link: refused with its true cause (a link SQLite will ' +
			'not open), not "permissions"; exit 2, no byte changed',
		async sidecar => {
			const {base, real} = await linkedCrashedStore(`side${sidecar}`);
			const kept = path.join(base, 'data', `kept${sidecar}`);
			fs.renameSync(`${real}${sidecar}`, kept);
			fs.symlinkSync(`kept${sidecar}`, `${real}${sidecar}`);
			const before = folderHashes(base);
			for (const command of ['scan', 'files', 'sessions', 'routing']) {
				const r = hfx([command, '--db', real]);
				expect(r.code, command).toBe(2);
				const line = oneLine(r.stderr);
				expect(line, command).toContain(`state.db${sidecar}: a symbolic link (to kept${sidecar})`);
				expect(line, command).toContain('SQLite refuses');
				expect(line, command).not.toMatch(/permission/i);
			}

			expect(folderHashes(base)).toEqual(before);
		},
	);
});

describe('files hfx appends to or writes into are never reached through a planted link', () => {
	it(
		'a backup whose records file is a link to another file refuses before ' +
			'writing anything; the linked file is unchanged',
		async () => {
			const {base, home} = await linkedCrashedStore('records');
			const victim = path.join(base, 'victim.txt');
			fs.writeFileSync(victim, 'root-owned file\n');
			fs.mkdirSync(path.join(home, 'backups'));
			fs.symlinkSync(victim, path.join(home, 'backups', 'hfx-records.jsonl'));
			const before = folderHashes(base);
			const r = hfx(['backup', '--home', home]);
			expect(r.code).toBe(2);
			expect(oneLine(r.stderr)).toContain(`hfx-records.jsonl: a symbolic link (to ${victim})`);
			expect(folderHashes(base)).toEqual(before);
			// The quick snapshot's records beside its snapshots: the same refusal, no snapshot written.
			fs.mkdirSync(path.join(home, 'state-snapshots'));
			fs.symlinkSync(victim, path.join(home, 'state-snapshots', 'hfx-records.jsonl'));
			const quickBefore = folderHashes(base);
			const quick = hfx(['backup', '--quick', '--home', home]);
			expect(quick.code).toBe(2);
			expect(oneLine(quick.stderr)).toContain(`hfx-records.jsonl: a symbolic link (to ${victim})`);
			expect(folderHashes(base)).toEqual(quickBefore);
		},
	);

	it(
		'a default backups/ folder that is a link is refused (nothing written ' + 'there); -o naming it on purpose writes',
		async () => {
			const {base, home} = await linkedCrashedStore('outdir');
			const elsewhere = path.join(base, 'elsewhere');
			fs.mkdirSync(elsewhere);
			fs.symlinkSync(elsewhere, path.join(home, 'backups'));
			const before = folderHashes(base);
			const r = hfx(['backup', '--home', home]);
			expect(r.code).toBe(2);
			expect(oneLine(r.stderr)).toContain('the default backup folder is a symbolic link');
			expect(folderHashes(base)).toEqual(before);
			const named = hfx(['backup', '--home', home, '-o', `${elsewhere}/`]);
			expect(named.code, named.stderr).toBe(0);
			expect(fs.readdirSync(elsewhere).some(n => n.endsWith('.zip'))).toBe(true);
		},
	);

	it(
		'verify appends its record only to a plain file: a planted link is ' +
			'refused in one line and the linked file is unchanged',
		async () => {
			const {base, home} = await linkedCrashedStore('verify-records');
			const out = path.join(base, 'out');
			expect(hfx(['backup', '--home', home, '-o', `${out}/`]).code).toBe(0);
			const archive = fs.readdirSync(out).find(n => n.endsWith('.zip'))!;
			const victim = path.join(base, 'victim.txt');
			fs.writeFileSync(victim, 'root-owned file\n');
			fs.rmSync(path.join(out, 'hfx-records.jsonl'));
			fs.symlinkSync(victim, path.join(out, 'hfx-records.jsonl'));
			const before = folderHashes(base);
			const r = hfx(['verify', path.join(out, archive)]);
			expect(r.code).not.toBe(0);
			expect(r.stderr).toContain(`hfx-records.jsonl: a symbolic link (to ${victim})`);
			expect(r.stderr).not.toMatch(/\n\s+at /);
			expect(folderHashes(base)).toEqual(before);
		},
	);
});
