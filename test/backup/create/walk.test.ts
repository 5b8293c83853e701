/**
 * What a full backup and a quick snapshot include and exclude, on a real folder tree.
 */
import fs from 'node:fs';
import path from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {walkQuick, walkRoot} from '../../../source/backup/create/walk.js';
import {hfx, hfxJson} from '../../helpers/cli.js';
import {folderHashes} from '../../helpers/folder-hashes.js';
import {cleanupTemps, counts, makeHome, tempDir} from '../helpers.js';

afterAll(cleanupTemps);

describe('walkRoot: the whole Hermes root, excluded as Hermes excludes', () => {
	it(
		'includes config, credentials, memories, skills, cron, profiles and ' +
			'every *.db; excludes caches, runtimes, sidecars, pid/lock files, ' +
			'sockets and links',
		() => {
			const home = makeHome('walk', {socket: true});
			fs.writeFileSync(path.join(home.root, 'state.db-wal'), 'not a real wal');
			fs.writeFileSync(path.join(home.root, 'state.db-shm'), 'x');
			fs.writeFileSync(path.join(home.root, 'kanban.db-journal'), 'x');
			fs.writeFileSync(path.join(home.root, 'cron.pid'), '1');
			fs.mkdirSync(path.join(home.root, 'skills/__pycache__'));
			fs.writeFileSync(path.join(home.root, 'skills/__pycache__/x.pyc'), 'x');
			fs.symlinkSync('/etc/passwd', path.join(home.root, 'passwd-link'));
			fs.mkdirSync(path.join(home.root, 'hermes-agent'));
			fs.writeFileSync(path.join(home.root, 'hermes-agent/run.py'), 'code');
			fs.mkdirSync(path.join(home.root, 'state.db.retired-wal-20260101-000000-1'));
			fs.writeFileSync(path.join(home.root, 'state.db.retired-wal-20260101-000000-1/state.db-wal'), 'x');
			fs.writeFileSync(path.join(home.root, 'state.db.pre-update-emergency-2026-01-01T00-00-00-000000Z-1.bak'), 'x');
			const w = walkRoot(home.root);
			const included = w.entries.map(e => e.rel).sort();
			expect(included).toEqual([
				'.env',
				'SOUL.md',
				'auth.json',
				'cache/images/photo.png',
				'config.yaml',
				'cron/jobs.json',
				'memories/MEMORY.md',
				'profiles/work/config.yaml',
				'profiles/work/state.db',
				'skills/greet/SKILL.md',
				'state.db',
			]);
			expect(
				w.entries
					.filter(e => e.kind === 'db')
					.map(e => e.rel)
					.sort(),
			).toEqual(['profiles/work/state.db', 'state.db']);
			const excluded = new Map(w.excluded.map(e => [e.rel, e.why]));
			for (const rel of [
				'node_modules/',
				'models/',
				'profiles/work/runtimes/',
				'backups/',
				'state-snapshots/',
				'cache/http/',
				'skills/__pycache__/',
				'hermes-agent/',
				'state.db.retired-wal-20260101-000000-1/',
				'state.db-wal',
				'state.db-shm',
				'kanban.db-journal',
				'gateway.pid',
				'cron.pid',
				'state.db.quarantine.lock',
				'gateway.sock',
				'passwd-link',
				'state.db.pre-update-emergency-2026-01-01T00-00-00-000000Z-1.bak',
			]) {
				expect(excluded.has(rel), rel).toBe(true);
			}

			expect(excluded.get('gateway.sock')).toBe('socket');
			expect(excluded.get('passwd-link')).toMatch(/symbolic link/);
			expect(w.skipped).toEqual([]);
		},
	);

	it('never descends into the output folder', () => {
		const home = makeHome('walk-out');
		fs.mkdirSync(path.join(home.root, 'mine'));
		fs.writeFileSync(path.join(home.root, 'mine/x.zip'), 'x');
		const w = walkRoot(home.root, {skipPaths: [path.join(home.root, 'mine')]});
		expect(w.entries.some(e => e.rel.startsWith('mine'))).toBe(false);
	});
});

describe("walkQuick: Hermes' quick-snapshot file list", () => {
	it('takes the databases and the small config files only', () => {
		const home = makeHome('quick-walk');
		fs.mkdirSync(path.join(home.root, 'platforms/pairing'), {recursive: true});
		fs.writeFileSync(path.join(home.root, 'platforms/pairing/telegram.json'), '{}');
		fs.writeFileSync(path.join(home.root, 'gateway_state.json'), '{}');
		const w = walkQuick(home.root);
		expect(w.entries.map(e => e.rel).sort()).toEqual([
			'.env',
			'auth.json',
			'config.yaml',
			'cron/jobs.json',
			'gateway_state.json',
			'platforms/pairing/telegram.json',
			'state.db',
		]);
	});
});

