/**
 * The catalogue of every metric hfx writes: names by Prometheus' conventions, HELP text, label
 * names. Labels are low-cardinality by design (the profile; a verdict and a reason kind): never a
 * session id, a title or a key; the store's versions are labels of `hfx_store_info` alone.
 */
export const STORE_LABELS = ['profile'] as const;

export type MetricSpec = {name: string; help: string; labels: readonly string[]};

const spec = (name: string, help: string, extra: readonly string[] = []): MetricSpec => ({
	name,
	help,
	labels: [...STORE_LABELS, ...extra],
});

/** Every metric hfx writes, in the order it writes them. All are gauges (hfx counts nothing over time). */
export const METRICS = {
	info: spec(
		'hfx_store_info',
		"The store's schema generation, the rule set hfx judges it by, and the " +
			'Hermes build its running gateway states (unknown when none runs or it ' +
			'does not say); always 1',
		['schema', 'rule_set', 'build'],
	),
	up: spec(
		'hfx_store_up',
		'1 when hfx read the store, 0 when it could not (reason: the refusal kind; hfx scan on the store prints the line)',
		['reason'],
	),
	sessions: spec('hfx_sessions', 'Session rows in the store'),
	chats: spec('hfx_chats', 'Chats (session keys) the gateway routes'),
	orphans: spec(
		'hfx_orphans',
		"Keyless rows holding messages that the store's own repair-routing lists, by verdict and reason kind",
		['verdict', 'reason'],
	),
	rollbackHappened: spec(
		'hfx_rollback_happened_chats',
		'Chats a restart already rolled back: it resumed an older row and the ' +
			'gateway wrote into it, while the conversation it skipped sits in a ' +
			'keyless row (hfx scan names them)',
	),
	rollbackRisk: spec(
		'hfx_rollback_risk_chats',
		'Chats whose restart would resume an older conversation than their newest one',
	),
	staleRouting: spec('hfx_stale_routing_entries', 'Routing entries that name a session the chat has moved on from'),
	reapChurn: spec(
		'hfx_reap_churn_chats',
		'Chats whose every turn began without history after a reap (hfx scan names them)',
	),
	repairRoutingCrash: spec(
		'hfx_repair_routing_crash',
		"1 when the store's own hermes sessions repair-routing fails before listing anything (hfx scan names the row)",
	),
	upgradeRollbackRisk: spec(
		'hfx_upgrade_rollback_risk_chats',
		'Chats not at rollback risk today that a restart would roll back once ' +
			'current Hermes has migrated this older store (0 when the store is ' +
			'current)',
	),
	upgradeChanges: spec(
		'hfx_upgrade_changed_verdicts',
		'Orphan and chat verdicts that upgrading Hermes would change (0 when the store is current)',
	),
	corruptTimestamps: spec(
		'hfx_corrupt_timestamp_sessions',
		'Session rows with a timestamp outside the epoch window (ignored for recency, as Hermes does)',
	),
	missingColumns: spec('hfx_missing_columns', 'Columns the rules need that the store lacks: what hfx cannot decide'),
	writeHalt: spec(
		'hfx_write_halt',
		'1 when Hermes halted writes to this store and diverted turns beside it ' +
			'(a retired WAL capture, a diverted transcript, dropped spool files)',
	),
	unreplayedSpool: spec(
		'hfx_unreplayed_spool_files',
		'Spool files in pending_messages/ whose turns Hermes will not replay',
	),
	keyedNullChatId: spec('hfx_keyed_null_chat_id_sessions', 'Keyed gateway rows with no chat_id: /resume refuses them'),
	staleExplicitClose: spec(
		'hfx_stale_explicit_close_sessions',
		'Rows with an explicit close stamp written to after it: they cannot be compressed',
	),
	phantomUnknown: spec(
		'hfx_phantom_unknown_sessions',
		'Phantom source=unknown rows the accounting guards minted (a turn billed twice)',
	),
	foreignProfiles: spec(
		'hfx_foreign_profiles',
		'Other profiles whose keyed chats sit in this store (or rows keyed for this profile labelled another)',
	),
	walBytes: spec('hfx_wal_bytes', 'Size of the -wal file in bytes (0 when there is none)'),
	hiddenFrames: spec(
		'hfx_wal_hidden_frames',
		'WAL frames of the current generation after a checksum break: written, yet invisible to SQLite',
	),
	hiddenCommits: spec(
		'hfx_wal_hidden_commits',
		'Commit frames among the hidden frames: committed transactions SQLite silently ignores',
	),
	deletedWalHolders: spec(
		'hfx_deleted_wal_holders',
		'Processes holding a deleted -wal or -shm of the store (an old WAL generation)',
	),
	verifiedAge: spec(
		'hfx_backup_verified_age_seconds',
		'Age of the newest verified backup that holds this store (+Inf when there is none)',
	),
	drilledAge: spec(
		'hfx_backup_drilled_age_seconds',
		'Age of the newest restore-drilled backup that holds this store (+Inf when there is none)',
	),
	scanTime: spec('hfx_last_scan_timestamp_seconds', 'When hfx last read the store (Unix time)'),
	scanDuration: spec('hfx_last_scan_duration_seconds', 'How long the last read and analysis of the store took'),
} as const satisfies Record<string, MetricSpec>;

export type MetricKey = keyof typeof METRICS;
