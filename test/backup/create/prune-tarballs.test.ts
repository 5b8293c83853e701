/**
 * --keep over stamped tarballs (source/backup/create/prune-tarballs.ts), on real files: each NAME
 * and extension is one series, kept to its newest N by the stamp and its newest drilled one beyond
 * them; only tarballs a verify or drill recorded as this home's count; one never verified is left
 * and named as unknown, one of another home is left and not named; each pruned file gets a prune
 * record. --keep 0 keeps all; a folder that is not there prunes nothing.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import {afterAll, describe, expect, it} from 'vitest';
import {TARBALL_PATTERN, pruneTarballs} from '../../../source/backup/create/prune-tarballs.js';
import {appendRecord, fingerprintOf, readRecords} from '../../../source/backup/records.js';

const made: string[] = [];
afterAll(() => {
	for (const d of made) {
		fs.rmSync(d, {recursive: true, force: true});
	}
});

const NEWEST = '20260101_080000_a1b2c3';

/** A home whose state.db holds NEWEST, and its folder of tarballs. */
function home(): {root: string; dir: string} {
	const root = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-prune-tar-'));
	made.push(root);
	const w = new Database(path.join(root, 'state.db'));
	w.exec('CREATE TABLE sessions (id TEXT PRIMARY KEY)');
	w.prepare('INSERT INTO sessions VALUES (?)').run(NEWEST);
	w.close();
	const dir = path.join(root, 'backups');
	fs.mkdirSync(dir);
	return {root, dir};
}

/** A tarball, recorded by a verify (or drill) as holding `newest` in its state.db, or not recorded. */
function tarball(dir: string, name: string, recorded: {event: 'verify' | 'drill'; newest: string} | null): void {
	fs.writeFileSync(path.join(dir, name), `tar of ${name}`);
	if (recorded) {
		const fp = fingerprintOf(path.join(dir, name));
		appendRecord(dir, {
			at: 1,
			event: recorded.event,
			artifact: name,
			kind: 'tar',
			ok: true,
			exitCode: 0,
			...fp,
			summary: 'sound',
			details: {identity: [{path: 'state.db', newest: [recorded.newest]}]},
		});
	}
}

const mine = (event: 'verify' | 'drill' = 'verify') => ({event, newest: NEWEST});

describe('TARBALL_PATTERN', () => {
	it('NAME-YYYYmmdd-HHMMSS with .tar.gz, .tgz or .tar', () => {
		expect(TARBALL_PATTERN.exec('hermes-data-20260101-000000.tar.gz')?.slice(1)).toEqual([
			'hermes-data',
			'20260101-000000',
			'tar.gz',
		]);
		expect(TARBALL_PATTERN.test('x-20260101-000000.tgz')).toBe(true);
		expect(TARBALL_PATTERN.test('x-20260101-000000.tar')).toBe(true);
		expect(TARBALL_PATTERN.test('x-20260101.tar.gz')).toBe(false);
		expect(TARBALL_PATTERN.test('x-20260101-000000.zip')).toBe(false);
	});
});

describe('pruneTarballs', () => {
	it("keeps each series' newest N and its newest drilled; leaves the unverified and another home's", () => {
		const {root, dir} = home();
		tarball(dir, 'hermes-data-20260101-000000.tar.gz', mine('drill'));
		tarball(dir, 'hermes-data-20260102-000000.tar.gz', mine());
		tarball(dir, 'hermes-data-20260103-000000.tar.gz', mine());
		tarball(dir, 'hermes-data-20260104-000000.tar.gz', null);
		tarball(dir, 'hermes-data-20251231-000000.tar.gz', {event: 'verify', newest: '20250101_000000_ffffff'});
		tarball(dir, 'hermes-data-20260101-000000.tgz', mine());
		tarball(dir, 'hermes-data-20251230-000000.tgz', mine());
		const retention = pruneTarballs(dir, 1, root);
		expect(retention).toEqual({
			series: [
				{
					pattern: 'hermes-data-*.tar.gz',
					kept: 2,
					pruned: ['hermes-data-20260102-000000.tar.gz'],
					keptDrilled: 'hermes-data-20260101-000000.tar.gz',
				},
				{pattern: 'hermes-data-*.tgz', kept: 1, pruned: ['hermes-data-20251230-000000.tgz'], keptDrilled: null},
			],
			unknown: ['hermes-data-20260104-000000.tar.gz'],
		});
		expect(fs.readdirSync(dir).sort()).toEqual([
			'hermes-data-20251231-000000.tar.gz',
			'hermes-data-20260101-000000.tar.gz',
			'hermes-data-20260101-000000.tgz',
			'hermes-data-20260103-000000.tar.gz',
			'hermes-data-20260104-000000.tar.gz',
			'hfx-records.jsonl',
		]);
		const prunes = readRecords(dir).filter(r => r.event === 'prune');
		expect(prunes.map(r => [r.artifact, r.summary])).toEqual([
			['hermes-data-20260102-000000.tar.gz', 'pruned by --keep 1 (series hermes-data-*.tar.gz)'],
			['hermes-data-20251230-000000.tgz', 'pruned by --keep 1 (series hermes-data-*.tgz)'],
		]);
	});

	it('a drilled one among the newest N is no extra keep', () => {
		const {root, dir} = home();
		tarball(dir, 'd-20260101-000000.tar', mine());
		tarball(dir, 'd-20260102-000000.tar', mine('drill'));
		expect(pruneTarballs(dir, 1, root).series).toEqual([
			{pattern: 'd-*.tar', kept: 1, pruned: ['d-20260101-000000.tar'], keptDrilled: null},
		]);
	});

	it('a tarball changed since its verify no longer counts as this home’s', () => {
		const {root, dir} = home();
		tarball(dir, 'd-20260101-000000.tar', mine());
		tarball(dir, 'd-20260102-000000.tar', mine());
		fs.appendFileSync(path.join(dir, 'd-20260101-000000.tar'), 'more');
		expect(pruneTarballs(dir, 1, root)).toEqual({
			series: [{pattern: 'd-*.tar', kept: 1, pruned: [], keptDrilled: null}],
			unknown: ['d-20260101-000000.tar'],
		});
	});

	it('--keep 0 keeps all; a folder that is not there prunes nothing', () => {
		const {root, dir} = home();
		tarball(dir, 'd-20260101-000000.tar', mine());
		tarball(dir, 'd-20260102-000000.tar', mine());
		expect(pruneTarballs(dir, 0, root).series).toEqual([{pattern: 'd-*.tar', kept: 2, pruned: [], keptDrilled: null}]);
		expect(fs.readdirSync(dir)).toHaveLength(3);
		expect(pruneTarballs(path.join(root, 'none'), 1, root)).toEqual({series: [], unknown: []});
	});
});
