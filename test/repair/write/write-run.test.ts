/**
 * One apply or undo in progress (source/repair/write/write-run.ts), through a run of the test's own mode
 * on a real audit trail in a temp folder: a new run is refused until it succeeds; the intent goes in
 * first with this process and the writes it is about to make; the outcome names the intent, its
 * checks and result; a refusal before any intent records nothing, one after it settles the intent;
 * an outcome the trail cannot take is a warning, never a throw.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {processStartTicks} from '../../../source/ground/liveness.js';
import {type IntentFields, WriteRun} from '../../../source/repair/write/write-run.js';
import {AUDIT_FILE, readAudit, verifyAudit} from '../../../source/store/audit-trail.js';
import {toolVersion} from '../../../source/ground/version.js';

const made: string[] = [];
afterAll(() => {
	for (const d of made) {
		fs.rmSync(d, {recursive: true, force: true});
	}
});

const CHANGE = {sessionId: 's-orphan', role: 'orphan' as const, column: 'session_key', before: null, after: 'k'};

/** A mode of the test's own: the fields a real apply adds, kept small. */
class TestRun extends WriteRun {
	readonly mode = 'apply' as const;
	readonly lines: string[];

	constructor(dir: string, lines: string[] = []) {
		super(path.join(dir, 'state.db'), path.join(dir, AUDIT_FILE), ['repair', '--apply'], line => lines.push(line));
		this.lines = lines;
	}

	sqliteVersion(): string {
		return '3.50.0';
	}

	outcomeFields(): Record<string, unknown> {
		return {planHash: 'p1'};
	}

	intentFields(): IntentFields {
		return {changes: [CHANGE], planHash: 'p1'};
	}
}

function folder(): string {
	const d = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-write-run-'));
	made.push(d);
	return d;
}

describe('WriteRun', () => {
	it('starts refused, with nothing recorded', () => {
		const run = new TestRun(folder());
		expect(run.outcome).toMatchObject({exitCode: 2, result: 'refused', checks: [], audit: null});
		expect(run.intentSeq).toBeNull();
	});

	it('a refusal before the intent records nothing', () => {
		const dir = folder();
		const run = new TestRun(dir);
		const outcome = run.refuse('precondition failed: a holder', 'stop the gateway');
		expect(outcome).toMatchObject({exitCode: 2, result: 'refused', reason: 'precondition failed: a holder'});
		expect(outcome.next).toBe('stop the gateway');
		expect(fs.existsSync(run.auditPath)).toBe(false);
	});

	it('the intent first (this process, the writes), then the outcome naming it, on an intact chain', () => {
		const dir = folder();
		const run = new TestRun(dir);
		run.recordIntent();
		expect(run.intentSeq).toBe(1);
		Object.assign(run.outcome, {exitCode: 0, result: 'applied', changes: [CHANGE]});
		run.record();
		const [intent, outcome] = readAudit(run.auditPath);
		expect(intent).toMatchObject({
			seq: 1,
			phase: 'intent',
			pid: process.pid,
			pidStart: processStartTicks(process.pid),
			mode: 'apply',
			database: run.dbPath,
			argv: ['repair', '--apply'],
			sqliteVersion: '3.50.0',
			tool: {name: 'hfx', version: toolVersion()},
			snapshot: null,
			changes: [CHANGE],
			planHash: 'p1',
		});
		expect(outcome).toMatchObject({
			seq: 2,
			phase: 'outcome',
			intent: 1,
			planHash: 'p1',
			changes: [CHANGE],
			result: 'applied',
			exitCode: 0,
			reason: null,
		});
		expect(run.outcome.audit).toEqual(outcome);
		expect(verifyAudit(run.auditPath).ok).toBe(true);
	});

	it('a refusal after the intent settles it with the reason', () => {
		const dir = folder();
		const run = new TestRun(dir);
		run.recordIntent();
		const outcome = run.refuse('interrupted before the write: nothing was written', 'run again', 'aborted');
		expect(outcome.result).toBe('aborted');
		expect(readAudit(run.auditPath).at(-1)).toMatchObject({
			phase: 'outcome',
			intent: 1,
			result: 'aborted',
			reason: 'interrupted before the write: nothing was written',
			exitCode: 2,
		});
	});

	it('an outcome with no intent is recorded without a phase', () => {
		const run = new TestRun(folder());
		run.record();
		const [entry] = readAudit(run.auditPath);
		expect(entry!.phase).toBeUndefined();
		expect(entry!.intent).toBeUndefined();
	});

	it('an intent the trail cannot take throws; an outcome it cannot take is a warning', () => {
		const dir = folder();
		const run = new TestRun(dir);
		fs.mkdirSync(run.auditPath);
		expect(() => run.recordIntent()).toThrow();
		expect(run.intentSeq).toBeNull();
		run.record();
		expect(run.outcome.audit).toBeNull();
		expect(run.lines).toEqual([expect.stringMatching(/^warning: the audit entry could not be written: /)]);
	});
});
