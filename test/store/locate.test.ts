/**
 * The owner profile of a store, derived from its own path as Hermes derives it
 * (docs/hermes-rules.md, owner), for any path: `…/profiles/<name>/state.db` is `<name>`, any other
 * store `default`; --home and --profile may confirm it, a conflict is refused.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {FailClosed} from '../../source/ground/errors.js';
import {locateStores, ownerOfStore} from '../../source/store/locate.js';
import {hfx, hfxJson} from '../helpers/cli.js';

const FIXTURE = path.resolve(import.meta.dirname, '../fixtures/hermes-generations/root');
const dirs: string[] = [];
afterAll(() => {
	for (const d of dirs) {
		fs.rmSync(d, {recursive: true, force: true});
	}
});

function tmp(): string {
	const d = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-locate-'));
	dirs.push(d);
	return d;
}

describe('ownerOfStore', () => {
	it.each([
		['/anywhere/profiles/work/state.db', 'work'],
		['/srv/copies/x/profiles/ops/state.db', 'ops'],
		['/root/.hermes/state.db', 'default'],
		['/tmp/state.db', 'default'],
		['/tmp/profiles/state.db', 'default'],
		['/tmp/profiles/Not A Profile/state.db', 'default'],
		['relative/profiles/team-2/state.db', 'team-2'],
	])('%s belongs to %s', (p, owner) => {
		expect(ownerOfStore(p).owner).toBe(owner);
		expect(ownerOfStore(p).how).toContain('path');
	});
});

describe('locateStores with --db', () => {
	it('derives the owner for a store outside any Hermes home, and never leaves it unknown', () => {
		const located = locateStores({db: '/elsewhere/profiles/work/state.db', env: {}, homedir: '/nohome'});
		expect(located.stores[0]).toMatchObject({owner: 'work'});
		expect(locateStores({db: '/elsewhere/state.db', env: {}, homedir: '/nohome'}).stores[0]).toMatchObject({
			owner: 'default',
		});
	});

	it('lets --profile and --home confirm the owner, and refuses a conflict', () => {
		const root = tmp();
		const db = path.join(root, 'profiles', 'work', 'state.db');
		expect(locateStores({db, profile: 'work', env: {}}).stores[0]!.ownerSource).toContain('confirmed by --profile');
		expect(locateStores({db, home: root, env: {}}).stores[0]!.ownerSource).toContain('confirmed by --home');
		expect(() => locateStores({db, profile: 'ops', env: {}})).toThrow(FailClosed);
		expect(() => locateStores({db, home: tmp(), env: {}})).toThrow(/not in the Hermes home/);
		expect(() =>
			locateStores({db: path.join(root, 'state.db'), home: path.join(root, 'profiles', 'work'), env: {}}),
		).toThrow(FailClosed);
	});
});

describe('G6: --db on a copy of a profile store anywhere on disk', () => {
	it(
		'fences as Hermes does: the work store\'s orphan of profile "other" is ' +
			'refused by current Hermes and held back by hfx repair',
		() => {
			const copy = path.join(tmp(), 'copied', 'profiles', 'work');
			fs.mkdirSync(copy, {recursive: true});
			fs.copyFileSync(path.join(FIXTURE, 'profiles/work/state.db'), path.join(copy, 'state.db'));
			const db = path.join(copy, 'state.db');
			const {json} = hfxJson(['scan', '--db', db], {env: {HERMES_HOME: ''}});
			expect(json.database.owner).toBe('work');
			expect(json.database.ownerSource).toContain('profiles/work/state.db');
			const after = (json.afterUpgrade.orphans as any[]).find(o => o.orphanId === '20260901_090235_e1ec5df6');
			expect(after).toMatchObject({verdict: 'refused', reasonKind: 'no_predecessor', profileOwner: 'other'});
			const plan = hfxJson(['repair', '--db', db], {env: {HERMES_HOME: ''}}).json;
			expect(plan.owner).toBe('work');
			expect((plan.adoptions as any[]).map(a => a.orphanId)).toEqual(['20260902_100220_523b34fe']);
			const held = (plan.refused as any[]).find(o => o.orphanId === '20260901_090235_e1ec5df6');
			expect(held).toMatchObject({reasonKind: 'generations_disagree'});
		},
	);

	it('refuses --profile that contradicts the path in one line, exit 2, nothing written', () => {
		const copy = path.join(tmp(), 'profiles', 'work');
		fs.mkdirSync(copy, {recursive: true});
		fs.copyFileSync(path.join(FIXTURE, 'profiles/work/state.db'), path.join(copy, 'state.db'));
		const before = fs.readdirSync(copy).sort();
		const r = hfx(['scan', '--db', path.join(copy, 'state.db'), '--profile', 'ops']);
		expect(r.code).toBe(2);
		expect(r.stderr.trim().split('\n')).toHaveLength(1);
		expect(r.stderr).toContain('--profile ops conflicts');
		expect(fs.readdirSync(copy).sort()).toEqual(before);
	});
});
