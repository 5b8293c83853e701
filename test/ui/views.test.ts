/**
 * The sessions list order is updated from the previous one after an incremental analysis: it
 * must equal a full sort whatever changed.
 */
import {describe, expect, it, vi} from 'vitest';
import {analyze} from '../../source/forensics/analysis/analyze.js';
import {drain} from '../../source/forensics/analysis/steps.js';
import {newestFirstSteps} from '../../source/forensics/analysis/newest-first.js';
import {analyzeIncremental} from '../../source/forensics/analysis/incremental.js';
import type {SessionRecord, Snapshot} from '../../source/forensics/types.js';
import {allSessionRows, rowOf, sessionRows} from '../../source/ui/views.js';
import {isHiddenByDefault} from '../../source/forensics/analysis/status.js';
import {T0, session} from '../helpers/records.js';

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

describe('an analysis that comes sorted (the live view sorted its first in steps, issue #26)', () => {
	it('lists its order as it is, with no sort, the same rows a sort of its sessions gives', () => {
		const sessions = Array.from({length: 200}, (_, i) =>
			session({id: `s${(i * 37) % 200}`, newestMessageAt: T0 + ((i * 53) % 90), startedAtRaw: T0}),
		);
		const snapshot: Snapshot = {
			sessions,
			routing: [],
			owner: 'default',
			ruleSet: 'v30',
			routingScope: null,
			legacyRouting: [],
		};
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
