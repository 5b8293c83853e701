/**
 * What `hfx backups` lists (source/backup/ops/list.ts), on real files in a temp home: archives of a
 * folder (ours newest first, then Hermes zips, other zips and tarballs; folders, hidden files and
 * other names left out) with their age from the records, the stamp or the mtime, their size, verify
 * and drill state from the records, and whose home they are; quick snapshots of the root and of
 * each profile (a folder's size); each folder listed once; a tarball placed by its stores' newest
 * sessions; --profile keeps the archives and that profile's snapshots.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import {afterAll, describe, expect, it} from 'vitest';
import {homeBackups, listArchives, listBackups, listSnapshots} from '../../../source/backup/ops/list.js';
import {appendRecord, fingerprintOf} from '../../../source/backup/records.js';

const made: string[] = [];
afterAll(() => {
	for (const d of made) {
		fs.rmSync(d, {recursive: true, force: true});
	}
});

const NOW = Date.UTC(2026, 0, 10) / 1000;
const NEWEST = '20260101_080000_a1b2c3';

function put(file: string, content: string | Buffer): string {
	fs.mkdirSync(path.dirname(file), {recursive: true});
	fs.writeFileSync(file, content);
	return file;
}

function record(dir: string, name: string, over: Record<string, unknown>): void {
	appendRecord(dir, {
		at: NOW - 100,
		event: 'verify',
		artifact: name,
		kind: 'archive',
		ok: true,
		exitCode: 0,
		...fingerprintOf(path.join(dir, name)),
		summary: 'sound',
		...over,
	});
}

/** A Hermes root with a store holding NEWEST, a backups folder, and snapshots of the root and of profile work. */
function home() {
	const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-list-')));
	made.push(root);
	const w = new Database(path.join(root, 'state.db'));
	w.exec('CREATE TABLE sessions (id TEXT PRIMARY KEY)');
	w.prepare('INSERT INTO sessions VALUES (?)').run(NEWEST);
	w.close();
	const dir = path.join(root, 'backups');
	put(path.join(dir, 'hfx-backup-20260105-000000.zip'), 'a'.repeat(100));
	put(path.join(dir, 'hfx-backup-20260105-000000-2.zip'), 'b'.repeat(50));
	put(path.join(dir, 'hfx-backup-20260101-000000.zip'), 'c');
	put(path.join(dir, 'hermes-backup-2026-01-02-000000.zip'), 'h');
	put(path.join(dir, 'photos.zip'), 'p');
	put(path.join(dir, 'data-20260103-000000.tar.gz'), 't');
	put(path.join(dir, '.hidden.zip'), 'x');
	put(path.join(dir, 'notes.txt'), 'x');
	fs.mkdirSync(path.join(dir, 'folder.zip'));
	put(path.join(root, 'state-snapshots/20260104-000000-tui/state.db'), 'x'.repeat(300));
	put(path.join(root, 'state-snapshots/20260104-000000-tui/manifest.json'), '{}');
	put(path.join(root, 'state-snapshots/not-a-snapshot/x'), '');
	put(path.join(root, 'profiles/work/state-snapshots/20260106-000000/state.db'), 'y'.repeat(10));
	put(path.join(root, 'profiles/Bad Name/state-snapshots/20260106-000000/state.db'), 'z');
	return {root, dir};
}

