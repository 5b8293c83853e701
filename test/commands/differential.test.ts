/**
 * Issue #27 point 3: the differential against the real Hermes code. Every store of the seeded
 * generator (test/helpers/adversarial-stores.ts) is made again here, from the committed seeds, and
 * hfx's verdicts are compared with what the real v25 code decided on that exact store
 * (test/fixtures/hermes-differential/expected-v25.json; its README says how it was made), and, on
 * the same rows written in the v21 schema, what the real v21 finder decided (expected-v21.json), and, written
 * in the v30 schema, what current Hermes' decision code decided (expected-v30.json, excerpts of upstream): whether
 * repair-routing fails and how, each record it lists (key, donor, evidence, verdict, reason, count),
 * the row a restart resumes for every chat key (the gateway's post-filter applied), and, where
 * --apply adopts, what a restart resumes after it. The in-process engine judges every store; the
 * built binary judges a sample (`hfx scan --json`, `hfx routing --json`, `hfx repair --apply --yes`).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {analyze} from '../../source/forensics/analysis/analyze.js';
import {storeJson} from '../../source/report/analysis/scan-json.js';
import {loadStore} from '../../source/store/read/load.js';
import {ownerOfStore} from '../../source/store/locate.js';
import {ddlOf, writeStore} from '../helpers/adversarial-store-writer.js';
import {type Real, hfxVerdicts, mismatches, realVerdicts} from '../helpers/differential-verdicts.js';
import {CLASSES, type GenStore, SEEDS, STORES_PER_SEED, generateAll, storeHash} from '../helpers/adversarial-stores.js';
import {hfx, hfxJson} from '../helpers/cli.js';
import {sessionRows} from '../helpers/session-rows.js';
import {ROOT} from '../helpers/writer.js';

const FIXTURE = path.join(ROOT, 'test/fixtures/hermes-differential');
/**
 * The real stores whose DDL the generated stores replay: v25 (SessionDB of i-enliven@1caadf26) and v21 (the incident
 * store).
 */
const REAL_V25_STORE = path.join(ROOT, 'test/fixtures/hermes-agree-edges/listed/state.db');
const REAL_V21_STORE = path.join(ROOT, 'test/fixtures/hermes-v21-incident/state.db');
/**
 * An empty store in the v30 schema: upstream's SCHEMA_SQL and DEFERRED_INDEX_SQL (@f31cf971) run on an empty file
 * (README).
 */
const V30_SCHEMA_STORE = path.join(ROOT, 'test/fixtures/hermes-differential/v30-schema/state.db');

const real = JSON.parse(fs.readFileSync(path.join(FIXTURE, 'expected-v25.json'), 'utf8')) as Real;
const real21 = JSON.parse(fs.readFileSync(path.join(FIXTURE, 'expected-v21.json'), 'utf8')) as Real;
const real30 = JSON.parse(fs.readFileSync(path.join(FIXTURE, 'expected-v30.json'), 'utf8')) as Real;
const stores = generateAll();

/**
 * The disagreements found, kept in view: the test fails when one goes away or a new one appears.
 * None now. The one found (4 stores: a Slack chat's tuple fallback, which the real v25 and v21 code
 * run and hfx skipped) is fixed: hfx skips it only under the current rules (generations.ts,
 * slackSkipsTupleFallback; the fixture's README).
 */
const KNOWN: Record<string, string[]> = {};
const KNOWN21: Record<string, string[]> = {};
/** Against the current (v30) decision code, expected-v30.json: none. */
const KNOWN30: Record<string, string[]> = {};

