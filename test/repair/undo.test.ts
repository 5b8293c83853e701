/**
 * `hfx repair --undo ENTRY` (source/repair/undo.ts) on the real binary, over copies of a store a
 * second process wrote (Hermes' incident: a keyed DM gone quiet, a keyless row collecting its
 * messages): the undo puts back exactly what the repair found; it is refused, writing nothing to
 * the store, when a column the repair wrote changed since, while a process holds the store, when
 * the entry was undone already, and when the entry is no applied repair.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest';
import {FailClosed} from '../../source/ground/errors.js';
import {findApplyEntry, resolveUndoEntry, restoresOf, undoableEntries, undoRepair} from '../../source/repair/undo.js';
import {type AuditEntry, auditPathFor, readAudit, verifyAudit} from '../../source/store/audit-trail.js';
import {hfx, hfxJson} from '../helpers/cli.js';
import {sessionRows as rows} from '../helpers/session-rows.js';
import {WriterProcess} from '../helpers/writer.js';
import {T0} from '../fixtures/scenarios.js';

const MIN = 60;
const dirs: string[] = [];
const writers: WriterProcess[] = [];
/** The store the second process wrote and closed; each test repairs a copy of it. */
const base = {db: '', zombie: '', orphan: ''};

function temp(tag: string): string {
	const d = fs.mkdtempSync(path.join(os.tmpdir(), `hfx-undo-${tag}-`));
	dirs.push(d);
	return d;
}

beforeAll(async () => {
	base.db = path.join(temp('base'), 'state.db');
	const w = new WriterProcess(base.db);
	writers.push(w);
	await w.started();
	base.zombie = await w.create({
		source: 'telegram',
		userId: 'u-teknium',
		sessionKey: 'agent:main:telegram:dm:777001',
		chatId: '777001',
		chatType: 'dm',
		displayName: 'Teknium',
		startedAt: T0,
	});
	await w.send({op: 'conversation', id: base.zombie, count: 30, from: T0 + 10, to: T0 + 15 * MIN});
	base.orphan = await w.create({source: 'telegram', startedAt: T0 + 15 * MIN + 60});
	await w.send({op: 'conversation', id: base.orphan, count: 200, from: T0 + 15 * MIN + 70, to: T0 + 6 * 3600});
	// The agent stops: its connection closes (the -wal checkpointed and removed), the process exits.
	await w.send({op: 'close'}).catch(() => ({}));
	await w.kill();
});
afterEach(async () => {
	for (const w of writers.splice(0)) {
		await w.kill();
	}
});
afterAll(() => {
	for (const d of dirs) {
		fs.rmSync(d, {recursive: true, force: true});
	}
});

/** A copy of the second process's store in a folder of its own, with the repair applied to it. */
function appliedCopy(tag: string): {db: string; before: ReturnType<typeof rows>; seq: number} {
	const db = path.join(temp(tag), 'state.db');
	fs.copyFileSync(base.db, db);
	const before = rows(db);
	const applied = hfxJson(['repair', '--db', db, '--apply', '--yes']);
	expect(applied.code, applied.stderr).toBe(0);
	expect(applied.json.result).toBe('applied');
	expect(rows(db)).not.toEqual(before);
	return {db, before, seq: applied.json.audit.seq as number};
}

/**
 * The store's bytes and its folder's listing but the snapshots (an undo takes one before it writes).
 * Taken before the test reads rows: its own read-only open of a store without -wal/-shm makes them.
 */
function storeState(db: string) {
	const dir = path.dirname(db);
	return {
		bytes: fs.readFileSync(db),
		listing: fs
			.readdirSync(dir)
			.filter(n => n !== 'state-snapshots')
			.sort(),
	};
}

