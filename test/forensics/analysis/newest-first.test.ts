/**
 * The sessions newest first in steps (forensics/analysis/newest-first.ts): chunks sorted a step, merged after, equal to
 * one full sort of the same rows on random data (ties, rows with no activity, duplicates of a time).
 */
import {describe, expect, it} from 'vitest';
import {compareNewestFirst, newestFirstSteps} from '../../../source/forensics/analysis/newest-first.js';
import type {SessionRecord} from '../../../source/forensics/types.js';
import {T0, session} from '../../helpers/records.js';
import {prng} from '../../helpers/prng.js';

function rows(seed: number, n: number): SessionRecord[] {
	const r = prng(seed);
	return Array.from({length: n}, (_, i) => {
		const started = r() < 0.05 ? null : T0 + Math.floor(r() * 50);
		return session({
			id: `s${Math.floor(r() * n)}-${i}`,
			startedAtRaw: started,
			newestMessageAt: r() < 0.3 ? null : T0 + Math.floor(r() * 80),
			hasMessageRows: r() < 0.9,
		});
	});
}

describe('newestFirstSteps', () => {
	it('equals one full sort of the same rows, whatever the chunk, one step a chunk and one a merge pass', () => {
		for (let seed = 1; seed <= 30; seed++) {
			const all = rows(seed, 1 + Math.floor(prng(seed * 7)() * 300));
			const chunk = 1 + (seed % 40);
			const steps = newestFirstSteps(all, chunk);
			let yields = 0;
			let step = steps.next();
			for (; !step.done; step = steps.next()) {
				yields++;
			}

			const runs = Math.ceil(all.length / chunk);
			expect(yields, `seed ${seed}`).toBe(runs - 1 + Math.ceil(Math.log2(runs)));
			expect(step.value.map(s => s.id)).toEqual([...all].sort(compareNewestFirst).map(s => s.id));
			// The same records, and the input left as it was.
			expect(new Set(step.value)).toEqual(new Set(all));
		}
	});

	it('puts the newest activity first, rows with none last, and a tie by id descending', () => {
		const a = session({id: 'a', newestMessageAt: T0 + 10});
		const b = session({id: 'b', newestMessageAt: T0 + 10});
		const c = session({id: 'c', newestMessageAt: T0 + 50});
		const none = session({id: 'z', startedAtRaw: null, newestMessageAt: null, hasMessageRows: false});
		const steps = newestFirstSteps([none, a, b, c], 1);
		let step = steps.next();
		while (!step.done) {
			step = steps.next();
		}

		expect(step.value.map(s => s.id)).toEqual(['c', 'b', 'a', 'z']);
	});
});
