/**
 * A rollback that already happened, in words and as JSON (forensics/rollbacks/rollbacks.ts): shared by
 * `hfx scan` and `hfx repair`'s hints. Every line fits 80 columns (wrapped under its label).
 */
import {duration} from '../../forensics/duration.js';
import {rollbackAdoptCommand, rollbackNextStep} from '../../forensics/rollbacks/rollback-finding.js';
import type {Rollback} from '../../forensics/rollbacks/rollbacks.js';
import {utc} from '../../text/format.js';
import {wrapIndented} from '../../text/wrap.js';

const WIDTH = 80;
const LABEL = 19;

function row(label: string, text: string): string[] {
	const [first = '', ...rest] = wrapIndented(text, WIDTH - 4 - LABEL, 0);
	return [`    ${label.padEnd(LABEL)}${first}`, ...rest.map(l => `${' '.repeat(4 + LABEL)}${l}`)];
}

function plural(n: number, word: string): string {
	return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function routedWords(r: Rollback): string {
	if (r.routedTo === null) {
		return 'the routing index has no entry for this chat: the gateway found the row with its restart finder';
	}

	return r.routedTo === r.resumedId
		? `the routing index names ${r.resumedId} now (certain)`
		: `the routing index names ${r.routedTo} now`;
}

/** The story of one rollback: what was resumed, what was skipped, why hfx says so, what to do. */
export function rollbackLines(r: Rollback): string[] {
	const s = r.skipped;
	const routing = [
		routedWords(r),
		...(r.routingRewriteAt === null
			? []
			: [
					`the gateway rewrote its whole routing index ` +
						`at ${utc(r.routingRewriteAt)} ` +
						`UTC, ${r.resumedAt - r.routingRewriteAt < 1 ? 'moments' : duration(r.resumedAt - r.routingRewriteAt)} ` +
						`before the first message of the resumed context (a restart's publish)`,
				]),
	].join('; ');
	return [
		`✗ ROLLED BACK  ${r.sessionKey}  (already happened; ${r.certainty})`,
		...row('restart resumed', `${r.resumedId}: its first message after the gap is at ${utc(r.resumedAt)} UTC`),
		...row('jumped back to', `${utc(r.jumpedFrom)} UTC, a context ${duration(r.resumedAt - r.jumpedFrom)} old`),
		...row(
			'skipped',
			`${s.id}: ${plural(s.messages, 'message')}, ${utc(s.firstAt)} ` +
				`to ${utc(s.lastAt)} ` +
				`UTC, ${s.kind === 'keyless' ? 'keyless' : 'a newer row of the same key'}`,
		),
		...row(`evidence (${s.certainty})`, s.evidence.join('; ')),
		...(r.alsoSkipped.length > 0
			? row('also in the gap', r.alsoSkipped.map(a => `${a.id} (${plural(a.messages, 'message')})`).join(', '))
			: []),
		...row(
			'written since',
			`${plural(r.after.userTurns, 'user turn')} ` +
				`(${plural(r.after.messages, 'message')}) into ${r.resumedId}, the last ` +
				`at ${utc(r.after.lastAt)} UTC`,
		),
		...row('routing', routing),
		...row('next', rollbackNextStep(r)),
		'',
	];
}

export function rollbackJson(r: Rollback) {
	return {
		sessionKey: r.sessionKey,
		resumedId: r.resumedId,
		jumpedFrom: r.jumpedFrom,
		resumedAt: r.resumedAt,
		contextAgeSeconds: r.resumedAt - r.jumpedFrom,
		after: r.after,
		skipped: r.skipped,
		alsoSkipped: r.alsoSkipped,
		certainty: r.certainty,
		routedTo: r.routedTo,
		routingRewriteAt: r.routingRewriteAt,
		adoptCommand: r.skipped.kind === 'keyless' ? rollbackAdoptCommand(r) : null,
		next: rollbackNextStep(r),
	};
}
