/**
 * One way to name a session and a chat, on the real binary and the real v21 incident store:
 * lineage and repair --only resolve ids alike (a unique prefix or the random suffix; an ambiguous
 * name lists its matches), a chat is named exactly with a suggestion, and a mistyped --only is an
 * error in the dry run as in --apply, never "nothing to adopt".
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {evidenceState, hfx} from '../helpers/cli.js';
import {ROOT} from '../helpers/writer.js';

let dir = '';
let db = '';
beforeAll(() => {
	dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-names-'));
	db = path.join(dir, 'state.db');
	fs.copyFileSync(path.join(ROOT, 'test/fixtures/hermes-v21-incident/state.db'), db);
});
afterAll(() => fs.rmSync(dir, {recursive: true, force: true}));

describe('naming sessions and chats', () => {
	it('lineage takes the random suffix and a unique prefix; an ambiguous prefix lists its matches', () => {
		const before = evidenceState(dir);
		expect(JSON.parse(hfx(['lineage', '427c496c', '--db', db, '--json']).stdout).sessionId).toBe(
			'20260807_052242_427c496c',
		);
		expect(JSON.parse(hfx(['lineage', '20260807_0522', '--db', db, '--json']).stdout).sessionId).toBe(
			'20260807_052242_427c496c',
		);
		const r = hfx(['lineage', '20260807', '--db', db]);
		expect(r.code).toBe(2);
		expect(r.stderr.split('\n').filter(Boolean)).toHaveLength(1);
		expect(r.stderr).toMatch(/"20260807" names \d+ sessions \(20260807_\d+_\w+, /);
		expect(evidenceState(dir)).toEqual(before);
	});

	it('routing names a chat exactly, and suggests the one key a bare chat id ends', () => {
		const r = hfx(['routing', '777001', '--db', db]);
		expect(r.code).toBe(2);
		expect(r.stderr.trim()).toBe(
			`hfx: ${db}: no session or routing entry carries the key "777001". Next: ` +
				`did you mean: hfx routing agent:main:telegram:dm:777001`,
		);
		expect(hfx(['routing', 'agent:main:telegram:dm:777001', '--db', db]).code).toBe(1);
	});

	it('repair --only resolves like lineage; one that names no adoptable orphan is refused in the dry run too', () => {
		const picked = JSON.parse(hfx(['repair', '--db', db, '--only', '427c496c', '--json']).stdout);
		expect(picked.adoptions.map((a: {orphanId: string}) => a.orphanId)).toEqual(['20260807_052242_427c496c']);
		const typo = hfx(['repair', '--db', db, '--only', '427c496x']);
		expect(typo.code).toBe(2);
		expect(typo.stdout).toBe('');
		expect(typo.stderr.trim()).toBe(
			`hfx: ${db}: --only names no adoptable orphan: 427c496x (no adoptable ` +
				`orphan "427c496x"). Next: list the adoptable orphans with: hfx repair`,
		);
		const refused = hfx(['repair', '--db', db, '--only', 'f20eabbd']);
		expect(refused.code).toBe(2);
		expect(refused.stderr).toContain('20260809_002517_f20eabbd is not adoptable');
		expect(fs.readdirSync(dir)).toEqual(['state.db']);
	});

	it(
		'a refused --apply (a mistyped --only) writes nothing, not even to the ' + 'audit trail: only writes are recorded',
		() => {
			const before = evidenceState(dir);
			const r = hfx(['repair', '--db', db, '--apply', '--yes', '--only', '427c496x']);
			expect(r.code).toBe(2);
			expect(r.stderr).toContain('--only names no adoptable orphan: 427c496x');
			expect(evidenceState(dir)).toEqual(before);
			expect(fs.readdirSync(dir)).toEqual(['state.db']);
		},
	);
});