describe('listArchives', () => {
	it('ours newest first, then the others by name, only files, not hidden', () => {
		const {dir} = home();
		expect(listArchives(dir, NOW).map(e => [e.name, e.kind])).toEqual([
			['hfx-backup-20260105-000000-2.zip', 'hfx-archive'],
			['hfx-backup-20260105-000000.zip', 'hfx-archive'],
			['hfx-backup-20260101-000000.zip', 'hfx-archive'],
			['photos.zip', 'zip'],
			['hermes-backup-2026-01-02-000000.zip', 'hermes-archive'],
			['data-20260103-000000.tar.gz', 'tar'],
		]);
		expect(listArchives(path.join(dir, 'none'), NOW)).toEqual([]);
	});

	it('age from the records, else the stamp, else the mtime; size; verify, drill and failure from the records', () => {
		const {root, dir} = home();
		const a = 'hfx-backup-20260105-000000.zip';
		record(dir, a, {event: 'backup', createdAt: NOW - 1000, details: {complete: true, home: root}, level: 'write'});
		record(dir, a, {event: 'drill', at: NOW - 50});
		record(dir, 'hfx-backup-20260101-000000.zip', {event: 'verify', ok: false, summary: 'a member differs'});
		fs.utimesSync(path.join(dir, 'photos.zip'), NOW - 7, NOW - 7);
		const byName = Object.fromEntries(listArchives(dir, NOW, root).map(e => [e.name, e]));
		expect(byName[a]).toMatchObject({
			createdAt: NOW - 1000,
			ageSeconds: 1000,
			size: 100,
			verified: {at: NOW - 50, level: 'full', live: null},
			drilled: {at: NOW - 50},
			lastFailure: null,
			complete: true,
			home: root,
			owner: 'this',
		});
		expect(byName['hfx-backup-20260105-000000-2.zip']).toMatchObject({
			createdAt: Date.UTC(2026, 0, 5) / 1000,
			verified: null,
			complete: null,
			home: null,
			owner: 'unknown',
		});
		expect(byName['hfx-backup-20260101-000000.zip']!.lastFailure).toEqual({
			at: NOW - 100,
			event: 'verify',
			summary: 'a member differs',
		});
		expect(byName['photos.zip']!.createdAt).toBeCloseTo(NOW - 7, 0);
	});

	it('another home by its record; an older record’s root resolved; a file changed since its record', () => {
		const {root, dir} = home();
		record(dir, 'hfx-backup-20260101-000000.zip', {event: 'backup', details: {home: '/elsewhere'}});
		record(dir, 'photos.zip', {event: 'backup', details: {root: path.join(root, '.', 'backups', '..')}});
		fs.appendFileSync(path.join(dir, 'photos.zip'), 'more');
		const byName = Object.fromEntries(listArchives(dir, NOW, root).map(e => [e.name, e]));
		expect(byName['hfx-backup-20260101-000000.zip']).toMatchObject({home: '/elsewhere', owner: 'other'});
		expect(byName['photos.zip']).toMatchObject({home: root, owner: 'this', changedSinceRecorded: true});
	});

	it('a verify of a live tarball says what its -wal holds, in words', () => {
		const {dir} = home();
		const t = 'data-20260103-000000.tar.gz';
		record(dir, t, {kind: 'tar', details: {live: [{commits: 2, sidecars: ['state.db-wal', 'state.db-shm']}]}});
		expect(listArchives(dir, NOW).find(e => e.name === t)!.verified!.live).toBe(
			'its -wal holds 2 commits that a restore folds, its 2 sidecars are never restored (state.db-wal, state.db-shm)',
		);
		record(dir, t, {kind: 'tar', at: NOW - 10, details: {live: [{commits: 'many', sidecars: []}]}});
		expect(listArchives(dir, NOW).find(e => e.name === t)!.verified!.live).toBeNull();
	});
});

describe('listSnapshots and listBackups', () => {
	it('snapshots of the root and of each profile named as Hermes names them, with a folder’s size', () => {
		const {root} = home();
		expect(listSnapshots(root, NOW).map(e => [e.name, e.profile, e.size, e.owner])).toEqual([
			['20260104-000000-tui', 'default', 302, 'this'],
			['20260106-000000', 'work', 10, 'this'],
		]);
	});

	it('each folder once, the snapshots after the archives', () => {
		const {root, dir} = home();
		const all = listBackups({root, dirs: [dir, path.join(dir, '.'), `${dir}/`], now: NOW});
		expect(all.filter(e => e.kind === 'hfx-archive')).toHaveLength(3);
		expect(all.at(-1)!.kind).toBe('snapshot');
		expect(listBackups({root: null, dirs: [dir], now: NOW}).every(e => e.owner === 'unknown')).toBe(true);
	});
});

describe('homeBackups', () => {
	it('places a tarball by its stores’ newest sessions; --profile keeps that profile’s snapshots', () => {
		const {root, dir} = home();
		const t = 'data-20260103-000000.tar.gz';
		record(dir, t, {kind: 'tar', details: {identity: [{path: 'state.db', newest: [NEWEST]}]}});
		record(dir, 'photos.zip', {kind: 'zip', details: {identity: [{path: 'state.db', newest: ['20200101_0_x']}]}});
		const all = homeBackups({root, dirs: [dir], now: NOW});
		expect(all.find(e => e.name === t)).toMatchObject({owner: 'this', home: root});
		expect(all.find(e => e.name === 'photos.zip')).toMatchObject({owner: 'other', home: null});
		expect(all.find(e => e.name === 'hermes-backup-2026-01-02-000000.zip')!.owner).toBe('unknown');
		const work = homeBackups({root, dirs: [dir], now: NOW, profile: 'work'});
		expect(work.filter(e => e.kind === 'snapshot').map(e => e.profile)).toEqual(['work']);
		expect(work.filter(e => e.kind !== 'snapshot')).toHaveLength(6);
	});
});
