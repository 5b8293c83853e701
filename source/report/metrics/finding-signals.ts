/**
 * What each kind of finding `hfx scan` reports becomes on the fleet's surfaces: the metric that
 * counts it (`hfx metrics`, `hfx watch`'s textfile), the alert rule that fires on it
 * (contrib/prometheus/hfx.rules.yml) and the `hfx watch` events that say it appeared and went.
 * Keyed by every Finding kind: a kind without its signals does not compile, and
 * test/report/metrics/finding-signals.test.ts (which reads the kinds from forensics/finding.ts) fails.
 */
import type {Analysis} from '../../forensics/analysis/analyze.js';
import {hasCorruptTime} from '../../forensics/analysis/analyze.js';
import type {Finding} from '../../forensics/finding.js';
import {
	isKeyedWithoutChatId,
	isPhantomUnknown,
	isStaleExplicitClose,
} from '../../forensics/signatures/session-signatures.js';
import type {MetricKey} from './metric-specs.js';

export type FindingKind = Finding['kind'];

export type FindingSignal = {
	/** The metric that counts it, and the label values of its series where one metric counts several kinds. */
	metric: MetricKey;
	where?: Readonly<Record<string, string>>;
	/** The alert rule (contrib/prometheus/hfx.rules.yml) that fires while it is counted. */
	alert: string;
	/** The `hfx watch` events when it appears and when it goes. */
	raised: string;
	cleared: string;
	/** A graver case of the kind with a metric and an alert of its own. */
	graver?: {metric: MetricKey; alert: string};
};

/**
 * The kinds whose `hfx watch` events have their own shape (watch-events.ts); every other kind's are the finding's own
 * words.
 */
export const OWN_EVENT_KINDS: ReadonlySet<FindingKind> = new Set([
	'rollback-happened',
	'rollback-risk',
	'orphan-adoptable',
	'orphan-refused',
]);

const generic = (kind: FindingKind, metric: MetricKey, alert: string): FindingSignal => ({
	metric,
	alert,
	raised: kind,
	cleared: `${kind}-cleared`,
});

export const FINDING_SIGNALS: {readonly [K in FindingKind]: FindingSignal} = {
	'rollback-happened': {
		metric: 'rollbackHappened',
		alert: 'HfxRollbackHappened',
		raised: 'rollback-happened',
		cleared: 'rollback-happened-cleared',
	},
	'rollback-risk': {
		metric: 'rollbackRisk',
		alert: 'HfxRollbackRisk',
		raised: 'rollback-risk-raised',
		cleared: 'rollback-risk-cleared',
	},
	'orphan-adoptable': {
		metric: 'orphans',
		where: {verdict: 'adoptable'},
		alert: 'HfxAdoptableOrphan',
		raised: 'orphan-appeared',
		cleared: 'orphan-gone',
	},
	'orphan-refused': {
		metric: 'orphans',
		where: {verdict: 'refused'},
		alert: 'HfxRefusedOrphan',
		raised: 'orphan-appeared',
		cleared: 'orphan-gone',
	},
	'reap-churn': generic('reap-churn', 'reapChurn', 'HfxReapChurn'),
	'repair-routing-crash': generic('repair-routing-crash', 'repairRoutingCrash', 'HfxRepairRoutingCrash'),
	'after-upgrade': {
		...generic('after-upgrade', 'upgradeChanges', 'HfxUpgradeChangesVerdicts'),
		graver: {metric: 'upgradeRollbackRisk', alert: 'HfxUpgradeRollbackRisk'},
	},
	'stale-routing-entry': generic('stale-routing-entry', 'staleRouting', 'HfxStaleRoutingEntry'),
	'corrupt-timestamp': generic('corrupt-timestamp', 'corruptTimestamps', 'HfxCorruptTimestamps'),
	'missing-column': generic('missing-column', 'missingColumns', 'HfxMissingColumn'),
	'write-halt': generic('write-halt', 'writeHalt', 'HfxWriteHalt'),
	'unreplayed-turns': generic('unreplayed-turns', 'unreplayedSpool', 'HfxUnreplayedTurns'),
	'keyed-null-chat-id': generic('keyed-null-chat-id', 'keyedNullChatId', 'HfxKeyedRowWithoutChatId'),
	'stale-explicit-close': generic('stale-explicit-close', 'staleExplicitClose', 'HfxStaleExplicitClose'),
	'phantom-unknown-row': generic('phantom-unknown-row', 'phantomUnknown', 'HfxPhantomUnknownRows'),
	'foreign-profile-chats': generic('foreign-profile-chats', 'foreignProfiles', 'HfxForeignProfileChats'),
};

/**
 * The rows of each §4 signature and with a corrupt timestamp, every row counted (the findings name at most 20 or 50),
 * in one pass.
 */
function rowCounts(analysis: Analysis): {corrupt: number; nullChatId: number; staleClose: number; phantom: number} {
	const n = {corrupt: 0, nullChatId: 0, staleClose: 0, phantom: 0};
	for (const s of analysis.snapshot.sessions) {
		n.corrupt += hasCorruptTime(s) ? 1 : 0;
		n.nullChatId += isKeyedWithoutChatId(s) ? 1 : 0;
		n.staleClose += isStaleExplicitClose(s, analysis.lineage) ? 1 : 0;
		n.phantom += isPhantomUnknown(s) ? 1 : 0;
	}

	return n;
}

/** Chats not at risk today that current Hermes, once it has migrated the store, would roll back on a restart. */
function upgradeRisks(analysis: Analysis): number {
	const today = new Set(analysis.routing.filter(c => c.rollbackRisk).map(c => c.sessionKey));
	return analysis.afterUpgrade?.routing.filter(c => c.rollbackRisk && !today.has(c.sessionKey)).length ?? 0;
}

/**
 * The counts of the finding kinds beyond the rollbacks, risks, orphans and stale entries (metrics-samples.ts counts
 * those), in METRICS' order.
 */
export function findingCounts(analysis: Analysis): Partial<Record<MetricKey, number>> {
	const rows = rowCounts(analysis);
	const kinds = (kind: FindingKind) => analysis.findings.filter(f => f.kind === kind).length;
	return {
		reapChurn: analysis.reapChurns.length,
		repairRoutingCrash: analysis.repairRoutingCrash === null ? 0 : 1,
		upgradeRollbackRisk: upgradeRisks(analysis),
		upgradeChanges: analysis.upgradeChanges.lines.length,
		corruptTimestamps: rows.corrupt,
		missingColumns: analysis.snapshot.missingColumns?.length ?? 0,
		writeHalt: kinds('write-halt') > 0 ? 1 : 0,
		unreplayedSpool: analysis.places?.spool.filter(s => s.replay === 'will-not').length ?? 0,
		keyedNullChatId: rows.nullChatId,
		staleExplicitClose: rows.staleClose,
		phantomUnknown: rows.phantom,
		foreignProfiles: kinds('foreign-profile-chats'),
	};
}
