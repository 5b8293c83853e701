/**
 * A restore's commit and re-check (source/backup/restore/commit.ts): its own pre-restore folder,
 * the current files kept there (old sidecars moved aside), each staged file renamed into place, a
 * failed rename listed while the rest go on; then every restored file read back and each database
 * checked through the read-only reader. Real files and real SQLite stores in temp folders.
 */
import fs from 'node:fs';
import path from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {sha256} from '../../../source/ground/crypto.js';
import {commit, makePreRestoreDir, preRestoreDirFor, reverify} from '../../../source/backup/restore/commit.js';
import type {PlannedMember, SourceMember} from '../../../source/backup/restore/types.js';
import {FailClosed} from '../../../source/ground/errors.js';
import {cleanupTemps, tempDir} from '../helpers.js';
import {tinyDb} from '../hostile-archives.js';

afterAll(cleanupTemps);

const NOW = new Date('2026-06-01T10:20:30Z');

function planned(target: string, rel: string, kind: 'file' | 'db', data: Buffer): PlannedMember {
	const dest = path.join(target, rel);
	const m: SourceMember = {
		path: rel,
		archivePath: rel,
		size: data.length,
		mode: 0o600,
		sha256: sha256().update(data).digest('hex'),
		crc32: null,
		kind,
	};
	return {m, dest, exists: fs.existsSync(dest)};
}

/** Each member's new bytes staged beside its destination, as stage.ts leaves them. */
function stage(plan: PlannedMember[], data: Record<string, Buffer>): Map<string, string> {
	return new Map(
		plan.map(p => {
			const temp = path.join(path.dirname(p.dest), `.${path.basename(p.dest)}.partial`);
			fs.writeFileSync(temp, data[p.m.path]!);
			return [p.m.path, temp];
		}),
	);
}

async function refused(fn: () => unknown): Promise<FailClosed> {
	try {
		await fn();
	} catch (error) {
		expect(error).toBeInstanceOf(FailClosed);
		return error as FailClosed;
	}

	throw new Error('no refusal');
}

describe('makePreRestoreDir', () => {
	it('makes backups/ and a new pre-restore-<stamp> folder, -1, -2 when that second is taken', () => {
		const target = tempDir('pre');
		const dirs = [0, 1, 2].map(() => makePreRestoreDir(target, '20260601-102030'));
		expect(dirs.map(d => path.relative(target, d))).toEqual([
			'backups/pre-restore-20260601-102030',
			'backups/pre-restore-20260601-102030-1',
			'backups/pre-restore-20260601-102030-2',
		]);
		expect(fs.statSync(path.join(target, 'backups')).mode & 0o777).toBe(0o700);
		expect(fs.statSync(dirs[0]!).mode & 0o777).toBe(0o700);
	});

	it('never through a link at backups/, nor into a file there', async () => {
		const target = tempDir('pre-link');
		const elsewhere = tempDir('pre-elsewhere');
		fs.symlinkSync(elsewhere, path.join(target, 'backups'));
		const e = await refused(() => makePreRestoreDir(target, '20260601-102030'));
		expect([e.kind, e.file]).toEqual(['symlink-in-target', path.join(target, 'backups')]);
		expect(e.reason).toContain('through this symbolic link');
		expect(fs.readdirSync(elsewhere)).toEqual([]);
		fs.rmSync(path.join(target, 'backups'));
		fs.writeFileSync(path.join(target, 'backups'), '');
		expect((await refused(() => makePreRestoreDir(target, 'x'))).reason).toContain('which is not a folder');
	});
});

describe('preRestoreDirFor', () => {
	it("a folder named for the time when a file is replaced or a database's sidecar is there; none for a drill", () => {
		const target = tempDir('pre-for');
		const fresh = [planned(target, 'state.db', 'db', Buffer.from('x'))];
		expect(preRestoreDirFor(fresh, target, 'to', NOW)).toBeNull();
		fs.writeFileSync(path.join(target, 'state.db-wal'), '');
		expect(preRestoreDirFor(fresh, target, 'drill', NOW)).toBeNull();
		expect(preRestoreDirFor(fresh, target, 'home', NOW)).toBe(
			path.join(target, 'backups', 'pre-restore-20260601-102030'),
		);
		fs.writeFileSync(path.join(target, 'config.yaml'), 'old');
		const replacing = [planned(target, 'config.yaml', 'file', Buffer.from('new'))];
		expect(preRestoreDirFor(replacing, target, 'to', NOW)).toBe(
			path.join(target, 'backups', 'pre-restore-20260601-102030-1'),
		);
	});
});

