/**
 * The guard sequence of every write to the store (source/repair/write/guarded-write.ts), in-process on a
 * real store the simulator wrote and a real audit trail in a temp folder: the preconditions (the
 * trail writable, refused in words when a link sits at its name; no holder) logged as checks; then
 * a fresh verified snapshot, the intent in the trail, one transaction, and the body's outcome: a
 * commit handed to `committed`, a Stop rolled back, a throw rolled back and handed to `failed`.
 * (Holders, signals and SIGKILL at each step: test/repair/apply.test.ts, crash-window.test.ts.)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import {afterAll, describe, expect, it} from 'vitest';
import {type GuardedWrite, checkPreconditions, guardedWrite} from '../../../source/repair/write/guarded-write.js';
import {type ApplyOutcome, type IntentFields, WriteRun} from '../../../source/repair/write/write-run.js';
import {StoreWriter} from '../../../source/simulator/store-writer.js';
import {AUDIT_FILE, readAudit} from '../../../source/store/audit-trail.js';
import {T0} from '../../fixtures/scenarios.js';

const made: string[] = [];
afterAll(() => {
	for (const d of made) {
		fs.rmSync(d, {recursive: true, force: true});
	}
});

class TestRun extends WriteRun {
	readonly mode = 'apply' as const;
	readonly lines: string[];
	constructor(
		db: string,
		readonly session: string,
		lines: string[] = [],
	) {
		super(db, path.join(path.dirname(db), AUDIT_FILE), ['repair', '--apply'], line => lines.push(line));
		this.lines = lines;
	}

	sqliteVersion(): string {
		return '3.50.0';
	}

	outcomeFields(): Record<string, unknown> {
		return {};
	}

	intentFields(): IntentFields {
		return {changes: [{sessionId: this.session, role: 'orphan', column: 'title', before: null, after: 'x'}]};
	}
}

/** A stopped store with one session, and that session's id. */
function home(): {db: string; session: string} {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-guarded-'));
	made.push(dir);
	const db = path.join(dir, 'state.db');
	const w = new StoreWriter(db, {shape: 'v30'});
	const session = w.createSession({source: 'telegram', startedAt: T0});
	w.addConversation(session, 4, T0 + 1, T0 + 60);
	w.close();
	return {db, session};
}

function titleOf(db: string, id: string): unknown {
	const r = new Database(db, {readonly: true});
	try {
		return r.prepare('SELECT title FROM sessions WHERE id = ?').pluck().get(id);
	} finally {
		r.close();
	}
}

function run(db: string, session: string): TestRun {
	return new TestRun(db, session);
}

function spec(r: TestRun, body: GuardedWrite['body']): GuardedWrite {
	return {
		label: 'pre-repair',
		body,
		failed: error => r.refuse(`the write failed: ${(error as Error).message}`, 'run again', 'failed'),
		committed: (): ApplyOutcome => {
			Object.assign(r.outcome, {exitCode: 0, result: 'applied', reason: null, next: null});
			r.record();
			return r.outcome;
		},
	};
}

describe('checkPreconditions', () => {
	it('the trail writable and no holder: null, each check logged', () => {
		const {db, session} = home();
		const r = run(db, session);
		expect(checkPreconditions(r)).toBeNull();
		expect(r.outcome.checks.map(c => [c.id, c.ok])).toEqual([
			['audit-writable', true],
			['no-holders', true],
			['no-deleted-wal', true],
		]);
		expect(r.lines).toEqual([
			'✓ the audit trail can be written',
			'✓ no other process holds state.db, -wal or -shm',
			'✓ no process holds a deleted -wal of this database',
		]);
	});

	it('a link at the trail’s name: refused in words before anything else, nothing recorded', () => {
		const {db, session} = home();
		const r = run(db, session);
		fs.symlinkSync('/etc/passwd', r.auditPath);
		const outcome = checkPreconditions(r)!;
		expect(outcome).toMatchObject({exitCode: 2, result: 'refused'});
		expect(outcome.reason).toMatch(new RegExp(`^${r.auditPath}: .*link`));
		expect(outcome.checks).toEqual([expect.objectContaining({id: 'audit-writable', ok: false})]);
		expect(fs.lstatSync(r.auditPath).isSymbolicLink()).toBe(true);
	});
});

describe('guardedWrite', () => {
	it('snapshot, intent, one transaction, outcome: the write committed and recorded', async () => {
		const {db, session} = home();
		const r = run(db, session);
		const outcome = await guardedWrite(
			r,
			spec(r, d => {
				expect(readAudit(r.auditPath).map(e => e.phase)).toEqual(['intent']);
				d.prepare("UPDATE sessions SET title = 'x' WHERE id = ?").run(session);
				return null;
			}),
		);
		expect(outcome).toMatchObject({exitCode: 0, result: 'applied'});
		expect(outcome.checks).toEqual([expect.objectContaining({id: 'snapshot', ok: true})]);
		expect(fs.existsSync(path.join(outcome.snapshotDir!, 'state.db'))).toBe(true);
		expect(path.dirname(outcome.snapshotDir!)).toBe(path.join(path.dirname(db), 'state-snapshots'));
		expect(titleOf(db, session)).toBe('x');
		const [intent, recorded] = readAudit(r.auditPath);
		expect(intent).toMatchObject({phase: 'intent', snapshot: outcome.snapshotDir});
		expect(recorded).toMatchObject({phase: 'outcome', intent: intent!.seq, result: 'applied'});
	});

	it('a Stop is rolled back and becomes the outcome, the intent settled', async () => {
		const {db, session} = home();
		const r = run(db, session);
		const outcome = await guardedWrite(
			r,
			spec(r, d => {
				d.prepare("UPDATE sessions SET title = 'x' WHERE id = ?").run(session);
				return () => r.refuse('the plan moved', 'plan again');
			}),
		);
		expect(outcome).toMatchObject({result: 'refused', reason: 'the plan moved'});
		expect(titleOf(db, session)).toBeNull();
		expect(readAudit(r.auditPath).map(e => [e.phase, e.result])).toEqual([
			['intent', undefined],
			['outcome', 'refused'],
		]);
	});

	it('a body that throws is rolled back and handed to failed', async () => {
		const {db, session} = home();
		const r = run(db, session);
		const outcome = await guardedWrite(
			r,
			spec(r, d => {
				d.prepare("UPDATE sessions SET title = 'x' WHERE id = ?").run(session);
				throw new Error('disk I/O error');
			}),
		);
		expect(outcome).toMatchObject({result: 'failed', reason: 'the write failed: disk I/O error'});
		expect(titleOf(db, session)).toBeNull();
	});
});
