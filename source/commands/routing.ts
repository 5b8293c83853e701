/**
 * `hfx routing [KEY]`: per chat, every restart candidate with the rule that admits or excludes it,
 * what a restart resumes, where the newest message is.
 */
import type {ChatRouting} from '../forensics/routing.js';
import {resolveChat} from '../forensics/resolve.js';
import {FailClosed, type ExitCode} from '../errors.js';
import {type GlobalFlags, type Io, emit, guarded, loadOne} from './context.js';
import {utc} from '../text/format.js';
import {duration} from '../forensics/duration.js';
import {routingJson} from '../report/scan-json.js';

export type RoutingFlags = GlobalFlags & {key?: string};

export function chatLines(r: ChatRouting, afterUpgrade?: string): string[] {
	const lines: string[] = [];
	lines.push(`${r.rollbackRisk ? '✗ ROLLBACK RISK' : '✓'}  ${r.sessionKey}`);
	lines.push(`    routing entry     ${r.routingEntry ?? '(none)'}${r.routingEntryNote ? `: ${r.routingEntryNote}` : ''}`);
	lines.push(`    restart resumes   ${r.restartResolvesTo ?? '(a new, empty session)'}  via ${r.resolution.via}, rule set ${r.resolution.ruleSet}`);
	const lag = r.newestActivityAt !== null && r.resolvesToActivityAt !== null ? r.newestActivityAt - r.resolvesToActivityAt : null;
	lines.push(`    newest message in ${r.newestActivityIn ?? '(no messages)'}  ${utc(r.newestActivityAt)} UTC${r.rollbackRisk && lag !== null && lag > 0 ? ` (${duration(lag)} newer than what a restart resumes)` : ''}`);
	if (r.rollbackRiskReason) {
		lines.push(`    why               ${r.rollbackRiskReason}`);
	}

	if (afterUpgrade) {
		lines.push(`    after an upgrade  ${afterUpgrade}`);
	}

	if (r.routingEntrySource === 'sessions.json') {
		lines.push('    the entry comes from the legacy sessions/sessions.json mirror (gateway_routing has none usable for this key)');
	}
	if (r.resolution.candidates.length > 0) {
		lines.push('    candidates');
		for (const c of r.resolution.candidates) {
			const mark = c.sessionId === r.restartResolvesTo ? '▶' : (c.admitted ? '+' : '-');
			lines.push(`      ${mark} ${c.sessionId}  ${c.query}: ${c.rule}`);
		}
	}

	for (const n of r.resolution.notes) {
		lines.push(`    note: ${n}`);
	}

	return lines;
}

export async function runRouting(flags: RoutingFlags, io: Io): Promise<ExitCode> {
	return guarded(io, flags, () => {
		const {result} = loadOne(flags, io);
		let chats = result.analysis.routing;
		if (flags.key !== undefined) {
			const r = resolveChat(chats.map(c => c.sessionKey), flags.key);
			if (!r.ok) {
				throw new FailClosed({file: result.facts.path, kind: 'no-such-key', reason: flags.key === '' ? 'the empty session key is no chat (Hermes\' finder returns nothing for it)' : `no session or routing entry carries the key ${JSON.stringify(flags.key)}`, next: r.suggestion ? `did you mean: hfx routing ${r.suggestion}` : 'list the keys with: hfx routing'});
			}

			chats = chats.filter(c => c.sessionKey === r.key);
		}

		const risky = chats.some(r => r.rollbackRisk);
		const {facts, analysis} = result;
		emit(io, flags, {
			json: () => ({database: facts.path, owner: facts.owner, ownerSource: facts.ownerSource, ruleSet: facts.ruleSet, routingScope: facts.routingScope, routing: chats.map(r => routingJson(r, analysis.upgradeChanges))}),
			*text() {
				yield `owner profile ${facts.owner}: ${facts.ownerSource}`;
				yield `rule set ${facts.ruleSet}: ${facts.ruleSetReason}`;
				if (facts.upgrade) {
					yield `! ${facts.upgrade.note}; next: ${facts.upgrade.next}`;
				}

				for (const r of chats) {
					yield '';
					yield* chatLines(r, analysis.upgradeChanges.bySubject.get(r.sessionKey));
				}
			},
		});
		return risky ? 1 : 0;
	});
}
