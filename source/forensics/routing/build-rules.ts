/**
 * Which rules the installed Hermes build applies (issue #27, point 2): "v30" is not one rule set
 * (rule-changes.ts). A build identity (the running gateway's `code_sha`/`code_version`, or what
 * `hermes --version` says) is mapped to each verdict-changing rule change: a sha §3.3 names decides
 * strongly, a version medium-strongly, nothing but the schema weakly. Where a change stays
 * undecided, the verdicts are computed both ways and shown where they differ.
 */
import {type RuleSet, type Rules, rulesFor} from '../generations.js';
import {RULE_CHANGES, type RuleChange} from './rule-changes.js';
import {isCorruptTime} from '../time.js';
import type {SessionRecord} from '../types.js';

export type Confidence = 'strong' | 'medium' | 'weak';

/**
 * What a build says of itself, and where that was read; `trust`: the most its source can be trusted (the installed
 * checkout is `medium`: installed, maybe not the code that runs or ran; absent: as sure as the build decides).
 */
export type HermesBuild = {version: string | null; sha: string | null; from: string; trust?: Confidence};

export type ChangeInclusion = {id: string; pr: number; title: string; included: boolean | null; why: string};

export type BuildRules = {
	/** `0.20.5@f31cf971abcd`, or null when no build was read. */
	build: string | null;
	/** The rules the verdicts use (with their label, e.g. `v30 before #91543`). */
	rules: Rules;
	/** Where the build is unknown for a change that moves a verdict: the rules of the other side, else null. */
	alternative: Rules | null;
	confidence: Confidence;
	decidedBy: string;
	changes: ChangeInclusion[];
};

/** `0.21.4` → [0, 21, 4]; a suffix (`-unstable-…`, `+local`) is dropped; null when no X.Y.Z leads. */
export function versionParts(version: string): number[] | null {
	const m = /^v?(\d+)\.(\d+)\.(\d+)/.exec(version.trim());
	return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : null;
}

function compareVersions(a: number[], b: number[]): number {
	for (let i = 0; i < 3; i++) {
		if (a[i] !== b[i]) {
			return a[i]! < b[i]! ? -1 : 1;
		}
	}

	return 0;
}

/** Whether a build has one change, and why: by a sha §3.3 names, else by its version, else unknown. */
export function inclusionOf(
	change: RuleChange,
	build: HermesBuild | null,
): {included: boolean | null; why: string; confidence: Confidence} {
	const sha = build?.sha?.toLowerCase() ?? null;
	if (sha !== null && change.shasWith.some(p => sha.startsWith(p))) {
		return {included: true, why: `commit ${sha.slice(0, 12)} is known to have #${change.pr}`, confidence: 'strong'};
	}

	if (sha !== null && change.shasWithout.some(p => sha.startsWith(p))) {
		return {included: false, why: `commit ${sha.slice(0, 12)} is known to lack #${change.pr}`, confidence: 'strong'};
	}

	const parts = build?.version ? versionParts(build.version) : null;
	const lacked = change.lackedBefore === null ? null : versionParts(change.lackedBefore);
	const had = change.hadFrom === null ? null : versionParts(change.hadFrom);
	if (parts !== null && lacked !== null && compareVersions(parts, lacked) < 0) {
		return {
			included: false,
			why:
				`version ${build!.version} is older than ${change.lackedBefore}, and ` +
				`main still lacked #${change.pr} when it carried ${change.lackedBefore}`,
			confidence: 'medium',
		};
	}

	if (parts !== null && had !== null && compareVersions(parts, had) >= 0) {
		return {
			included: true,
			why:
				`version ${build!.version} is ${change.hadFrom} or later, released after ` +
				`#${change.pr} ` +
				`landed${change.merged === null ? '' : ` (${change.merged})`}`,
			confidence: 'medium',
		};
	}

	if (build === null) {
		return {included: null, why: 'no build was read', confidence: 'weak'};
	}

	const said = [
		build.version === null ? null : `version ${build.version}`,
		sha === null ? null : `commit ${sha.slice(0, 12)}`,
	]
		.filter(Boolean)
		.join(', ');
	const known = change.hadFrom === null ? 'no version is known to have it' : `versions from ${change.hadFrom} have it`;
	return {
		included: null,
		why:
			`${said || 'the build'} does not decide #${change.pr} (versions ` +
			`before ${change.lackedBefore ?? '(none established)'} lack ` +
			`it, ${known}; its sha is not one known to have or lack it)`,
		confidence: 'weak',
	};
}

