/**
 * `hfx scan` in words: what is wrong, why, and what to do next, per store (the rollback that
 * happened first, then the risks, the orphans, what an upgrade changes).
 */
import {elsewhereScanLines} from '../files/places-text.js';
import {afterRestartWords, hasFindings, type Analysis} from '../../forensics/analysis/analyze.js';
import {duration} from '../../forensics/duration.js';
import type {OrphanVerdict} from '../../forensics/routing/orphans.js';
import {rollbackNextStep} from '../../forensics/rollbacks/rollback-finding.js';
import type {ChatRouting} from '../../forensics/routing/routing.js';
import type {DatabaseFacts} from '../../store/read/load.js';
import {bytes, plural, utc} from '../../text/format.js';
import {wrapIndented} from '../../text/wrap.js';
import {candidateLines} from './candidates.js';
import {ruleSetLines} from './rule-set-lines.js';
import {rollbackLines} from './rollbacks.js';

function header(facts: DatabaseFacts): string {
	const schema = facts.schemaVersion === null ? 'schema ?' : `schema v${facts.schemaVersion}`;
	const mode =
		facts.journalMode === 'wal'
			? facts.sizes.wal === null
				? 'WAL mode, no -wal file'
				: `WAL ${bytes(facts.sizes.wal)}`
			: 'rollback journal';
	return (
		`${facts.path}  ·  profile ${facts.owner}  ·  ${schema}  ·  ${mode}  ·  ` +
		`read-only${facts.openMode === 'private-copy' ? ' (private copy)' : ''}`
	);
}

function orphanLines(o: OrphanVerdict, analysis: Pick<Analysis, 'upgradeChanges' | 'byId' | 'rollbacks'>): string[] {
	const head = `${o.orphanId}  ${o.source || '(no source)'}  ${plural(o.messageCount, 'message')}`;
	const after = analysis.upgradeChanges.bySubject.get(o.orphanId);
	const body =
		o.verdict === 'adoptable'
			? [`  → ${head}`, `      adopt into ${o.sessionKey} from ${o.donorId} (evidence: ${o.evidence})`]
			: [
					`  ✗ ${head}`,
					`      not repairable (${o.reasonKind}): ${o.reason}`,
					...candidateLines(o, analysis.byId, analysis.rollbacks).map(l => `      ${l}`),
				];
	return after ? [...body, `      ${after}`] : body;
}

/** Where the store stands among Hermes' generations: its owner, its rules, what an upgrade does. */
function generationLines(facts: DatabaseFacts, build: Analysis['buildRules']): string[] {
	const lines = [`owner profile ${facts.owner}: ${facts.ownerSource}`, ...ruleSetLines(facts, build)];
	if (facts.upgrade) {
		lines.push(`! older than current Hermes: ${facts.upgrade.note}`, `  next: ${facts.upgrade.next}`);
	}

	for (const note of facts.notes) {
		lines.push(`note: ${note}`);
	}

	if (facts.legacyMirror) {
		lines.push(
			`legacy mirror ${facts.legacyMirror.path}: ` +
				(facts.legacyMirror.problem ??
					`${plural(facts.legacyMirror.entries, 'entry')}, imported for keys gateway_routing lacks`),
		);
	}

	return lines;
}

function riskLines(r: ChatRouting, analysis: Pick<Analysis, 'upgradeChanges' | 'byId'>): string[] {
	const changes = analysis.upgradeChanges;
	const restartNow = afterRestartWords(r, analysis.byId);
	const lag =
		r.newestActivityAt !== null && r.resolvesToActivityAt !== null ? r.newestActivityAt - r.resolvesToActivityAt : null;
	const inOrphan = r.adoptableOrphans.includes(r.newestActivityIn ?? '');
	const inAmbiguous = r.sameChatAmbiguousOrphans.includes(r.newestActivityIn ?? '');
	const after = changes.bySubject.get(r.sessionKey);
	return [
		`✗ ROLLBACK RISK  ${r.sessionKey}`,
		r.restartResolvesTo === null
			? `    a restart resumes  nothing: the gateway starts a fresh, empty session (${r.resolution.via})`
			: `    a restart resumes  ${r.restartResolvesTo}  (last ` +
				`message ${utc(r.resolvesToActivityAt)} UTC, via ${r.resolution.via})`,
		`    newest message in  ${r.newestActivityIn}  ` +
			`(${utc(r.newestActivityAt)} ` +
			`UTC${lag !== null && lag > 0 ? `, ${duration(lag)} newer` : ''}${newestWhere(inOrphan, inAmbiguous)})`,
		...(r.rollbackRiskReason ? [`    why: ${r.rollbackRiskReason}`] : []),
		...(restartNow ? wrapIndented(restartNow, 76, 0).map(l => `    ${l}`) : []),
		...(after ? [`    ${after}`] : []),
		`    next: do not restart the gateway ` +
			`yet; ${inOrphan ? 'preview the fix with `hfx repair`' : inspectWords(r.sessionKey, inAmbiguous)}`,
		'',
	];
}

function orphanSections(analysis: Analysis): string[] {
	const lines: string[] = [];
	const crash = analysis.repairRoutingCrash;
	if (crash) {
		lines.push(
			`✗ This store's own \`hermes sessions repair-routing\` fails: ${crash.error}`,
			`    on session ${crash.sessionId}: ${crash.note}`,
			'',
		);
	}

	if (analysis.orphans.length > 0) {
		lines.push(
			`Orphans: keyless rows holding messages that repair-routing lists ` +
				`(rules ${analysis.rulesLabel}, window ${analysis.maxGapSeconds}s)`,
		);
		lines.push(...analysis.orphans.flatMap(o => orphanLines(o, analysis)), '');
	}

	if (analysis.listedRefusedLocal.length > 0) {
		lines.push('Keyless by design: local-surface rows repair-routing lists and refuses (not findings)');
		lines.push(
			...analysis.listedRefusedLocal.map(
				o => `  · ${o.orphanId}  ${o.source}  ${plural(o.messageCount, 'message')}: ${o.reasonKind}`,
			),
			'',
		);
	}

	return lines;
}

