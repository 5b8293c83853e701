/**
 * `hfx scan`: what is wrong, why, and what to do next; `--json` for scripts and cron.
 * Exit 0 healthy, 1 findings (any orphan or rollback risk), 2 the scan could not be done.
 */
import {hasFindings, type Analysis} from '../forensics/analyze.js';
import type {OrphanVerdict} from '../forensics/orphans.js';
import type {ChatRouting} from '../forensics/routing.js';
import type {ExitCode} from '../errors.js';
import type {DatabaseFacts} from '../store/load.js';
import {type GlobalFlags, type Io, type StoreResult, guarded, loadAndAnalyze, locate} from './context.js';
import {bytes, plural, span, utc} from './format.js';

export function orphanJson(o: OrphanVerdict) {
	return {
		orphanId: o.orphanId,
		source: o.source,
		messageCount: o.messageCount,
		startedAt: o.startedAt,
		lastActive: o.lastActive,
		verdict: o.verdict,
		evidence: o.evidence,
		donorId: o.donorId,
		sessionKey: o.sessionKey,
		reasonKind: o.reasonKind,
		reason: o.reason,
		candidateDonors: o.candidateDonors,
		profileOwner: o.profileOwner,
	};
}

export function routingJson(r: ChatRouting) {
	return {
		sessionKey: r.sessionKey,
		restartResolvesTo: r.restartResolvesTo,
		newestActivityIn: r.newestActivityIn,
		rollbackRisk: r.rollbackRisk,
		routingEntry: r.routingEntry,
		routingEntryStale: r.routingEntryStale,
		routingEntryNote: r.routingEntryNote,
		platform: r.platform,
		resolvedVia: r.resolution.via,
		ruleSet: r.resolution.ruleSet,
		newestActivityAt: r.newestActivityAt,
		resolvesToActivityAt: r.resolvesToActivityAt,
		members: r.members,
		sameChatAmbiguousOrphans: r.sameChatAmbiguousOrphans,
		candidates: r.resolution.candidates.map(c => ({sessionId: c.sessionId, query: c.query, admitted: c.admitted, rule: c.rule, hasMessages: c.hasMessages})),
		notes: r.resolution.notes,
	};
}

export function storeJson(facts: DatabaseFacts, analysis: Analysis) {
	return {
		database: facts,
		maxGapSeconds: analysis.maxGapSeconds,
		summary: {
			sessions: facts.sessionCount,
			chats: analysis.routing.length,
			orphans: analysis.orphans.length,
			adoptable: analysis.orphans.filter(o => o.verdict === 'adoptable').length,
			refused: analysis.orphans.filter(o => o.verdict === 'refused').length,
			rollbackRisks: analysis.routing.filter(r => r.rollbackRisk).length,
			healthy: !hasFindings(analysis),
		},
		orphans: analysis.orphans.map(orphanJson),
		routing: analysis.routing.map(routingJson),
		findings: analysis.findings,
	};
}

function failedJson(result: Extract<StoreResult, {ok: false}>) {
	return {database: {path: result.location.path, label: result.location.label}, error: result.error.toJSON()};
}

export function exitCodeOf(results: readonly StoreResult[]): ExitCode {
	if (results.some(r => !r.ok)) {
		return 2;
	}

	return results.some(r => r.ok && hasFindings(r.analysis)) ? 1 : 0;
}

function header(facts: DatabaseFacts): string {
	const schema = facts.schemaVersion === null ? 'schema ?' : `schema v${facts.schemaVersion}`;
	const profile = facts.owner ? `profile ${facts.owner}` : 'no owner profile';
	const mode = facts.journalMode === 'wal' ? (facts.sizes.wal === null ? 'WAL mode, no -wal file' : `WAL ${bytes(facts.sizes.wal)}`) : 'rollback journal';
	return `${facts.path}  ·  ${profile}  ·  ${schema}  ·  ${mode}  ·  read-only${facts.openMode === 'private-copy' ? ' (private copy)' : ''}`;
}

function orphanLine(o: OrphanVerdict): string {
	const head = `${o.orphanId}  ${o.source || '(no source)'}  ${plural(o.messageCount, 'message')}`;
	return o.verdict === 'adoptable'
		? `  → ${head}\n      adopt into ${o.sessionKey} from ${o.donorId} (evidence: ${o.evidence})`
		: `  ✗ ${head}\n      not repairable (${o.reasonKind}): ${o.reason}`;
}

