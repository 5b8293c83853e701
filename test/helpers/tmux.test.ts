/**
 * The tmux tests' wait (test/helpers/tmux.ts settledMatch): a screen is taken from the capture after the first that
 * matched, so a capture made while tmux was still parsing a frame (the top new, the bottom old) is never asserted on.
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
	it('takes the capture after the first match, not a torn capture that matched first', async () => {
		// The torn capture: the new header above the old cursor row; then the whole new frame.
		const torn = 'paused\n› b\n  a';
		const whole = 'paused\n  b\n› a';
		const s = scripted(['following\n› b\n  a', torn, whole]);
		const got = await settledMatch(s.capture, /paused/, s.sleep, {now: s.now});
		expect(got).toEqual({screen: whole, matched: true});
	});

	it('waits past a capture that matched and then stopped matching', async () => {
		const s = scripted(['x NEW b', 'x', 'x', 'y NEW b', 'y NEW c']);
		const got = await settledMatch(s.capture, /NEW/, s.sleep, {now: s.now});
		expect(got).toEqual({screen: 'y NEW c', matched: true});
		expect(s.captures()).toBe(5);
	});

	it('says it never matched, with the last screen, after the timeout', async () => {
		const s = scripted(['a', 'b']);
		const got = await settledMatch(s.capture, /z/, s.sleep, {now: s.now, timeoutMs: 1000});
		expect(got).toEqual({screen: 'b', matched: false});
		expect(s.captures()).toBeGreaterThan(5);
	});
});
