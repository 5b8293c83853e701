import {describe, expect, it} from 'vitest';
import type {AuditEntry} from '../../../source/store/audit-trail.js';
import {auditLines, auditRows} from '../../../source/report/repair/audit.js';

const base = {
	prev: 'x',
	time: '2026-12-01T10:00:00.000Z',
	tool: {name: 'hfx' as const, version: '0.1.0'},
	sqliteVersion: '3.46',
	argv: [],
	database: '/h/state.db',
};
const change = (sessionId: string, role: 'orphan' | 'donor', column: string) => ({
	sessionId,
	role,
	column,
	before: null,
	after: 'v',
});
const entries: AuditEntry[] = [
	{
		...base,
		seq: 1,
		mode: 'apply',
		phase: 'intent',
		planHash: 'a'.repeat(64),
		changes: [
			change('o1', 'orphan', 'session_key'),
			change('o1', 'orphan', 'chat_id'),
			change('d1', 'donor', 'ended_at'),
		],
	},
	{
		...base,
		seq: 2,
		mode: 'apply',
		phase: 'outcome',
		intent: 1,
		planHash: 'a'.repeat(64),
		result: 'applied',
		changes: [change('o1', 'orphan', 'session_key'), change('d1', 'donor', 'ended_at')],
	},
	{...base, seq: 3, mode: 'undo', phase: 'intent', undoes: 2, changes: [change('o1', 'orphan', 'session_key')]},
	{
		...base,
		seq: 4,
		mode: 'undo',
		phase: 'outcome',
		intent: 3,
		undoes: 2,
		result: 'applied',
		reconciled: true,
		changes: [change('o1', 'orphan', 'session_key')],
	},
];

describe('auditRows: the trail as an operator reads it', () => {
	it('names the rows each entry touched, the intent an outcome settles, and which apply an undo reverted', () => {
		const rows = auditRows(entries);
		expect(rows.map(r => [r.seq, r.phase, r.result, r.intent, r.undoes, r.undoneBy])).toEqual([
			[1, 'intent', null, null, null, 4],
			[2, 'outcome', 'applied', 1, null, 4],
			[3, 'intent', null, null, 2, null],
			[4, 'outcome', 'applied', 3, 2, null],
		]);
		expect(rows[0]!.rows).toEqual([
			{sessionId: 'o1', role: 'orphan', columns: ['session_key', 'chat_id']},
			{sessionId: 'd1', role: 'donor', columns: ['ended_at']},
		]);
		expect(rows[3]!.reconciled).toBe(true);
	});

	it('prints one line per entry with its links, and its rows under it', () => {
		const lines = auditLines(auditRows(entries));
		expect(lines[0]).toBe(`#1    2026-12-01T10:00:00.000Z  apply  intent  (reverted by #4 · plan ${'a'.repeat(16)})`);
		expect(lines).toContain('#4    2026-12-01T10:00:00.000Z  undo   applied (reconciled)  (settles #3 · reverts #2)');
		expect(lines[1]).toBe('       orphan o1: session_key, chat_id');
	});

	it('an undo that did not apply reverts nothing', () => {
		const refused = entries.map(e => (e.seq === 4 ? {...e, result: 'refused'} : e));
		expect(auditRows(refused).find(r => r.seq === 2)!.undoneBy).toBeNull();
	});
});
