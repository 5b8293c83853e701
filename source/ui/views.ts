/**
 * What each pane lists, computed from the model and the UI state: pure, memoised per model, so
 * a keystroke does not re-sort twenty thousand sessions.
 */
import Fuse from 'fuse.js';
import type {Analysis, Finding} from '../forensics/analysis/analyze.js';
import type {ActivityEvent} from '../forensics/analysis/activity.js';
import type {ChatRouting} from '../forensics/routing/routing.js';
import {type SessionStatus, isHiddenByDefault, statusIndex, statusOf} from '../forensics/analysis/status.js';
import {lastActive} from '../forensics/time.js';
import type {SessionRecord} from '../forensics/types.js';
import {type Derivation, derivedFrom} from '../forensics/analysis/incremental.js';

/** A session in a list: one object per record, reused while the record is (rows are compared by identity). */
export type SessionRow = {
	session: SessionRecord;
	lastActive: number | null;
};

/**
 * Rows of the sessions an incremental refresh changed, so that every list patched for one
 * analysis inserts the same row object. The first list of all sessions makes its rows directly
 * (21,000 entries in a WeakMap cost more at start-up than the rows themselves, and weigh on every
 * full collection after), so an existing row is found by its session, not through this map.
 */
const rows = new WeakMap<SessionRecord, SessionRow>();

export function rowOf(session: SessionRecord): SessionRow {
	let row = rows.get(session);
	if (!row) {
		row = {session, lastActive: lastActive(session)};
		rows.set(session, row);
	}

	return row;
}

const statusCache = new WeakMap<Analysis, ReturnType<typeof statusIndex>>();

/** A session's status in an analysis (zombie, orphan, at-risk, live, ended). */
export function statusFor(analysis: Analysis, session: SessionRecord): SessionStatus {
	let index = statusCache.get(analysis);
	if (!index) {
		index = statusIndex(analysis);
		statusCache.set(analysis, index);
	}

	return statusOf(session, index);
}

const fuseCache = new WeakMap<object, Fuse<unknown>>();

/** Fuzzy filter with a Fuse index cached per source array. */
export function fuzzy<T>(items: readonly T[], keys: string[], text: string): T[] {
	const q = text.trim();
	if (!q) {
		return [...items];
	}

	let fuse = fuseCache.get(items) as Fuse<T> | undefined;
	if (!fuse) {
		fuse = new Fuse(items as T[], {keys, threshold: 0.35, ignoreLocation: true, includeScore: false});
		fuseCache.set(items, fuse as Fuse<unknown>);
	}

	return fuse.search(q).map(r => r.item);
}

const allRowsCache = new WeakMap<Analysis, SessionRow[]>();

/** Newest activity first; ties by id, descending. */
function newestFirst(a: SessionRow, b: SessionRow): number {
	return (
		(b.lastActive ?? -1) - (a.lastActive ?? -1) ||
		(a.session.id < b.session.id ? 1 : a.session.id > b.session.id ? -1 : 0)
	);
}

/**
 * Every session as a row, newest activity first (cached per analysis). After an incremental
 * analysis the previous analysis's list is taken over and patched in place: the changed sessions
 * are taken out and put back where they now belong (no sort, and no new twenty-thousand-element
 * array per commit). The previous analysis is consumed by then.
 */
export function allSessionRows(analysis: Analysis): SessionRow[] {
	let sorted = allRowsCache.get(analysis) ?? carried(analysis, later => allRowsCache.get(later));
	if (sorted) {
		return sorted;
	}

	const derivation = derivedFrom(analysis);
	const before = derivation ? allRowsCache.get(derivation.previous) : undefined;
	if (derivation && before) {
		allRowsCache.delete(derivation.previous);
		sorted = patch(before, analysis, derivation, () => true);
	} else {
		// Sorted already when the analysis came with its order (the live view's first: sorted in steps, issue #26).
		const order = analysis.newestFirst;
		const sessions = order ?? analysis.snapshot.sessions;
		sorted = new Array<SessionRow>(sessions.length);
		for (let i = 0; i < sessions.length; i++) {
			const session = sessions[i]!;
			sorted[i] = {session, lastActive: lastActive(session)};
		}

		if (!order) {
			sorted.sort(newestFirst);
		}
	}

	allRowsCache.set(analysis, sorted);
	return sorted;
}

/** The row of session `id` (-1 without one): a loop, not a callback made per call (issue #26). */
function rowIndexOf(list: readonly SessionRow[], id: string): number {
	for (let i = 0; i < list.length; i++) {
		if (list[i]!.session.id === id) {
			return i;
		}
	}

	return -1;
}

