/**
 * `hfx scan --json`: the JSON contract of a store's analysis, in one file (orphans, chats,
 * rollbacks, findings, what an upgrade changes). `hfx routing --json` shares its chat shape.
 */
import {eachStreamed, thenFields} from '../../text/json-chunks.js';
import {placesJson} from '../files/places-json.js';
import {hasFindings, type Analysis} from '../../forensics/analysis/analyze.js';
import type {OrphanVerdict} from '../../forensics/routing/orphans.js';
import type {ChatRouting} from '../../forensics/routing/routing.js';
import type {UpgradeChanges} from '../../forensics/routing/upgrade.js';
import type {BuildRules} from '../../forensics/routing/build-rules.js';
import type {DatabaseFacts} from '../../store/read/load.js';
import {rollbackJson} from './rollbacks.js';
import {ruleSetJson} from './rule-set-lines.js';

export function orphanJson(o: OrphanVerdict, changes?: UpgradeChanges) {
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
		afterUpgrade: changes?.bySubject.get(o.orphanId) ?? null,
	};
}

export function routingJson(r: ChatRouting, changes?: UpgradeChanges) {
	return {
		sessionKey: r.sessionKey,
		restartResolvesTo: r.restartResolvesTo,
		newestActivityIn: r.newestActivityIn,
		rollbackRisk: r.rollbackRisk,
		rollbackRiskReason: r.rollbackRiskReason,
		afterUpgrade: changes?.bySubject.get(r.sessionKey) ?? null,
		routingEntry: r.routingEntry,
		routingEntrySource: r.routingEntrySource,
		routingEntryScope: r.routingEntryScope,
		routingEntryStale: r.routingEntryStale,
		routingEntryNote: r.routingEntryNote,
		platform: r.platform,
		resolvedVia: r.resolution.via,
		ruleSet: r.resolution.ruleSet,
		newestActivityAt: r.newestActivityAt,
		resolvesToActivityAt: r.resolvesToActivityAt,
		members: r.members,
		sameChatAmbiguousOrphans: r.sameChatAmbiguousOrphans,
		candidates: r.resolution.candidates.map(c => ({
			sessionId: c.sessionId,
			query: c.query,
			admitted: c.admitted,
			rule: c.rule,
			hasMessages: c.hasMessages,
		})),
		notes: r.resolution.notes,
	};
}

export function storeJson(facts: DatabaseFacts, analysis: Analysis) {
	return {...headJson(facts, analysis.buildRules), ...analysedJson(facts, analysis)};
}

/** The fields of a store's document known before its analysis: where and what it is, the rules it is judged by. */
function headJson(facts: DatabaseFacts, buildRules: BuildRules | null) {
	return {database: facts, rules: ruleSetJson(facts, buildRules)};
}

