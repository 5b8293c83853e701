/**
 * Hermes' epoch rules (hermes_cli/timefmt.coerce_epoch and the freshest-of "last active" SQL).
 * Timestamps are Unix epoch seconds; cells outside [EPOCH_MIN, EPOCH_MAX] (garbage doubles from a
 * damaged page, TEXT) are never trusted.
 */
import type {Cell, SessionRecord} from './types.js';

export const EPOCH_MIN = 0;
export const EPOCH_MAX = 4_200_000_000;

/** Like SQLite's `v BETWEEN 0.0 AND 4200000000.0`: only numeric cells inside the window pass. */
export function inWindow(cell: Cell | undefined): number | null {
	if (typeof cell === 'number' && cell >= EPOCH_MIN && cell <= EPOCH_MAX) {
		return cell;
	}

	if (typeof cell === 'bigint') {
		const n = Number(cell);
		return n >= EPOCH_MIN && n <= EPOCH_MAX ? n : null;
	}

	return null;
}

/** A numeric value of a cell with no window (NULL -> null; TEXT/BLOB -> null). */
export function numeric(cell: Cell | undefined): number | null {
	if (typeof cell === 'number' && Number.isFinite(cell)) {
		return cell;
	}

	if (typeof cell === 'bigint') {
		return Number(cell);
	}

	return null;
}

/** True when a non-NULL cell is unusable as a timestamp (TEXT, BLOB, out of window). */
export function isCorruptTime(cell: Cell | undefined): boolean {
	return cell !== null && cell !== undefined && inWindow(cell) === null;
}

type ActivityCells = Pick<SessionRecord, 'lastActivityAtRaw' | 'newestMessageAt' | 'startedAtRaw'>;

/**
 * Hermes' canonical "last active": the freshest of `last_activity_at` and the newest message,
 * counting only in-window values, else `started_at` if in window, else null. Computed each time: three field reads
 * and a comparison cost less than the WeakMap memo this had (its lookup and its 21,516 entries were 14 ms of CPU in a
 * profile of the TUI's first read and analysis of the 1M-message bench store, and 1 MB of allocation), and a record
 * whose message facts are settled after a first call is never answered from a stale memo.
 */
export function lastActive(s: ActivityCells): number | null {
	const activity = inWindow(s.lastActivityAtRaw);
	const message = s.newestMessageAt;
	const freshest = activity === null ? message : message === null ? activity : Math.max(activity, message);
	return freshest ?? inWindow(s.startedAtRaw);
}

/**
 * SQLite's ordering of mixed cells, used where Hermes' restart SQL orders or compares raw
 * `COALESCE(last_activity_at, started_at)`: NULL < numbers < TEXT < BLOB.
 */
export function compareCells(a: Cell, b: Cell): number {
	const rank = (c: Cell): number =>
		c === null ? 0 : typeof c === 'number' || typeof c === 'bigint' ? 1 : typeof c === 'string' ? 2 : 3;
	const ra = rank(a);
	const rb = rank(b);
	if (ra !== rb) {
		return ra - rb;
	}

	if (ra === 1) {
		const x = Number(a);
		const y = Number(b);
		return x < y ? -1 : x > y ? 1 : 0;
	}

	if (ra === 2) {
		return (a as string) < (b as string) ? -1 : (a as string) > (b as string) ? 1 : 0;
	}

	if (ra === 3) {
		return Buffer.compare(a as Buffer, b as Buffer);
	}

	return 0;
}

/**
 * Whether `a` started later than `b` (raw started_at in SQLite's order, then the greater id): the
 * row `ORDER BY started_at DESC, id DESC` lists first. A linear scan keeping the later row finds
 * it without a sort.
 */
export function startedLater(
	a: Pick<SessionRecord, 'startedAtRaw' | 'id'>,
	b: Pick<SessionRecord, 'startedAtRaw' | 'id'>,
): boolean {
	const order = compareCells(a.startedAtRaw, b.startedAtRaw);
	return order > 0 || (order === 0 && a.id > b.id);
}

/** SQL `COALESCE(x, y)`. */
export function coalesce(x: Cell, y: Cell): Cell {
	return x === null ? y : x;
}

type RawActivityCells = Pick<SessionRecord, 'lastActivityAtRaw' | 'newestMessageRaw' | 'startedAtRaw'>;

/**
 * v25's "last active" (no epoch window): `COALESCE(MAX(last_activity_at, MAX(messages.timestamp)),
 * started_at)` with SQLite's MAX over raw cells, so a TEXT cell or a 9e15 stamp wins.
 */
export function lastActiveRaw(s: RawActivityCells): Cell {
	const a = s.lastActivityAtRaw;
	const m = s.newestMessageRaw;
	const freshest = a === null ? m : m === null ? a : compareCells(a, m) >= 0 ? a : m;
	return freshest ?? s.startedAtRaw;
}
