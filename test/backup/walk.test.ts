/**
 * What a full backup and a quick snapshot include and exclude, on a real folder tree.
 */
import fs from 'node:fs';
import path from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {walkQuick, walkRoot} from '../../source/backup/walk.js';
import {cleanupTemps, makeHome} from './helpers.js';

afterAll(cleanupTemps);

describe('walkRoot: the whole Hermes root, excluded as Hermes excludes', () => {
	it('includes config, credentials, memories, skills, cron, profiles and every *.db; excludes caches, runtimes, sidecars, pid/lock files, sockets and links', () => {
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
			'.env', 'SOUL.md', 'auth.json', 'cache/images/photo.png', 'config.yaml', 'cron/jobs.json', 'memories/MEMORY.md',
			'profiles/work/config.yaml', 'profiles/work/state.db', 'skills/greet/SKILL.md', 'state.db',
		]);
		expect(w.entries.filter(e => e.kind === 'db').map(e => e.rel).sort()).toEqual(['profiles/work/state.db', 'state.db']);
		const excluded = new Map(w.excluded.map(e => [e.rel, e.why]));
		for (const rel of ['node_modules/', 'models/', 'profiles/work/runtimes/', 'backups/', 'state-snapshots/', 'cache/http/', 'skills/__pycache__/', 'hermes-agent/', 'state.db.retired-wal-20260101-000000-1/',
			'state.db-wal', 'state.db-shm', 'kanban.db-journal', 'gateway.pid', 'cron.pid', 'state.db.quarantine.lock', 'gateway.sock', 'passwd-link', 'state.db.pre-update-emergency-2026-01-01T00-00-00-000000Z-1.bak']) {
			expect(excluded.has(rel), rel).toBe(true);
		}

		expect(excluded.get('gateway.sock')).toBe('socket');
		expect(excluded.get('passwd-link')).toMatch(/symbolic link/);
		expect(w.skipped).toEqual([]);
	});

	it('never descends into the output folder', () => {
		const home = makeHome('walk-out');
		fs.mkdirSync(path.join(home.root, 'mine'));
		fs.writeFileSync(path.join(home.root, 'mine/x.zip'), 'x');
		const w = walkRoot(home.root, {skipPaths: [path.join(home.root, 'mine')]});
		expect(w.entries.some(e => e.rel.startsWith('mine'))).toBe(false);
	});
});

describe('walkQuick: Hermes\' quick-snapshot file list', () => {
	it('takes the databases and the small config files only', () => {
		const home = makeHome('quick-walk');
		fs.mkdirSync(path.join(home.root, 'platforms/pairing'), {recursive: true});
		fs.writeFileSync(path.join(home.root, 'platforms/pairing/telegram.json'), '{}');
		fs.writeFileSync(path.join(home.root, 'gateway_state.json'), '{}');
		const w = walkQuick(home.root);
		expect(w.entries.map(e => e.rel).sort()).toEqual(['.env', 'auth.json', 'config.yaml', 'cron/jobs.json', 'gateway_state.json', 'platforms/pairing/telegram.json', 'state.db']);
	});
});
