/**
 * The rule changes shipped inside schema v30 without a version bump (forensics/routing/rule-changes.ts,
 * hermes-incidents §3.3), as data: each with its PR, merge day, versions, commits and provenance.
 */
import {describe, expect, it} from 'vitest';
import {versionParts} from '../../../source/forensics/routing/build-rules.js';
import {RULE_CHANGES} from '../../../source/forensics/routing/rule-changes.js';

const EPOCH = RULE_CHANGES.find(c => c.pr === 91543)!;

/** a < b, part by part. */
function older(a: readonly number[], b: readonly number[]): boolean {
	const i = a.findIndex((n, at) => n !== b[at]);
	return i >= 0 && a[i]! < (b[i] ?? 0);
}

describe('RULE_CHANGES', () => {
	it('every change has its PR, merge day and provenance; only the epoch window moves a verdict hfx computes', () => {
		for (const c of RULE_CHANGES) {
			expect(c.merged ?? '2026-01-01').toMatch(/^2026-\d\d-\d\d$/);
			expect(c.how.length).toBeGreaterThan(10);
		}

		// The epoch window's date is not established (§3.3's 2026-08-21 conflicts with f31cf971): said so.
		expect(EPOCH.merged).toBeNull();
		expect(EPOCH.how).toContain('NOT established');

		expect(RULE_CHANGES.filter(c => c.effect !== null).map(c => [c.pr, c.effect])).toEqual([[91543, 'epochWindow']]);
		expect(RULE_CHANGES.find(c => c.pr === 112045)!.note).toContain('keyless');
	});

	it('ids and PRs are unique; no commit is said both to have and to lack a change', () => {
		expect(new Set(RULE_CHANGES.map(c => c.id)).size).toBe(RULE_CHANGES.length);
		expect(new Set(RULE_CHANGES.map(c => c.pr)).size).toBe(RULE_CHANGES.length);
		for (const c of RULE_CHANGES) {
			expect(c.shasWith.filter(sha => c.shasWithout.some(w => w.startsWith(sha) || sha.startsWith(w)))).toEqual([]);
			expect([...c.shasWith, ...c.shasWithout].every(sha => /^[0-9a-f]{7,40}$/.test(sha))).toBe(true);
		}
	});

	it('a version that lacks a change is older than one that has it', () => {
		for (const c of RULE_CHANGES.filter(x => x.lackedBefore !== null && x.hadFrom !== null)) {
			expect(older(versionParts(c.lackedBefore!)!, versionParts(c.hadFrom!)!)).toBe(true);
		}

		expect(RULE_CHANGES.find(c => c.pr === 91283)).toMatchObject({lackedBefore: '0.20.5', hadFrom: '0.20.6'});
	});
});
