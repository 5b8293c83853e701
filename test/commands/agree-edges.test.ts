/**
 * Issue #27, point 1: the edges where hfx disagreed with the real Hermes code, on stores written
 * by the real v25 SessionDB and judged by the real v25 code (test/fixtures/hermes-agree-edges,
 * expected-v25.json; the README says how). The built binary must say what that code said: where
 * repair-routing fails and with which error, the rows it lists with their message counts, what a
 * restart resumes ('' is no chat), and what --apply leaves behind.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {evidenceState, hfx, hfxJson} from '../helpers/cli.js';
import {ROOT} from '../helpers/writer.js';

const FIXTURE = path.join(ROOT, 'test/fixtures/hermes-agree-edges');

type RealRecord = {
	orphan_id: string;
	message_count: number;
	donor_id: string | null;
	session_key: string | null;
	evidence: string;
	adoptable: boolean;
};
type RealCase = {
	repair_routing: {crash: string | null; records: RealRecord[] | null};
	finder: Record<string, string | null>;
	adopted?: string[];
	finder_after_adoption?: Record<string, string | null>;
	/** The gateway's own post-filter on the row the finder returned (multiplexed-tuple). */
	gateway_post_filter?: Record<string, boolean>;
};

const real = JSON.parse(fs.readFileSync(path.join(FIXTURE, 'expected-v25.json'), 'utf8')) as Record<string, RealCase>;
const CASES = ['json-empty-no-messages', 'text-started-at', 'listed', 'finding-remains', 'multiplexed-tuple'];

/** Where each case's store is under its folder (a profile's store: its owner comes from the path). */
const STORE: Record<string, string> = {'multiplexed-tuple': 'profiles/work/state.db'};

let dir: string;
beforeAll(() => {
	dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-agree-'));
});
afterAll(() => fs.rmSync(dir, {recursive: true, force: true}));

/**
 * A private, writable copy of one case's store, at the same path under a folder of its own (the owner comes from it).
 */
function copyOf(name: string, label = 'scan'): string {
	const store = STORE[name] ?? 'state.db';
	const db = path.join(dir, `${label}-${name}`, store);
	fs.mkdirSync(path.dirname(db), {recursive: true});
	fs.copyFileSync(path.join(FIXTURE, name, store), db);
	fs.chmodSync(db, 0o644);
	return db;
}

const scans = new Map<string, any>();

/** `hfx scan --db … --json` of a copy of one case's store, run once. */
function scanOf(name: string): any {
	if (!scans.has(name)) {
		scans.set(name, hfxJson(['scan', '--db', copyOf(name)], {env: {HERMES_HOME: ''}}).json);
	}

	return scans.get(name);
}

