import {describe, expect, it} from 'vitest';
import {isHot, sliceSize} from '../../../source/store/read/hot-rows-sweep.js';
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

describe('sliceSize: the next slice of a rolling comparison', () => {
	const pace = {roundMs: 60_000, gapMs: 5000, maxPerSecond: 1000, minRows: 16};

	it('is the share of a round for the time since the last slice, at least the minimum', () => {
		expect(sliceSize(21_516, 85, pace)).toBe(31);
		expect(sliceSize(21_516, 0, pace)).toBe(16);
	});

	it('after a long pause: sized for the gap at most, and never more than a second of rows', () => {
		expect(sliceSize(21_516, 3000, pace)).toBe(1000);
		expect(sliceSize(6000, 30_000, pace)).toBe(500);
		expect(sliceSize(1_000_000, 30_000, pace)).toBe(1000);
	});
});
