/**
 * The plain parsers of the places beside a store (forensics/places.ts): a compact UTC stamp, a
 * retired-WAL capture folder's name and a JSON timestamp cell, each null when it does not parse.
 */
import {describe, expect, it} from 'vitest';
import {compactUtc, epochOf, parseCaptureName} from '../../source/forensics/places.js';

const AT = Date.UTC(2026, 7, 9, 9, 40, 12) / 1000;

describe('compactUtc', () => {
	it('reads YYYYmmdd-HHMMSS as UTC epoch seconds', () => {
		expect(compactUtc('20260809-094012')).toBe(AT);
	});

	it('is null for any other shape', () => {
		expect(compactUtc('2026-08-09 09:40:12')).toBeNull();
		expect(compactUtc('20260809094012')).toBeNull();
		expect(compactUtc(' 20260809-094012')).toBeNull();
	});
});

describe('parseCaptureName', () => {
	it('reads the time and the pid, with or without a -N suffix, and says a .partial one did not complete', () => {
		expect(parseCaptureName('state.db.retired-wal-20260809-094012-4242')).toEqual({at: AT, pid: 4242, partial: false});
		expect(parseCaptureName('state.db.retired-wal-20260809-094012-4242-2')).toEqual({
			at: AT,
			pid: 4242,
			partial: false,
		});
		expect(parseCaptureName('state.db.retired-wal-20260809-094012-4242.partial')).toEqual({
			at: AT,
			pid: 4242,
			partial: true,
		});
	});

	it('keeps a capture whose name is odd, with no time and no pid; a name of another shape is no capture', () => {
		expect(parseCaptureName('state.db.retired-wal-garbled.partial')).toEqual({at: null, pid: null, partial: true});
		expect(parseCaptureName('state.db.retired-wal-x')).toEqual({at: null, pid: null, partial: false});
		expect(parseCaptureName('state.db-wal')).toBeNull();
		expect(parseCaptureName('retired-wal-20260809-094012-4242')).toBeNull();
	});
});

describe('epochOf', () => {
	it('reads seconds, milliseconds, numeric strings and ISO times as epoch seconds', () => {
		expect(epochOf(AT)).toBe(AT);
		expect(epochOf(AT * 1000)).toBe(AT);
		expect(epochOf(` ${AT}.5 `)).toBe(AT + 0.5);
		expect(epochOf('2026-08-09T09:40:12Z')).toBe(AT);
	});

	it('is null for zero, negatives, non-finite numbers, blanks, words and other types', () => {
		for (const v of [0, -5, Number.NaN, Number.POSITIVE_INFINITY, '', '   ', 'yesterday', null, undefined, {}, true]) {
			expect(epochOf(v)).toBeNull();
		}
	});
});