describe('hfx repair --undo', () => {
	it('puts back exactly what the repair found, after a snapshot, and records itself as undoing the apply', () => {
		const {db, before, seq} = appliedCopy('undo');
		const snapshots = fs
			.readdirSync(path.join(path.dirname(db), 'state-snapshots'))
			.filter(n => !n.startsWith('hfx-')).length;
		const undo = hfxJson(['repair', '--db', db, '--undo', String(seq), '--yes']);
		expect(undo.code, undo.stderr).toBe(0);
		expect(undo.json.result).toBe('applied');
		expect(rows(db)).toEqual(before);
		// Its own verified snapshot first (the guarded write), then the trail: intent and outcome, chained.
		expect(
			fs.readdirSync(path.join(path.dirname(db), 'state-snapshots')).filter(n => !n.startsWith('hfx-')).length,
		).toBe(snapshots + 1);
		const trail = readAudit(auditPathFor(db));
		expect(trail.at(-1)).toMatchObject({mode: 'undo', phase: 'outcome', result: 'applied', undoes: seq});
		expect(trail.at(-2)).toMatchObject({mode: 'undo', phase: 'intent', undoes: seq});
		expect(verifyAudit(auditPathFor(db)).ok).toBe(true);
	});

	it(
		'is refused when a column the repair wrote changed since (the agent ' +
			'moved on), and writes nothing to the store',
		async () => {
			const {db, seq} = appliedCopy('moved');
			// The agent runs again and rewrites the end reason the repair gave the donor.
			const w = new WriterProcess(db);
			writers.push(w);
			await w.started();
			await w.send({op: 'exec', sql: `UPDATE sessions SET end_reason = 'session_reset' WHERE id = '${base.zombie}'`});
			await w.send({op: 'close'}).catch(() => ({}));
			await w.kill();
			const state = storeState(db);
			const moved = rows(db);
			const refused = hfx(['repair', '--db', db, '--undo', String(seq), '--yes']);
			expect(refused.code).toBe(2);
			expect(refused.stderr.trim().split('\n')).toHaveLength(1);
			expect(refused.stderr).toContain(`${base.zombie}.end_reason changed since the repair`);
			expect(storeState(db)).toEqual(state);
			expect(rows(db)).toEqual(moved);
			// The refusal is recorded (its intent had been), and the apply stays undoable by no one else.
			expect(readAudit(auditPathFor(db)).at(-1)).toMatchObject({mode: 'undo', phase: 'outcome', undoes: seq});
			expect(readAudit(auditPathFor(db)).at(-1)!.result).not.toBe('applied');
			expect(verifyAudit(auditPathFor(db)).ok).toBe(true);
		},
	);

	it('is refused while a process holds the store (the agent runs), naming it; nothing is written', async () => {
		const {db, seq} = appliedCopy('held');
		const w = new WriterProcess(db);
		writers.push(w);
		await w.started();
		await w.send({op: 'ping'});
		const applied = rows(db);
		const trail = fs.readFileSync(auditPathFor(db));
		const refused = hfx(['repair', '--db', db, '--undo', String(seq), '--yes']);
		expect(refused.code).toBe(2);
		expect(refused.stderr).toContain(`pid ${w.pid}`);
		expect(rows(db)).toEqual(applied);
		expect(fs.readFileSync(auditPathFor(db)).subarray(0, trail.length)).toEqual(trail);
		expect(readAudit(auditPathFor(db)).some(e => e.mode === 'undo' && e.result === 'applied')).toBe(false);
	});

	it(
		'a second undo of the same entry is refused in one line naming the undo ' +
			'that did it; store and trail unchanged',
		() => {
			const {db, before, seq} = appliedCopy('twice');
			const first = hfxJson(['repair', '--db', db, '--undo', String(seq), '--yes']);
			expect(first.code, first.stderr).toBe(0);
			const state = storeState(db);
			const trail = fs.readFileSync(auditPathFor(db));
			const again = hfx(['repair', '--db', db, '--undo', String(seq), '--yes']);
			expect(again.code).toBe(2);
			expect(again.stderr.trim().split('\n')).toHaveLength(1);
			expect(again.stderr).toContain(`entry ${seq} was already undone by entry ${first.json.audit.seq as number}`);
			expect(storeState(db)).toEqual(state);
			expect(rows(db)).toEqual(before);
			expect(fs.readFileSync(auditPathFor(db))).toEqual(trail);
		},
	);

	it('an entry that is no applied repair (the undo itself) is refused; nothing is written', () => {
		const {db, seq} = appliedCopy('not-apply');
		const first = hfxJson(['repair', '--db', db, '--undo', String(seq), '--yes']);
		expect(first.code, first.stderr).toBe(0);
		const state = storeState(db);
		const trail = fs.readFileSync(auditPathFor(db));
		const refused = hfx(['repair', '--db', db, '--undo', String(first.json.audit.seq as number), '--yes']);
		expect(refused.code).toBe(2);
		expect(refused.stderr).toContain('only an applied repair can be undone');
		expect(storeState(db)).toEqual(state);
		expect(fs.readFileSync(auditPathFor(db))).toEqual(trail);
	});
});

/** A trail entry as the audit writes it, with the fields undo.ts reads. */
function entry(seq: number, fields: Partial<AuditEntry>): AuditEntry {
	return {
		seq,
		prev: '',
		time: '',
		tool: {name: 'hfx', version: '0'},
		sqliteVersion: '',
		argv: [],
		mode: 'apply',
		database: '',
		...fields,
	};
}

const change = (column: string, before: unknown, after: unknown) => ({
	sessionId: 's1',
	role: 'orphan',
	column,
	before,
	after,
});

