/**
 * The rule-set lines of `hfx scan` and `hfx routing` and their JSON (report/analysis/rule-set-lines.ts): the
 * store's generation alone when no build was read; the build's variant, what it lacks, the
 * alternative and how it was decided when one was.
 */
import {describe, expect, it} from 'vitest';
import {type HermesBuild, resolveBuildRules} from '../../../source/forensics/routing/build-rules.js';
import {ruleSetJson, ruleSetLines} from '../../../source/report/analysis/rule-set-lines.js';

const FACTS = {ruleSet: 'v30' as const, ruleSetReason: 'schema_version 30'};
const build = (version: string | null, sha: string | null = null): HermesBuild => ({version, sha, from: 'test'});

describe('ruleSetLines', () => {
	it("says the store's generation and why, one line, with no build", () => {
		expect(ruleSetLines(FACTS, null)).toEqual(['rule set v30: schema_version 30']);
	});

	it('names the change a build lacks and the build with how sure', () => {
		const rules = resolveBuildRules('v30', build('0.20.5', 'f31cf9710123456789abcdef0123456789abcdef'));
		const lines = ruleSetLines(FACTS, rules);
		expect(lines).toHaveLength(2);
		expect(lines[0]).toMatch(/^rule set v30 before #91543: schema_version 30; but this build lacks #91543 \(.+\)$/);
		expect(lines[1]).toBe(`build ${rules.build}, strong: ${rules.decidedBy}`);
	});

	it('names the alternative rules when no build was read (every change undecided)', () => {
		const rules = resolveBuildRules('v30', null);
		expect(rules.alternative).not.toBeNull();
		expect(ruleSetLines(FACTS, rules)).toEqual([
			'rule set v30: schema_version 30',
			`build unknown (or ${rules.alternative!.label}), weak: ${rules.decidedBy}`,
		]);
	});

	it('an older generation has no variant: its own rules, no alternative, whatever the build', () => {
		const rules = resolveBuildRules('v25', build('0.20.5'));
		expect(ruleSetLines({ruleSet: 'v25', ruleSetReason: 'schema_version 25'}, rules)).toEqual([
			'rule set v25: schema_version 25',
			`build ${rules.build}, weak: ${rules.decidedBy}`,
		]);
	});
});

describe('ruleSetJson', () => {
	it("without a build: the generation's rules, weakly, decided by the generation alone", () => {
		expect(ruleSetJson(FACTS, null)).toEqual({
			ruleSet: 'v30',
			rules: 'v30',
			build: null,
			confidence: 'weak',
			decidedBy: "the store's generation alone",
			alternative: null,
			changes: [],
		});
	});

	it("with a build: its variant's label, its build, confidence, reason and every change", () => {
		const rules = resolveBuildRules('v30', build('0.20.5', 'f31cf9710123456789abcdef0123456789abcdef'));
		expect(ruleSetJson(FACTS, rules)).toEqual({
			ruleSet: 'v30',
			rules: 'v30 before #91543',
			build: rules.build,
			confidence: 'strong',
			decidedBy: rules.decidedBy,
			alternative: rules.alternative?.label ?? null,
			changes: rules.changes,
		});
		expect(rules.changes.some(c => c.pr === 91543 && c.included === false)).toBe(true);
	});
});
