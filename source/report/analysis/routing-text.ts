/**
 * `hfx routing` in words: per chat, its state first (a rollback that already happened, a rollback
 * risk, or ✓), the routing entry, what a restart resumes and by which rule, where the newest message
 * is, every candidate with the rule that admits or excludes it; under a chat that rolled back, the
 * story of the rollback (report/analysis/rollbacks.ts), so a chat a restart already jumped back is never ✓.
 */
import {duration} from '../../forensics/duration.js';
import type {Rollback} from '../../forensics/rollbacks/rollbacks.js';
import type {ChatRouting} from '../../forensics/routing/routing.js';
import {utc} from '../../text/format.js';
import {rollbackLines} from './rollbacks.js';

/** The chat's state word: what happened outranks what could. */
function stateOf(r: ChatRouting, rolledBack: readonly Rollback[]): string {
	if (rolledBack.length > 0) {
		return `✗ ROLLED BACK${r.rollbackRisk ? ' · ROLLBACK RISK' : ''}`;
	}

	return r.rollbackRisk ? '✗ ROLLBACK RISK' : '✓';
}

function candidateLines(r: ChatRouting): string[] {
	if (r.resolution.candidates.length === 0) {
		return [];
	}

	return [
		'    candidates',
		...r.resolution.candidates.map(
			c =>
				`      ${c.sessionId === r.restartResolvesTo ? '▶' : c.admitted ? '+' : '-'} ${c.sessionId} ` +
				` ${c.query}: ${c.rule}`,
		),
	];
}

/** One chat; `rolledBack` are the rollbacks of this chat that already happened (forensics/rollbacks/rollbacks.ts). */
export function chatLines(
	r: ChatRouting,
	options: {afterUpgrade?: string; otherBuild?: string; rolledBack?: readonly Rollback[]} = {},
): string[] {
	const rolledBack = options.rolledBack ?? [];
	const lag =
		r.newestActivityAt !== null && r.resolvesToActivityAt !== null ? r.newestActivityAt - r.resolvesToActivityAt : null;
	const lines = [
		`${stateOf(r, rolledBack)}  ${r.sessionKey}`,
		`    routing entry     ${r.routingEntry ?? '(none)'}${r.routingEntryNote ? `: ${r.routingEntryNote}` : ''}`,
		`    restart resumes  ` +
			` ${r.restartResolvesTo ?? '(a new, empty session)'}  ` +
			`via ${r.resolution.via}, rule set ${r.resolution.ruleSet}`,
		`    newest message in ${r.newestActivityIn ?? '(no messages)'} ` +
			` ${utc(r.newestActivityAt)} ` +
			`UTC${r.rollbackRisk && lag !== null && lag > 0 ? ` (${duration(lag)} newer than what a restart resumes)` : ''}`,
		...(r.rollbackRiskReason ? [`    why               ${r.rollbackRiskReason}`] : []),
		...(options.otherBuild ? [`    build unknown     ${options.otherBuild}`] : []),
		...(options.afterUpgrade ? [`    after an upgrade  ${options.afterUpgrade}`] : []),
		...(r.routingEntrySource === 'sessions.json'
			? [
					'    the entry comes from the legacy sessions/sessions.json mirror ' +
						'(gateway_routing has none usable for this key)',
				]
			: []),
		...candidateLines(r),
		...r.resolution.notes.map(n => `    note: ${n}`),
	];
	for (const b of rolledBack) {
		// The story under the chat, its title said once above.
		lines.push(
			...rollbackLines(b)
				.slice(1)
				.filter(l => l !== ''),
		);
	}

	return lines;
}
