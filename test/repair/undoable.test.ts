/**
 * Which applied repairs of the audit trail the TUI offers to undo (`u` in Findings): exactly those
 * `hfx repair --undo SEQ` accepts, newest first.
 */
import {describe, expect, it} from 'vitest';
import {restoresOf, undoableEntries} from '../../source/repair/undo.js';
import type {AuditEntry} from '../../source/store/audit-trail.js';

const change = {
	sessionId: 's1',
	role: 'orphan',
	column: 'session_key',
	before: null,
	after: 'agent:main:telegram:dm:1',
};

function entry(seq: number, fields: Record<string, unknown>): AuditEntry {
	return {
		seq,
		prev: 'x',
		time: '2026-12-02T00:00:00Z',
		tool: {name: 'hfx', version: '0'},
		sqliteVersion: '3',
		argv: [],
		mode: 'apply',
		database: '/h/state.db',
		...fields,
	} as AuditEntry;
}

describe('the undoable entries of a trail', () => {
	it(
		'lists applied repairs not undone yet, newest first; never an intent, a ' + 'refusal, an undo or an undone apply',
		() => {
			const trail = [
				entry(1, {phase: 'intent', changes: [change]}),
				entry(2, {phase: 'outcome', intent: 1, result: 'applied', changes: [change]}),
				entry(3, {phase: 'intent', changes: [change]}),
				entry(4, {phase: 'outcome', intent: 3, result: 'applied', changes: [change]}),
				entry(5, {phase: 'intent', mode: 'undo', undoes: 2, changes: [change]}),
				entry(6, {phase: 'outcome', intent: 5, mode: 'undo', undoes: 2, result: 'applied', changes: [change]}),
				entry(7, {result: 'refused', changes: []}),
				entry(8, {phase: 'intent', changes: [change]}),
				entry(9, {phase: 'outcome', intent: 8, result: 'applied', changes: [change]}),
			];
			expect(undoableEntries(trail).map(e => e.seq)).toEqual([9, 4]);
			expect(undoableEntries([])).toEqual([]);
		},
	);

	it('an undo puts back each column from what the repair wrote to what it found, last written first', () => {
		const second = {...change, column: 'chat_id', before: null, after: '1'};
		expect(restoresOf(entry(2, {changes: [change, second]}))).toEqual([
			{...second, before: '1', after: null},
			{...change, before: 'agent:main:telegram:dm:1', after: null},
		]);
	});
});
