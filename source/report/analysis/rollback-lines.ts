/**
 * A rollback that already happened, as the Findings pane's detail lines: the row a restart resumed
 * and when, the row holding the skipped conversation with how sure hfx is and each fact of its
 * evidence, and what was written since. Pure.
 */
import {duration} from '../../forensics/duration.js';
import {utcMinute} from '../../forensics/rollbacks/rollback-finding.js';
import type {Rollback} from '../../forensics/rollbacks/rollbacks.js';

/** The story first (what was resumed, what was stranded, what was written since), then each fact of the evidence. */
export function rollbackDetailLines(r: Rollback): {story: string[]; evidence: string[]} {
	const s = r.skipped;
	const turns = `${r.after.userTurns} user turn${r.after.userTurns === 1 ? '' : 's'} (${r.after.messages} messages)`;
	return {
		story: [
			`resumed: ${r.resumedId} at ${utcMinute(r.resumedAt)}; its last message ` +
				`before was ` +
				`at ${utcMinute(r.jumpedFrom)}, ${duration(r.resumedAt - r.jumpedFrom)} ` +
				`earlier${r.routedTo === r.resumedId ? ' (the routing index names it now)' : ''}`,
			`stranded: ${s.id}, ${s.messages} messages, ${utcMinute(s.firstAt)} ` +
				`to ${utcMinute(s.lastAt)} · certainty ${r.certainty}`,
			`since: ${turns} written into ${r.resumedId}, the last at ${utcMinute(r.after.lastAt)}`,
		],
		evidence: [
			...s.evidence.map(fact => `  evidence: ${fact}`),
			...(r.routingRewriteAt === null
				? []
				: [
						`  evidence: the routing index was rewritten whole ` +
							`at ${utcMinute(r.routingRewriteAt)} (a restart's structural save)`,
					]),
			...(r.alsoSkipped.length > 0
				? [`also stranded in the same gap: ${r.alsoSkipped.map(a => `${a.id} (${a.messages} messages)`).join(', ')}`]
				: []),
		],
	};
}
