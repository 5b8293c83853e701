/**
 * One preflight per `hfx repair` (issue #30 point 4): the command looks at the store's files once and passes that
 * look down; the plan (repair/apply.ts computePlan) and its read (store/open/immutable-read.ts readStore) take none of
 * their own. Counted through the test hook HFX_TEST_MARK=preflight (ground/test-pause.ts) on the real binary. So is
 * each
 * check after it: the plan and its refusal (repair-routing failing on the store, an operator's donor that cannot be
 * taken), the reconciliation of the audit trail's crash windows, the entry an undo names, and the holders' /proc scan.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {hfx} from '../helpers/cli.js';
import {ROOT} from '../helpers/writer.js';

const FIXTURE = path.resolve(ROOT, 'test/fixtures/hermes-v21-incident/state.db');
const dirs: string[] = [];
afterAll(() => {
	for (const d of dirs) {
		fs.rmSync(d, {recursive: true, force: true});
	}
});

function store(): string {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-repair-preflight-'));
	dirs.push(dir);
	fs.copyFileSync(FIXTURE, path.join(dir, 'state.db'));
	return path.join(dir, 'state.db');
}

const marks = (stderr: string, point: string) => stderr.split('\n').filter(l => l === `hfx-test: at ${point}`).length;
const looks = (stderr: string) => marks(stderr, 'preflight');

/** How many times one run of `hfx repair ARGS` (on a fresh copy of the incident store) reaches each point. */
function counted(args: string[], points: string[], before?: string[]): Record<string, number> {
	return Object.fromEntries(
		points.map(point => {
			const db = store();
			let words = args;
			if (before) {
				const entry = /--undo (\d+)/.exec(hfx(['repair', '--db', db, ...before]).stdout)?.[1] ?? '?';
				words = args.map(a => (a === 'ENTRY' ? entry : a));
			}

			const r = hfx(['repair', '--db', db, ...words], {env: {HFX_TEST_MARK: point}});
			expect(r.stderr).not.toMatch(/^\s+at .*\(/m);
			return [point, marks(r.stderr, point)];
		}),
	);
}

describe('hfx repair looks at the store once and passes the look down', () => {
	it("a dry run: one preflight (the command's), none in the plan or its read", () => {
		const r = hfx(['repair', '--db', store()], {env: {HFX_TEST_MARK: 'preflight'}});
		expect(r.code).toBe(1);
		expect(r.stdout).toContain('hfx repair (dry run');
		expect(looks(r.stderr)).toBe(1);
	});

	it("--apply --yes: the command's, then only the snapshot's open and the re-read after the commit", () => {
		const r = hfx(['repair', '--db', store(), '--apply', '--yes'], {env: {HFX_TEST_MARK: 'preflight'}});
		expect(r.stdout).toContain('committed 2 adoptions');
		expect(looks(r.stderr)).toBe(3);
	});
});

describe('hfx repair makes each check once and passes its result down', () => {
	it('a dry run: one plan, one check of its refusal, one look at the audit trail', () => {
		expect(counted([], ['plan', 'plan-refusal', 'reconcile'])).toEqual({plan: 1, 'plan-refusal': 1, reconcile: 1});
	});

	it("--apply --yes: one plan, one check of its refusal, one reconciliation, one /proc scan per holders' check", () => {
		expect(counted(['--apply', '--yes'], ['plan', 'plan-refusal', 'reconcile', 'holders'])).toEqual({
			plan: 1,
			'plan-refusal': 1,
			reconcile: 1,
			holders: 2,
		});
	});

	it("--apply --donor: the operator's plan is made and checked once, the one the dry run shows", () => {
		const args = ['--apply', '--only', 'f20eabbd', '--donor', '3fb83ac3', '--yes'];
		expect(counted(args, ['plan', 'plan-refusal', 'reconcile'])).toEqual({plan: 1, 'plan-refusal': 1, reconcile: 1});
	});

	it('--undo ENTRY --yes: the trail reconciled once, the entry resolved once, no plan', () => {
		const counts = counted(
			['--undo', 'ENTRY', '--yes'],
			['plan', 'reconcile', 'undo-entry', 'holders'],
			['--apply', '--yes'],
		);
		expect(counts).toEqual({plan: 0, reconcile: 1, 'undo-entry': 1, holders: 2});
	});
});
