/**
 * The columns Hermes' rules decide on (forensics/rule-columns.ts): each one a store lacks is named
 * with what cannot be decided; a table that is absent lacks nothing.
 */
import {describe, expect, it} from 'vitest';
import {RULE_COLUMNS, missingRuleColumns} from '../../source/forensics/rule-columns.js';

type Table = (typeof RULE_COLUMNS)[number]['table'];

function columnsOfEvery(): (table: Table) => Set<string> {
	return table => new Set(RULE_COLUMNS.filter(c => c.table === table).map(c => c.column));
}

describe('missingRuleColumns', () => {
	it('is empty for a store that has every rule column', () => {
		expect(missingRuleColumns(columnsOfEvery())).toEqual([]);
	});

	it('names each absent column as table.column, with what cannot be decided', () => {
		const every = columnsOfEvery();
		const missing = missingRuleColumns(table => {
			const columns = every(table);
			columns.delete(table === 'sessions' ? 'chat_id' : table === 'messages' ? 'timestamp' : 'none');
			return columns;
		});
		expect(missing.map(m => m.column)).toEqual(['messages.timestamp', 'sessions.chat_id']);
		expect(missing[1]!.undecided).toContain('restart recovery matches on chat_id');
		expect(missing[0]!.undecided).toContain('rollback risk');
	});

	it('an absent table (gateway_routing is optional) lacks none of its columns; an empty one lacks all', () => {
		const every = columnsOfEvery();
		expect(missingRuleColumns(table => (table === 'gateway_routing' ? null : every(table)))).toEqual([]);
		expect(
			missingRuleColumns(table => (table === 'gateway_routing' ? new Set() : every(table))).map(m => m.column),
		).toEqual(['gateway_routing.session_key', 'gateway_routing.entry_json']);
	});

	it('every rule column says what it leaves undecided', () => {
		for (const c of RULE_COLUMNS) {
			expect(c.undecided).toMatch(/cannot be (decided|told|read|placed|followed|matched)/);
		}
	});
});