let dir: string;
const files = new Map<string, string>();
const files21 = new Map<string, string>();
const files30 = new Map<string, string>();
beforeAll(() => {
	dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-differential-'));
	const [ddl, ddl21, ddl30] = [ddlOf(REAL_V25_STORE), ddlOf(REAL_V21_STORE), ddlOf(V30_SCHEMA_STORE)];
	for (const store of stores) {
		files.set(store.name, writeStore(path.join(dir, store.name), store, ddl));
		files21.set(store.name, writeStore(path.join(dir, 'v21', store.name), store, ddl21));
		files30.set(store.name, writeStore(path.join(dir, 'v30', store.name), store, ddl30));
	}
});
afterAll(() => fs.rmSync(dir, {recursive: true, force: true}));

function inProcess(store: GenStore, file = files.get(store.name)!): any {
	const loaded = loadStore({path: file, owner: ownerOfStore(file).owner, label: store.name});
	return storeJson(loaded.facts, analyze(loaded.snapshot, {maxGapSeconds: 900}));
}

/** A private copy of a generated store, at the same path under a folder of its own (the owner comes from the path). */
function copyOf(store: GenStore, label: string): string {
	const file = path.join(dir, `${label}-${store.name}`, store.path);
	fs.mkdirSync(path.dirname(file), {recursive: true});
	fs.copyFileSync(files.get(store.name)!, file);
	return file;
}

describe('the generated stores are the ones the real code judged', () => {
	it(
		"the same seeds, the same count, and every store's rows hash as when " +
			'judged (a generator change fails here, not as stale verdicts)',
		() => {
			expect(real.seeds).toEqual([...SEEDS].sort((a, b) => a - b));
			expect(real.stores_per_seed).toBe(STORES_PER_SEED);
			expect(Object.keys(real.stores).sort()).toEqual(stores.map(s => s.name).sort());
			const stale = stores.filter(s => real.stores[s.name]!.hash !== storeHash(s)).map(s => s.name);
			expect(stale).toEqual([]);
		},
	);

	it('the v21 tree judged the same stores (written in its own schema)', () => {
		expect(real21.code.schema_version).toBe(21);
		expect(Object.fromEntries(Object.entries(real21.stores).map(([n, s]) => [n, s.hash]))).toEqual(
			Object.fromEntries(Object.entries(real.stores).map(([n, s]) => [n, s.hash])),
		);
	});

	it('every edge class is forced on stores judged by the real code (schema v25)', () => {
		expect(real.code.schema_version).toBe(25);
		for (const cls of CLASSES) {
			expect(stores.filter(s => s.classes[0] === cls).length, cls).toBe(SEEDS.length);
		}
	});
});

describe('hfx agrees with the real v25 code on every generated store (in-process engine)', () => {
	it.each(stores.map(s => [s.name, s.classes.join(','), s] as const))('%s (%s)', (name, _classes, store) => {
		const want = real.stores[name]!;
		expect(mismatches(realVerdicts(want), hfxVerdicts(inProcess(store), Object.keys(want.finder)))).toEqual(
			KNOWN[name] ?? [],
		);
	});
});

describe(
	'hfx agrees with the real v21 code on every generated store written in ' +
		'the v21 schema (restart finder; v21 has no repair-routing)',
	() => {
		it.each(stores.map(s => [s.name, s.classes.join(','), s] as const))('%s (%s)', (name, _classes, store) => {
			const want = real21.stores[name]!;
			expect(want.repair_routing).toBeNull();
			const json = inProcess(store, files21.get(store.name)!);
			expect(json.database.ruleSet).toBe('legacy-v21');
			const resumes = Object.fromEntries(
				Object.entries(want.finder).map(([k, id]) => [k, want.gateway_post_filter[k] === false ? null : id]),
			);
			expect(
				mismatches(
					{crash: null, records: null, resumes},
					{...hfxVerdicts(json, Object.keys(want.finder)), crash: null, records: null},
				),
			).toEqual(KNOWN21[name] ?? []);
		});
	},
);

