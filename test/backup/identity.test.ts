/**
 * Whose home an archive without an hfx manifest is (source/backup/identity.ts): newestIds keeps the
 * newest three ids; identityOf reads a record's identity back only in its own shape; ownerByIdentity
 * compares each store's newest session against the home's live store (read-only, nothing made
 * beside it): held → this home, missing → another home, unreadable → unknown in words, and a store
 * the home lacks or an escaping path is no evidence either way.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import {afterAll, describe, expect, it} from 'vitest';
import {IDENTITY_IDS, identityOf, newestIds, ownerByIdentity} from '../../source/backup/identity.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-identity-'));
afterAll(() => {
	fs.rmSync(root, {recursive: true, force: true});
});

const MAIN_NEWEST = '20260102_090000_a1b2c3';
const WORK_NEWEST = '20260103_100000_d4e5f6';

function store(rel: string, ids: string[]): void {
	const file = path.join(root, rel);
	fs.mkdirSync(path.dirname(file), {recursive: true});
	const w = new Database(file);
	w.exec('CREATE TABLE sessions (id TEXT PRIMARY KEY)');
	for (const id of ids) {
		w.prepare('INSERT INTO sessions VALUES (?)').run(id);
	}

	w.close();
}

store('state.db', ['20260101_080000_000001', MAIN_NEWEST]);
store('profiles/work/state.db', [WORK_NEWEST]);
fs.mkdirSync(path.join(root, 'profiles/junk'), {recursive: true});
fs.writeFileSync(path.join(root, 'profiles/junk/state.db'), 'x'.repeat(4096));

describe('newestIds', () => {
	it('the newest three ids, oldest first, the input left as it was', () => {
		const ids = ['20260105_000000_e', '20260101_000000_a', '20260104_000000_d', '20260102_000000_b'];
		expect(IDENTITY_IDS).toBe(3);
		expect(newestIds(ids)).toEqual(['20260102_000000_b', '20260104_000000_d', '20260105_000000_e']);
		expect(ids[0]).toBe('20260105_000000_e');
		expect(newestIds(['x'])).toEqual(['x']);
	});
});

describe('identityOf', () => {
	it('reads back a list of {path, newest: string[]}', () => {
		const value = [{path: 'state.db', newest: ['a', 'b']}];
		expect(identityOf(value)).toEqual(value);
		expect(identityOf([])).toEqual([]);
	});

	it('null for anything else (the records file is a file anyone could edit)', () => {
		for (const bad of [null, 'state.db', {path: 'state.db', newest: []}, [null], [{path: 1, newest: []}]]) {
			expect(identityOf(bad)).toBeNull();
		}

		expect(identityOf([{path: 'state.db', newest: 'a'}])).toBeNull();
		expect(identityOf([{path: 'state.db', newest: ['a', 2]}])).toBeNull();
	});
});

describe('ownerByIdentity', () => {
	it('this home: each store it also has holds the newest session', () => {
		const owner = ownerByIdentity(
			[
				{path: 'state.db', newest: ['20260101_080000_000001', MAIN_NEWEST]},
				{path: 'profiles/work/state.db', newest: [WORK_NEWEST]},
				{path: 'profiles/gone/state.db', newest: ['20260101_000000_ffffff']},
			],
			root,
		);
		expect(owner).toEqual({owner: 'this', why: "its newest sessions are in this home's stores"});
	});

	it('another home: a newest session this home does not hold', () => {
		const owner = ownerByIdentity(
			[
				{path: 'state.db', newest: [MAIN_NEWEST]},
				{path: 'profiles/work/state.db', newest: ['20260109_000000_999999']},
			],
			root,
		);
		expect(owner).toEqual({
			owner: 'other',
			why:
				"its profiles/work/state.db's newest session 20260109_000000_999999 is not in this home's " +
				'profiles/work/state.db: an archive of another home',
		});
	});

	it('unknown, in words, when this home’s store cannot be read', () => {
		const owner = ownerByIdentity([{path: 'profiles/junk/state.db', newest: [MAIN_NEWEST]}], root);
		expect(owner.owner).toBe('unknown');
		expect(owner.why).toMatch(/^this home's profiles\/junk\/state.db cannot be read to compare \(.+\)$/);
	});

	it('unknown when no store can be compared: none in this home, no ids, an escaping or absolute path', () => {
		const outside = path.join(root, '..', path.basename(root), 'state.db');
		const owner = ownerByIdentity(
			[
				{path: 'profiles/gone/state.db', newest: [MAIN_NEWEST]},
				{path: 'state.db', newest: []},
				{path: `../${path.basename(root)}/state.db`, newest: [MAIN_NEWEST]},
				{path: outside, newest: [MAIN_NEWEST]},
			],
			root,
		);
		expect(owner).toEqual({owner: 'unknown', why: 'no store of it holds a session this home could be compared by'});
	});

	it('reads the live stores without making a file beside them', () => {
		const before = fs.readdirSync(root).sort();
		ownerByIdentity([{path: 'state.db', newest: [MAIN_NEWEST]}], root);
		expect(fs.readdirSync(root).sort()).toEqual(before);
	});
});
