/**
 * The generations of Hermes' routing rules (forensics/generations.ts): the rules of each, the
 * rules repair-routing applies to a store of it, and which generation wrote a store, with why.
 */
import {describe, expect, it} from 'vitest';
import {LEGACY_RECOVERABLE_END_REASONS, RECOVERABLE_END_REASONS} from '../../source/forensics/end-reasons.js';
import {
	CURRENT_RULE_SET,
	CURRENT_SCHEMA_VERSION,
	generationOf,
	orphanRulesFor,
	rulesFor,
} from '../../source/forensics/generations.js';

describe('rulesFor', () => {
	it('v30: the recency finder, four recoverable reasons, completed handoffs, both fences, the epoch window', () => {
		expect(rulesFor('v30')).toMatchObject({
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
		});
		expect(rulesFor(CURRENT_RULE_SET).ruleSet).toBe('v30');
	});

	it('v25: two recoverable reasons, the reset fence, a throwing JSON extract, repair-routing', () => {
		expect(rulesFor('v25')).toMatchObject({
			finder: 'recency',
			recoverable: LEGACY_RECOVERABLE_END_REASONS,
			completedHandoff: false,
			resetFence: true,
			profileFence: false,
			epochWindow: false,
			throwingJsonExtract: true,
			hasRepairRouting: true,
			slackSkipsTupleFallback: false,
		});
	});

	it('legacy-v21: the legacy finder, no reset fence and no repair-routing', () => {
		expect(rulesFor('legacy-v21')).toMatchObject({
			ruleSet: 'legacy-v21',
			finder: 'legacy',
			recoverable: LEGACY_RECOVERABLE_END_REASONS,
			resetFence: false,
			hasRepairRouting: false,
		});
	});
});

describe('orphanRulesFor', () => {
	it("a generation with repair-routing keeps its own rules; legacy gets it only by upgrading: v30's", () => {
		expect(orphanRulesFor(rulesFor('v25'))).toBe(rulesFor('v25'));
		expect(orphanRulesFor(rulesFor('v30'))).toBe(rulesFor('v30'));
		expect(orphanRulesFor(rulesFor('legacy-v21'))).toBe(rulesFor('v30'));
	});
});

describe('generationOf', () => {
	it('no last_activity_at is legacy-v21, whatever the schema version, said with it', () => {
		expect(generationOf({hasLastActivity: false, schemaVersion: 30})).toMatchObject({ruleSet: 'legacy-v21'});
		expect(generationOf({hasLastActivity: false, schemaVersion: 21}).reason).toMatch(
			/^no sessions.last_activity_at \(schema_version 21\): /,
		);
		expect(generationOf({hasLastActivity: false, schemaVersion: null}).reason).toMatch(
			/^no sessions.last_activity_at: /,
		);
	});

	it('last_activity_at with a schema version below the current one is v25; at it or above, v30', () => {
		expect(generationOf({hasLastActivity: true, schemaVersion: CURRENT_SCHEMA_VERSION - 1})).toMatchObject({
			ruleSet: 'v25',
			reason: expect.stringContaining('is 29 (< 30)'),
		});
		expect(generationOf({hasLastActivity: true, schemaVersion: CURRENT_SCHEMA_VERSION}).ruleSet).toBe('v30');
		expect(generationOf({hasLastActivity: true, schemaVersion: 31}).ruleSet).toBe('v30');
	});

	it('no readable schema_version with last_activity_at is taken as current, and said so', () => {
		expect(generationOf({hasLastActivity: true, schemaVersion: null})).toEqual({
			ruleSet: 'v30',
			reason:
				'sessions.last_activity_at exists and there is no readable schema_version: taken as current Hermes (v30 rules)',
		});
	});
});
