/**
 * Issue #27, the epoch window of §3.3 (#91543) against real code, on both sides. Every store of
 * test/helpers/epoch-window-stores.ts (a timestamp cell outside [0, 4.2e9] or TEXT where it moves a
 * donor) is made again from the committed seeds, written in the v30 schema, and hfx's in-process
 * engine is compared with what upstream's v30 decision code decided on that exact store: with the
 * window (hermes_state_common.py @00704d08, expected-v30-window.json) under the rules `v30`, and
 * without it (@f31cf971, expected-v30-before-91543.json) under the variant a build lacking #91543
 * gets (build-rules.ts, as `hfx scan` picks it). Compared: each record repair-routing lists (key,
 * donor, evidence, verdict, reason, count) and the row a restart resumes for every chat key.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {analyze} from '../../source/forensics/analysis/analyze.js';
import {type HermesBuild, resolveBuildRules} from '../../source/forensics/routing/build-rules.js';
import {storeJson} from '../../source/report/analysis/scan-json.js';
import {loadStore} from '../../source/store/read/load.js';
import {ownerOfStore} from '../../source/store/locate.js';
import {ddlOf, writeStore} from '../helpers/adversarial-store-writer.js';
import {type GenStore, storeHash} from '../helpers/adversarial-stores.js';
import {type Real, hfxVerdicts, mismatches, realVerdicts} from '../helpers/differential-verdicts.js';
import {WINDOW_CLASSES, WINDOW_SEEDS, generateWindowStores} from '../helpers/epoch-window-stores.js';
import {ROOT} from '../helpers/writer.js';

const FIXTURE = path.join(ROOT, 'test/fixtures/hermes-differential');
/** An empty store in the v30 schema (upstream's SCHEMA_SQL @f31cf971; the fixture's README). */
const V30_SCHEMA_STORE = path.join(FIXTURE, 'v30-schema/state.db');

const read = (name: string): Real => JSON.parse(fs.readFileSync(path.join(FIXTURE, name), 'utf8')) as Real;
const windowed = read('expected-v30-window.json');
const unwindowed = read('expected-v30-before-91543.json');
const stores = generateWindowStores();

/** The builds whose sha is known to have (00704d08) or lack (f31cf971) the window: rule-changes.ts. */
const build = (sha: string): HermesBuild => ({version: null, sha, from: 'test'});
const WITH_WINDOW = resolveBuildRules('v30', build('00704d087b7ca25039be87baf11706d01f4da355'));
const WITHOUT_WINDOW = resolveBuildRules('v30', build('f31cf971e9ecb44400c7325cb6045ed64db3ac7d'));

let dir: string;
const files = new Map<string, string>();
beforeAll(() => {
	dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-differential-window-'));
	const ddl = ddlOf(V30_SCHEMA_STORE);
	for (const store of stores) {
		files.set(store.name, writeStore(path.join(dir, store.name), store, ddl));
	}
});
afterAll(() => fs.rmSync(dir, {recursive: true, force: true}));

function inProcess(store: GenStore, buildRules: typeof WITH_WINDOW): any {
	const file = files.get(store.name)!;
	const loaded = loadStore({path: file, owner: ownerOfStore(file).owner, label: store.name});
	return storeJson(loaded.facts, analyze(loaded.snapshot, {maxGapSeconds: 900, buildRules}));
}

describe('the epoch-window stores are the ones both trees judged', () => {
	it('the same seeds and stores, every store hashing as when judged, by v30 code with and without the window', () => {
		for (const real of [windowed, unwindowed]) {
			expect(real.code.schema_version).toBe(30);
			expect(real.seeds).toEqual([...WINDOW_SEEDS].sort((a, b) => a - b));
			expect(real.stores_per_seed).toBe(WINDOW_CLASSES.length);
			expect(Object.keys(real.stores).sort()).toEqual(stores.map(s => s.name).sort());
			expect(stores.filter(s => real.stores[s.name]!.hash !== storeHash(s)).map(s => s.name)).toEqual([]);
		}
	});

	it('the window decides on every store: the two trees list another donor or verdict on each', () => {
		const same = stores.filter(
			s => mismatches(realVerdicts(windowed.stores[s.name]!), realVerdicts(unwindowed.stores[s.name]!)).length === 0,
		);
		expect(same.map(s => s.name)).toEqual([]);
	});

	it('the rules a build with the window gets and the ones a build without it gets', () => {
		expect([WITH_WINDOW.rules.label, WITH_WINDOW.rules.epochWindow]).toEqual(['v30', true]);
		expect([WITHOUT_WINDOW.rules.label, WITHOUT_WINDOW.rules.epochWindow]).toEqual(['v30 before #91543', false]);
	});
});

describe.each([
	['with the window (@00704d08), rules v30', windowed, WITH_WINDOW],
	['without it (@f31cf971), rules v30 before #91543', unwindowed, WITHOUT_WINDOW],
] as const)('hfx agrees with the v30 decision code %s on every epoch-window store', (_label, real, rules) => {
	it.each(stores.map(s => [s.name, s.classes.join(','), s] as const))('%s (%s)', (name, _classes, store) => {
		const want = real.stores[name]!;
		const json = inProcess(store, rules);
		expect(json.database.ruleSet).toBe('v30');
		expect(mismatches(realVerdicts(want), hfxVerdicts(json, Object.keys(want.finder)))).toEqual([]);
	});
});
