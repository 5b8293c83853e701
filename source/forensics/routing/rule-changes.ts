/**
 * The rule changes that shipped inside schema v30 without a version bump (hermes-incidents §3.3),
 * as data: each one's PR, when it reached main, the pyproject version main carried then and the
 * first release whose version bump came after it, and whether it changes a verdict hfx computes.
 *
 * Provenance, per entry (`how`): the PR numbers and merge dates are those of §3.3 (the survey note
 * of upstream issues and PRs), checked against the PR texts and upstream files the search corpus
 * holds. The versions come from the upstream release PRs ("chore: release vX (date)"), which bump
 * `pyproject.toml` on main: v0.20.5 (2026.8.19), v0.20.6 (#96331, merged 2026-08-27), v0.21.0
 * (v2026.8.31), v0.21.1 (#105374, 2026-09-07). Between two release commits main keeps the older
 * version, so a build stamped with the version main carried when the change landed may be from
 * before or after it: that version decides nothing. A commit known to have or lack the change
 * decides by its sha.
 */

/** What a rule change does to hfx's verdicts: the Rules field it turns on, or none (evidence only). */
export type RuleEffect = 'epochWindow' | null;

export type RuleChange = {
	/** A short name for output and JSON. */
	id: string;
	pr: number;
	title: string;
	/** The day it reached main (UTC), or null where that is not established. */
	merged: string | null;
	/**
	 * Every build stamped with an older version lacks it (main carried this version, or a later one, where it was still
	 * absent); null: not established.
	 */
	lackedBefore: string | null;
	/**
	 * Every build stamped with this version or a later one has it (the first release bumped after it landed); null: not
	 * established.
	 */
	hadFrom: string | null;
	/** Commit prefixes known to have it, and known to lack it (§3.3). */
	shasWith: readonly string[];
	shasWithout: readonly string[];
	effect: RuleEffect;
	/** What it changes, in Hermes' words; for an evidence-only change, why no verdict of hfx moves. */
	note: string;
	/** How sure the entry is. */
	how: string;
};

export const RULE_CHANGES: readonly RuleChange[] = [
	{
		id: 'epoch-window',
		pr: 91543,
		title: 'the freshest-of "last active" ignores timestamps outside the epoch window',
		merged: null,
		lackedBefore: '0.21.1',
		hadFrom: null,
		shasWith: ['00704d08'],
		shasWithout: ['f31cf971'],
		effect: 'epochWindow',
		note:
			'before it, a garbage last_activity_at or message timestamp (5.49e+246, ' +
			"TEXT) is a row's last activity in repair-routing's freshest-of, so such " +
			'a donor falls outside every contiguity window (or outranks the others)',
		how:
			'shas: §3.3. Date and release NOT established: §3.3 dates it 2026-08-21 ' +
			'(PR #91543, whose text of that day proposes a 1e9..4.2e9 window), but ' +
			'the corpus lists #91543 closed, and upstream hermes_state_common.py at ' +
			'f31cf971e9ec (SCHEMA_VERSION 30, already carrying the #106459 boundary ' +
			'fix of 2026-09-10) still has the unwindowed _sql_freshest_of. So main ' +
			'after the 0.21.1 release (2026-09-07) still lacked it: versions before ' +
			'0.21.1 lack it. 00704d08 has it, read 2026-12-02: _sql_freshest_of keeps ' +
			'only values BETWEEN EPOCH_MIN AND EPOCH_MAX (0.0, 4.2e9, from ' +
			'hermes_cli/timefmt.py), its started_at fallback too; the window [0, 4.2e9] ' +
			"is timefmt's coerce_epoch range (likely PR #108086, merged 2026-09-11: " +
			"not proven), not #91543's 1e9 floor. No release is known to have it",
	},
	{
		id: 'build-identity',
		pr: 91283,
		title: 'gateway_state.json carries code_sha/code_version',
		merged: '2026-08-21',
		lackedBefore: '0.20.5',
		hadFrom: '0.20.6',
		shasWith: [],
		shasWithout: [],
		effect: null,
		note:
			'no verdict: it is what lets hfx name the build (a gateway_state.json ' +
			'without code_version is from before it)',
		how: 'merge date: §3.1 (PR text), versions inferred as for #91543',
	},
	{
		id: 'write-halt',
		pr: 99753,
		title: 'a store replaced under a live process halts writes and diverts to sessions/<id>.jsonl',
		merged: '2026-08-31',
		lackedBefore: null,
		hadFrom: null,
		shasWith: [],
		shasWithout: [],
		effect: null,
		note: 'evidence only: hfx reads the diverted files wherever they exist',
		how: 'merge date: §3.3; whether 0.21.0 (2026-08-31) has it is not established',
	},
	{
		id: 'stale-close-heal',
		pr: 107187,
		title: 'reopen_if_explicitly_closed heals a stale explicit-close stamp',
		merged: '2026-09-10',
		lackedBefore: '0.21.1',
		hadFrom: null,
		shasWith: [],
		shasWithout: [],
		effect: null,
		note: 'evidence only: the §4.2 signature in the store says what happened',
		how: 'merge date: §3.3; the next release after 0.21.1 is not established',
	},
	{
		id: 'shared-state',
		pr: 108076,
		title: 'hosted rooms move to <root>/shared-state.db',
		merged: '2026-09-11',
		lackedBefore: '0.21.1',
		hadFrom: null,
		shasWith: ['0e422e0e'],
		shasWithout: [],
		effect: null,
		note: 'evidence only: which files a profile gateway writes, not how a chat resumes',
		how: 'merge date and commit: §3.3',
	},
	{
		id: 'profile-stores',
		pr: 108294,
		title: 'multiplexed profiles keep their own stores',
		merged: '2026-09-11',
		lackedBefore: '0.21.1',
		hadFrom: null,
		shasWith: [],
		shasWithout: [],
		effect: null,
		note: 'evidence only here: where rows are written; the namespace post-filter hfx applies is the v30 one either way',
		how: 'merge date: §3.3',
	},
	{
		id: 'main-namespace',
		pr: 110271,
		title: 'a profile named main is keyed agent:main~',
		merged: '2026-09-13',
		lackedBefore: '0.21.1',
		hadFrom: null,
		shasWith: [],
		shasWithout: [],
		effect: null,
		note: 'not modelled: the keys in the store carry the namespace their writer chose',
		how: 'merge date: §3.3',
	},
	{
		id: 'unknown-sweep',
		pr: 112045,
		title: "'unknown' added to the startup orphan-sweep sources",
		merged: '2026-09-15',
		lackedBefore: '0.21.1',
		hadFrom: null,
		shasWith: [],
		shasWithout: [],
		effect: null,
		note:
			"no verdict: the sweep writes end_reason='startup_orphan_reap' on " +
			"phantom source='unknown' rows, which are keyless, so the restart finder " +
			'(by key) never resumes them and repair-routing lists them the same; the ' +
			'store shows whether a sweep ran',
		how:
			'merge date: §3.3 and #111999 (comment of 2026-09-15 read); 0.21.3 at ' +
			'db1f3f45 was in use on 2026-09-21 (#118161), its inclusion not ' +
			'established',
	},
	{
		id: 'prune-freshest',
		pr: 114219,
		title: 'prune ages rows by the freshest-of expression',
		merged: '2026-09-17',
		lackedBefore: null,
		hadFrom: null,
		shasWith: [],
		shasWithout: [],
		effect: null,
		note: 'no verdict: which ended rows a future prune removes, not how a chat resumes now',
		how: 'merge date: §3.3 (survey note)',
	},
];