/**
 * Takes the changed sessions out of a newest-first list and puts back those that pass, in place. A changed session's
 * row is found by its id, not by its record as the previous analysis had it: the live store's analyses share one index
 * that each refresh patches in place, so a list first made after the next refresh (a model drawn late) holds that
 * refresh's records already. Looked up by record, such a row was not found and stayed beside the new one, frozen at its
 * old message count until the next full reload (issue #26: the seconds-long commit-to-screen stalls). Ids are unique
 * in a list (a full list is made of the index, and each patch takes a changed id's row out before putting one back).
 * One id at a time: the list stays sorted after each, and the order is total (ids break ties), so the result is the
 * one sorted list whatever the order of the ids. A row whose place has not changed (the busy chat, newest before and
 * after) is replaced where it is: taken out and put back, it moved every row below it twice (two splices of the
 * ~17,500-row list per refresh, following 200 commits/s on the bench store; issue #26, the follower's CPU).
 */
function patch(
	list: SessionRow[],
	analysis: Analysis,
	derivation: Derivation,
	passes: (s: SessionRecord) => boolean,
): SessionRow[] {
	for (const id of derivation.changed) {
		const i = rowIndexOf(list, id);
		const s = analysis.byId.get(id);
		const row = s && passes(s) ? rowOf(s) : null;
		if (i !== -1 && row !== null && fitsAt(list, i, row)) {
			list[i] = row;
			continue;
		}

		if (i !== -1) {
			list.splice(i, 1);
		}

		if (row !== null) {
			list.splice(insertionPoint(list, row), 0, row);
		}
	}

	return list;
}

/** Whether `row` belongs at `i` of the sorted `list` (in place of the row there), between its neighbours. */
function fitsAt(list: readonly SessionRow[], i: number, row: SessionRow): boolean {
	return (
		(i === 0 || newestFirst(list[i - 1]!, row) < 0) && (i === list.length - 1 || newestFirst(row, list[i + 1]!) < 0)
	);
}

const SESSION_KEYS = [
	'session.id',
	'session.title',
	'session.sessionKey',
	'session.chatId',
	'session.displayName',
	'session.source',
];

type SessionRowsResult = {rows: SessionRow[]; total: number; hidden: number};

/** The results kept for one analysis, by option set (made on first use). */
function perAnalysis<V>(cache: WeakMap<Analysis, Map<string, V>>, analysis: Analysis): Map<string, V> {
	let map = cache.get(analysis);
	if (!map) {
		map = new Map();
		cache.set(analysis, map);
	}

	return map;
}

/** Per analysis, the last few option sets: a render asks the same question several times. */
const sessionRowsCache = new WeakMap<Analysis, Map<string, SessionRowsResult>>();

export function sessionRows(
	analysis: Analysis,
	options: {filterText: string; showHidden: boolean; source: string | null},
): SessionRowsResult {
	const key = `${options.showHidden ? 1 : 0}\u0000${options.source ?? ''}\u0000${options.filterText}`;
	const cache = perAnalysis(sessionRowsCache, analysis);
	const hit = cache.get(key);
	if (hit) {
		return hit;
	}

	const result = computeSessionRows(analysis, options);
	if (cache.size > 8) {
		cache.clear();
	}

	cache.set(key, result);
	return result;
}

/** Where a row goes in a newest-first list (binary search). */
function insertionPoint(list: readonly SessionRow[], row: SessionRow): number {
	let lo = 0;
	let hi = list.length;
	while (lo < hi) {
		const mid = (lo + hi) >>> 1;
		if (newestFirst(list[mid]!, row) <= 0) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}

	return lo;
}

/**
 * The rows a filter-free list shows, and the ids of the sessions hidden by default (tool and delegate rows; none kept
 * when they are shown). The ids, not a tally patched by what each change was before: a list first made after the next
 * refresh (see patch) counts that refresh's new sessions already, and the tally counted them a second time.
 */
type Visible = {visible: SessionRow[]; hiddenIds: Set<string>; options: VisibleOptions};

type VisibleOptions = {showHidden: boolean; source: string | null};

/**
 * The rows a filter-free list shows, per analysis and options; patched from the previous analysis when it was derived.
 */
const visibleCache = new WeakMap<Analysis, Map<string, Visible>>();

function visibleRows(analysis: Analysis, options: VisibleOptions): Visible {
	const key = `${options.showHidden ? 1 : 0}\u0000${options.source ?? ''}`;
	const cache = perAnalysis(visibleCache, analysis);
	const cached = cache.get(key) ?? carried(analysis, later => visibleCache.get(later)?.get(key));
	if (cached) {
		return cached;
	}

	const passes = (s: SessionRecord) =>
		(options.showHidden || !isHiddenByDefault(s)) && (options.source === null || s.source === options.source);
	const counted = (s: SessionRecord | undefined) => s !== undefined && !options.showHidden && isHiddenByDefault(s);
	const derivation = derivedFrom(analysis);
	const previousCache = derivation ? visibleCache.get(derivation.previous) : undefined;
	const before = previousCache?.get(key);
	let result: Visible;
	if (derivation && before) {
		previousCache!.delete(key);
		const {hiddenIds} = before;
		for (const id of derivation.changed) {
			hiddenIds.delete(id);
			if (counted(analysis.byId.get(id))) {
				hiddenIds.add(id);
			}
		}

		result = {visible: patch(before.visible, analysis, derivation, passes), hiddenIds, options};
	} else {
		const visible: SessionRow[] = [];
		const hiddenIds = new Set<string>();
		for (const r of allSessionRows(analysis)) {
			if (counted(r.session)) {
				hiddenIds.add(r.session.id);
			}

			if (passes(r.session)) {
				visible.push(r);
			}
		}

		result = {visible, hiddenIds, options};
	}

	cache.set(key, result);
	return result;
}

