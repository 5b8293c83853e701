/**
 * The tmux tests' wait (test/helpers/tmux.ts settledMatch): a screen is only taken once the frame it shows held
 * still, so a capture made while tmux was still parsing a frame (the top new, the bottom old) is never asserted on.
 * Pure: a scripted sequence of captures and a fake clock.
 */
import {describe, expect, it} from 'vitest';
import {settledMatch} from './tmux.js';

/** Captures from a script (the last one repeats), on a clock that only the sleeps move. */
function scripted(screens: string[]) {
	let t = 0;
	let i = 0;
	return {
		capture: () => screens[Math.min(i++, screens.length - 1)]!,
		sleep: async (ms: number) => {
			t += ms;
		},
		now: () => t,
		captures: () => i,
	};
}

describe('settledMatch', () => {
	it('takes the frame that held still, not a torn capture that matched first', async () => {
		// The torn capture: the new header above the old cursor row; then the whole new frame, twice.
		const torn = 'paused\n› b\n  a';
		const whole = 'paused\n  b\n› a';
		const s = scripted(['following\n› b\n  a', torn, whole, whole]);
		const got = await settledMatch(s.capture, /paused/, s.sleep, {now: s.now});
		expect(got).toEqual({screen: whole, matched: true});
	});

	it('waits past a capture that matched and then stopped matching', async () => {
		const s = scripted(['x NEW b', 'x', 'x', 'y NEW b', 'y NEW b']);
		const got = await settledMatch(s.capture, /NEW b/, s.sleep, {now: s.now});
		expect(got).toEqual({screen: 'y NEW b', matched: true});
	});

	it('gives the last matching capture of a screen that never holds still, after settleMs', async () => {
		let n = 0;
		let t = 0;
		const got = await settledMatch(
			() => `commits ${n++}`,
			/commits/,
			async ms => {
				t += ms;
			},
			{now: () => t, settleMs: 300, confirmMs: 30},
		);
		expect(got.matched).toBe(true);
		expect(t).toBeGreaterThanOrEqual(300);
		expect(got.screen).toBe(`commits ${n - 1}`);
	});

	it('says it never matched, with the last screen, after the timeout', async () => {
		const s = scripted(['a', 'b']);
		const got = await settledMatch(s.capture, /z/, s.sleep, {now: s.now, timeoutMs: 1000});
		expect(got).toEqual({screen: 'b', matched: false});
		expect(s.captures()).toBeGreaterThan(5);
	});
});
