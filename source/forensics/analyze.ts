/**
 * One pass of the forensic engine over a snapshot: lineage, orphans, per-chat routing and the
 * findings an operator must act on. Pure: same snapshot in, same analysis out.
 */
import {type Lineage, buildLineage} from './lineage.js';
import {DEFAULT_MAX_GAP_SECONDS, type OrphanVerdict, findOrphans} from './orphans.js';
import {type ChatRouting, analyzeRouting} from './routing.js';
import {isCorruptTime} from './time.js';
import type {SessionRecord, Snapshot} from './types.js';

export type Severity = 'critical' | 'warning' | 'info';

export type Finding = {
	severity: Severity;
	kind: 'rollback-risk' | 'orphan-adoptable' | 'orphan-refused' | 'stale-routing-entry' | 'corrupt-timestamp';
	/** The session or key the finding is about. */
	subject: string;
	title: string;
	detail: string;
	next: string;
};

export type Analysis = {
	snapshot: Snapshot;
	byId: Map<string, SessionRecord>;
	lineage: Lineage;
	orphans: OrphanVerdict[];
	routing: ChatRouting[];
	findings: Finding[];
	maxGapSeconds: number;
};

export type AnalyzeOptions = {
	maxGapSeconds?: number;
	/**
	 * The sessions by id, when the caller already keeps that index of this snapshot (the live store
	 * does, and shares it with every later analysis): not built a second time.
	 */
	byId?: Map<string, SessionRecord>;
};

function days(seconds: number): string {
	const d = seconds / 86_400;
	if (d >= 1) {
		return `${d.toFixed(1)} days`;
	}

	const h = seconds / 3600;
	return h >= 1 ? `${h.toFixed(1)} hours` : `${Math.max(0, Math.round(seconds / 60))} minutes`;
}

/** Sessions with a timestamp outside the epoch window (reported as info findings). */
export function hasCorruptTime(s: SessionRecord): boolean {
	return isCorruptTime(s.startedAtRaw) || isCorruptTime(s.lastActivityAtRaw) || isCorruptTime(s.endedAtRaw);
}

/** @param corrupt the sessions with unusable timestamps, when the caller already knows them (in session order). */
export function collectFindings(orphans: readonly OrphanVerdict[], routing: readonly ChatRouting[], sessions: readonly SessionRecord[], corrupt?: readonly SessionRecord[]): Finding[] {
	const findings: Finding[] = [];
	for (const chat of routing) {
		if (chat.rollbackRisk) {
			const lag = chat.newestActivityAt !== null && chat.resolvesToActivityAt !== null ? chat.newestActivityAt - chat.resolvesToActivityAt : null;
			const adoptable = chat.adoptableOrphans.includes(chat.newestActivityIn ?? '');
			findings.push({
				severity: 'critical',
				kind: 'rollback-risk',
				subject: chat.sessionKey,
				title: `ROLLBACK RISK ${chat.sessionKey}`,
				detail: `a restart resumes ${chat.restartResolvesTo} (via ${chat.resolution.via}) but the newest message is in ${chat.newestActivityIn}${lag !== null && lag > 0 ? `, ${days(lag)} later` : ''}`,
				next: adoptable
					? `do not restart the gateway yet; preview the adoption of ${chat.newestActivityIn} with: hfx repair`
					: 'do not restart the gateway yet; inspect the chat with: hfx routing ' + JSON.stringify(chat.sessionKey),
			});
		}

		if (chat.routingEntryStale) {
			findings.push({
				severity: 'warning',
				kind: 'stale-routing-entry',
				subject: chat.sessionKey,
				title: `stale routing entry ${chat.sessionKey}`,
				detail: chat.routingEntryNote ?? 'the entry names an ended or missing session',
				next: 'the gateway drops or re-creates it on the next message; check that the restart target above is the right conversation',
			});
		}
	}

	for (const o of orphans) {
		findings.push(o.verdict === 'adoptable'
			? {severity: 'warning', kind: 'orphan-adoptable', subject: o.orphanId, title: `orphan ${o.orphanId} (${o.messageCount} messages) adoptable into ${o.sessionKey}`, detail: `evidence ${o.evidence}: donor ${o.donorId}; ${o.reason}`, next: 'preview with: hfx repair (then stop the gateway and run hfx repair --apply)'}
			: {severity: 'warning', kind: 'orphan-refused', subject: o.orphanId, title: `orphan ${o.orphanId} (${o.messageCount} messages) not repairable`, detail: `${o.reasonKind}: ${o.reason}`, next: 'its messages are safe but unreachable by restart recovery; repair-routing refuses it, so settle it by hand (hfx lineage ' + o.orphanId + ')'});
	}

	// By id: the same order however the list was built (the incremental path patches it).
	const unusable = [...(corrupt ?? sessions.filter(hasCorruptTime))].sort((a, b) => (a.id < b.id ? -1 : (a.id > b.id ? 1 : 0)));
	for (const s of unusable.slice(0, 50)) {
		const cols = [['started_at', s.startedAtRaw], ['last_activity_at', s.lastActivityAtRaw], ['ended_at', s.endedAtRaw]].filter(([, v]) => isCorruptTime(v as SessionRecord['startedAtRaw'])).map(([c, v]) => `${String(c)}=${JSON.stringify(typeof v === 'bigint' ? String(v) : (Buffer.isBuffer(v) ? '<blob>' : v))}`);
		findings.push({severity: 'info', kind: 'corrupt-timestamp', subject: s.id, title: `unusable timestamp on ${s.id}`, detail: `${cols.join(', ')} is outside the epoch window; it is ignored for recency, as Hermes does`, next: 'no action needed for routing; `hermes sessions recover` can rebuild damaged rows'});
	}

	const order: Record<Severity, number> = {critical: 0, warning: 1, info: 2};
	return findings.sort((a, b) => order[a.severity] - order[b.severity]);
}

/** Sessions by id (a loop: no pair array per session). */
export function indexById(sessions: readonly SessionRecord[]): Map<string, SessionRecord> {
	const byId = new Map<string, SessionRecord>();
	for (const s of sessions) {
		byId.set(s.id, s);
	}

	return byId;
}

export function analyze(snapshot: Snapshot, options: AnalyzeOptions = {}): Analysis {
	const maxGapSeconds = options.maxGapSeconds ?? DEFAULT_MAX_GAP_SECONDS;
	const byId = options.byId ?? indexById(snapshot.sessions);
	const lineage = buildLineage(snapshot.sessions, byId);
	const orphans = findOrphans(snapshot.sessions, {owner: snapshot.owner, maxGapSeconds, byId});
	const routing = analyzeRouting({sessions: snapshot.sessions, byId, routing: snapshot.routing, lineage, orphans, ruleSet: snapshot.ruleSet, owner: snapshot.owner});
	const findings = collectFindings(orphans, routing, snapshot.sessions);
	return {snapshot, byId, lineage, orphans, routing, findings, maxGapSeconds};
}

/** Exit status of a scan: 1 when there is any orphan or rollback risk. */
export function hasFindings(analysis: Pick<Analysis, 'orphans' | 'routing'>): boolean {
	return analysis.orphans.length > 0 || analysis.routing.some(r => r.rollbackRisk);
}
