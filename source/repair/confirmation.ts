/**
 * The typed confirmation of an apply: the first 8 characters (or more) of the orphan's id for one
 * adoption, `yes` for several. The command line and the TUI's repair flow ask the same.
 */
import type {Adoption} from './plan.js';

/** The typed confirmation: the first 8+ characters of the orphan id, or "yes" for several. */
export function confirmationMatches(answer: string, adoptions: readonly Adoption[]): boolean {
	if (adoptions.length === 1) {
		return answer.length >= 8 && adoptions[0]!.orphanId.startsWith(answer);
	}

	return answer === 'yes';
}
