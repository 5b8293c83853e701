/**
 * The sessions list order is updated from the previous one after an incremental analysis: it
 * must equal a full sort whatever changed.
 */
import {describe, expect, it, vi} from 'vitest';
import {type Analysis, analyze} from '../../source/forensics/analysis/analyze.js';
import {analyzeIncremental, prepareIncremental} from '../../source/forensics/analysis/incremental.js';
import {drain} from '../../source/forensics/analysis/steps.js';
import {newestFirstSteps} from '../../source/forensics/analysis/newest-first.js';
import type {SessionRecord, Snapshot} from '../../source/forensics/types.js';
import {allSessionRows, keepRows, rowOf, rowsAhead, sessionRows} from '../../source/ui/views.js';
import {isHiddenByDefault} from '../../source/forensics/analysis/status.js';
import {T0, session, snapshot as snapshotOf} from '../helpers/records.js';

function rng(seed: number): () => number {
	let a = seed >>> 0;
	return () => {
		a = (a + 0x6d_2b_79_f5) >>> 0;
		let t = Math.imul(a ^ (a >>> 15), a | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
	};
}

describe('the sessions list order', () => {
	it.each([1, 2, 3, 4, 5])('after incremental changes equals a full sort (seed %i)', seed => {
		const r = rng(seed);
		const sessions = new Map<string, SessionRecord>();
		for (let i = 0; i < 300; i++) {
			const s = session({
				id: `s${String(i).padStart(3, '0')}`,
				newestMessageAt: T0 + Math.floor(r() * 50) * 10,
				sessionKey: r() < 0.5 ? `agent:main:telegram:dm:${i % 7}` : null,
				source: r() < 0.2 ? 'tool' : 'telegram',
			});
			sessions.set(s.id, s);
		}

		const snap = (): Snapshot => ({
			sessions: [...sessions.values()],
			routing: [],
			owner: 'default',
			ruleSet: 'v30',
			routingScope: null,
			legacyRouting: [],
		});
		let previous = analyze(snap());
		allSessionRows(previous);
		sessionRows(previous, {filterText: '', showHidden: false, source: null});
		sessionRows(previous, {filterText: '', showHidden: true, source: 'tool'});
		for (let step = 0; step < 60; step++) {
			const changed = new Set<string>();
			for (let k = 0; k < 1 + Math.floor(r() * 4); k++) {
				const roll = r();
				const id = `s${String(Math.floor(r() * 320)).padStart(3, '0')}`;
				if (roll < 0.15) {
					sessions.delete(id);
				} else {
					sessions.set(
						id,
						session({id, newestMessageAt: T0 + Math.floor(r() * 60) * 10, source: r() < 0.2 ? 'tool' : 'telegram'}),
					);
				}

				changed.add(id);
			}

			const next = analyzeIncremental(previous, snap(), changed);
			const incremental = allSessionRows(next).map(row => row.session.id);
			const full = [...sessions.values()]
				.map(rowOf)
				.sort((a, b) => (b.lastActive ?? -1) - (a.lastActive ?? -1) || (a.session.id < b.session.id ? 1 : -1))
				.map(row => row.session.id);
			expect(incremental, `step ${step}`).toEqual(full);
			// The visible list and the hidden tally, patched the same way, equal a fresh count.
			const shown = sessionRows(next, {filterText: '', showHidden: false, source: null});
			expect(
				shown.rows.map(row => row.session.id),
				`visible, step ${step}`,
			).toEqual(full.filter(id => !isHiddenByDefault(sessions.get(id)!)));
			expect(shown.hidden, `hidden, step ${step}`).toBe([...sessions.values()].filter(isHiddenByDefault).length);
			const tools = sessionRows(next, {filterText: '', showHidden: true, source: 'tool'});
			expect(
				tools.rows.map(row => row.session.id),
				`source filter, step ${step}`,
			).toEqual(full.filter(id => sessions.get(id)!.source === 'tool'));
			previous = next;
		}
	});
});

/**
 * The live store shares one index of sessions with every analysis and patches it in place, so an analysis whose list is
 * first asked for after the next refresh (a model drawn late: React renders after the next commit was read) finds the
 * next records in it. Issue #26: the lists patched from such a list kept a stale copy of the changed row below the
 * fresh one, frozen at its old message count until a full reload.
 */
describe('the sessions list of a shared, moving index', () => {
	/** A store of quiet sessions and a busy one, its index, and one refresh as the live store runs it. */
	function movingStore() {
		const list: SessionRecord[] = [];
		for (let i = 0; i < 40; i++) {
			list.push(session({id: `q${String(i).padStart(2, '0')}`, newestMessageAt: T0 + i}));
		}

		list.push(hot(1));
		const byId = new Map(list.map(s => [s.id, s]));
		const snapshot = snapshotOf(list);
		// The index patched in place (a new session in a new slot), then the analysis sharing it.
		const refresh = (previous: Analysis, ...records: SessionRecord[]): Analysis => {
			prepareIncremental(previous);
			const before = new Map(records.map(r => [r.id, byId.get(r.id)]));
			for (const record of records) {
				const at = list.findIndex(s => s.id === record.id);
				list[at === -1 ? list.length : at] = record;
				byId.set(record.id, record);
			}

			const changed = new Set(records.map(r => r.id));
			return analyzeIncremental(previous, snapshot, changed, {}, id => byId.get(id), {byId, before});
		};
		return {first: analyze(snapshot, {byId}), refresh, hiddenNow: () => list.filter(isHiddenByDefault).length};
	}

	const hot = (n: number) => session({id: 'hot', newestMessageAt: T0 + 1000 + n, messageCountColumn: n});
	const options = {filterText: '', showHidden: false, source: null};

	it('holds each session once, at its newest count, when a model is drawn after the next refresh', () => {
		const {first, refresh} = movingStore();
		const counts = (analysis: Analysis) =>
			sessionRows(analysis, options)
				.rows.filter(row => row.session.id === 'hot')
				.map(row => row.session.messageCountColumn);
		let shown = first;
		expect(counts(shown)).toEqual([1]);
		for (let n = 2; n < 8; n += 2) {
			const late = refresh(shown, hot(n));
			shown = refresh(late, hot(n + 1));
			// The first model drawn only now, its index already at the next refresh.
			expect(counts(late), `late, ${n}`).toEqual([n + 1]);
			expect(counts(shown), `next, ${n + 1}`).toEqual([n + 1]);
			expect(allSessionRows(shown).filter(row => row.session.id === 'hot')).toHaveLength(1);
		}
	});

	it('replaces a changed row that keeps its place where it is: no row of the list moves', () => {
		const {first, refresh} = movingStore();
		const all = allSessionRows(first);
		const visible = sessionRows(first, options).rows;
		const splice = vi.spyOn(Array.prototype, 'splice');
		// The busy chat, newest before and after its commit: patched in its slot of both lists.
		const next = refresh(first, hot(2));
		expect(allSessionRows(next)).toBe(all);
		expect(sessionRows(next, options).rows).toBe(visible);
		const moved = splice.mock.contexts.filter(list => list === all || list === visible);
		splice.mockRestore();
		expect(moved).toEqual([]);
		expect(all[0]!.session.messageCountColumn).toBe(2);
		expect(visible[0]!.session.messageCountColumn).toBe(2);
		// A row whose place changes still moves: the busy chat falls below the newest quiet one.
		const fallen = refresh(next, session({id: 'hot', newestMessageAt: T0 + 20, messageCountColumn: 3}));
		expect(
			allSessionRows(fallen)
				.map(row => row.session.id)
				.indexOf('hot'),
		).toBe(20);
	});

	it('patches the lists made so far into every model kept, so the one drawn after them makes none anew', () => {
		const {first, refresh, hiddenNow} = movingStore();
		const visible = sessionRows(first, options).rows;
		const all = allSessionRows(first);
		let model = first;
		for (let n = 2; n < 6; n++) {
			// Published, never drawn (the frame gate draws the newest of its interval).
			model = refresh(model, hot(n), session({id: `tool${n}`, source: 'tool', newestMessageAt: T0 + 500 + n}));
			keepRows(model);
		}

		// The very lists made for the first model, patched in place: no list of every session made and sorted again.
		expect(allSessionRows(model)).toBe(all);
		const drawn = sessionRows(model, options);
		expect(drawn.rows).toBe(visible);
		expect(drawn.rows.filter(row => row.session.id === 'hot').map(row => row.session.messageCountColumn)).toEqual([5]);
		expect(drawn.hidden).toBe(hiddenNow());
	});

	it('shows a model drawn after the next one was kept the newest list kept, not a list made anew', () => {
		const {first, refresh, hiddenNow} = movingStore();
		const visible = sessionRows(first, options).rows;
		const all = allSessionRows(first);
		const late = refresh(first, hot(2));
		keepRows(late);
		const next = refresh(late, hot(3), session({id: 'tool', source: 'tool', newestMessageAt: T0 + 500}));
		keepRows(next);
		// React draws `late` only now: its list was carried over to `next`, and its derivation is gone.
		const drawn = sessionRows(late, options);
		expect(drawn.rows).toBe(visible);
		expect(allSessionRows(late)).toBe(all);
		expect(drawn.rows.filter(row => row.session.id === 'hot').map(row => row.session.messageCountColumn)).toEqual([3]);
		expect(drawn.hidden).toBe(hiddenNow());
		expect(sessionRows(next, options).rows).toBe(visible);
	});

	it('counts a hidden session created by the next refresh once, when a model is drawn after it', () => {
		const {first, refresh, hiddenNow} = movingStore();
		let shown = first;
		for (let n = 0; n < 3; n++) {
			const late = refresh(shown, hot(n + 2));
			shown = refresh(late, session({id: `tool${n}`, source: 'tool', newestMessageAt: T0 + 500 + n}));
			// The late model's list is made now, from an index that already holds the new tool session.
			expect(sessionRows(late, options).hidden, `late, ${n}`).toBe(hiddenNow());
			expect(sessionRows(shown, options).hidden, `next, ${n}`).toBe(hiddenNow());
		}
	});
});

describe('an analysis that comes sorted (the live view sorted its first in steps, issue #26)', () => {
	it('lists its order as it is, with no sort, the same rows a sort of its sessions gives', () => {
		const sessions = Array.from({length: 200}, (_, i) =>
			session({id: `s${(i * 37) % 200}`, newestMessageAt: T0 + ((i * 53) % 90), startedAtRaw: T0}),
		);
		const snapshot = snapshotOf(sessions);
		const unsorted = allSessionRows(analyze(snapshot)).map(row => row.session.id);
		const sorted = {...analyze(snapshot), newestFirst: drain(newestFirstSteps(sessions, 16))};
		const sort = vi.spyOn(Array.prototype, 'sort');
		try {
			const listed = allSessionRows(sorted).map(row => row.session.id);
			expect(sort).not.toHaveBeenCalled();
			expect(listed).toEqual(unsorted);
		} finally {
			sort.mockRestore();
		}
	});
});

describe('the lists an analysis made whole needs, made ahead of its frame (issue #26)', () => {
	it('makes the default sessions list of a whole analysis once, and nothing for one patched from its previous', () => {
		const sessions = Array.from({length: 50}, (_, i) => session({id: `s${i}`, newestMessageAt: T0 + i}));
		const whole = analyze(snapshotOf(sessions));
		const job = rowsAhead(whole);
		expect(job).not.toBeNull();
		job!();
		// Made: the frame's list is the one made ahead (no second list), and no job is left for it.
		const made = allSessionRows(whole);
		expect(sessionRows(whole, {filterText: '', showHidden: false, source: null}).rows.map(r => r.session)).toEqual(
			made.map(r => r.session),
		);
		expect(allSessionRows(whole)).toBe(made);
		expect(rowsAhead(whole)).toBeNull();
		// An analysis derived from it patches its lists when they are kept: nothing to make ahead.
		prepareIncremental(whole);
		const byId = new Map(sessions.map(s => [s.id, s]));
		const hot = session({id: 's0', newestMessageAt: T0 + 500});
		byId.set(hot.id, hot);
		const next = analyzeIncremental(whole, snapshotOf([...byId.values()]), new Set(['s0']), {}, id => byId.get(id), {
			byId,
			before: new Map([['s0', sessions[0]]]),
		});
		expect(rowsAhead(next)).toBeNull();
	});
});
