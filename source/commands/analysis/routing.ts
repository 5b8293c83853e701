/**
 * `hfx routing [KEY]`: per chat, every restart candidate with the rule that admits or excludes it,
 * what a restart resumes, where the newest message is, and a rollback that already happened (text
 * in report/analysis/routing-text.ts). Exit 1 when a chat shown rolled back or is at risk.
 */
import {resolveChat} from '../../forensics/resolve.js';
import {FailClosed, type ExitCode} from '../../ground/errors.js';
import {type GlobalFlags, type Io, emit, guarded, loadOne} from '../context.js';
import {chatLines} from '../../report/analysis/routing-text.js';
import {routingReportJson} from '../../report/analysis/routing-json.js';
import {ruleSetLines} from '../../report/analysis/rule-set-lines.js';

export type RoutingFlags = GlobalFlags & {key?: string};

export async function runRouting(flags: RoutingFlags, io: Io): Promise<ExitCode> {
	return guarded(io, flags, () => {
		const {result} = loadOne(flags, io);
		let chats = result.analysis.routing;
		if (flags.key !== undefined) {
			const r = resolveChat(
				chats.map(c => c.sessionKey),
				flags.key,
			);
			if (!r.ok) {
				throw new FailClosed({
					file: result.facts.path,
					kind: 'no-such-key',
					reason:
						flags.key === ''
							? "the empty session key is no chat (Hermes' finder returns nothing for it)"
							: `no session or routing entry carries the key ${JSON.stringify(flags.key)}`,
					next: r.suggestion ? `did you mean: hfx routing ${r.suggestion}` : 'list the keys with: hfx routing',
				});
			}

			chats = chats.filter(c => c.sessionKey === r.key);
		}

		const {facts, analysis} = result;
		const shown = new Set(chats.map(c => c.sessionKey));
		const rolledBack = analysis.rollbacks.filter(b => shown.has(b.sessionKey));
		const alarmed = chats.some(r => r.rollbackRisk) || rolledBack.length > 0;
		emit(io, flags, {
			json: () => routingReportJson(facts, analysis, chats, rolledBack),
			*text() {
				yield `owner profile ${facts.owner}: ${facts.ownerSource}`;
				yield* ruleSetLines(facts, analysis.buildRules);
				if (facts.upgrade) {
					yield `! ${facts.upgrade.note}; next: ${facts.upgrade.next}`;
				}

				for (const r of chats) {
					yield '';
					yield* chatLines(r, {
						afterUpgrade: analysis.upgradeChanges.bySubject.get(r.sessionKey),
						otherBuild: analysis.buildChanges.bySubject.get(r.sessionKey),
						rolledBack: rolledBack.filter(b => b.sessionKey === r.sessionKey),
					});
				}
			},
		});
		return alarmed ? 1 : 0;
	});
}
