/**
 * The sessions newest activity first, ties by id descending: the order the sessions pane lists them in (ui/views.ts).
 * In steps (issue #26): the live view's first analysis sorts a chunk of rows a step and merges the sorted runs after,
 * so the redraw that publishes it does not sort twenty thousand rows while a key waits (on the 1M-message bench store
 * that redraw held the event loop 70-110 ms at load ~4 on 2 cores, a third of it the sort).
 */
import {lastActive} from '../time.js';
import type {SessionRecord} from '../types.js';
import type {Steps} from './steps.js';

/** Newest activity first (no activity last); ties by id, descending. */
export function compareNewestFirst(a: SessionRecord, b: SessionRecord): number {
	return (lastActive(b) ?? -1) - (lastActive(a) ?? -1) || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
}

/** Rows sorted per step. */
export const SORT_CHUNK = 4000;

/** A session with its last activity looked up once (a compare would look it up in lastActive's memo each time). */
type Keyed = {s: SessionRecord; t: number};

function compareKeyed(a: Keyed, b: Keyed): number {
	return b.t - a.t || (a.s.id < b.s.id ? 1 : a.s.id > b.s.id ? -1 : 0);
}

/** Two sorted runs as one (the left run first on a tie: a stable merge). */
function merge(left: readonly Keyed[], right: readonly Keyed[]): Keyed[] {
	const out = new Array<Keyed>(left.length + right.length);
	let i = 0;
	let j = 0;
	let k = 0;
	while (i < left.length && j < right.length) {
		out[k++] = compareKeyed(right[j]!, left[i]!) < 0 ? right[j++]! : left[i++]!;
	}

	while (i < left.length) {
		out[k++] = left[i++]!;
	}

	while (j < right.length) {
		out[k++] = right[j++]!;
	}

	return out;
}

/** The sessions newest first (a new array): `chunk` rows sorted a step, then the runs merged a pass a step. */
export function* newestFirstSteps(sessions: readonly SessionRecord[], chunk = SORT_CHUNK): Steps<SessionRecord[]> {
	let runs: Keyed[][] = [];
	for (let at = 0; at < sessions.length; at += chunk) {
		if (at > 0) {
			yield;
		}

		const run = sessions.slice(at, at + chunk).map(s => ({s, t: lastActive(s) ?? -1}));
		runs.push(run.sort(compareKeyed));
	}

	while (runs.length > 1) {
		yield;
		const next: Keyed[][] = [];
		for (let r = 0; r < runs.length; r += 2) {
			next.push(r + 1 < runs.length ? merge(runs[r]!, runs[r + 1]!) : runs[r]!);
		}

		runs = next;
	}

	return (runs[0] ?? []).map(e => e.s);
}