describe('commit', () => {
	it('keeps the current files, moves old sidecars aside, renames each staged file into place', () => {
		const target = tempDir('commit');
		for (const [rel, text] of [
			['config.yaml', 'old config'],
			['state.db', 'old db'],
			['state.db-wal', 'old wal'],
			['state.db-shm', 'old shm'],
		]) {
			fs.writeFileSync(path.join(target, rel!), text!);
		}

		const data = {
			'config.yaml': Buffer.from('new config'),
			'state.db': Buffer.from('new db'),
			'SOUL.md': Buffer.from('s'),
		};
		const plan = Object.entries(data).map(([rel, d]) => planned(target, rel, rel.endsWith('.db') ? 'db' : 'file', d));
		const staged = stage(plan, data);
		const preDir = preRestoreDirFor(plan, target, 'to', NOW)!;
		const r = commit(plan, staged, preDir);
		expect(r).toEqual({
			restored: ['config.yaml', 'state.db', 'SOUL.md'],
			failed: [],
			keptAside: ['config.yaml', 'state.db', 'state.db-wal', 'state.db-shm'],
			preDir,
			preCreated: true,
		});
		expect(fs.readFileSync(path.join(target, 'state.db'), 'utf8')).toBe('new db');
		expect(fs.readFileSync(path.join(target, 'config.yaml'), 'utf8')).toBe('new config');
		expect(fs.existsSync(path.join(target, 'state.db-wal'))).toBe(false);
		expect(fs.existsSync(path.join(target, 'state.db-shm'))).toBe(false);
		expect(fs.readdirSync(preDir).sort()).toEqual(['config.yaml', 'state.db', 'state.db-shm', 'state.db-wal']);
		expect(fs.readFileSync(path.join(preDir, 'state.db-wal'), 'utf8')).toBe('old wal');
		expect(fs.readFileSync(path.join(preDir, 'config.yaml'), 'utf8')).toBe('old config');
		expect([...staged.values()].some(t => fs.existsSync(t))).toBe(false);
	});

	it('a drill keeps nothing: old sidecars are removed, not kept', () => {
		const target = tempDir('commit-drill');
		fs.writeFileSync(path.join(target, 'state.db-wal'), 'old wal');
		const data = {'state.db': Buffer.from('new db')};
		const plan = [planned(target, 'state.db', 'db', data['state.db'])];
		const r = commit(plan, stage(plan, data), null);
		expect(r).toEqual({
			restored: ['state.db'],
			failed: [],
			keptAside: ['state.db-wal'],
			preDir: null,
			preCreated: false,
		});
		expect(fs.readdirSync(target)).toEqual(['state.db']);
	});

	it('a member whose rename fails is listed with its errno; the others are restored', () => {
		const target = tempDir('commit-fail');
		const data = {'a.txt': Buffer.from('a'), 'b.txt': Buffer.from('b')};
		const plan = Object.entries(data).map(([rel, d]) => planned(target, rel, 'file', d));
		const staged = stage(plan, data);
		fs.rmSync(staged.get('a.txt')!);
		const r = commit(plan, staged, null);
		expect(r.restored).toEqual(['b.txt']);
		expect(r.failed).toEqual([{path: 'a.txt', reason: expect.stringMatching(/^ENOENT: /)}]);
		expect(fs.readdirSync(target)).toEqual(['b.txt']);
	});
});

describe('reverify', () => {
	it("reads back every restored file and checks each database's integrity, counts and schema version", () => {
		const target = tempDir('reverify');
		const db = tinyDb(tempDir('reverify-src'), 3);
		const data = {'state.db': db, 'config.yaml': Buffer.from('c')};
		const plan = Object.entries(data).map(([rel, d]) => planned(target, rel, rel.endsWith('.db') ? 'db' : 'file', d));
		commit(plan, stage(plan, data), null);
		const ok = reverify(plan, ['state.db', 'config.yaml'], 1, () => ({
			counts: {sessions: 1, messages: 3},
			schemaVersion: null,
		}));
		expect(ok.postProblems).toEqual([]);
		expect(ok.databases).toEqual([
			{
				path: 'state.db',
				ok: true,
				integrity: ['ok'],
				counts: {sessions: 1, messages: 3},
				schemaVersion: null,
				problems: [],
			},
		]);
		const off = reverify(plan, ['state.db'], 1, () => ({counts: {sessions: 1, messages: 4}, schemaVersion: 30}));
		expect(off.postProblems).toEqual([
			'state.db: table messages has 3 rows, expected 4; schema version null, expected 30',
		]);
	});

	it('a restored file that differs or is gone, and a database that cannot be read; unrestored ones are skipped', () => {
		const target = tempDir('reverify-bad');
		const data = {'state.db': Buffer.alloc(4096, 0x41), 'config.yaml': Buffer.from('c'), 'gone.txt': Buffer.from('g')};
		const plan = Object.entries(data).map(([rel, d]) => planned(target, rel, rel.endsWith('.db') ? 'db' : 'file', d));
		commit(plan, stage(plan, data), null);
		fs.writeFileSync(path.join(target, 'config.yaml'), 'C');
		fs.rmSync(path.join(target, 'gone.txt'));
		const r = reverify(plan, ['state.db', 'config.yaml', 'gone.txt'], 1, () => undefined);
		expect(r.postProblems.slice(0, 2)).toEqual([
			'config.yaml: the restored file differs from the archive',
			'gone.txt: cannot be read back (ENOENT)',
		]);
		expect(r.postProblems[2]).toMatch(/^state\.db: cannot be read back: /);
		expect(r.databases.map(d => [d.path, d.ok])).toEqual([['state.db', false]]);
		expect(reverify(plan, [], 1, () => undefined)).toEqual({postProblems: [], databases: []});
	});
});
