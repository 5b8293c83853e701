/**
 * repair/plan/build-held-back.ts: where the installed build is unknown and its two candidate rule sets judge an orphan
 * differently, the repair holds it back as refused (`builds_disagree`), naming both rule sets and what the other
 * says; where both agree on the same adoption, or there is no other candidate, it leaves the verdict as it is.
 */
import {describe, expect, it} from 'vitest';
import type {Analysis} from '../../../source/forensics/analysis/analyze.js';
import type {OrphanVerdict} from '../../../source/forensics/routing/orphans.js';
import {heldBackByBuild} from '../../../source/repair/plan/build-held-back.js';

const ADOPTABLE = {
	orphanId: 'o1',
	verdict: 'adoptable',
	donorId: 'd1',
	sessionKey: 'agent:main:telegram:dm:1',
	reasonKind: null,
	reason: 'lineage',
} as unknown as OrphanVerdict;

function analysis(
	listed: Partial<OrphanVerdict>[] | null,
): Pick<Analysis, 'buildAlternative' | 'buildRules' | 'rulesLabel'> {
	return {
		rulesLabel: 'v30',
		buildRules: {build: 'unknown'} as unknown as Analysis['buildRules'],
		buildAlternative:
			listed === null ? null : ({rulesLabel: 'v30 before #91543', listed} as unknown as Analysis['buildAlternative']),
	};
}

describe('heldBackByBuild', () => {
	it('leaves the verdict alone with no other candidate build, or when the other adopts it the same way', () => {
		expect(heldBackByBuild(ADOPTABLE, analysis(null))).toBeNull();
		expect(heldBackByBuild(ADOPTABLE, analysis([{...ADOPTABLE}]))).toBeNull();
	});

	it('holds it back, naming both rule sets, when the other build refuses it', () => {
		const other = {...ADOPTABLE, verdict: 'refused', reasonKind: 'no_predecessor', reason: 'no keyed row'};
		const held = heldBackByBuild(ADOPTABLE, analysis([other as Partial<OrphanVerdict>]))!;
		expect(held).toMatchObject({orphanId: 'o1', verdict: 'refused', reasonKind: 'builds_disagree', donorId: 'd1'});
		expect(held.reason).toContain('the installed build is unknown');
		expect(held.reason).toContain('under v30 repair-routing would adopt it from d1');
		expect(held.reason).toContain('under v30 before #91543 it refuses it (no_predecessor: no keyed row)');
		expect(held.reason).toContain('hfx writes only what both agree on');
	});

	it('holds it back when the other build adopts it from another donor or under another key, or lists it not', () => {
		const otherDonor = heldBackByBuild(ADOPTABLE, analysis([{...ADOPTABLE, donorId: 'd2'}]))!;
		expect(otherDonor.reason).toContain('under v30 before #91543 it adopts it from d2 instead');
		const otherKey = heldBackByBuild(ADOPTABLE, analysis([{...ADOPTABLE, sessionKey: 'agent:main:telegram:dm:2'}]));
		expect(otherKey?.reasonKind).toBe('builds_disagree');
		const unlisted = heldBackByBuild(ADOPTABLE, analysis([{...ADOPTABLE, orphanId: 'o2'}]))!;
		expect(unlisted.reason).toContain('it does not list it');
	});
});