/** apply 1 (intent 1, outcome 2), a refused apply (3, 4), apply 5 (intent 5, outcome 6) undone by 7 (intent) / 8. */
const TRAIL: AuditEntry[] = [
	entry(1, {phase: 'intent'}),
	entry(2, {
		phase: 'outcome',
		intent: 1,
		result: 'applied',
		changes: [change('session_key', null, 'k'), change('user_id', null, 'u')],
	}),
	entry(3, {phase: 'intent'}),
	entry(4, {phase: 'outcome', intent: 3, result: 'refused', changes: []}),
	entry(5, {phase: 'intent'}),
	entry(6, {phase: 'outcome', intent: 5, result: 'failed', changes: [change('chat_id', null, 'c')]}),
	entry(7, {mode: 'undo', phase: 'intent', undoes: 6}),
	entry(8, {mode: 'undo', phase: 'outcome', intent: 7, result: 'applied', undoes: 6}),
	entry(9, {phase: 'intent'}),
];

describe('undo.ts, in process: which entry an undo names and what it puts back', () => {
	it('an intent stands for its outcome; an applied repair is found by its number', () => {
		expect(findApplyEntry(TRAIL, '1').seq).toBe(2);
		expect(findApplyEntry(TRAIL, '2').seq).toBe(2);
	});

	it('refuses an unknown entry, an intent with no outcome, a refused apply, an undo, and one undone already', () => {
		expect(() => findApplyEntry(TRAIL, '42')).toThrow('no audit entry 42');
		expect(() => findApplyEntry(TRAIL, '9')).toThrow('entry 9 is the intent of an apply that has no outcome yet');
		expect(() => findApplyEntry(TRAIL, '4')).toThrow('entry 4 is a apply that ended refused');
		expect(() => findApplyEntry(TRAIL, '8')).toThrow('only an applied repair can be undone');
		// "failed" with its changes kept was committed: undoable, and here undone by entry 8.
		expect(() => findApplyEntry(TRAIL, '6')).toThrow('entry 6 was already undone by entry 8');
	});

	it('lists only the applied repairs still undoable, newest first', () => {
		expect(undoableEntries(TRAIL).map(e => e.seq)).toEqual([2]);
		const more = [...TRAIL, entry(10, {phase: 'outcome', intent: 9, result: 'applied', changes: [change('x', 1, 2)]})];
		expect(undoableEntries(more).map(e => e.seq)).toEqual([10, 2]);
	});

	it('puts the columns back last written first, each from what the repair wrote to what it found', () => {
		expect(restoresOf(findApplyEntry(TRAIL, '2'))).toEqual([
			change('user_id', 'u', null),
			change('session_key', 'k', null),
		]);
		expect(restoresOf(entry(11, {}))).toEqual([]);
	});

	it('a reference to no entry of a real trail is one refusal naming the trail and the next step', () => {
		const {db} = appliedCopy('resolve');
		let refusal: unknown;
		try {
			resolveUndoEntry(db, '999');
		} catch (error) {
			refusal = error;
		}
		expect(refusal).toBeInstanceOf(FailClosed);
		expect((refusal as FailClosed).kind).toBe('no-such-entry');
		expect((refusal as FailClosed).reason).toBe(`no audit entry 999 in ${auditPathFor(db)}`);
		expect((refusal as FailClosed).next).toContain(`hfx audit verify --db ${db}`);
	});

	it('undoRepair puts back the rows the apply changed, in process, and records itself', async () => {
		const {db, before, seq} = appliedCopy('in-process');
		const lines: string[] = [];
		const outcome = await undoRepair({
			dbPath: db,
			entry: String(seq),
			argv: ['repair', '--undo', String(seq)],
			yes: true,
			confirm: async () => false,
			log: line => lines.push(line),
		});
		expect(outcome.result).toBe('applied');
		expect(outcome.exitCode).toBe(0);
		expect(rows(db)).toEqual(before);
		expect(lines.some(l => l.startsWith(`✓ undid entry ${seq}:`))).toBe(true);
		expect(readAudit(auditPathFor(db)).at(-1)).toMatchObject({mode: 'undo', result: 'applied', undoes: seq});
	});

	it('undoRepair without --yes asks, and a "no" writes nothing to the store', async () => {
		const {db, seq} = appliedCopy('declined');
		const applied = rows(db);
		const asked: number[] = [];
		const outcome = await undoRepair({
			dbPath: db,
			entry: String(seq),
			argv: [],
			yes: false,
			confirm: async target => {
				asked.push(target.seq);
				return false;
			},
			log: () => {},
		});
		expect(asked).toEqual([seq]);
		expect(outcome.result).toBe('aborted');
		expect(rows(db)).toEqual(applied);
	});
});
