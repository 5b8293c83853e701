/**
 * A refusal under --json is {error: {file, kind, reason, next}}, its kind from the closed list
 * (source/ground/refusal-kinds.ts), on the real binary; the stderr line is the same refusal, once.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {REFUSAL_KINDS} from '../../source/ground/refusal-kinds.js';
import {hfx} from '../helpers/cli.js';
import {ROOT} from '../helpers/writer.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-kinds-'));
afterAll(() => fs.rmSync(dir, {recursive: true, force: true}));

const known = (kind: string): boolean => Object.hasOwn(REFUSAL_KINDS, kind) || /^errno-[a-z0-9]+$/.test(kind);

describe('refusal kinds', () => {
	it('are kebab-case words, each with what it means', () => {
		for (const [kind, meaning] of Object.entries(REFUSAL_KINDS)) {
			expect(kind).toMatch(/^[a-z]+(?:-[a-z]+)*$/);
			expect(meaning.length).toBeGreaterThan(10);
		}
	});

	it('--json carries exactly {file, kind, reason, next} with a listed kind, and stderr says it once', () => {
		const short = path.join(dir, 'short.db');
		fs.writeFileSync(short, Buffer.alloc(50));
		const db = path.join(dir, 'state.db');
		fs.copyFileSync(path.join(ROOT, 'test/fixtures/hermes-v21-incident/state.db'), db);
		const cases: Array<[string[], string]> = [
			[['scan', '--db', path.join(dir, 'missing.db')], 'not-found'],
			[['sessions', '--db', short], 'too-short'],
			[['lineage', 'nosuchsession', '--db', db], 'no-such-session'],
			[['routing', '777001', '--db', db], 'no-such-key'],
			[['repair', '--db', db, '--only', 'nosuch'], 'no-such-orphan'],
		];
		for (const [args, kind] of cases) {
			const r = hfx([...args, '--json']);
			expect(r.code).toBe(2);
			const {error} = JSON.parse(r.stdout) as {error: Record<string, string>};
			expect(Object.keys(error).sort()).toEqual(['file', 'kind', 'next', 'reason']);
			expect(error.kind).toBe(kind);
			expect(known(error.kind!)).toBe(true);
			expect(r.stderr).toBe(`hfx: ${error.file}: ${error.reason}. Next: ${error.next}\n`);
		}

		expect(fs.readdirSync(dir).sort()).toEqual(['short.db', 'state.db']);
	});
});
