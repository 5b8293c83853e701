/**
 * Refusals: one line naming the file, the cause and the next safe step, and the one way a caught
 * refusal ends a command.
 */
import {describe, expect, it} from 'vitest';
import {FailClosed, refusalExit, refusalLine} from '../source/errors.js';

describe('refusals', () => {
	it('FailClosed prints the same one line as refusalLine', () => {
		const r = {file: '/x/state.db', reason: 'not a store', next: 'check the path'};
		expect(new FailClosed({...r, kind: 'not-hermes'}).line()).toBe('hfx: /x/state.db: not a store. Next: check the path');
		expect(refusalLine(r)).toBe(new FailClosed({...r, kind: 'k'}).line());
	});

	it('refusalExit prints a refusal\'s line and returns its exit code; anything else is rethrown', () => {
		const lines: string[] = [];
		const code = refusalExit(new FailClosed({file: 'f', kind: 'k', reason: 'why', next: 'then', exitCode: 1}), line => lines.push(line));
		expect(code).toBe(1);
		expect(lines).toEqual(['hfx: f: why. Next: then']);
		expect(() => refusalExit(new TypeError('bug'), line => lines.push(line))).toThrow('bug');
		expect(lines).toHaveLength(1);
	});
});