export function humanReport(facts: DatabaseFacts, analysis: Analysis): string[] {
	const lines: string[] = [];
	const risks = analysis.routing.filter(r => r.rollbackRisk);
	const adoptable = analysis.orphans.filter(o => o.verdict === 'adoptable');
	lines.push(header(facts));
	lines.push(`rule set ${facts.ruleSet}: ${facts.ruleSetReason}`);
	lines.push(`${plural(facts.sessionCount, 'session')} · ${plural(analysis.routing.length, 'chat')} · ${plural(analysis.orphans.length, 'orphan')} (${adoptable.length} adoptable) · ${plural(risks.length, 'chat')} at rollback risk`);
	lines.push('');
	if (!hasFindings(analysis)) {
		lines.push('✓ Healthy: every chat resumes its newest conversation after a restart, and no gateway row is missing its routing identity.');
	}

	for (const r of risks) {
		const lag = r.newestActivityAt !== null && r.resolvesToActivityAt !== null ? r.newestActivityAt - r.resolvesToActivityAt : null;
		const inOrphan = r.adoptableOrphans.includes(r.newestActivityIn ?? '');
		const inAmbiguous = r.sameChatAmbiguousOrphans.includes(r.newestActivityIn ?? '');
		lines.push(`✗ ROLLBACK RISK  ${r.sessionKey}`);
		lines.push(`    a restart resumes  ${r.restartResolvesTo}  (last message ${utc(r.resolvesToActivityAt)} UTC, via ${r.resolution.via})`);
		lines.push(`    newest message in  ${r.newestActivityIn}  (${utc(r.newestActivityAt)} UTC${lag !== null && lag > 0 ? `, ${span(lag)} newer` : ''}${inOrphan ? ', an adoptable orphan' : (inAmbiguous ? ', an orphan repair-routing refuses as ambiguous although all its candidates are this chat' : '')})`);
		lines.push(`    next: do not restart the gateway yet; ${inOrphan ? 'preview the fix with `hfx repair`' : `inspect with \`hfx routing ${r.sessionKey}\`${inAmbiguous ? ' (repair-routing will not adopt it: settle it by hand)' : ''}`}`);
		lines.push('');
	}

	if (analysis.orphans.length > 0) {
		lines.push(`Orphans: keyless gateway rows holding messages (repair-routing rules, window ${analysis.maxGapSeconds}s)`);
		for (const o of analysis.orphans) {
			lines.push(orphanLine(o));
		}

		lines.push('');
	}

	const stale = analysis.routing.filter(r => r.routingEntryStale);
	for (const r of stale) {
		lines.push(`! stale routing entry ${r.sessionKey}: ${r.routingEntryNote}`);
	}

	if (stale.length > 0) {
		lines.push('');
	}

	const info = analysis.findings.filter(f => f.severity === 'info');
	if (info.length > 0) {
		lines.push(`${plural(info.length, 'row')} with unusable timestamps (ignored for recency, as Hermes does): ${info.slice(0, 5).map(f => f.subject).join(', ')}${info.length > 5 ? ', …' : ''}`);
		lines.push('');
	}

	if (hasFindings(analysis)) {
		lines.push(adoptable.length > 0
			? 'Next: keep the gateway running as is, run `hfx repair` to preview the adoption, then stop the gateway and `hfx repair --apply`.'
			: 'Next: `hfx routing` shows every chat\'s restart candidates; `hfx lineage ID` shows where a session came from.');
	}

	return lines;
}

export async function runScan(flags: GlobalFlags, io: Io): Promise<ExitCode> {
	return guarded(io, flags, () => {
		const located = locate(flags, io);
		const results = located.stores.map(location => loadAndAnalyze(location, flags, 'lean'));
		for (const r of results) {
			if (!r.ok) {
				io.err(r.error.line());
			}
		}

		const code = exitCodeOf(results);
		if (flags.json) {
			const shaped = results.map(r => r.ok ? storeJson(r.facts, r.analysis) : failedJson(r));
			const [primary, ...others] = shaped;
			io.out(JSON.stringify({...primary, ...(others.length > 0 ? {profiles: others} : {}), exitCode: code}, null, 2));
			return code;
		}

		for (const [i, r] of results.entries()) {
			if (i > 0) {
				io.out('');
			}

			if (r.ok) {
				for (const line of humanReport(r.facts, r.analysis)) {
					io.out(line);
				}
			} else {
				io.out(`${r.location.path}: could not be scanned (see the error above)`);
			}
		}

		return code;
	});
}
