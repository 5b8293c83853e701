/**
 * The typed confirmation tells orphans apart: it asks for the orphan's random suffix (or its whole
 * id), not its first 8 characters, which are the start date its donor and every session of that
 * day share.
 */
import {describe, expect, it} from 'vitest';
import {confirmationFor, confirmationMatches, confirmationWord} from '../../../source/repair/plan/confirmation.js';
import type {Adoption} from '../../../source/repair/plan/plan.js';

const ORPHAN = '20260814_002820_f7461a7c';
const DONOR = '20260814_001820_975f77aa';
const adoption = (orphanId: string, donorId: string): Adoption => ({
	orphanId,
	donorId,
	sessionKey: 'agent:main:telegram:dm:1',
	evidence: 'contiguity',
	messageCount: 3,
	rows: [] as unknown as Adoption['rows'],
	restartBefore: donorId,
	restartAfter: orphanId,
	rollbackRiskBefore: true,
	rollbackRiskAfter: false,
	warnings: [],
});
const one = [adoption(ORPHAN, DONOR)];

describe('the typed confirmation', () => {
	it("asks for the orphan's random suffix", () => {
		expect(confirmationWord(ORPHAN)).toBe('f7461a7c');
		expect(confirmationWord('no-underscore-id')).toBe('no-underscore-id');
	});

	it('accepts the suffix or the whole id, and nothing the donor or a same-day session could also match', () => {
		expect(confirmationMatches('f7461a7c', one)).toBe(true);
		expect(confirmationMatches(ORPHAN, one)).toBe(true);
		for (const answer of [
			'20260814',
			'20260814_0028',
			ORPHAN.slice(0, 8),
			'f7461a7',
			'f7461a7cX',
			'975f77aa',
			DONOR,
			'',
			'yes',
		]) {
			expect(confirmationMatches(answer, one), answer).toBe(false);
		}
	});

	it('asks for "yes" when several orphans are adopted at once', () => {
		const two = [...one, adoption('20260814_003000_0badc0de', DONOR)];
		expect(confirmationMatches('yes', two)).toBe(true);
		expect(confirmationMatches('f7461a7c', two)).toBe(false);
	});
});

describe('the typed confirmation of an operator-chosen donor', () => {
	const manual = [{...adoption(ORPHAN, DONOR), evidence: 'operator' as const}];
	it("asks for the orphan's suffix and then the donor's, and accepts only that pair (or the whole ids)", () => {
		expect(confirmationFor(manual[0]!)).toBe('f7461a7c 975f77aa');
		expect(confirmationFor(one[0]!)).toBe('f7461a7c');
		for (const answer of ['f7461a7c 975f77aa', ` ${ORPHAN}  ${DONOR} `, `f7461a7c ${DONOR}`]) {
			expect(confirmationMatches(answer, manual), answer).toBe(true);
		}

		for (const answer of [
			'f7461a7c',
			'975f77aa',
			'975f77aa f7461a7c',
			'f7461a7c 975f77a',
			'f7461a7c 975f77aa x',
			'20260814 20260814',
			'yes',
			'',
		]) {
			expect(confirmationMatches(answer, manual), answer).toBe(false);
		}
	});
});
