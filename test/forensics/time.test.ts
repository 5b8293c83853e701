/**
 * Hermes' epoch window and "last active" rules (docs/hermes-rules.md, last-active).
 */
import {describe, expect, it} from 'vitest';
import {
	EPOCH_MAX,
	EPOCH_MIN,
	coalesce,
	compareCells,
	inWindow,
	isCorruptTime,
	lastActive,
	startedLater,
} from '../../source/forensics/time.js';
import type {Cell} from '../../source/forensics/types.js';
import {T0} from '../helpers/records.js';

describe('inWindow: `v BETWEEN 0.0 AND 4200000000.0`', () => {
	it("uses Hermes' bounds", () => {
		expect(EPOCH_MIN).toBe(0);
		expect(EPOCH_MAX).toBe(4_200_000_000);
	});

	it.each([0, 4_200_000_000, T0, 0.5, 4_199_999_999.999])('keeps %s (bounds inclusive)', value => {
		expect(inWindow(value)).toBe(value);
	});

	it.each([
		-1,
		-0.001,
		4_200_000_001,
		4_200_000_000.001,
		5e246,
		Number.NaN,
		Number.POSITIVE_INFINITY,
		Number.NEGATIVE_INFINITY,
	])('rejects the number %s', value => {
		expect(inWindow(value)).toBeNull();
	});

	it('rejects NULL and an absent cell', () => {
		expect(inWindow(null)).toBeNull();
		expect(inWindow(undefined)).toBeNull();
	});

	it('rejects every TEXT cell, numeric-looking or not (TEXT sorts above all numbers in SQLite)', () => {
		expect(inWindow('1700000000')).toBeNull();
		expect(inWindow('abc')).toBeNull();
		expect(inWindow('')).toBeNull();
	});

	it('rejects BLOB cells', () => {
		expect(inWindow(Buffer.from([1, 2, 3]))).toBeNull();
		expect(inWindow(Buffer.alloc(0))).toBeNull();
	});

	it('reads INTEGER cells delivered as bigint, with the same inclusive bounds', () => {
		expect(inWindow(0n)).toBe(0);
		expect(inWindow(4_200_000_000n)).toBe(4_200_000_000);
		expect(inWindow(BigInt(T0))).toBe(T0);
		expect(inWindow(-1n)).toBeNull();
		expect(inWindow(4_200_000_001n)).toBeNull();
		expect(inWindow(2n ** 63n - 1n)).toBeNull();
	});
});

describe('isCorruptTime', () => {
	it('flags a non-NULL cell that fails the window, never NULL', () => {
		expect(isCorruptTime(null)).toBe(false);
		expect(isCorruptTime(T0)).toBe(false);
		expect(isCorruptTime(5e246)).toBe(true);
		expect(isCorruptTime('yesterday')).toBe(true);
		expect(isCorruptTime(Buffer.from('x'))).toBe(true);
	});
});

describe('lastActive: freshest of last_activity_at and the newest message, else started_at', () => {
	const row = (lastActivityAtRaw: Cell, newestMessageAt: number | null, startedAtRaw: Cell = T0) => ({
		lastActivityAtRaw,
		newestMessageAt,
		startedAtRaw,
	});

	it('follows the record as it is now: a newest message settled after a first call counts (no memo per record)', () => {
		// The read settles a row's in-window newest message after mapping it (read-snapshot.ts messageRowsSettler).
		const settled = row(T0 + 100, null);
		expect(lastActive(settled)).toBe(T0 + 100);
		settled.newestMessageAt = T0 + 900;
		expect(lastActive(settled)).toBe(T0 + 900);
	});

	it('takes the activity column when it is fresher than the newest message', () => {
		expect(lastActive(row(T0 + 500, T0 + 100))).toBe(T0 + 500);
	});

	it('takes the newest message when it is fresher than the activity column', () => {
		expect(lastActive(row(T0 + 100, T0 + 500))).toBe(T0 + 500);
	});

	it('uses whichever of the two exists', () => {
		expect(lastActive(row(T0 + 100, null))).toBe(T0 + 100);
		expect(lastActive(row(null, T0 + 200))).toBe(T0 + 200);
	});

	it('ignores a corrupt activity cell and uses the newest message (#91536: no 5e+246 pinning)', () => {
		expect(lastActive(row(5e246, T0 + 200))).toBe(T0 + 200);
		expect(lastActive(row('garbage', T0 + 200))).toBe(T0 + 200);
		expect(lastActive(row(-5, T0 + 200))).toBe(T0 + 200);
	});

	it('falls back to started_at when neither activity nor a message is usable', () => {
		expect(lastActive(row(null, null, T0 + 7))).toBe(T0 + 7);
		expect(lastActive(row(5e246, null, T0 + 7))).toBe(T0 + 7);
		expect(lastActive(row(null, null, BigInt(T0)))).toBe(T0);
	});

	it('does not fall back to started_at when a fresher-of value exists, even if started_at is later', () => {
		expect(lastActive(row(T0 + 10, null, T0 + 99))).toBe(T0 + 10);
	});

	it('is null when no cell is in the window, the started_at fallback included', () => {
		expect(lastActive(row(null, null, null))).toBeNull();
		expect(lastActive(row(5e246, null, 'abc'))).toBeNull();
		expect(lastActive(row(-1, null, 4_200_000_001))).toBeNull();
	});

	it('keeps the window bounds inclusive for activity and started_at', () => {
		expect(lastActive(row(0, null, null))).toBe(0);
		expect(lastActive(row(null, null, EPOCH_MAX))).toBe(EPOCH_MAX);
	});
});

