import {describe, expect, it} from 'vitest';
import {StringPool} from '../../source/text/interned.js';

describe('StringPool', () => {
	it('hands back an equal value, and holds each distinct value once', () => {
		const pool = new StringPool();
		const values = ['telegram', 'dm', 'telegram', 'agent_close', 'dm', 'telegram'];
		expect(values.map(v => pool.intern([...v].join('')))).toEqual(values);
		expect(pool.size).toBe(3);
	});

	it('starts afresh at its limit: a stream of new values cannot grow it without end', () => {
		const pool = new StringPool(4);
		for (let i = 0; i < 10; i++) {
			expect(pool.intern(`value ${i}`)).toBe(`value ${i}`);
			expect(pool.size).toBeLessThanOrEqual(4);
		}

		expect(pool.size).toBe(2);
	});
});
