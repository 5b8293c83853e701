/**
 * The benchmark generator's profiles (bench/generate-profile.ts): the 1M bench store held at its v3 counts, the
 * scale store of #26 as those counts x4.66 with 10M messages, and the scaling deterministic.
 */
import {describe, expect, it} from 'vitest';
import {BENCH_PROFILE, SCALE_PROFILE, scaledProfile} from '../../bench/generate-profile.js';

const rest = {
	dirName: 'x',
	version: 1,
	messages: 10,
	minSessions: 1,
	minChars: 50,
	maxChars: 250,
	trigram: false,
} as const;

describe('the generator profiles', () => {
	it('keeps the 1M bench store at the counts it was built with (v3: its bytes depend on them)', () => {
		expect(BENCH_PROFILE).toEqual({
			dirName: 'v3',
			version: 3,
			seed: 0x48_46_58_31,
			messages: 1_050_000,
			minSessions: 20_000,
			gatewaySessions: 13_500,
			localSessions: 3200,
			delegateSessions: 4000,
			branchSessions: 300,
			emptySessions: 500,
			minChars: 100,
			maxChars: 800,
			trigram: true,
		});
	});

	it('plans the scale store as the bench store x4.66 in sessions, 10M short messages, word index only', () => {
		expect(SCALE_PROFILE).toEqual({
			dirName: 'scale-v1',
			version: 1,
			seed: BENCH_PROFILE.seed,
			messages: 10_000_000,
			minSessions: 100_000,
			gatewaySessions: 62_910,
			localSessions: 14_912,
			delegateSessions: 18_640,
			branchSessions: 1398,
			emptySessions: 2330,
			minChars: 50,
			maxChars: 250,
			trigram: false,
		});
		const planned =
			SCALE_PROFILE.gatewaySessions +
			SCALE_PROFILE.localSessions +
			SCALE_PROFILE.delegateSessions +
			SCALE_PROFILE.branchSessions +
			SCALE_PROFILE.emptySessions;
		expect(planned).toBeGreaterThanOrEqual(SCALE_PROFILE.minSessions);
	});

	it('is deterministic: the same base and factor give the same plan', () => {
		expect(scaledProfile(BENCH_PROFILE, 2.5, rest)).toEqual(scaledProfile(BENCH_PROFILE, 2.5, rest));
		expect(scaledProfile(BENCH_PROFILE, 1, {...rest, minChars: 100, maxChars: 800})).toMatchObject({
			gatewaySessions: BENCH_PROFILE.gatewaySessions,
			emptySessions: BENCH_PROFILE.emptySessions,
		});
	});

	it('refuses a factor below 1 and an empty size range', () => {
		expect(() => scaledProfile(BENCH_PROFILE, 0.5, rest)).toThrow(/scale factor/);
		expect(() => scaledProfile(BENCH_PROFILE, Number.NaN, rest)).toThrow(/scale factor/);
		expect(() => scaledProfile(BENCH_PROFILE, 2, {...rest, minChars: 300})).toThrow(/minChars/);
	});
});
