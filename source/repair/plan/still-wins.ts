/**
 * Why, after an adoption, a restart still resumes another row than the adopted orphan: the rule
 * that admits the winner and the order that puts it first (or why the orphan is not admitted), in
 * the words of the restart's own candidate list (forensics/routing/restart.ts). Pure.
 */
import type {ChatRouting} from '../../forensics/routing/routing.js';
import type {CandidateVerdict} from '../../forensics/routing/restart.js';

function cellWords(cell: CandidateVerdict['orderKey']): string {
	return typeof cell === 'number' ? String(cell) : JSON.stringify(String(cell)).slice(0, 40);
}

export function stillWinsWhy(chat: ChatRouting, orphanId: string): string {
	const {resolution} = chat;
	if (resolution.via === 'routing-entry') {
		return resolution.notes[0] ?? 'the routing entry names it';
	}

	const candidates = resolution.candidates;
	const orphan = candidates.find(c => c.sessionId === orphanId);
	if (orphan && !orphan.admitted) {
		return `${orphanId} is not admitted by the ${orphan.query} query: ${orphan.rule}`;
	}

	const winner = candidates.find(c => c.sessionId === resolution.sessionId && c.admitted);
	if (!winner) {
		return `no row of the chat is admitted (${resolution.via})`;
	}

	const order =
		resolution.ruleSet === 'legacy-v21'
			? 'newest started_at'
			: 'rows with messages first, then the newest COALESCE(last_activity_at, started_at)';
	const against = orphan ? ` against ${cellWords(orphan.orderKey)} for ${orphanId}` : '';
	return `${winner.query}: ${winner.rule}; it ranks first by ${order} (${cellWords(winner.orderKey)}${against})`;
}
