/**
 * UTC stamps in names (source/backup/stamp.ts): utcStamp writes "YYYYmmdd-HHMMSS" in UTC, as Hermes
 * names its snapshots; parseStamp reads the first such stamp in a name back to epoch seconds, and
 * null for a name with none or an impossible date.
 */
import {describe, expect, it} from 'vitest';
import {parseStamp, utcStamp} from '../../source/backup/stamp.js';

describe('utcStamp', () => {
	it('writes the UTC date and time, seconds kept and milliseconds dropped', () => {
		expect(utcStamp(new Date('2026-03-04T05:06:07.899Z'))).toBe('20260304-050607');
		expect(utcStamp(new Date(Date.UTC(1999, 11, 31, 23, 59, 59)))).toBe('19991231-235959');
	});

	it('is read back to the same second', () => {
		const at = new Date('2026-12-02T07:46:03Z');
		expect(parseStamp(utcStamp(at))).toBe(at.getTime() / 1000);
	});
});

describe('parseStamp', () => {
	it('finds the stamp inside a name', () => {
		expect(parseStamp('hermes-backup-20260101-000000.zip')).toBe(Date.UTC(2026, 0, 1) / 1000);
		expect(parseStamp('state-snapshots/20260304-050607-pre-repair')).toBe(Date.UTC(2026, 2, 4, 5, 6, 7) / 1000);
	});

	it('null for a name with no stamp', () => {
		expect(parseStamp('hermes-backup.zip')).toBeNull();
		expect(parseStamp('2026-01-01 00:00:00')).toBeNull();
		expect(parseStamp('')).toBeNull();
	});
});
