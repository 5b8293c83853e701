/**
 * What the benchmark generator builds: the 1M-message bench store (`v3`) or the growth store of #26
 * (`scale-v1`), as one set of counts. Pure (no I/O, no imports) so a unit test can hold it fixed.
 *
 * The scale store is the bench store's generator with every session count multiplied by 4.66
 * (21,516 -> ~100,000 sessions) and 10,000,000 messages (x9.52), on the same 120-day span, seed and
 * planted orphans. Two choices keep it near 5 GB instead of the ~22 GB a plain 10x would be:
 * messages of 50-250 characters (the bench store's are 100-800), and the word index
 * `messages_fts` without the trigram index `messages_fts_trigram` (1.18 GB of the bench store's
 * 2.2 GB, 1.13 KB a message). Hermes v30 stores carry both; hfx's scan and TUI read neither (`hfx
 * search` reads the word index, the trigram one only for CJK text or as a substring fallback), so the
 * scale store measures what grows with the store for the scan and the TUI. Measured sizes of the
 * bench store (dbstat): messages 623 MB, its three indexes 148 MB, messages_fts 229 MB, the trigram
 * index 1,194 MB.
 */

export type GeneratorProfile = {
	/** The cache folder under `.bench-data/`. */
	dirName: string;
	/** Bump whenever this profile's data changes: the cache is keyed by it. */
	version: number;
	seed: number;
	messages: number;
	minSessions: number;
	gatewaySessions: number;
	localSessions: number;
	delegateSessions: number;
	branchSessions: number;
	emptySessions: number;
	/** A message's content length, uniform between these (inclusive). */
	minChars: number;
	maxChars: number;
	/** Whether the store carries `messages_fts_trigram` (it always carries `messages_fts`). */
	trigram: boolean;
};

const SEED = 0x48_46_58_31;

/** The 1M-message bench store: its counts are the generator's since v3 (changing them changes its bytes). */
export const BENCH_PROFILE: GeneratorProfile = {
	dirName: 'v3',
	version: 3,
	seed: SEED,
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
};

/** The bench store's session counts multiplied by `factor` (rounded), everything else as given. */
export function scaledProfile(
	base: GeneratorProfile,
	factor: number,
	rest: Pick<
		GeneratorProfile,
		'dirName' | 'version' | 'messages' | 'minSessions' | 'minChars' | 'maxChars' | 'trigram'
	>,
): GeneratorProfile {
	if (!(factor >= 1) || rest.minChars < 1 || rest.maxChars < rest.minChars) {
		throw new Error(`internal: a scale factor >= 1 and 1 <= minChars <= maxChars, got ${factor}`);
	}

	return {
		...base,
		...rest,
		gatewaySessions: Math.round(base.gatewaySessions * factor),
		localSessions: Math.round(base.localSessions * factor),
		delegateSessions: Math.round(base.delegateSessions * factor),
		branchSessions: Math.round(base.branchSessions * factor),
		emptySessions: Math.round(base.emptySessions * factor),
	};
}

/** The growth store of #26: ~100,000 sessions, 10,000,000 messages, ~5 GB. */
export const SCALE_PROFILE: GeneratorProfile = scaledProfile(BENCH_PROFILE, 4.66, {
	dirName: 'scale-v1',
	version: 1,
	messages: 10_000_000,
	minSessions: 100_000,
	minChars: 50,
	maxChars: 250,
	trigram: false,
});
