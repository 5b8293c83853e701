/**
 * The generations of Hermes' routing rules (docs/hermes-rules.md, generations), as data: which end
 * reasons a restart reopens, which fences apply, how "last active" is computed and whether the
 * store's own `repair-routing` exists or crashes. Every verdict of the engine takes one of these.
 */
import {LEGACY_RECOVERABLE_END_REASONS, RECOVERABLE_END_REASONS} from './end-reasons.js';

/** legacy-v21: schema v19–v23 (no last_activity_at); v25: the generation that shipped repair-routing; v30: current. */
export type RuleSet = 'legacy-v21' | 'v25' | 'v30';

/** What the newest Hermes decides once it has migrated a store. */
export const CURRENT_RULE_SET: RuleSet = 'v30';
export const CURRENT_SCHEMA_VERSION = 30;

export type Rules = {
	ruleSet: RuleSet;
	/**
	 * The rule set as said: the generation, or a variant of it for a build that lacks a change shipped inside it
	 * (build-rules.ts).
	 */
	label: string;
	/**
	 * legacy: live/recoverable rows with messages, newest started_at first; recency: rows with messages first, then
	 * COALESCE(last_activity_at, started_at).
	 */
	finder: 'legacy' | 'recency';
	recoverable: ReadonlySet<string>;
	/** A row whose handoff_state is 'completed' is resumed whatever its end reason (v30). */
	completedHandoff: boolean;
	/** A later reset sibling hides older rows (v25 and later). */
	resetFence: boolean;
	/** Donors and the tuple fallback are fenced by the store's owner profile (v30). */
	profileFence: boolean;
	/** "Last active" ignores timestamps outside [0, 4.2e9] and non-numeric cells (v30); v25 takes SQLite's raw MAX. */
	epochWindow: boolean;
	/** repair-routing reads model_config with a throwing json_extract: one malformed cell fails the whole scan (v25). */
	throwingJsonExtract: boolean;
	/** The store's own generation ships `hermes sessions repair-routing`. */
	hasRepairRouting: boolean;
	/**
	 * The gateway's namespace post-filter on a recovered row also runs when profiles are
	 * multiplexed, against the requested key's profile (v30); v25 and older pass every row then.
	 */
	namespaceFilterMultiplexed: boolean;
	/**
	 * Slack lookups are scoped by workspace: the tuple fallback is skipped for a Slack chat (v30,
	 * hermes-state.md §3.3 step 4b). The v25 tree run for test/fixtures/hermes-differential, whose
	 * Slack scoping is "inert in this fork", and the v21 gateway run it for Slack too.
	 */
	slackSkipsTupleFallback: boolean;
};

const V30: Rules = {
	ruleSet: 'v30',
	label: 'v30',
	finder: 'recency',
	recoverable: RECOVERABLE_END_REASONS,
	completedHandoff: true,
	resetFence: true,
	profileFence: true,
	epochWindow: true,
	throwingJsonExtract: false,
	hasRepairRouting: true,
	namespaceFilterMultiplexed: true,
	slackSkipsTupleFallback: true,
};

const V25: Rules = {
	...V30,
	ruleSet: 'v25',
	label: 'v25',
	recoverable: LEGACY_RECOVERABLE_END_REASONS,
	completedHandoff: false,
	profileFence: false,
	epochWindow: false,
	throwingJsonExtract: true,
	namespaceFilterMultiplexed: false,
	slackSkipsTupleFallback: false,
};

const LEGACY: Rules = {
	...V25,
	ruleSet: 'legacy-v21',
	label: 'legacy-v21',
	finder: 'legacy',
	resetFence: false,
	hasRepairRouting: false,
};

const BY_NAME: Record<RuleSet, Rules> = {'legacy-v21': LEGACY, v25: V25, v30: V30};

export function rulesFor(ruleSet: RuleSet): Rules {
	return BY_NAME[ruleSet];
}

/**
 * The rules repair-routing applies to a store of this generation. A generation without the
 * command (legacy) gets it only by upgrading Hermes, which brings the current rules.
 */
export function orphanRulesFor(rules: Rules): Rules {
	return rules.hasRepairRouting ? rules : V30;
}

/** Which generation wrote the store, and the evidence, from its columns and schema_version. */
export function generationOf(facts: {hasLastActivity: boolean; schemaVersion: number | null}): {
	ruleSet: RuleSet;
	reason: string;
} {
	if (!facts.hasLastActivity) {
		return {
			ruleSet: 'legacy-v21',
			reason:
				`no sessions.last_activity_at` +
				`${facts.schemaVersion === null ? '' : ` (schema_version ${facts.schemaVersion})`}: ` +
				`written by an older Hermes (schema ≤ v23) whose finder takes ` +
				`live/agent_close/ws_orphan_reap rows with messages, newest started_at ` +
				`first; that generation has no repair-routing`,
		};
	}

	if (facts.schemaVersion !== null && facts.schemaVersion < CURRENT_SCHEMA_VERSION) {
		return {
			ruleSet: 'v25',
			reason:
				`sessions.last_activity_at exists and schema_version ` +
				`is ${facts.schemaVersion} (< ${CURRENT_SCHEMA_VERSION}): the v25 ` +
				`generation (recoverable only agent_close/ws_orphan_reap, no ` +
				`completed-handoff clause, no profile fence, no epoch window, a throwing ` +
				`JSON extract in repair-routing)`,
		};
	}

	return {
		ruleSet: 'v30',
		reason:
			facts.schemaVersion === null
				? 'sessions.last_activity_at exists and there is no readable ' +
					'schema_version: taken as current Hermes (v30 rules)'
				: `schema_version ${facts.schemaVersion}: current Hermes (v30 rules: four ` +
					`recoverable reasons, completed handoffs, profile fence, epoch window)`,
	};
}