describe('compareCells: SQLite order NULL < numbers < TEXT < BLOB', () => {
	const ordered: Cell[] = [
		null,
		-1e300,
		-1,
		0,
		1n,
		2,
		T0,
		5e246,
		'',
		'0',
		'abc',
		'abd',
		Buffer.from([]),
		Buffer.from([0]),
		Buffer.from([1]),
	];

	it('sorts a shuffled mix into storage-class order', () => {
		const shuffled = [...ordered].reverse();
		const sorted = [...shuffled].sort(compareCells);
		expect(sorted).toEqual(ordered);
	});

	it.each([
		[null, 0],
		[null, 'a'],
		[null, Buffer.from('a')],
		[5e246, '0'],
		[BigInt(T0), '1'],
		['zzz', Buffer.from([0])],
	] as Array<[Cell, Cell]>)('%s < %s', (a, b) => {
		expect(compareCells(a, b)).toBeLessThan(0);
		expect(compareCells(b, a)).toBeGreaterThan(0);
	});

	it('compares numbers and bigints numerically', () => {
		expect(compareCells(10n, 9.5)).toBeGreaterThan(0);
		expect(compareCells(9, 10n)).toBeLessThan(0);
		expect(compareCells(7n, 7)).toBe(0);
	});

	it('treats equal cells (and two NULLs) as equal', () => {
		expect(compareCells(null, null)).toBe(0);
		expect(compareCells(T0, T0)).toBe(0);
		expect(compareCells('x', 'x')).toBe(0);
		expect(compareCells(Buffer.from('ab'), Buffer.from('ab'))).toBe(0);
	});

	it('compares TEXT by code unit, not numerically', () => {
		expect(compareCells('10', '9')).toBeLessThan(0);
	});
});

describe('coalesce', () => {
	it("returns the first non-NULL cell; 0 and '' are not NULL", () => {
		expect(coalesce(null, T0)).toBe(T0);
		expect(coalesce(0, T0)).toBe(0);
		expect(coalesce('', T0)).toBe('');
		expect(coalesce(null, null)).toBeNull();
	});
});

describe('startedLater: the row ORDER BY started_at DESC, id DESC lists first', () => {
	it('agrees with that sort on mixed cells and equal starts', () => {
		const cells: Cell[] = [null, T0, T0 + 1, 1n, 'text', Buffer.from('b'), T0];
		const rows = cells.flatMap((startedAtRaw, i) => [
			{id: `s${i}a`, startedAtRaw},
			{id: `s${i}b`, startedAtRaw},
		]);
		const sorted = [...rows].sort((a, b) => compareCells(b.startedAtRaw, a.startedAtRaw) || (a.id < b.id ? 1 : -1));
		let later = rows[0]!;
		for (const r of rows) {
			if (startedLater(r, later)) {
				later = r;
			}
		}

		expect(later).toBe(sorted[0]);
		for (let i = 1; i < sorted.length; i++) {
			expect(startedLater(sorted[i - 1]!, sorted[i]!), `${sorted[i - 1]!.id} before ${sorted[i]!.id}`).toBe(true);
			expect(startedLater(sorted[i]!, sorted[i - 1]!)).toBe(false);
		}
	});
});
