/**
 * A length of time in a sentence (forensics/duration.ts): one voice for every view and report.
 */
import {describe, expect, it} from 'vitest';
import {duration} from '../../source/forensics/duration.js';

describe('duration: the one voice of a length of time in a sentence', () => {
	it('says seconds, minutes, hours and days in words, with the right plural', () => {
		expect([1, 64, 60 * 1, 90, 61 * 60, 40 * 3600, 2.7 * 86_400].map(duration)).toEqual([
			'1 second',
			'64 seconds',
			'60 seconds',
			'2 minutes',
			'61 minutes',
			'40.0 hours',
			'2.7 days',
		]);
		expect(duration(60.4 * 60)).toBe('60 minutes');
		expect(duration(null)).toBe('—');
		expect(duration(-64)).toBe('64 seconds');
	});

	it('changes unit at 90 seconds, 90 minutes and 48 hours; no number is a dash', () => {
		expect([89.4, 90, 5399, 5400, 172_799, 172_800].map(duration)).toEqual([
			'89 seconds',
			'2 minutes',
			'90 minutes',
			'1.5 hours',
			'48.0 hours',
			'2.0 days',
		]);
		expect([undefined, Number.NaN, Number.POSITIVE_INFINITY].map(duration)).toEqual(['—', '—', '—']);
	});
});