/**
 * A home whose state.db and profiles/work are links to folders outside it (as an operator who
 * moved the data to another disk has it): the store lookup (hfx scan) reads both through the
 * links, so a backup must contain both. On the old code both were "excluded by design" and the
 * backup exited 0 without the main store.
 */
function linkedHome(tag: string) {
	const home = makeHome(tag);
	const outside = tempDir(`${tag}-outside`);
	fs.mkdirSync(path.join(outside, 'data'));
	fs.renameSync(home.db, path.join(outside, 'data', 'state.db'));
	fs.symlinkSync(path.join(outside, 'data', 'state.db'), home.db);
	fs.renameSync(path.join(home.root, 'profiles/work'), path.join(outside, 'work'));
	fs.symlinkSync(path.join(outside, 'work'), path.join(home.root, 'profiles/work'));
	return {...home, outside};
}

describe('links the store lookup follows are followed by the backup', () => {
	it(
		'walkRoot: a linked state.db and profiles/<name> are entries under the ' +
			"link's name, read at their real path; other links stay excluded; a " +
			'dangling one is skipped',
		() => {
			const home = linkedHome('walk-links');
			fs.symlinkSync(path.join(home.outside, 'data', 'state.db'), path.join(home.root, 'kanban.db'));
			fs.symlinkSync(path.join(home.outside, 'nowhere'), path.join(home.root, 'profiles/ghost'));
			fs.symlinkSync(home.root, path.join(home.root, 'profiles/loop'));
			const w = walkRoot(home.root);
			const byRel = new Map(w.entries.map(e => [e.rel, e]));
			expect(byRel.get('state.db')?.abs).toBe(path.join(home.outside, 'data', 'state.db'));
			expect(byRel.get('state.db')?.kind).toBe('db');
			expect(byRel.get('profiles/work/state.db')?.abs).toBe(path.join(home.outside, 'work', 'state.db'));
			expect(byRel.has('profiles/work/config.yaml')).toBe(true);
			expect(byRel.has('profiles/work/runtimes/x')).toBe(false);
			expect(w.followed.map(f => f.rel).sort()).toEqual(['profiles/work/', 'state.db']);
			const excluded = new Map(w.excluded.map(e => [e.rel, e.why]));
			expect(excluded.get('kanban.db')).toMatch(/symbolic link \(not followed\)/);
			expect(excluded.get('profiles/loop/')).toMatch(/a loop/);
			expect(w.skipped).toEqual([
				{rel: 'profiles/ghost', reason: expect.stringContaining('which does not exist') as string},
			]);
		},
	);

	it("walkQuick: a linked state.db is the snapshot's store, read at its real path", () => {
		const home = linkedHome('quick-links');
		const w = walkQuick(home.root);
		expect(w.entries.find(e => e.rel === 'state.db')?.abs).toBe(path.join(home.outside, 'data', 'state.db'));
	});

	it(
		'hfx backup contains what hfx scan reads through the links, and the ' +
			'drill passes on it; the stores are unchanged',
		() => {
			const home = linkedHome('backup-links');
			// Counted first: a test-side SQLite open of a WAL store without -shm creates one.
			const expected = counts(path.join(home.outside, 'data', 'state.db')).sessions;
			for (const s of ['-wal', '-shm']) {
				fs.rmSync(path.join(home.outside, 'data', `state.db${s}`), {force: true});
			}

			const before = folderHashes(home.outside);
			expect(hfx(['scan', '--home', home.root]).code).not.toBe(2);
			const out = tempDir('backup-links-out');
			const r = hfxJson(['backup', '--home', home.root, '-o', `${out}/`]);
			expect(r.code, r.stderr).toBe(0);
			expect(r.json.skipped).toEqual([]);
			expect(r.json.followedLinks.map((l: {path: string}) => l.path).sort()).toEqual(['profiles/work/', 'state.db']);
			expect(r.json.databases.map((d: {path: string}) => d.path).sort()).toEqual([
				'profiles/work/state.db',
				'state.db',
			]);
			const main = r.json.databases.find((d: {path: string}) => d.path === 'state.db');
			expect(main.counts.sessions).toBe(expected);
			const drill = hfx(['restore', '--drill', r.json.archive]);
			expect(drill.code, drill.stdout + drill.stderr).toBe(0);
			expect(folderHashes(home.outside)).toEqual(before);
		},
	);

	it('a store link that leads nowhere is named as skipped and the backup exits 1 (never complete without it)', () => {
		const home = linkedHome('backup-dangling');
		fs.rmSync(path.join(home.outside, 'data', 'state.db'));
		const out = tempDir('backup-dangling-out');
		const r = hfxJson(['backup', '--home', home.root, '-o', `${out}/`]);
		expect(r.code).toBe(1);
		expect(r.json.skipped).toEqual([
			{path: 'state.db', reason: expect.stringContaining('which does not exist') as string},
		]);
	});
});
