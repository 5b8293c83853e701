/**
 * Work in steps (forensics/analysis/steps.ts): `drain` runs every step of a stepped computation in one go and returns
 * what it returns.
 */
import {describe, expect, it} from 'vitest';
import {type Steps, drain} from '../../../source/forensics/analysis/steps.js';

describe('drain', () => {
	it('runs every step to the end and returns the value', () => {
		const ran: number[] = [];
		function* three(): Steps<string> {
			for (const i of [1, 2, 3]) {
				ran.push(i);
				yield;
			}

			return 'done';
		}

		expect(drain(three())).toBe('done');
		expect(ran).toEqual([1, 2, 3]);
	});

	it('returns at once from a computation of no step', () => {
		// biome-ignore lint/correctness/useYield: a computation that needs no step
		function* none(): Steps<number> {
			return 7;
		}

		expect(drain(none())).toBe(7);
	});
});
