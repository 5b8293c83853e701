/**
 * The typed confirmation of an apply: the orphan's random suffix (what follows the last `_` of its
 * id; the part before is its start time, shared with its donor and every session of that minute)
 * or its whole id, for one adoption (and the donor's suffix too when the operator chose the donor);
 * `yes` for several. The command line and the TUI's repair flow ask the same, in the same words.
 */
import {suffixOf} from '../../forensics/resolve.js';
import type {Adoption} from './plan.js';

/** What the operator types to confirm one adoption: the orphan's own part of its id. */
export function confirmationWord(orphanId: string): string {
	return suffixOf(orphanId);
}

/**
 * What the operator types for one adoption: the orphan's suffix; for an operator's own choice of
 * donor (--donor), the orphan's suffix and then the donor's, so the pair is confirmed, not one row.
 */
export function confirmationFor(a: Pick<Adoption, 'orphanId' | 'donorId' | 'evidence'>): string {
	return a.evidence === 'operator'
		? `${confirmationWord(a.orphanId)} ${confirmationWord(a.donorId)}`
		: confirmationWord(a.orphanId);
}

/**
 * The typed confirmation: the orphan's random suffix or whole id (and the donor's for an operator's choice), or "yes"
 * for several.
 */
export function confirmationMatches(answer: string, adoptions: readonly Adoption[]): boolean {
	if (adoptions.length === 1) {
		const a = adoptions[0]!;
		const words = answer.trim().split(/\s+/);
		if (a.evidence === 'operator') {
			return (
				words.length === 2 &&
				[confirmationWord(a.orphanId), a.orphanId].includes(words[0]!) &&
				[confirmationWord(a.donorId), a.donorId].includes(words[1]!)
			);
		}

		return answer !== '' && (answer === confirmationWord(a.orphanId) || answer === a.orphanId);
	}

	return answer === 'yes';
}