describe(
	'hfx agrees with the current (v30) decision code on every generated ' +
		'store written in the v30 schema (in-process engine)',
	() => {
		it('the v30 code judged the same stores', () => {
			expect(real30.code.schema_version).toBe(30);
			expect(Object.fromEntries(Object.entries(real30.stores).map(([n, s]) => [n, s.hash]))).toEqual(
				Object.fromEntries(Object.entries(real.stores).map(([n, s]) => [n, s.hash])),
			);
		});

		it.each(stores.map(s => [s.name, s.classes.join(','), s] as const))('%s (%s)', (name, _classes, store) => {
			const want = real30.stores[name]!;
			const json = inProcess(store, files30.get(store.name)!);
			expect(json.database.ruleSet).toBe('v30');
			expect(mismatches(realVerdicts(want), hfxVerdicts(json, Object.keys(want.finder)))).toEqual(KNOWN30[name] ?? []);
		});
	},
);

describe('the built binary says the same (a sample: the classes of point 1, one seed each)', () => {
	const sample = [
		'json-malformed-no-messages',
		'text-started-at',
		'empty-session-key',
		'local-counts',
		'multiplexed-tuple',
		'epoch-garbage',
	].map((cls, i) => stores.find(s => s.seed === SEEDS[i % SEEDS.length] && s.classes[0] === cls)!);
	it.each(sample.map(s => [s.name, s.classes[0]!, s] as const))(
		'%s (%s): hfx scan --json, and hfx routing --json where a chat is at stake',
		(name, cls, store) => {
			const want = real.stores[name]!;
			const file = copyOf(store, 'bin');
			const scan = hfxJson(['scan', '--db', file], {env: {HERMES_HOME: ''}}).json;
			expect(mismatches(realVerdicts(want), hfxVerdicts(scan, Object.keys(want.finder)))).toEqual(KNOWN[name] ?? []);
			if (cls === 'empty-session-key' || cls === 'multiplexed-tuple') {
				const routing = hfxJson(['routing', '--db', file], {env: {HERMES_HOME: ''}}).json;
				expect(hfxVerdicts({...scan, routing: routing.routing}, Object.keys(want.finder)).resumes).toEqual(
					hfxVerdicts(scan, Object.keys(want.finder)).resumes,
				);
			}
		},
	);
});

describe('after hfx repair --apply --yes, a restart resumes what it resumes after the real adoption', () => {
	const adopting = stores.filter(s => (real.stores[s.name]!.adopted ?? []).length > 0);
	it('the real code adopted on some stores', () => {
		expect(adopting.length).toBeGreaterThan(10);
	});

	const sample = adopting.filter((_, i) => i % Math.ceil(adopting.length / 4) === 0);
	let compared = 0;
	it.each(sample.map(s => [s.name, s.classes[0]!, s] as const))('%s (%s)', (name, _cls, store) => {
		const want = real.stores[name]!;
		const file = copyOf(store, 'apply');
		const r = hfx(['repair', '--apply', '--yes', '--db', file], {env: {HERMES_HOME: ''}});
		expect([0, 1], r.stderr).toContain(r.code);
		const keyless = new Set(store.sessions.filter(s => s.session_key === null).map(s => s.id));
		const adopted = [...sessionRows(file).values()]
			.filter(row => keyless.has(String(row.id)) && row.session_key !== null)
			.map(row => String(row.id));
		// hfx writes only the adoptions this store's Hermes and current Hermes agree on; it names the rest as held back.
		const heldBack = want.adopted!.filter(id => !adopted.includes(id));
		expect(adopted.filter(id => !want.adopted!.includes(id))).toEqual([]);
		for (const id of heldBack) {
			expect(r.stdout).toMatch(new RegExp(`${id} .*held back`));
		}

		if (heldBack.length === 0) {
			expect(hfxVerdicts(inProcess(store, file), Object.keys(want.finder)).resumes).toEqual(
				realVerdicts(want, true).resumes,
			);
			compared++;
		}
	});

	it('at least one sampled store was adopted whole, and compared after', () => {
		expect(compared).toBeGreaterThan(0);
	});
});
