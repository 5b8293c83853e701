/**
 * Issue #27: `hfx repair` judges by the installed build's rules, and says which build and rules, in
 * its text and its --json. A repair runs with the gateway stopped, when no gateway_state.json is
 * trusted: the build comes from the install's checkout HEAD (hermes-incidents §3.2 step 2). Through
 * the built binary, on a real store written by the simulator's writer (helpers/installed-build.ts:
 * a donor whose last_activity_at is the garbage of #91536).
 *
 * - A build before #91543 refuses the orphan (no donor falls quiet near its start): the dry run
 *   says so and `--apply` writes nothing to the store. Judged by the current rules, hfx adopted it:
 *   an adoption the installed Hermes itself would never make.
 * - A build with #91543 adopts, and `--apply` writes the adoption.
 * - No build known, and the two candidate rule sets disagree on this orphan: issue #27 asks for
 *   both verdicts "as after upgrading Hermes does today", and across an upgrade the repair writes
 *   only what both generations agree on. So the orphan is held back (builds_disagree), both rule
 *   sets named; `--apply` writes nothing to the store.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {hfx, hfxJson} from '../helpers/cli.js';
import {SHA_WITH, SHA_WITHOUT, garbageDonorStore, sourceCheckout} from '../helpers/installed-build.js';

let dir: string;
const env = {HERMES_HOME: '', HERMES_INSTALL_DIR: ''};

const digest = (file: string) => crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');

/** The store's bytes as the repair leaves them: the main file and its -wal (a committed write lands in one of them). */
function storeBytes(db: string): string[] {
	return [db, `${db}-wal`].map(f => (fs.existsSync(f) ? digest(f) : 'absent'));
}

beforeAll(() => {
	dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-repair-build-'));
});

afterAll(() => {
	fs.rmSync(dir, {recursive: true, force: true});
});

describe('hfx repair judges by the installed build (issue #27)', () => {
	it('a checkout before #91543: the orphan is refused, said with the build; --apply writes nothing', () => {
		const s = garbageDonorStore(path.join(dir, 'before'));
		sourceCheckout(path.join(s.home, 'hermes-agent'), SHA_WITHOUT, '0.20.5');
		const dry = hfxJson(['repair', '--db', s.db], {env});
		expect(dry.code).toBe(1);
		expect(dry.json.rules).toMatchObject({
			ruleSet: 'v30',
			rules: 'v30 before #91543',
			build: '0.20.5@f31cf9710000',
			confidence: 'medium',
			alternative: null,
		});
		expect(dry.json.rules.decidedBy).toContain('the checkout HEAD of');
		expect(dry.json.adoptions).toEqual([]);
		expect(dry.json.refused.map((o: any) => [o.orphanId, o.reasonKind])).toEqual([[s.orphan, 'no_predecessor']]);
		const text = hfx(['repair', '--db', s.db], {env}).stdout;
		expect(text).toMatch(/ · rules of Hermes v30 before #91543$/m);
		expect(text).toMatch(/^build 0\.20\.5@f31cf9710000, medium: build 0\.20\.5@f31cf9710000 from the checkout HEAD/m);
		const bytes = storeBytes(s.db);
		const applied = hfx(['repair', '--apply', '--yes', '--db', s.db], {env});
		expect(applied.code).toBe(1);
		expect(applied.stdout).toMatch(/^rules of Hermes v30 before #91543$/m);
		expect(storeBytes(s.db)).toEqual(bytes);
	});

	it('a checkout with #91543: adopted, and --apply --json names the build', () => {
		const s = garbageDonorStore(path.join(dir, 'after'));
		sourceCheckout(path.join(s.home, 'hermes-agent'), SHA_WITH, '0.21.4');
		const dry = hfxJson(['repair', '--db', s.db], {env});
		expect(dry.json.rules).toMatchObject({rules: 'v30', build: '0.21.4@00704d080000', confidence: 'medium'});
		expect(dry.json.adoptions.map((a: any) => [a.orphanId, a.donorId])).toEqual([[s.orphan, s.donor]]);
		const applied = hfxJson(['repair', '--apply', '--yes', '--db', s.db], {env});
		expect(applied.code).toBe(0);
		expect(applied.json.result).toBe('applied');
		expect(applied.json.rules).toMatchObject({rules: 'v30', build: '0.21.4@00704d080000'});
	});

	it('no build known and the two candidate rule sets disagree: held back, both named; --apply writes nothing', () => {
		const s = garbageDonorStore(path.join(dir, 'unknown'));
		const dry = hfxJson(['repair', '--db', s.db], {env});
		expect(dry.code).toBe(1);
		expect(dry.json.rules).toMatchObject({
			rules: 'v30',
			build: null,
			confidence: 'weak',
			alternative: 'v30 before #91543',
		});
		expect(dry.json.adoptions).toEqual([]);
		const held = dry.json.refused.find((o: any) => o.orphanId === s.orphan);
		expect(held.reasonKind).toBe('builds_disagree');
		expect(held.reason).toContain(
			`under v30 repair-routing would adopt it from ${s.donor}, under v30 before #91543 it refuses it (no_predecessor`,
		);
		const text = hfx(['repair', '--db', s.db], {env}).stdout;
		expect(text).toMatch(/^build unknown \(or v30 before #91543\), weak: no build read/m);
		expect(text).toContain(`✗ not repairable ${s.orphan} (telegram, 30 messages): held back: the installed build`);
		const bytes = storeBytes(s.db);
		const applied = hfx(['repair', '--apply', '--yes', '--db', s.db], {env});
		expect(applied.code).toBe(1);
		expect(applied.stderr).toBe('');
		expect(storeBytes(s.db)).toEqual(bytes);
	});
});
