/**
 * What `hfx metrics` and `hfx watch` say about each store, as numbers: the samples of one reading
 * of one store, by the catalogue of metric-specs.ts. Pure: a reading in, samples out. Labels are low-cardinality by
 * design (the profile; a
 * verdict and a reason kind): never a session id, a title or a key. The store's generation, rule set
 * and Hermes build are labels of `hfx_store_info` alone, so a migration changes one series, not the
 * identity of every series (graphs and `for:` windows go on).
 */
import type {Analysis} from '../../forensics/analysis/analyze.js';
import type {DatabaseFacts} from '../../store/read/load.js';
import type {FilesReport} from '../../store/files/files-probe.js';
import type {BackupAges} from './backup-ages.js';
import {findingCounts} from './finding-signals.js';
import type {MetricKey} from './metric-specs.js';

export {METRICS, type MetricKey, type MetricSpec, STORE_LABELS} from './metric-specs.js';

export type Sample = {metric: MetricKey; labels: Record<string, string>; value: number};

export type StoreReading = {
	profile: string;
	/** Unix seconds when the reading began, and how long it took. */
	at: number;
	seconds: number;
	result: {ok: true; facts: DatabaseFacts; analysis: Analysis} | {ok: false; kind: string; line: string};
	/** The Hermes build the home's running gateway states (store/places/gateway-build.ts), or null. */
	build: string | null;
	files: FilesReport | null;
	backups: BackupAges;
};

/** The labels of `hfx_store_info`: what is unknown of a store hfx could not read says so. */
export function infoLabels(r: StoreReading): Record<string, string> {
	// The build the verdicts' rules came from (the installed checkout's when no gateway runs), else the gateway's.
	const build = (r.result.ok ? r.result.analysis.buildRules?.build : null) ?? r.build ?? 'unknown';
	if (!r.result.ok) {
		return {profile: r.profile, schema: 'unknown', rule_set: 'unknown', build};
	}

	const {schemaVersion, ruleSet} = r.result.facts;
	return {
		profile: r.profile,
		schema: schemaVersion === null ? 'unversioned' : `v${schemaVersion}`,
		// The rules the verdicts used: the installed build's variant where it is known (`v30 before #91543`).
		rule_set: r.result.analysis.buildRules?.rules.label ?? ruleSet,
		build,
	};
}

/** Orphans by verdict and reason kind; the adoptable count is always there (0 included), so its alert resolves. */
function orphanSamples(analysis: Analysis, labels: Record<string, string>): Sample[] {
	const counts = new Map<string, number>([['adoptable\0none', 0]]);
	for (const o of analysis.orphans) {
		const k = `${o.verdict}\0${o.reasonKind ?? 'none'}`;
		counts.set(k, (counts.get(k) ?? 0) + 1);
	}

	return [...counts].map(([k, value]) => {
		const [verdict, reason] = k.split('\0') as [string, string];
		return {metric: 'orphans', labels: {...labels, verdict, reason}, value};
	});
}

function analysisSamples(facts: DatabaseFacts, analysis: Analysis, labels: Record<string, string>): Sample[] {
	const s = (metric: MetricKey, value: number): Sample => ({metric, labels, value});
	return [
		s('sessions', facts.sessionCount),
		s('chats', analysis.routing.length),
		...orphanSamples(analysis, labels),
		s('rollbackHappened', new Set(analysis.rollbacks.map(r => r.sessionKey)).size),
		s('rollbackRisk', analysis.routing.filter(r => r.rollbackRisk).length),
		s('staleRouting', analysis.routing.filter(r => r.routingEntryStale).length),
		...Object.entries(findingCounts(analysis)).map(([metric, value]) => s(metric as MetricKey, value)),
	];
}

function fileSamples(files: FilesReport, labels: Record<string, string>): Sample[] {
	const s = (metric: MetricKey, value: number): Sample => ({metric, labels, value});
	return [
		s('walBytes', files.sizes.wal ?? 0),
		s('hiddenFrames', files.wal?.invalidTailFrames ?? 0),
		s('hiddenCommits', files.wal?.invalidTailCommitFrames ?? 0),
		s('deletedWalHolders', files.holders.holders.filter(h => h.holdsDeletedWal).length),
	];
}

/** Every sample of one reading of one store. A store hfx could not read is `hfx_store_up 0`, never a gap. */
export function storeSamples(r: StoreReading): Sample[] {
	const labels = {profile: r.profile};
	const s = (metric: MetricKey, value: number): Sample => ({metric, labels, value});
	return [
		{metric: 'info', labels: infoLabels(r), value: 1},
		{metric: 'up', labels: {...labels, reason: r.result.ok ? '' : r.result.kind}, value: r.result.ok ? 1 : 0},
		...(r.result.ok ? analysisSamples(r.result.facts, r.result.analysis, labels) : []),
		...(r.files ? fileSamples(r.files, labels) : []),
		s('verifiedAge', r.backups.verifiedAgeSeconds ?? Number.POSITIVE_INFINITY),
		s('drilledAge', r.backups.drilledAgeSeconds ?? Number.POSITIVE_INFINITY),
		s('scanTime', r.at),
		s('scanDuration', r.seconds),
	];
}
