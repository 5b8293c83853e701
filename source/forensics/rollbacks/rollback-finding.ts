/**
 * A rollback that already happened, as the finding every surface shows first: the chat, the row a
 * restart resumed, when it jumped back, the keyless row holding the skipped conversation (with its
 * evidence and certainty), and how many turns were written since. Pure.
 */
import type {Finding} from '../finding.js';
import {duration} from '../duration.js';
import {suffixOf} from '../resolve.js';
import type {Rollback} from './rollbacks.js';

/** An epoch instant as `YYYY-MM-DD HH:MM UTC` (the words of the findings; text/format's utc() for tables). */
export function utcMinute(epoch: number): string {
	return `${new Date(epoch * 1000).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** The command that adopts the skipped conversation from the resumed row, by the operator's choice. */
export function rollbackAdoptCommand(r: Pick<Rollback, 'skipped' | 'resumedId'>): string {
	return `hfx repair --only ${suffixOf(r.skipped.id)} --donor ${suffixOf(r.resumedId)}`;
}

/** What to do: adopt a keyless row (hfx's guarded repair), or switch back to a keyed sibling (Hermes' /resume). */
export function rollbackNextStep(r: Rollback): string {
	const since = `the ${r.after.messages} messages written since stay in ${r.resumedId}, out of the resumed context`;
	if (r.skipped.kind === 'same-key') {
		return (
			`the skipped conversation is safe in ${r.skipped.id}, which keeps its ` +
			`chat identity: in the chat, \`/resume ${r.skipped.id}\` switches back ` +
			`to it (Hermes has no repair for a passed-over row); ${since}`
		);
	}

	return (
		`the skipped conversation is safe; preview its adoption ` +
		`with: ${rollbackAdoptCommand(r)} (then stop the gateway and add ` +
		`--apply); ${since}`
	);
}

/** The story in one paragraph: what the operator saw, and where the conversation is. */
export function rollbackStory(r: Rollback): string {
	const s = r.skipped;
	const back = duration(r.resumedAt - r.jumpedFrom);
	const turns = `${r.after.userTurns} user turn${r.after.userTurns === 1 ? '' : 's'} (${r.after.messages} messages)`;
	const older =
		r.alsoSkipped.length > 0
			? `; older keyless rows in the same gap: ${r.alsoSkipped.map(a => `${a.id} (${a.messages} messages)`).join(', ')}`
			: '';
	return [
		`at ${utcMinute(r.resumedAt)} the chat resumed ${r.resumedId}, whose ` +
			`last message before was at ${utcMinute(r.jumpedFrom)} (${back} earlier);`,
		`the conversation it skipped is ` +
			`in ${s.kind === 'keyless' ? 'the keyless' : 'the newer same-key row'} ${s.id}: ${s.messages} ` +
			`messages, ${utcMinute(s.firstAt)} to ${utcMinute(s.lastAt)} ` +
			`(${r.certainty}: ${s.evidence.join('; ')});`,
		`${turns} were written into ${r.resumedId} since, the last at ${utcMinute(r.after.lastAt)}${older}`,
	].join(' ');
}

export function rollbackHappenedFinding(r: Rollback): Finding {
	return {
		severity: 'critical',
		kind: 'rollback-happened',
		subject: r.sessionKey,
		title: `ROLLED BACK ${r.sessionKey}: a restart resumed a context ${duration(r.resumedAt - r.jumpedFrom)} old`,
		detail: rollbackStory(r),
		next: rollbackNextStep(r),
	};
}
