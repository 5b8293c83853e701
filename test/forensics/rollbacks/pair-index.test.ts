/**
 * The rollback probe pairs kept up to date as rows change must be the pairs found afresh among every row
 * (rollbackProbePairs), whatever changed: random stores, random sequences of the changes an agent makes (messages,
 * new rows, ends, keys lost or set, profiles, deletions), compared after every step. And a change to one row pairs
 * that row again, not every row.
 */
import {describe, expect, it, vi} from 'vitest';
import {RollbackPairIndex, type RowChange} from '../../../source/forensics/rollbacks/pair-index.js';
import {type RowPair, rollbackProbePairs} from '../../../source/forensics/rollbacks/rollback-pairs.js';
import {LOCAL_SURFACES} from '../../../source/forensics/routing/orphans.js';
import type {SessionRecord} from '../../../source/forensics/types.js';
import {T0, session} from '../../helpers/records.js';
import {prng as rng} from '../../helpers/prng.js';

const SOURCES = ['telegram', 'discord', 'unknown', 'cli'];
const REASONS = [null, 'compression', 'session_reset', 'agent_close', 'idle', 'cli_close'];

const names = (pairs: readonly RowPair[]) => pairs.map(p => `${p.orphan.id}>${p.keyed.id}`);

function world(seed: number) {
	const r = rng(seed);
	const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
	let n = 0;
	const rows = new Map<string, SessionRecord>();
	const row = (id: string): SessionRecord => {
		const source = pick(SOURCES);
		const chat = Math.floor(r() * 3);
		const started = T0 + Math.floor(r() * 20_000);
		return session({
			id,
			source,
			sessionKey: r() < 0.6 ? (r() < 0.05 ? '' : `agent:main:${source}:dm:${chat}`) : null,
			userId: r() < 0.8 ? `u${chat}` : null,
			profileName: r() < 0.2 ? pick(['default', 'work']) : null,
			startedAtRaw: started,
			newestMessageAt: r() < 0.9 ? started + Math.floor(r() * 30_000) : null,
			hasMessageRows: r() < 0.9,
			endReason: pick(REASONS),
		});
	};

	const fresh = () => `s${String(n++).padStart(4, '0')}`;
	for (let i = 0; i < 60; i++) {
		const s = row(fresh());
		rows.set(s.id, s);
	}

	/** One random change: the rows it changed, as they were and are. */
	const step = (): RowChange[] => {
		const ids = [...rows.keys()];
		const id = pick(ids);
		const was = rows.get(id)!;
		const roll = r();
		let now: SessionRecord | undefined;
		if (roll < 0.45) {
			now = {...was, newestMessageAt: (was.newestMessageAt ?? T0) + Math.floor(r() * 20_000), hasMessageRows: true};
		} else if (roll < 0.6) {
			const s = row(fresh());
			rows.set(s.id, s);
			return [{was: undefined, now: s}];
		} else if (roll < 0.7) {
			now = {...was, endReason: pick(REASONS)};
		} else if (roll < 0.8) {
			now = {...was, sessionKey: was.sessionKey === null ? `agent:main:${was.source}:dm:1` : null};
		} else if (roll < 0.87) {
			now = {...was, userId: pick([null, 'u0', 'u1']), profileName: pick([null, 'default', 'work'])};
		} else if (roll < 0.95) {
			now = undefined;
		} else {
			now = {...was, startedAtRaw: T0 + Math.floor(r() * 20_000)};
		}

		if (now) {
			rows.set(id, now);
		} else {
			rows.delete(id);
		}

		return [{was, now}];
	};

	return {rows, step};
}

describe('rollback probe pairs kept up to date', () => {
	it('equal the pairs found afresh among every row after each random change', () => {
		for (let seed = 1; seed <= 40; seed++) {
			const {rows, step} = world(seed);
			const index = new RollbackPairIndex(LOCAL_SURFACES);
			index.reset([...rows.values()]);
			for (let i = 0; i < 60; i++) {
				index.update(step());
				const afresh = names(rollbackProbePairs([...rows.values()], LOCAL_SURFACES)).sort();
				const kept = index.pairs();
				expect(names(kept), `seed ${seed} step ${i}`).toEqual(afresh);
				// The pairs hold the rows as they are now (the probes' stamps are taken from them).
				for (const {orphan, keyed} of kept) {
					expect(rows.get(orphan.id)).toBe(orphan);
					expect(rows.get(keyed.id)).toBe(keyed);
				}
			}
		}
	});

	it('found a chunk of rows a step (a stepped reset) are the pairs found afresh, one step a chunk', () => {
		for (let seed = 1; seed <= 20; seed++) {
			const {rows, step} = world(seed);
			for (let i = 0; i < 40; i++) {
				step();
			}

			const all = [...rows.values()];
			const index = new RollbackPairIndex(LOCAL_SURFACES);
			// A reset before: the stepped one starts over.
			index.reset(all.slice(0, 10));
			const steps = index.resetSteps(all, 7);
			let yields = 0;
			while (!steps.next().done) {
				yields++;
			}

			expect(yields, `seed ${seed}`).toBe(Math.ceil(all.length / 7) - 1);
			expect(names(index.pairs()), `seed ${seed}`).toEqual(names(rollbackProbePairs(all, LOCAL_SURFACES)).sort());
		}
	});

	it("a stepped reset pairs each key's rows once, however many chunks they fall in", () => {
		// Three chats whose rows are interleaved: every chunk of 3 holds a row of each.
		const rows = Array.from({length: 12}, (_, i) =>
			session({
				id: `k${String(i).padStart(2, '0')}`,
				sessionKey: `agent:main:telegram:dm:${i % 3}`,
				startedAtRaw: T0 + i,
				newestMessageAt: T0 + 100 + i,
			}),
		);
		const index = new RollbackPairIndex(LOCAL_SURFACES);
		const paired = vi.spyOn(RollbackPairIndex.prototype as unknown as {pairSiblings: () => void}, 'pairSiblings');
		try {
			const steps = index.resetSteps(rows, 3);
			while (!steps.next().done) {
				// each step indexes the next chunk
			}

			expect(paired).toHaveBeenCalledTimes(3);
		} finally {
			paired.mockRestore();
		}

		expect(names(index.pairs())).toEqual(names(rollbackProbePairs(rows, LOCAL_SURFACES)).sort());
	});

	it('pairs again only the changed row: a message on one keyed chat looks at no other chat', () => {
		const orphan = session({id: 'o1', source: 'telegram', newestMessageAt: T0 + 100, startedAtRaw: T0});
		const chats = Array.from({length: 500}, (_, i) =>
			session({id: `k${i}`, source: 'telegram', sessionKey: `agent:main:telegram:dm:${i}`, newestMessageAt: T0}),
		);
		const index = new RollbackPairIndex(LOCAL_SURFACES);
		index.reset([orphan, ...chats]);
		expect(names(index.pairs())).toEqual([]);
		// Count the rows looked at: every row the update reads is a property read of its id or source.
		const seen = new Set<string>();
		const watched = (s: SessionRecord) =>
			new Proxy(s, {
				get(target, property, receiver) {
					seen.add(target.id);
					return Reflect.get(target, property, receiver);
				},
			});
		index.reset([watched(orphan), ...chats.map(watched)]);
		seen.clear();
		const was = chats[7]!;
		const now = {...was, newestMessageAt: T0 + 500};
		index.update([{was, now: watched(now)}]);
		expect(names(index.pairs())).toEqual(['o1>k7']);
		expect([...seen].sort()).toEqual(['k7', 'o1']);
	});
});
