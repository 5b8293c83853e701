/**
 * The CI-sized part of `npm run reliability` (issue #17): a representative subset of the fault
 * catalog, at least one kind of every class, looped kinds run once, and every fuzzer at a
 * small input count, all with the real binary where a command runs. Fails when any fault or
 * fuzzer fails. First, the suite's own checks are shown to fail when they must (an evidence
 * change, a hang, a stack trace, a second stderr line), so a green run means something.
 */
import fs from 'node:fs';
import path from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {CATALOG} from './catalog/all.js';
import {changed, snapshot} from './evidence.js';
import {disposeFixtures, home} from './fixtures.js';
import {FUZZERS} from './fuzz/all.js';
import {fuzzInProcess} from './fuzz/run-fuzzer.js';
import {judge} from './judge.js';
import {runFault} from './run-fault.js';
import {runHfx} from './run-hfx.js';
import {missing} from './suite.js';
import {tempSpace} from './temp-space.js';
import type {RunResult} from './types.js';

afterAll(() => {
	disposeFixtures();
});

const CI_SUBSET = [
	'crashed-scan',
	'crashed-backup-quick',
	'symlinked-state-db-reads-target-wal',
	'backup-symlinked-state-db',
	'records-file-planted-link',
	'fifo-as-wal',
	'fifo-as-archive-verify',
	'tar-dotdot-member',
	'tar-only-db-symlink-to-shadow',
	'zip-sidecar-before-db',
	'zip-dotdot-member',
	'keep-two-homes-one-folder',
	'two-restores-one-second',
	'kill9-verify-extraction',
	'ctrl-c-with-private-copy-open',
	'files-damaged-wal-header',
	'store-50-bytes',
	'path-eloop',
	'limit-negative',
	'escape-codes-in-title',
	'newline-in-file-name',
	'store-corrupt-header',
	'store-fifo',
	'store-zero-main-beside-wal',
	'archive-flip-central-directory',
	'disk-full-verify-tmpdir',
	'eio-reading-crashed-store',
	'two-scans-at-once-crashed',
	'writer-sigkilled-while-reading',
	'schema-sessions-view',
	'schema-home-metrics',
	'watch-profile-removed',
	'agent-journal-mode-while-watch',
];

const result = (over: Partial<RunResult>): RunResult => ({
	args: ['scan'],
	code: 0,
	signal: null,
	stdout: '',
	stderr: '',
	ms: 1,
	timedOut: false,
	killedOnPurpose: false,
	...over,
});

describe("the suite's own checks fail when they must", () => {
	it('an evidence change is counted in bytes, and a path it may write is not', async () => {
		const space = tempSpace('self-evidence');
		try {
			const h = await home(space.dir('home'));
			const before = snapshot([h.root]);
			const r = await runHfx(
				{args: ['backup', '--quick', '--home', h.root], expect: 'ok'},
				{timeoutMs: 30_000, home: space.home, tmpdir: space.tmpdir},
			);
			expect(r.code).toBe(0);
			const after = snapshot([h.root]);
			expect(changed(before, after).bytes).toBeGreaterThan(0);
			expect(changed(before, after, [`${path.join(h.root, 'state-snapshots')}/`]).bytes).toBe(0);
			fs.writeFileSync(`${h.db}-journal`, 'x');
			expect(changed(after, snapshot([h.root])).paths).toEqual([`${h.db}-journal (created)`]);
		} finally {
			await space.dispose();
		}
	});

	it('a hang is killed at the timeout (the whole process group) and reported', async () => {
		const r = await runHfx(
			{args: [], expect: 'ok', wrap: ['bash', '-c', 'sleep 30 & sleep 30', 'x']},
			{timeoutMs: 300, home: '/nonexistent', tmpdir: '/tmp'},
		);
		expect(r.timedOut).toBe(true);
		expect(judge({args: [], expect: 'ok'}, r).problems.join()).toMatch(/a hang/);
	});

	it('a stack trace, an extra stderr line and a raw escape code are problems; a clean refusal is not', () => {
		const trace = 'hfx: internal error: TypeError: x\n    at f (/x.js:1:2)\n';
		expect(judge({args: ['scan'], expect: 'refused'}, result({code: 2, stderr: trace})).problems.join()).toMatch(
			/stack trace/,
		);
		expect(
			judge(
				{args: ['scan'], expect: 'refused'},
				result({code: 2, stderr: 'hfx: a. Next: b\nhfx: c\n'}),
			).problems.join(),
		).toMatch(/one line/);
		expect(judge({args: ['scan'], expect: 'ok'}, result({stdout: 'title \u001B[2J'})).problems.join()).toMatch(
			/escape/,
		);
		expect(
			judge({args: ['scan'], expect: 'refused'}, result({code: 2, stderr: 'hfx: f: cause. Next: step\n'})).problems,
		).toEqual([]);
		expect(judge({args: ['scan'], expect: 'refused'}, result({code: 1})).problems.join()).toMatch(
			/expected refused, got finding/,
		);
	});
});

describe('the fault catalog (CI subset)', () => {
	it('lists at least 60 kinds, every class, unique ids; the subset names existing kinds', () => {
		const ids = CATALOG.map(f => f.id);
		expect(new Set(ids).size).toBe(ids.length);
		expect(ids.length).toBeGreaterThanOrEqual(60);
		expect(new Set(CATALOG.map(f => f.cls))).toEqual(new Set([1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13]));
		expect(CI_SUBSET.filter(id => !ids.includes(id))).toEqual([]);
		expect(new Set(CATALOG.filter(f => CI_SUBSET.includes(f.id)).map(f => f.cls)).size).toBe(12);
	});

	it.for(CI_SUBSET)('%s', {timeout: 120_000}, async (id: string, context) => {
		const fault = CATALOG.find(f => f.id === id)!;
		if (missing(fault)) {
			context.skip(missing(fault)!);
		}

		const r = await runFault(fault, {long: false, timeoutMs: 30_000, maxRuns: 1});
		expect(r.failures, `expected ${r.outcome}, got ${r.got}`).toEqual([]);
		expect(r.evidenceBytesChanged).toBe(0);
	});
});

describe('the fuzzers (fixed seed, CI input counts)', () => {
	it.each(FUZZERS.map(f => [f.fuzzer.name, f.ci] as const))(
		'%s: %i inputs',
		async (name, inputs) => {
			const r = await fuzzInProcess(name, inputs);
			expect(r.inputs).toBe(inputs);
			expect(r.failures).toEqual([]);
		},
		120_000,
	);
});
