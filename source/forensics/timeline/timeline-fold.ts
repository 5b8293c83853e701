/**
 * A long chat told in a screenful: runs of ordinary events (message spans, compression rotations
 * read from parent_session_id, row ends) fold into one line that counts them, keeping the first and
 * last few of the run; everything inferred or said by the routing index or the logs (a fork, a
 * restart, a resume, a /new, a log line) stands on its own line. Likewise the rows of a plain
 * compression chain. What --json gives is never folded. Pure.
 */
import type {TimelineEvent, TimelineRow} from './timeline-types.js';

/** A run is folded from this length; this many of its events are kept at each end. */
export const FOLD_FROM = 12;
const KEEP = 3;

/** A folded run: how many events, of which rotations and message spans, how many messages, and the span of time. */
export type Fold = {
	kind: 'fold';
	at: number;
	lastAt: number;
	events: number;
	rotations: number;
	spans: number;
	messages: number;
	rows: number;
};

export type FoldedEvent = TimelineEvent | Fold;

function ordinary(e: TimelineEvent): boolean {
	return (
		e.kind === 'messages' ||
		e.kind === 'ended' ||
		(e.kind === 'rotation' && e.certainty === 'certain' && e.text.startsWith('compression rotation'))
	);
}

function foldOf(run: readonly TimelineEvent[]): Fold {
	let rotations = 0;
	let spans = 0;
	let messages = 0;
	const rows = new Set<string>();
	for (const e of run) {
		rotations += e.kind === 'rotation' ? 1 : 0;
		if (e.kind === 'messages') {
			spans++;
			messages += e.messages ?? 0;
		}

		rows.add(e.sessionId ?? '');
	}

	return {
		kind: 'fold',
		at: run[0]!.at,
		lastAt: run.at(-1)!.at,
		events: run.length,
		rotations,
		spans,
		messages,
		rows: rows.size,
	};
}

/**
 * The items with every run of FOLD_FROM or more consecutive `plain` ones replaced by `fold(run)`;
 * anything else stands where it was and ends the run.
 */
function foldRuns<T, F>(items: readonly T[], plain: (x: T) => boolean, fold: (run: T[]) => Array<T | F>): Array<T | F> {
	const out: Array<T | F> = [];
	let run: T[] = [];
	const flush = () => {
		out.push(...(run.length >= FOLD_FROM ? fold(run) : run));
		run = [];
	};

	for (const x of items) {
		if (plain(x)) {
			run.push(x);
		} else {
			flush();
			out.push(x);
		}
	}

	flush();
	return out;
}

/** The events with every run of FOLD_FROM or more ordinary ones folded to its first and last KEEP around one count. */
export function foldEvents(events: readonly TimelineEvent[]): FoldedEvent[] {
	return foldRuns<TimelineEvent, Fold>(events, ordinary, run => [
		...run.slice(0, KEEP),
		foldOf(run.slice(KEEP, -KEEP)),
		...run.slice(-KEEP),
	]);
}

/** A row that is only a link of a compression chain: keyed, by key and lineage alone, ended compression, not routed. */
function plainLink(r: TimelineRow): boolean {
	return r.keyed && r.endReason === 'compression' && !r.routedNow && r.via.every(v => v === 'key' || v === 'lineage');
}

export type FoldedRow = TimelineRow | {kind: 'rows'; rows: number; messages: number; firstId: string; lastId: string};

/** Rows in time order with every run of FOLD_FROM or more plain chain links folded to a count. */
export function foldRows(rows: readonly TimelineRow[]): FoldedRow[] {
	return foldRuns<TimelineRow, Exclude<FoldedRow, TimelineRow>>(rows, plainLink, run => {
		const middle = run.slice(2, -2);
		return [
			...run.slice(0, 2),
			{
				kind: 'rows',
				rows: middle.length,
				messages: middle.reduce((n, r) => n + r.messages, 0),
				firstId: middle[0]!.id,
				lastId: middle.at(-1)!.id,
			},
			...run.slice(-2),
		];
	});
}
