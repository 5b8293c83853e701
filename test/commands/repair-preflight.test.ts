/**
 * One preflight per `hfx repair` (issue #30 point 4): the command looks at the store's files once and passes that
 * look down; the plan (repair/apply.ts computePlan) and its read (store/open/immutable-read.ts readStore) take none of
 * their own. Counted through the test hook HFX_TEST_MARK=preflight (test-pause.ts) on the real binary.
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

const looks = (stderr: string) => stderr.split('\n').filter(l => l === 'hfx-test: at preflight').length;

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
