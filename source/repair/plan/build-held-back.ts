/**
 * Where the installed build is unknown and its two candidate rule sets decide an orphan differently
 * (forensics/routing/build-rules.ts: a v30 build with or without a change that shipped inside v30),
 * hfx cannot say which Hermes will judge the chat. Issue #27 asks for both verdicts "as after
 * upgrading Hermes does today", and across an upgrade a repair writes only what both generations
 * agree on (plan.ts heldBack): so here it writes only what both candidate builds agree on, and
 * holds the rest back as refused, naming the two rule sets and how to decide (name the build).
 */
import type {Analysis} from '../../forensics/analysis/analyze.js';
import type {OrphanVerdict} from '../../forensics/routing/orphans.js';

/** The orphan refused (`builds_disagree`) where the other candidate build decides it otherwise; else null. */
export function heldBackByBuild(
	o: OrphanVerdict,
	analysis: Pick<Analysis, 'buildAlternative' | 'buildRules' | 'rulesLabel'>,
): OrphanVerdict | null {
	const other = analysis.buildAlternative;
	if (other === null) {
		return null;
	}

	const alt = other.listed.find(x => x.orphanId === o.orphanId);
	if (alt?.verdict === 'adoptable' && alt.donorId === o.donorId && alt.sessionKey === o.sessionKey) {
		return null;
	}

	const says =
		alt === undefined
			? 'does not list it'
			: alt.verdict === 'adoptable'
				? `adopts it from ${alt.donorId} instead`
				: `refuses it (${alt.reasonKind}: ${alt.reason})`;
	return {
		...o,
		verdict: 'refused',
		reasonKind: 'builds_disagree',
		reason:
			`held back: the installed build is ${analysis.buildRules?.build ?? 'unknown'} and does not say ` +
			`which rules it has; under ${analysis.rulesLabel} repair-routing would adopt it from ${o.donorId}, ` +
			`under ${other.rulesLabel} it ${says}; hfx writes only what both agree on (name the build: run ` +
			`with the gateway up, or from the install's checkout, or with --ask-hermes)`,
	};
}
