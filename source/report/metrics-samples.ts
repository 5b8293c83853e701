/**
 * What `hfx metrics` and `hfx watch` say about each store, as numbers: the catalogue of metrics
 * (names by Prometheus' conventions, HELP text, label names) and the samples of one reading of one
 * store. Pure: a reading in, samples out. Labels are low-cardinality by design (profile, schema
 * generation, rule set; a verdict and a reason kind): never a session id, a title or a key.
 */
import type {Analysis} from '../forensics/analyze.js';
import type {DatabaseFacts} from '../store/load.js';
import type {FilesReport} from '../store/files-probe.js';
import type {BackupAges} from './backup-ages.js';

export const STORE_LABELS = ['profile', 'schema', 'rule_set'] as const;

export type MetricSpec = {name: string; help: string; labels: readonly string[]};

const spec = (name: string, help: string, extra: readonly string[] = []): MetricSpec => ({name, help, labels: [...STORE_LABELS, ...extra]});

/** Every metric hfx writes, in the order it writes them. All are gauges (hfx counts nothing over time). */
export const METRICS = {
	up: spec('hfx_store_up', '1 when hfx read the store, 0 when it could not (reason: the refusal kind; hfx scan on the store prints the line)', ['reason']),
	sessions: spec('hfx_sessions', 'Session rows in the store'),
	chats: spec('hfx_chats', 'Chats (session keys) the gateway routes'),
	orphans: spec('hfx_orphans', 'Keyless rows holding messages that the store\'s own repair-routing lists, by verdict and reason kind', ['verdict', 'reason']),
	rollbackHappened: spec('hfx_rollback_happened_chats', 'Chats a restart already rolled back: it resumed an older row and the gateway wrote into it, while the conversation it skipped sits in a keyless row (hfx scan names them)'),
	rollbackRisk: spec('hfx_rollback_risk_chats', 'Chats whose restart would resume an older conversation than their newest one'),
	staleRouting: spec('hfx_stale_routing_entries', 'Routing entries that name a session the chat has moved on from'),
	walBytes: spec('hfx_wal_bytes', 'Size of the -wal file in bytes (0 when there is none)'),
	hiddenFrames: spec('hfx_wal_hidden_frames', 'WAL frames of the current generation after a checksum break: written, yet invisible to SQLite'),
	hiddenCommits: spec('hfx_wal_hidden_commits', 'Commit frames among the hidden frames: committed transactions SQLite silently ignores'),
	deletedWalHolders: spec('hfx_deleted_wal_holders', 'Processes holding a deleted -wal or -shm of the store (an old WAL generation)'),
	verifiedAge: spec('hfx_backup_verified_age_seconds', 'Age of the newest verified backup that holds this store (+Inf when there is none)'),
	drilledAge: spec('hfx_backup_drilled_age_seconds', 'Age of the newest restore-drilled backup that holds this store (+Inf when there is none)'),
	scanTime: spec('hfx_last_scan_timestamp_seconds', 'When hfx last read the store (Unix time)'),
	scanDuration: spec('hfx_last_scan_duration_seconds', 'How long the last read and analysis of the store took'),
} as const satisfies Record<string, MetricSpec>;

export type MetricKey = keyof typeof METRICS;

export type Sample = {metric: MetricKey; labels: Record<string, string>; value: number};

export type StoreReading = {
	profile: string;
	/** Unix seconds when the reading began, and how long it took. */
	at: number;
	seconds: number;
	result: {ok: true; facts: DatabaseFacts; analysis: Analysis} | {ok: false; kind: string; line: string};
	files: FilesReport | null;
	backups: BackupAges;
};

/** The store labels of a reading: what is unknown of a store hfx could not read says so. */
export function storeLabels(r: StoreReading): Record<(typeof STORE_LABELS)[number], string> {
	if (!r.result.ok) {
		return {profile: r.profile, schema: 'unknown', rule_set: 'unknown'};
	}

	const {schemaVersion, ruleSet} = r.result.facts;
	return {profile: r.profile, schema: schemaVersion === null ? 'unversioned' : `v${schemaVersion}`, rule_set: ruleSet};
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
	const labels = storeLabels(r);
	const s = (metric: MetricKey, value: number): Sample => ({metric, labels, value});
	return [
		{metric: 'up', labels: {...labels, reason: r.result.ok ? '' : r.result.kind}, value: r.result.ok ? 1 : 0},
		...(r.result.ok ? analysisSamples(r.result.facts, r.result.analysis, labels) : []),
		...(r.files ? fileSamples(r.files, labels) : []),
		s('verifiedAge', r.backups.verifiedAgeSeconds ?? Number.POSITIVE_INFINITY),
		s('drilledAge', r.backups.drilledAgeSeconds ?? Number.POSITIVE_INFINITY),
		s('scanTime', r.at),
		s('scanDuration', r.seconds),
	];
}
