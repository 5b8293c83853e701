/**
 * The undo preview lists the columns an undo changes back; a cell the repair wrote with the value it
 * already held (the orphan's user_id, a NULL thread_id) is checked by the undo but changes nothing, so it is
 * counted apart, not listed as "X → X".
 */
import {describe, expect, it} from 'vitest';
import type {AuditEntry} from '../../../source/store/audit-trail.js';
import {undoLines} from '../../../source/ui/repair/undo-flow-lines.js';
import {INITIAL_UNDO} from '../../../source/ui/repair/undo-flow-state.js';
import {MONO_THEME} from '../../../source/ui/theme.js';

const entry: AuditEntry = {
	seq: 2,
	prev: 'x',
	time: '2026-12-02T07:05:55.000Z',
	tool: {name: 'hfx', version: '0'},
	sqliteVersion: '3',
	argv: [],
	mode: 'apply',
	database: '/h/state.db',
	result: 'applied',
	changes: [
		{sessionId: 'o', role: 'orphan', column: 'session_key', before: null, after: 'agent:main:telegram:dm:1'},
		{sessionId: 'o', role: 'orphan', column: 'user_id', before: 'u1', after: 'u1'},
		{sessionId: 'o', role: 'orphan', column: 'thread_id', before: null, after: null},
	],
};

describe('the undo preview', () => {
	it('lists the columns the undo changes back and counts the ones it only checks', () => {
		const text = undoLines({...INITIAL_UNDO, entries: [entry]}, '/h/hfx-audit.jsonl', MONO_THEME, 100)
			.map(l => l.text)
			.join('\n');
		expect(text).toContain('undo of entry 2 puts back 1 columns (refused if any changed since the repair):');
		expect(text).toContain('o session_key: agent:main:telegram:dm:1 → NULL');
		expect(text).toContain('(2 more it wrote with their own value are checked, not changed)');
		expect(text).not.toMatch(/user_id|thread_id/);
	});
});
