/**
 * Settling a crash window (source/repair/write/reconcile.ts) in-process, on a real audit trail and a
 * real stopped store in a temp folder (the real SIGKILL between intent and outcome:
 * test/repair/crash-window.test.ts): an intent no outcome names is pending; the store says whether
 * it was applied (every planned column holds its after-value), not applied (every one its
 * before-value) or undetermined (naming the columns that moved on). The outcome is appended only
 * when asked, on an intact chain, never for an intent whose process still runs; a store that
 * cannot be read leaves it pending with a warning; the store's files are not changed.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import {afterAll, describe, expect, it} from 'vitest';
import {processStartTicks} from '../../../source/ground/liveness.js';
import {pendingIntents, reconcileAudit, settlementLine} from '../../../source/repair/write/reconcile.js';
import {type AuditEntry, appendAudit, auditPathFor, readAudit, verifyAudit} from '../../../source/store/audit-trail.js';

const made: string[] = [];
afterAll(() => {
	for (const d of made) {
		fs.rmSync(d, {recursive: true, force: true});
	}
});

/** A pid no process has (above the kernel's pid_max). */
const GONE = 2 ** 22 + 1;
const CHANGES = [
	{sessionId: 's-orphan', role: 'orphan', column: 'session_key', before: null, after: 'agent:main:telegram:dm:1'},
	{sessionId: 's-donor', role: 'donor', column: 'end_reason', before: null, after: 'superseded_by_repair'},
];

/** A stopped store whose orphan and donor hold `key` and `reason`, and an intent of a gone process. */
function crashed(key: string | null, reason: string | null, pid = GONE): {db: string; audit: string} {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-reconcile-'));
	made.push(dir);
	const db = path.join(dir, 'state.db');
	const w = new Database(db);
	w.exec('CREATE TABLE sessions (id TEXT PRIMARY KEY, session_key TEXT, end_reason TEXT)');
	w.prepare('INSERT INTO sessions VALUES (?, ?, NULL), (?, NULL, ?)').run('s-orphan', key, 's-donor', reason);
	w.close();
	const audit = auditPathFor(db);
	appendAudit(audit, {
		time: '2026-01-01T00:00:00.000Z',
		tool: {name: 'hfx', version: '0.0.0'},
		sqliteVersion: '3.50.0',
		argv: ['repair', '--apply'],
		mode: 'apply',
		database: db,
		phase: 'intent',
		pid,
		pidStart: pid === process.pid ? processStartTicks(pid) : null,
		planHash: 'p1',
		changes: CHANGES,
	});
	return {db, audit};
}

function files(db: string): Record<string, string> {
	const dir = path.dirname(db);
	return Object.fromEntries(
		fs
			.readdirSync(dir)
			.filter(n => n.startsWith('state.db'))
			.map(n => [n, fs.readFileSync(path.join(dir, n)).toString('base64')]),
	);
}

function run(db: string, write: boolean) {
	const warnings: string[] = [];
	const settled = reconcileAudit({dbPath: db, argv: ['audit', 'verify'], write, warn: l => warnings.push(l)});
	return {settled, warnings};
}

describe('pendingIntents', () => {
	it('the intents no outcome names', () => {
		const e = (seq: number, more: Partial<AuditEntry>) => ({seq, ...more}) as AuditEntry;
		const entries = [e(1, {phase: 'intent'}), e(2, {phase: 'outcome', intent: 1}), e(3, {phase: 'intent'}), e(4, {})];
		expect(pendingIntents(entries).map(i => i.seq)).toEqual([3]);
	});
});

describe('reconcileAudit', () => {
	it('applied: every column holds its after-value; recorded, undoable, the chain intact', () => {
		const {db, audit} = crashed('agent:main:telegram:dm:1', 'superseded_by_repair');
		const before = files(db);
		const {settled, warnings} = run(db, true);
		expect(settled.map(s => [s.state, s.detail])).toEqual([
			['applied', 'all 2 planned columns hold the values it writes'],
		]);
		const outcome = readAudit(audit)[1]!;
		expect(outcome).toMatchObject({
			seq: 2,
			phase: 'outcome',
			intent: 1,
			reconciled: true,
			result: 'applied',
			planHash: 'p1',
			changes: CHANGES,
			argv: ['audit', 'verify'],
			exitCode: null,
		});
		expect(outcome.reason).toBe(
			'applied (reconciled): the apply of 2026-01-01T00:00:00.000Z (pid 4194305) ended between its intent and its ' +
				'outcome; all 2 planned columns hold the values it writes',
		);
		expect(verifyAudit(audit).ok).toBe(true);
		expect(warnings).toEqual([
			`hfx: ${audit}: entry 1: an interrupted apply (2026-01-01T00:00:00.000Z) is recorded as applied ` +
				`(reconciled) in entry 2 (undo with: hfx repair --undo 2 --db ${db})`,
		]);
		expect(files(db)).toEqual(before);
		expect(run(db, true).settled).toEqual([]);
	});

	it('not applied: every column still holds its before-value; no changes recorded', () => {
		const {db, audit} = crashed(null, null);
		expect(run(db, true).settled[0]!.state).toBe('not-applied');
		expect(readAudit(audit)[1]).toMatchObject({result: 'not-applied', changes: []});
	});

	it('undetermined: names the columns holding neither value', () => {
		const {db} = crashed('agent:main:telegram:dm:1', 'user_reset');
		expect(run(db, true).settled[0]!.detail).toBe(
			's-donor.end_reason hold neither the value before nor the one it writes (the store moved on since)',
		);
	});

	it('the dry run records nothing and says it awaits reconciliation', () => {
		const {db, audit} = crashed(null, null);
		const {settled, warnings} = run(db, false);
		expect(settled[0]).toMatchObject({state: 'not-applied', outcome: null});
		expect(readAudit(audit)).toHaveLength(1);
		expect(warnings[0]).toMatch(
			/entry 1: an interrupted apply .* awaits reconciliation: the store shows it not applied;/,
		);
		expect(settlementLine(audit, settled[0]!)).toBe(warnings[0]);
	});

	it('never settles an intent whose process still runs', () => {
		const {db, audit} = crashed(null, null, process.pid);
		expect(run(db, true)).toEqual({settled: [], warnings: []});
		expect(readAudit(audit)).toHaveLength(1);
	});

	it('a broken chain: nothing appended, said once', () => {
		const {db, audit} = crashed(null, null);
		fs.writeFileSync(audit, fs.readFileSync(audit, 'utf8').replace('p1', 'p2'));
		const {settled, warnings} = run(db, true);
		expect(settled).toEqual([]);
		expect(warnings).toEqual([
			`hfx: ${audit}: 1 interrupted write not reconciled: the hash chain is broken (hfx audit verify says where)`,
		]);
		expect(readAudit(audit)).toHaveLength(1);
	});

	it('a store that cannot be read leaves the intent pending, with a warning', () => {
		const {db, audit} = crashed(null, null);
		fs.writeFileSync(db, 'x'.repeat(4096));
		const {settled, warnings} = run(db, true);
		expect(settled).toEqual([]);
		expect(warnings).toEqual([
			expect.stringMatching(
				/^hfx: .*state\.db: 1 interrupted write could not be reconciled: the store cannot be read \(/,
			),
		]);
		expect(readAudit(audit)).toHaveLength(1);
	});
});
