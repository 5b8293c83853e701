/**
 * The rule-set lines of `hfx scan` and `hfx routing`: the rules the verdicts use (the store's
 * generation, or its variant for the installed build), the build, and how that was decided.
 */
import type {BuildRules} from '../../forensics/routing/build-rules.js';
import type {DatabaseFacts} from '../../store/read/load.js';

export function ruleSetLines(
	facts: Pick<DatabaseFacts, 'ruleSet' | 'ruleSetReason'>,
	build: BuildRules | null,
): string[] {
	const lacking = (build?.changes ?? []).filter(c => c.included === false);
	const head =
		lacking.length === 0
			? `rule set ${build?.rules.label ?? facts.ruleSet}: ${facts.ruleSetReason}`
			: `rule set ${build!.rules.label}: ${facts.ruleSetReason}; but this build ` +
				`lacks ${lacking.map(c => `#${c.pr} (${c.title})`).join(', ')}`;
	return build === null ? [head] : [head, buildLine(build)];
}

/** The build the rules came from, its other candidate rules where it does not decide, how sure and how decided. */
export function buildLine(build: BuildRules): string {
	const alternative = build.alternative === null ? '' : ` (or ${build.alternative.label})`;
	return `build ${build.build ?? 'unknown'}${alternative}, ${build.confidence}: ${build.decidedBy}`;
}

/** The same in JSON: the rule set used, the build, how it was decided and how sure. */
export function ruleSetJson(facts: Pick<DatabaseFacts, 'ruleSet'>, build: BuildRules | null) {
	return {
		ruleSet: facts.ruleSet,
		rules: build?.rules.label ?? facts.ruleSet,
		build: build?.build ?? null,
		confidence: build?.confidence ?? 'weak',
		decidedBy: build?.decidedBy ?? "the store's generation alone",
		alternative: build?.alternative?.label ?? null,
		changes: build?.changes ?? [],
	};
}