/** The fields of a store's document its analysis decides, after `headJson`'s. */
function analysedJson(facts: DatabaseFacts, analysis: Analysis) {
	return {
		maxGapSeconds: analysis.maxGapSeconds,
		summary: {
			sessions: facts.sessionCount,
			chats: analysis.routing.length,
			orphans: analysis.orphans.length,
			adoptable: analysis.orphans.filter(o => o.verdict === 'adoptable').length,
			refused: analysis.orphans.filter(o => o.verdict === 'refused').length,
			listedRefusedLocal: analysis.listedRefusedLocal.length,
			rolledBack: analysis.rollbacks.length,
			noHistoryEachTurn: analysis.reapChurns.length,
			rollbackRisks: analysis.routing.filter(r => r.rollbackRisk).length,
			repairRoutingCrashes: analysis.repairRoutingCrash !== null,
			changesAfterUpgrade: analysis.upgradeChanges.lines.length,
			missingColumns: (analysis.snapshot.missingColumns ?? []).map(m => m.column),
			healthy: !hasFindings(analysis),
		},
		rollbacks: analysis.rollbacks.map(rollbackJson),
		reapChurns: analysis.reapChurns,
		orphans: analysis.orphans.map(o => orphanJson(o, analysis.upgradeChanges)),
		listedRefusedLocal: analysis.listedRefusedLocal.map(o => orphanJson(o, analysis.upgradeChanges)),
		repairRoutingCrash: analysis.repairRoutingCrash,
		routing: analysis.routing.map(r => routingJson(r, analysis.upgradeChanges)),
		afterUpgrade: analysis.afterUpgrade && {
			ruleSet: analysis.afterUpgrade.ruleSet,
			changes: analysis.upgradeChanges.lines,
			orphans: analysis.afterUpgrade.orphans.map(o => orphanJson(o)),
			listedRefusedLocal: analysis.afterUpgrade.listedRefusedLocal.map(o => orphanJson(o)),
			repairRoutingCrash: analysis.afterUpgrade.repairRoutingCrash,
			routing: analysis.afterUpgrade.routing.map(r => routingJson(r)),
		},
		buildAlternative: analysis.buildAlternative && {
			rules: analysis.buildAlternative.rulesLabel,
			changes: analysis.buildChanges.lines,
			orphans: analysis.buildAlternative.orphans.map(o => orphanJson(o)),
			listedRefusedLocal: analysis.buildAlternative.listedRefusedLocal.map(o => orphanJson(o)),
			repairRoutingCrash: analysis.buildAlternative.repairRoutingCrash,
			routing: analysis.buildAlternative.routing.map(r => routingJson(r)),
		},
		findings: analysis.findings,
		newestElsewhere: analysis.newestElsewhere,
		places: placesJson(analysis.places),
	};
}

/** A store that could not be read: where it is, and the refusal. */
export function failedJson(location: {path: string; label: string}, error: {toJSON(): unknown}) {
	return {database: {path: location.path, label: location.label}, error: error.toJSON()};
}

/** One store's outcome as `hfx scan` holds it: analysed, or refused in one line. */
export type ScannedStore =
	| {ok: true; facts: DatabaseFacts; analysis: Analysis}
	| {ok: false; location: {path: string; label: string}; error: {toJSON(): unknown}};

/**
 * `hfx scan --json` whole: the first store's document, the others under `profiles`, and the exit code (the document
 * scanJsonThen writes in pieces, byte for byte; its reference in the tests).
 */
export function scanJson(results: readonly ScannedStore[], exitCode: number) {
	const [primary, ...others] = results.map(r =>
		r.ok ? storeJson(r.facts, r.analysis) : failedJson(r.location, r.error),
	);
	// Each profile is a document of its own: streamed field by field too (text/json-chunks.ts).
	return {...primary, ...(others.length > 0 ? {profiles: eachStreamed(others)} : {}), exitCode};
}

/**
 * One store of `hfx scan --json` as the streamed writer takes it (text/json-chunks.ts): read, its analysis not yet
 * run (`analysis` runs it, once, when the writer reaches it), or refused in one line.
 */
export type PendingStore =
	| {ok: true; facts: DatabaseFacts; buildRules: BuildRules | null; analysis: () => Analysis}
	| {ok: false; location: {path: string; label: string}; error: {toJSON(): unknown}};

function pendingJson(store: PendingStore) {
	return store.ok
		? thenFields(headJson(store.facts, store.buildRules), () => analysedJson(store.facts, store.analysis()))
		: failedJson(store.location, store.error);
}

/**
 * `hfx scan --json` as it is made, the same bytes as `scanJson` (issue #26): the first store's head (`database`,
 * `rules`) is written before its analysis runs, each other store is read (`storeAt(i)`) when the writer reaches its
 * place under `profiles`, and `exitCode` is asked for last, when every store has been judged.
 */
export function scanJsonThen(count: number, storeAt: (i: number) => PendingStore, exitCode: () => number) {
	const others = Array.from({length: count - 1}, (_, i) => thenFields({}, () => pendingJson(storeAt(i + 1))));
	const tail = () =>
		thenFields(others.length > 0 ? {profiles: eachStreamed(others)} : {}, () => ({exitCode: exitCode()}));
	return thenFields(pendingJson(storeAt(0)), tail);
}
