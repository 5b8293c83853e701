/**
 * The typed confirmation of an apply: the orphan's random suffix (what follows the last `_` of its
 * id; the part before is its start time, shared with its donor and every session of that minute)
 * or its whole id, for one adoption; `yes` for several. The command line and the TUI's repair flow
 * ask the same, in the same words.
 */
import {suffixOf} from '../forensics/resolve.js';
import type {Adoption} from './plan.js';

/** What the operator types to confirm one adoption: the orphan's own part of its id. */
export function confirmationWord(orphanId: string): string {
	return suffixOf(orphanId);
}

/** The typed confirmation: the orphan's random suffix or whole id, or "yes" for several. */
export function confirmationMatches(answer: string, adoptions: readonly Adoption[]): boolean {
	if (adoptions.length === 1) {
		const id = adoptions[0]!.orphanId;
		return answer !== '' && (answer === confirmationWord(id) || answer === id);
	}

	return answer === 'yes';
}
