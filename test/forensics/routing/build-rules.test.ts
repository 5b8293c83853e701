/**
 * The mapping from a Hermes build to the rule changes shipped inside schema v30
 * (forensics/routing/build-rules.ts over forensics/routing/rule-changes.ts), and `hermes --version`'s words.
 */
import {describe, expect, it} from 'vitest';
import {
	type HermesBuild,
	buildLabel,
	inclusionOf,
	resolveBuildRules,
	variantsCanDiffer,
	versionParts,
} from '../../../source/forensics/routing/build-rules.js';
import {rulesFor} from '../../../source/forensics/generations.js';
import {RULE_CHANGES} from '../../../source/forensics/routing/rule-changes.js';
import {parseHermesVersion} from '../../../source/store/places/hermes-version.js';

const EPOCH = RULE_CHANGES.find(c => c.pr === 91543)!;
const build = (version: string | null, sha: string | null = null): HermesBuild => ({version, sha, from: 'test'});

describe('which build has which rule change', () => {
	it('a commit §3.3 names decides strongly, whatever its version says', () => {
		expect(inclusionOf(EPOCH, build('0.20.5', 'f31cf9710123456789abcdef0123456789abcdef'))).toMatchObject({
			included: false,
			confidence: 'strong',
		});
		expect(inclusionOf(EPOCH, build('0.20.5', '00704d08aa'))).toMatchObject({included: true, confidence: 'strong'});
	});

	it(
		'a version older than one main carried while it still lacked the change ' +
			'lacks it; for #91543 no version is known to have it',
		() => {
			expect(inclusionOf(EPOCH, build('0.20.4'))).toMatchObject({included: false, confidence: 'medium'});
			expect(inclusionOf(EPOCH, build('0.21.0', '10e7de79a9ab'))).toMatchObject({
				included: false,
				confidence: 'medium',
			});
			expect(inclusionOf(EPOCH, build('v0.19.9-unstable-2026-07-22.9eb7b1a6'))).toMatchObject({
				included: false,
				confidence: 'medium',
			});
			const later = inclusionOf(EPOCH, build('0.21.4', '10e7de79a9ab'));
			expect(later).toMatchObject({included: null, confidence: 'weak'});
			expect(later.why).toBe(
				'version 0.21.4, commit 10e7de79a9ab does not decide #91543 (versions ' +
					'before 0.21.1 lack it, no version is known to have it; its sha is not ' +
					'one known to have or lack it)',
			);
			expect(inclusionOf(EPOCH, build('main'))).toMatchObject({included: null, confidence: 'weak'});
			expect(inclusionOf(EPOCH, null)).toMatchObject({included: null, why: 'no build was read'});
		},
	);

	it(
		'where a release is known to have a change, it and every later version ' +
			'have it (compared by number: 0.20.10 is after 0.20.6)',
		() => {
			const identity = RULE_CHANGES.find(c => c.pr === 91283)!;
			expect(inclusionOf(identity, build('0.20.6'))).toMatchObject({included: true, confidence: 'medium'});
			expect(inclusionOf(identity, build('0.20.10'))).toMatchObject({included: true});
			expect(inclusionOf(identity, build('0.20.5'))).toMatchObject({included: null});
			expect(inclusionOf(identity, build('0.20.4'))).toMatchObject({included: false});
			expect(versionParts('0.20.10')).toEqual([0, 20, 10]);
			expect(versionParts('garbage')).toBeNull();
		},
	);
});

describe('the rules of a build', () => {
	it('a build lacking #91543: v30 without the epoch window, said so, no second verdict', () => {
		const r = resolveBuildRules('v30', build('0.20.4'));
		expect(r.rules).toMatchObject({ruleSet: 'v30', label: 'v30 before #91543', epochWindow: false, profileFence: true});
		expect(r).toMatchObject({build: '0.20.4', alternative: null, confidence: 'medium'});
		expect(r.decidedBy).toContain('#91543 not included: version 0.20.4 is older than 0.21.1');
	});

	it('a build with it (a commit known to have it): the current v30 rules', () => {
		const r = resolveBuildRules('v30', build('0.21.4', '00704d08abcdef'));
		expect(r.rules).toBe(rulesFor('v30'));
		expect(r).toMatchObject({build: '0.21.4@00704d08abcd', alternative: null, confidence: 'strong'});
	});

	it('no build: the current rules, and the rules before #91543 beside them (weak)', () => {
		const r = resolveBuildRules('v30', null);
		expect(r.rules).toBe(rulesFor('v30'));
		expect(r.alternative).toMatchObject({label: 'v30 before #91543', epochWindow: false});
		expect(r).toMatchObject({build: null, confidence: 'weak'});
		expect(r.decidedBy).toContain('no build read');
	});

	it("an older store keeps its own generation's rules whatever the build", () => {
		const r = resolveBuildRules('v25', build('0.21.4'));
		expect(r.rules).toBe(rulesFor('v25'));
		expect(r).toMatchObject({alternative: null, changes: []});
		expect(r.decidedBy).toContain('the store is schema v25');
	});

	it('the two variants can differ only where a timestamp lies outside the epoch window', () => {
		const v30 = rulesFor('v30');
		const before = resolveBuildRules('v30', null).alternative!;
		const row = (lastActivityAtRaw: unknown) =>
			({lastActivityAtRaw, newestMessageRaw: 1_786_000_000, startedAtRaw: 1_786_000_000}) as any;
		expect(variantsCanDiffer([row(1_786_000_100)], v30, before)).toBe(false);
		expect(variantsCanDiffer([row(1_786_000_100), row(5.49e246)], v30, before)).toBe(true);
		expect(variantsCanDiffer([row('soon')], v30, before)).toBe(true);
		expect(variantsCanDiffer([row(5.49e246)], v30, v30)).toBe(false);
	});

	it('labels a build as the metrics do', () => {
		expect(buildLabel(build('0.21.4', '10e7de79a9ab55e0c3b1'))).toBe('0.21.4@10e7de79a9ab');
		expect(buildLabel(build(null, null))).toBeNull();
	});
});

describe('hermes --version', () => {
	it('reads the version and the commit of both known shapes (hermes-incidents §3.1)', () => {
		expect(parseHermesVersion('hermes-agent 0.18.0 (v2026.7.1-368-g5b04a024a)\n')).toEqual({
			version: '0.18.0',
			sha: '5b04a024a',
		});
		expect(parseHermesVersion('Hermes v0.21.4 (main @ 10e7de79a9)')).toEqual({version: '0.21.4', sha: '10e7de79a9'});
		expect(parseHermesVersion('\nHermes v0.21.4\nsecond line @ abcdef1234')).toEqual({version: '0.21.4', sha: null});
		expect(parseHermesVersion('usage: hermes [-h]')).toBeNull();
	});
});
