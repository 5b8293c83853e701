import {describe, expect, it} from 'vitest';
import {isHot} from '../../../source/store/read/hot-rows-sweep.js';
import {session} from '../../helpers/records.js';

const NOW = 1_800_000_000;

describe('isHot: the rows the hot rows sweep compares about every five seconds', () => {
	it('an open row is hot whenever it started', () => {
		expect(isHot(session({id: 'a', endedAtRaw: null, startedAtRaw: NOW - 90 * 86_400}), NOW)).toBe(true);
	});

	it('a row ended within the last day is hot (gateway recovery may reopen it), one ended before is not', () => {
		expect(isHot(session({id: 'a', endedAtRaw: NOW - 3600}), NOW)).toBe(true);
		expect(isHot(session({id: 'b', endedAtRaw: NOW - 86_400 + 1}), NOW)).toBe(true);
		expect(isHot(session({id: 'c', endedAtRaw: NOW - 86_400 - 1}), NOW)).toBe(false);
		expect(isHot(session({id: 'd', endedAtRaw: NOW - 30 * 86_400}), NOW)).toBe(false);
	});

	it('an end that is not a number of seconds (text, a blob) is cold: every row is met in its own round', () => {
		expect(isHot(session({id: 'a', endedAtRaw: '2026-01-01'}), NOW)).toBe(false);
		expect(isHot(session({id: 'b', endedAtRaw: Buffer.from('x')}), NOW)).toBe(false);
	});
});