/**
 * Carries the lists made for the analysis `analysis` was derived from over to it (patched in place, as a render would),
 * whether or not it is ever drawn: the screen draws only the newest model of each frame interval, and a list is patched
 * only from its previous analysis's. Without this, the model drawn after one that was not rebuilt every list whole
 * (21,516 rows made and sorted on the bench store: allSessionRows and visibleRows were ~0.4 s of 23.6 s following 200
 * commits/s, a tenth of the TUI's CPU, issue #26). Lists never made are not made here.
 */
export function keepRows(analysis: Analysis): void {
	const derivation = derivedFrom(analysis);
	if (!derivation) {
		return;
	}

	carriedTo.set(derivation.previous, analysis);
	if (allRowsCache.has(derivation.previous)) {
		allSessionRows(analysis);
	}

	for (const {options} of [...(visibleCache.get(derivation.previous)?.values() ?? [])]) {
		visibleRows(analysis, options);
	}
}

/**
 * The lists an analysis made whole needs (the live view's first complete one, each full reload's), as a job to run
 * before its frame, or null when it has them or will patch them from its previous analysis. The sessions list of the
 * bench store (21,516 rows made, the hidden ones counted) was ~29 ms of the ~87 ms the first complete analysis's frame
 * held the event loop (CPU profile of a start): made in a task of its own, a key pressed as the analysis lands is
 * answered between the two (issue #26, a key during the first analysis). The sessions pane's default lists are made.
 */
export function rowsAhead(analysis: Analysis): (() => void) | null {
	if (derivedFrom(analysis) || allRowsCache.has(analysis) || carriedTo.has(analysis)) {
		return null;
	}

	return () => {
		visibleRows(analysis, {showHidden: false, source: null});
	};
}

/**
 * The analysis each list was carried over to by keepRows. A model drawn late (React renders it after the next refresh
 * was published: its list is carried over and its derivation is gone) is shown the list of the newest analysis that
 * holds one, not a list made anew: its records are the shared index's already, as that newest list's are (see patch).
 * On the bench store following 200 commits/s, 12 lists of 21,516 rows were made in 15 s that way, in bursts of 4.
 */
const carriedTo = new WeakMap<Analysis, Analysis>();

function carried<V>(analysis: Analysis, listOf: (later: Analysis) => V | undefined): V | undefined {
	for (let later = carriedTo.get(analysis); later !== undefined; later = carriedTo.get(later)) {
		const list = listOf(later);
		if (list !== undefined) {
			return list;
		}
	}

	return undefined;
}

function computeSessionRows(
	analysis: Analysis,
	options: {filterText: string; showHidden: boolean; source: string | null},
): SessionRowsResult {
	const {visible, hiddenIds} = visibleRows(analysis, options);
	const hidden = hiddenIds.size;
	if (!options.filterText) {
		return {rows: visible, total: visible.length, hidden};
	}

	const shown = new Set(visible);
	const rows = fuzzy(allSessionRows(analysis), SESSION_KEYS, options.filterText).filter(r => shown.has(r));
	return {rows, total: visible.length, hidden};
}

/** Sources by number of sessions, for the source filter. */
export function sourcesOf(analysis: Analysis): string[] {
	const counts = new Map<string, number>();
	for (const s of analysis.snapshot.sessions) {
		counts.set(s.source, (counts.get(s.source) ?? 0) + 1);
	}

	return [...counts.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([s]) => s);
}

/** Chats at rollback risk first, then by key. */
export function routingRows(analysis: Analysis, filterText: string): ChatRouting[] {
	const ordered = [...analysis.routing].sort(
		(a, b) =>
			Number(b.rollbackRisk) - Number(a.rollbackRisk) ||
			Number(b.routingEntryStale) - Number(a.routingEntryStale) ||
			(a.sessionKey < b.sessionKey ? -1 : 1),
	);
	return filterText
		? fuzzy(analysis.routing, ['sessionKey', 'restartResolvesTo', 'newestActivityIn', 'members'], filterText)
		: ordered;
}

export function findingRows(analysis: Analysis, filterText: string): Finding[] {
	return filterText ? fuzzy(analysis.findings, ['subject', 'title', 'detail'], filterText) : analysis.findings;
}

export function activityRows(activity: readonly ActivityEvent[], filterText: string): ActivityEvent[] {
	const newestFirst = [...activity].reverse();
	return filterText ? fuzzy(activity, ['text', 'subject', 'kind'], filterText).reverse() : newestFirst;
}

/** Keeps the cursor row visible: the first row to draw for a window of `height` rows. */
export function windowStart(cursor: number, height: number, total: number): number {
	if (total <= height) {
		return 0;
	}

	const half = Math.floor(height / 2);
	return Math.max(0, Math.min(cursor - half, total - height));
}
