/**
 * The hot rows' rolling comparison (issue #26): the rows Hermes changes in place in the ordinary course, compared by
 * their signature about every five seconds, while every row is compared more slowly (row-deltas.ts compareSlice).
 *
 * Hot: a row the index holds as open (ended_at NULL: end_session, an idle reap, a title, a key are written to open
 * rows) or ended within the last day (gateway recovery reopens a recoverable end: reopen_session). A row that got
 * messages or a new child is re-read anyway; a commit that adds neither is compared whole at once. What is left is a
 * row changed in place in a commit that also adds messages elsewhere: with an agent busy in other chats, every read
 * finds messages, so the rolling comparisons are the only way such a change is seen.
 *
 * Why two speeds: comparing every row every five seconds was 4,300 rows a second on the bench store (21,516 rows) and
 * ~13 % of the TUI's CPU following 200 commits/s (a pair of TUIs on one writer, 90 s: 8.27 % of one core against
 * 7.13 % with the comparison nearly off; the rows' values made ~1.5 of the 6.4 MB a second the follower allocated).
 * Hot rows are 1,947 of those 21,516 rows. (A signature folded into one string in SQL, quote() of each column, cost
 * more than the columns themselves: 35-50 ms against 18-23 ms per 21,516 rows.)
 */
import type {SessionRecord} from '../../forensics/types.js';
import type {ReadOnlyStore} from '../open/open.js';
import type {SchemaInfo} from '../open/schema.js';
import {signatureMatcher, signatureSql} from './read-snapshot.js';

/** A round over the hot rows takes about this long. */
export const HOT_SWEEP_MS = 5000;
/**
 * A round begins at most this often: each begins with a walk of the whole index for its hot ids (~0.1-0.2 ms on the
 * bench store's 21,516 rows), and with no hot row every refresh would end a round (review).
 */
const BEGIN_EVERY_MS = 1000;
/** A row ended within this long (Hermes' seconds) is hot: gateway recovery may reopen it. */
const RECENT_END_SECONDS = 24 * 3600;
/** At most this long since the last slice sizes a slice (as row-deltas.ts SWEEP_GAP_MS). */
const GAP_MS = 5000;
/**
 * At most this many hot rows a second: a store whose rows are mostly open (Hermes ends a session on a rotation, a
 * reset, a reap, a close; a store of one never ended) would otherwise compare them all every five seconds, the cost
 * this sweep is here to avoid. Past 5,000 hot rows a round takes longer.
 */
export const HOT_MAX_ROWS_PER_SECOND = 1000;

const HOT_PACE = {roundMs: HOT_SWEEP_MS, gapMs: GAP_MS, maxPerSecond: HOT_MAX_ROWS_PER_SECOND, minRows: 1};

/**
 * How many rows the next slice of a rolling comparison holds (row-deltas.ts every row's, hot-rows-sweep.ts the hot
 * rows'): its share of a round of `roundMs` for the time since the last slice (at most `gapMs`: nothing is read while
 * no commit comes, and a slice sized for a long pause would read the whole round at once), at most a second's rows at
 * `maxPerSecond`, and at least `minRows`.
 */
export type SlicePace = {roundMs: number; gapMs: number; maxPerSecond: number; minRows: number};

export function sliceSize(rows: number, sinceLastMs: number, pace: SlicePace): number {
	const elapsed = Math.min(sinceLastMs, pace.gapMs);
	const perRound = Math.ceil((rows * elapsed) / pace.roundMs);
	const cap = Math.min(pace.maxPerSecond, Math.ceil((pace.maxPerSecond * elapsed) / 1000));
	return Math.max(pace.minRows, Math.min(perRound, cap));
}

/** Is the record hot at `nowSeconds`? */
export function isHot(record: SessionRecord, nowSeconds: number): boolean {
	const ended = record.endedAtRaw;
	return ended === null || (typeof ended === 'number' && ended > nowSeconds - RECENT_END_SECONDS);
}

export class HotRowsSweep {
	/** The hot ids of this round (taken from the index when it began) and how many were compared. */
	private ids: string[] = [];
	private next = 0;
	/** When the last slice ran (at first: when the sweep was made, so a first slice is not sized for a long gap). */
	private at = Date.now();
	/** When the round began (a round begins at most every BEGIN_EVERY_MS: each walks the whole index). */
	private began = Number.NEGATIVE_INFINITY;
	/** Rounds begun and rows compared (tests count them). */
	rounds = 0;
	compared = 0;

	/** A new round at the next slice (after a full read: the index was replaced). */
	restart(): void {
		this.ids = [];
		this.next = 0;
		this.began = Number.NEGATIVE_INFINITY;
		this.at = Date.now();
	}

	/**
	 * Compares the next slice of hot rows: those whose signature differs, and those gone, join `candidates` (a
	 * re-read drops a row gone).
	 */
	compare(
		store: ReadOnlyStore,
		schema: SchemaInfo,
		byId: ReadonlyMap<string, SessionRecord>,
		list: readonly SessionRecord[],
		candidates: Set<string>,
	): void {
		const now = Date.now();
		if (this.next >= this.ids.length) {
			if (now - this.began < BEGIN_EVERY_MS) {
				return;
			}

			this.begin(list, now);
		}

		const count = sliceSize(this.ids.length, now - this.at, HOT_PACE);
		this.at = now;
		const slice = this.ids.slice(this.next, this.next + count);
		this.next += slice.length;
		this.compared += slice.length;
		if (slice.length === 0) {
			return;
		}

		const matches = signatureMatcher(schema);
		const rows = store.prepare(signatureSql(schema, 'ids')).raw(true).all(JSON.stringify(slice)) as unknown[][];
		for (const row of rows) {
			const id = String(row[0]);
			const record = byId.get(id);
			if (!record || !matches(record, row)) {
				candidates.add(id);
			}
		}

		// A row gone (ids are unique: fewer rows than ids asked): the re-read of those not met drops it.
		if (rows.length < slice.length) {
			const met = new Set(rows.map(row => String(row[0])));
			for (const id of slice) {
				if (!met.has(id)) {
					candidates.add(id);
				}
			}
		}
	}

	private begin(list: readonly SessionRecord[], now: number): void {
		const nowSeconds = now / 1000;
		this.ids = [];
		for (const record of list) {
			if (isHot(record, nowSeconds)) {
				this.ids.push(record.id);
			}
		}

		this.next = 0;
		this.began = now;
		this.rounds++;
	}
}