describe('hfx agrees with the real v25 code at the edges (hermes-agree-edges)', () => {
	it('has every case judged by the real code', () => {
		expect(Object.keys(real).sort()).toEqual([...CASES].sort());
	});

	for (const name of CASES) {
		it(
			`${name}: repair-routing fails exactly where and how the real code ` +
				`fails, else lists the same rows with the same counts`,
			() => {
				const json = scanOf(name);
				const want = real[name]!.repair_routing;
				if (want.crash === null) {
					expect(json.repairRoutingCrash).toBeNull();
					const listed = [...json.orphans, ...json.listedRefusedLocal];
					const got = Object.fromEntries(
						listed.map((o: any) => [
							o.orphanId,
							{count: o.messageCount, adoptable: o.verdict === 'adoptable', donor: o.donorId, key: o.sessionKey},
						]),
					);
					const expected = Object.fromEntries(
						want.records!.map(r => [
							r.orphan_id,
							{count: r.message_count, adoptable: r.adoptable, donor: r.donor_id, key: r.session_key},
						]),
					);
					expect(got).toEqual(expected);
				} else {
					expect(json.repairRoutingCrash?.error).toBe(want.crash);
					expect(json.orphans).toEqual([]);
					expect(json.exitCode).toBe(1);
				}
			},
		);

		it(`${name}: a restart resumes what the real finder returns, and '' is no chat`, () => {
			const json = scanOf(name);
			for (const [key, found] of Object.entries(real[name]!.finder)) {
				const chat = json.routing.find((c: any) => c.sessionKey === key);
				const resumed = real[name]!.gateway_post_filter?.[key] === false ? null : found;
				if (key === '') {
					expect(resumed).toBeNull();
					expect(chat).toBeUndefined();
				} else {
					expect(chat?.restartResolvesTo).toBe(resumed);
				}
			}
		});
	}

	it(
		"multiplexed-tuple: real v25 resumes another profile's live row (no " +
			'profile fence, no post-filter when multiplexed); v30 fences it (read, ' +
			'not run)',
		() => {
			expect(real['multiplexed-tuple']!.gateway_post_filter).toEqual({'agent:work:telegram:dm:6300': true});
			const json = scanOf('multiplexed-tuple');
			expect(json.routing.find((c: any) => c.sessionKey === 'agent:work:telegram:dm:6300').restartResolvesTo).toBe(
				'E_other',
			);
			expect(
				json.afterUpgrade.routing.find((c: any) => c.sessionKey === 'agent:work:telegram:dm:6300').restartResolvesTo,
			).toBeNull();
		},
	);

	it(
		'text-started-at: current Hermes (v30) fails on the TEXT started_at too ' +
			'(its code computes (started_at or 0) - gap the same way)',
		() => {
			expect(scanOf('text-started-at').afterUpgrade.repairRoutingCrash.error).toBe(
				"TypeError: unsupported operand type(s) for -: 'str' and 'float'",
			);
			expect(scanOf('json-empty-no-messages').afterUpgrade.repairRoutingCrash).toBeNull();
		},
	);
});

describe("hfx repair where current Hermes' own repair-routing fails (text-started-at)", () => {
	for (const args of [[], ['--apply', '--yes']]) {
		it(`repair ${args.join(' ') || '(dry run)'} refuses in one line, exit 2, and writes nothing`, () => {
			const db = copyOf('text-started-at', `refuse${args.length}`);
			const before = evidenceState(path.dirname(db));
			const r = hfx(['repair', '--db', db, ...args], {env: {HERMES_HOME: ''}});
			expect(r.code).toBe(2);
			const lines = r.stderr.trim().split('\n');
			expect(lines).toHaveLength(1);
			expect(lines[0]).toContain('TypeError');
			expect(lines[0]).toContain('B_text');
			expect(evidenceState(path.dirname(db))).toEqual(before);
			expect(fs.readdirSync(path.dirname(db))).toEqual(['state.db']);
		});
	}
});

describe('hfx repair --apply after which a finding remains (finding-remains)', () => {
	it('commits what the real code writes, exits 1 (not 2), and names the row a restart still resumes and why', () => {
		const db = copyOf('finding-remains', 'apply');
		const r = hfx(['repair', '--apply', '--yes', '--db', db], {env: {HERMES_HOME: ''}});
		const want = real['finding-remains']!;
		expect(want.adopted).toEqual(['D_orphan']);
		expect(r.code).toBe(1);
		expect(r.stdout).toContain('a restart still resumes D_other');
		expect(r.stdout).toMatch(/D_other: exact-key: live \(ended_at is NULL\); it ranks first/);
		const after = hfxJson(['scan', '--db', db], {env: {HERMES_HOME: ''}}).json;
		for (const [key, resumed] of Object.entries(want.finder_after_adoption!)) {
			expect(after.routing.find((c: any) => c.sessionKey === key)?.restartResolvesTo).toBe(resumed);
		}

		const json = hfxJson(['repair', '--apply', '--yes', '--db', copyOf('finding-remains', 'apply-json')], {
			env: {HERMES_HOME: ''},
		});
		expect(json.code).toBe(1);
		expect(json.json.result).toBe('applied');
		expect(json.json.reason).toContain('a finding remains');
		expect(json.json.verification[0].why).toContain('exact-key');
	});
});