/** The build as one label value: `0.20.5@f31cf971abcd`, `0.20.5`, `@f31cf971abcd`, or null. */
export function buildLabel(build: HermesBuild | null): string | null {
	if (build === null) {
		return null;
	}

	const label = `${build.version ?? ''}${build.sha ? `@${build.sha.slice(0, 12)}` : ''}`;
	return label === '' ? null : label;
}

/** The rules with every verdict-changing change turned off that the build lacks. */
function rulesWithout(base: Rules, lacking: readonly RuleChange[]): Rules {
	if (lacking.length === 0) {
		return base;
	}

	const rules: Rules = {...base, label: `${base.ruleSet} before ${lacking.map(c => `#${c.pr}`).join(', ')}`};
	for (const c of lacking) {
		if (c.effect === 'epochWindow') {
			rules.epochWindow = false;
		}
	}

	return rules;
}

/**
 * Whether two variants of one generation can decide any verdict differently on these rows: the
 * epoch window moves a verdict only through a timestamp outside it (so a store without one is
 * judged once, at no cost).
 */
export function variantsCanDiffer(sessions: readonly SessionRecord[], a: Rules, b: Rules): boolean {
	return (
		a.epochWindow !== b.epochWindow &&
		sessions.some(
			s => isCorruptTime(s.lastActivityAtRaw) || isCorruptTime(s.newestMessageRaw) || isCorruptTime(s.startedAtRaw),
		)
	);
}

const RANK: Record<Confidence, number> = {weak: 0, medium: 1, strong: 2};

/**
 * The rules of the installed build for a store of this generation. Only a v30 store has build
 * variants: the changes shipped inside v30, and an older store is judged by its own generation
 * (a v30 build migrates the store on its first writable open).
 */
export function resolveBuildRules(generation: RuleSet, build: HermesBuild | null): BuildRules {
	const base = rulesFor(generation);
	const label = buildLabel(build);
	const verdictChanges = RULE_CHANGES.filter(c => c.effect !== null);
	if (generation !== 'v30') {
		const said = label === null ? '' : `build ${label} (${build!.from}); `;
		return {
			build: label,
			rules: base,
			alternative: null,
			confidence: 'weak',
			decidedBy:
				`${said}the store is schema ${generation}: its own generation's rules ` +
				`decide, the changes inside v30 do not apply`,
			changes: [],
		};
	}

	const judged = verdictChanges.map(c => ({change: c, ...inclusionOf(c, build)}));
	const lacking = judged.filter(j => j.included === false).map(j => j.change);
	const unknown = judged.filter(j => j.included === null).map(j => j.change);
	const confidence = judged.reduce<Confidence>(
		(low, j) => (RANK[j.confidence] < RANK[low] ? j.confidence : low),
		build?.trust ?? 'strong',
	);
	const rules = rulesWithout(base, lacking);
	const alternative = unknown.length === 0 ? null : rulesWithout(base, [...lacking, ...unknown]);
	const source =
		label === null
			? 'no build read (no running gateway states one, no installed checkout or ' +
				'.hermes_build_sha names one; `--ask-hermes` asks `hermes --version`)'
			: `build ${label} from ${build!.from}`;
	const reasons = judged.map(
		j => `#${j.change.pr} ${j.included === null ? 'undecided' : j.included ? 'included' : 'not included'}: ${j.why}`,
	);
	const both =
		alternative === null
			? ''
			: `; the verdicts are shown for both (${rules.label} and ${alternative.label}) where they differ`;
	return {
		build: label,
		rules,
		alternative,
		confidence,
		decidedBy: `${source}; ${reasons.join('; ')}${both}`,
		changes: judged.map(j => ({
			id: j.change.id,
			pr: j.change.pr,
			title: j.change.title,
			included: j.included,
			why: j.why,
		})),
	};
}
