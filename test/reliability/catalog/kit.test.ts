/**
 * The kill point of a process that follows (`seen`): it stops the process once what the fault checks has been said,
 * not after a fixed time a loaded machine may outlast (three watch faults killed at 3-4 s before).
 */
import {describe, expect, it, vi} from 'vitest';
import {seen} from './kit.js';

describe('seen', () => {
	it('holds once every pattern is in the stdout so far, and not before', () => {
		const when = seen([/"event":"a"/, /"event":"b"/]);
		expect(when('')).toBe(false);
		expect(when('{"event":"a"}\n')).toBe(false);
		expect(when('{"event":"a"}\n{"event":"b"}\n')).toBe(true);
	});

	it('lingers lingerMs after the first sighting, from that sighting, not from each poll', () => {
		vi.useFakeTimers({now: 1000});
		try {
			const when = seen([/x/], 2500);
			expect(when('x')).toBe(false);
			vi.setSystemTime(3000);
			expect(when('x')).toBe(false);
			vi.setSystemTime(3500);
			expect(when('x')).toBe(true);
		} finally {
			vi.useRealTimers();
		}
	});
});