/** Where the build leaves a rule change undecided and the two sides differ: both verdicts. */
function buildLines(analysis: Analysis): string[] {
	const {lines} = analysis.buildChanges;
	const alternative = analysis.buildAlternative;
	if (alternative === null || lines.length === 0) {
		return [];
	}

	const build = analysis.buildRules?.build ?? null;
	return [
		`${build === null ? 'Build unknown' : `Build ${build} undecided`}: ` +
			`with ${alternative.rulesLabel} rules these verdicts differ ` +
			`(above: ${analysis.rulesLabel}):`,
		...lines.map(l => `  ${l.subject}: ${l.text}`),
		'',
	];
}

function upgradeLines(analysis: Analysis): string[] {
	const {lines} = analysis.upgradeChanges;
	if (analysis.afterUpgrade === null) {
		return [];
	}

	if (lines.length === 0) {
		return [`After upgrading Hermes (rules ${analysis.afterUpgrade.ruleSet}): every verdict above stays the same.`, ''];
	}

	return [
		`After upgrading Hermes (rules ${analysis.afterUpgrade.ruleSet}), these verdicts change:`,
		...lines.map(l => `  ${l.subject}: ${l.text}`),
		'',
	];
}

export function humanReport(facts: DatabaseFacts, analysis: Analysis): string[] {
	const lines: string[] = [];
	const risks = analysis.routing.filter(r => r.rollbackRisk);
	const adoptable = analysis.orphans.filter(o => o.verdict === 'adoptable');
	lines.push(header(facts), ...generationLines(facts, analysis.buildRules));
	const rolledBack = analysis.rollbacks.length > 0 ? ` · ${plural(analysis.rollbacks.length, 'chat')} rolled back` : '';
	lines.push(
		`${plural(facts.sessionCount, 'session')} ` +
			`· ${plural(analysis.routing.length, 'chat')} ` +
			`· ${plural(analysis.orphans.length, 'orphan')} (${adoptable.length} ` +
			`adoptable)${rolledBack} · ${plural(risks.length, 'chat')} at rollback risk`,
	);
	lines.push('');
	for (const f of analysis.findings.filter(x => x.kind === 'missing-column')) {
		lines.push(`! ${f.detail}`, `    next: ${f.next}`, '');
	}

	if (!hasFindings(analysis)) {
		lines.push(
			'✓ Healthy: every chat resumes its newest conversation after a restart, ' +
				'and no gateway row is missing its routing identity.',
			'',
		);
	}

	lines.push(...analysis.rollbacks.flatMap(rollbackLines));
	lines.push(...elsewhereScanLines(analysis));
	for (const f of analysis.findings.filter(x => x.kind === 'reap-churn')) {
		lines.push(
			`✗ ${f.title}`,
			...wrapIndented(f.detail, 76, 0).map(l => `    ${l}`),
			...wrapIndented(`next: ${f.next}`, 76, 0).map(l => `    ${l}`),
			'',
		);
	}

	for (const r of risks) {
		lines.push(...riskLines(r, analysis));
	}

	lines.push(...orphanSections(analysis));
	const stale = analysis.routing.filter(r => r.routingEntryStale);
	for (const r of stale) {
		lines.push(`! stale routing entry ${r.sessionKey}: ${r.routingEntryNote}`);
	}

	if (stale.length > 0) {
		lines.push('');
	}

	const info = analysis.findings.filter(f => f.kind === 'corrupt-timestamp');
	if (info.length > 0) {
		lines.push(
			`${plural(info.length, 'row')} with unusable timestamps (ignored for recency, as Hermes does): ${info
				.slice(0, 5)
				.map(f => f.subject)
				.join(', ')}${info.length > 5 ? ', …' : ''}`,
		);
		lines.push('');
	}

	lines.push(...buildLines(analysis), ...upgradeLines(analysis));
	if (hasFindings(analysis)) {
		lines.push(
			analysis.rollbacks.length > 0
				? `Next: the chat already rolled back; ${rollbackNextStep(analysis.rollbacks[0]!)}.`
				: adoptable.length > 0
					? 'Next: keep the gateway running as is, run `hfx repair` to preview the ' +
						'adoption, then stop the gateway and `hfx repair --apply`.'
					: "Next: `hfx routing` shows every chat's restart candidates; `hfx lineage " +
						'ID` shows where a session came from.',
		);
	}

	return lines;
}

/** Where the newest message sits, when it is an orphan of this chat. */
function newestWhere(inOrphan: boolean, inAmbiguous: boolean): string {
	if (inOrphan) {
		return ', an adoptable orphan';
	}

	return inAmbiguous ? ', an orphan repair-routing refuses as ambiguous although all its candidates are this chat' : '';
}

/** The next step for a chat at risk whose newest message is not in an adoptable orphan. */
function inspectWords(sessionKey: string, inAmbiguous: boolean): string {
	const how = inAmbiguous ? ' (repair-routing will not adopt it: settle it by hand)' : '';
	return `inspect with \`hfx routing ${sessionKey}\`${how}`;
}
