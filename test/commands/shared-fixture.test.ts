/**
 * The fixture written by real Hermes code (schema v21): `hfx scan --json` must reproduce the
 * verdicts of its expected.json.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {evidenceState, hfx, hfxJson} from '../helpers/cli.js';
import {ROOT} from '../helpers/writer.js';

const FIXTURE = path.join(ROOT, 'test/fixtures/hermes-v21-incident');

type Expected = {
	not_orphans: string[];
	orphans: Record<
		string,
		{verdict: string; donor?: string; evidence?: string; session_key?: string; reason_kind?: string}
	>;
	routing: Record<string, {resolves_to: string; newest_activity_in: string; rollback_risk: boolean}>;
};

let dir: string;
let db: string;
const expected = JSON.parse(fs.readFileSync(path.join(FIXTURE, 'expected.json'), 'utf8')) as Expected;

beforeAll(() => {
	dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-shared-'));
	db = path.join(dir, 'state.db');
	fs.copyFileSync(path.join(FIXTURE, 'state.db'), db);
});
afterAll(() => fs.rmSync(dir, {recursive: true, force: true}));

describe('the real Hermes v21 fixture', () => {
	it('reproduces every orphan verdict, donor, evidence, key and reason kind', () => {
		const {code, json} = hfxJson(['scan', '--db', db]);
		expect(code).toBe(1);
		expect(json.database.schemaVersion).toBe(21);
		expect(json.database.ruleSet).toBe('legacy-v21');
		const got = Object.fromEntries((json.orphans as any[]).map(o => [o.orphanId, o]));
		expect(Object.keys(got).sort()).toEqual(Object.keys(expected.orphans).sort());
		for (const [id, want] of Object.entries(expected.orphans)) {
			expect(got[id].verdict, id).toBe(want.verdict);
			if (want.verdict === 'adoptable') {
				expect(got[id].donorId, id).toBe(want.donor);
				expect(got[id].evidence, id).toBe(want.evidence);
				expect(got[id].sessionKey, id).toBe(want.session_key);
				expect(got[id].reasonKind, id).toBeNull();
			} else {
				expect(got[id].reasonKind, id).toBe(want.reason_kind);
				expect(got[id].reason.length, id).toBeGreaterThan(10);
			}
		}

		for (const id of expected.not_orphans) {
			expect(Object.keys(got)).not.toContain(id);
		}
	});

	it('reproduces the routing verdicts: the incident chat is at rollback risk, the compressed chat is not', () => {
		const {json} = hfxJson(['scan', '--db', db]);
		const routing = Object.fromEntries((json.routing as any[]).map(r => [r.sessionKey, r]));
		for (const [key, want] of Object.entries(expected.routing)) {
			expect(routing[key], key).toBeDefined();
			expect(routing[key].restartResolvesTo, key).toBe(want.resolves_to);
			expect(routing[key].newestActivityIn, key).toBe(want.newest_activity_in);
			expect(routing[key].rollbackRisk, key).toBe(want.rollback_risk);
		}
	});

	it('says what is wrong and what to do next in the human report', () => {
		const r = hfx(['scan', '--db', db]);
		expect(r.code).toBe(1);
		expect(r.stdout).toContain('ROLLBACK RISK  agent:main:telegram:dm:777001');
		expect(r.stdout).toMatch(/a restart resumes\s+20260807_050620_46fab954/);
		expect(r.stdout).toMatch(/newest message in\s+20260807_052242_427c496c/);
		expect(r.stdout).toContain('798 messages');
		expect(r.stdout).toContain('do not restart the gateway');
		expect(r.stderr).toBe('');
	});

	it('changes nothing: bytes and folder listing identical after every read-only command', () => {
		const before = evidenceState(dir);
		for (const args of [
			['scan'],
			['scan', '--json'],
			['sessions', '--all'],
			['sessions', '--json', '--limit', '0'],
			['lineage', '20260805_003922_162c3e9f'],
			['routing', '--json'],
			['routing', 'agent:main:telegram:dm:777001'],
		]) {
			hfx([...args, '--db', db]);
			expect(evidenceState(dir), args.join(' ')).toEqual(before);
		}
	});

	it('lists sessions newest first, hiding tool and delegate rows unless --all', () => {
		const some = hfxJson(['sessions', '--db', db, '--limit', '0']).json;
		const all = hfxJson(['sessions', '--db', db, '--limit', '0', '--all']).json;
		expect(all.sessions.length).toBe(28);
		expect(some.sessions.map((s: any) => s.id)).not.toContain('20260812_002140_6f8c323b');
		expect(all.sessions.map((s: any) => s.id)).toContain('20260812_002140_6f8c323b');
		const times = some.sessions.map((s: any) => s.lastActive ?? -1);
		expect([...times].sort((a: number, b: number) => b - a)).toEqual(times);
		const zombie = all.sessions.find((s: any) => s.id === '20260807_050620_46fab954');
		expect(zombie.status).toBe('zombie');
	});

	it('shows lineage with its edge kinds', () => {
		const {json} = hfxJson(['lineage', '--db', db, '20260805_003922_162c3e9f']);
		expect(json.tree.id).toBe('20260805_001820_0f486eca');
		const tip = (json.tree.children as any[]).find(c => c.id === '20260805_003922_162c3e9f');
		expect(tip.edgeKind).toBe('compression');
		const kinds = (tip.children as any[]).map(c => [c.id, c.edgeKind]);
		expect(kinds).toContainEqual(['20260812_001820_c3719b33', 'branch']);
		expect(kinds).toContainEqual(['20260812_002000_02e25b55', 'delegate']);
	});
});
