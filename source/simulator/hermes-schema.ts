/**
 * The three schema shapes our simulator writes, column for column as Hermes' generations have them
 * (docs/hermes-rules.md, schema): `v21` (Aug 2026: no last_activity_at, profile_name,
 * created_source), `v25` (the generation that shipped `repair-routing`: last_activity_at,
 * profile_name and the system_prompts table, but none of v30's created_source, transport_profile,
 * hidden, tool_names or its four gateway tables) and `v30` (current). The v25 columns are those of
 * the stores the real v25 SessionDB wrote (test/fixtures/hermes-generations). Used by the fixture
 * generator, the demo gateway and the benchmark generator; never applied to an observed database.
 */

export type SchemaShape = 'v21' | 'v25' | 'v30';

const SESSIONS_V21 = `
CREATE TABLE sessions (
  id TEXT PRIMARY KEY,
  source TEXT NOT NULL,
  user_id TEXT,
  session_key TEXT,
  chat_id TEXT,
  chat_type TEXT,
  thread_id TEXT,
  display_name TEXT,
  origin_json TEXT,
  expiry_finalized INTEGER DEFAULT 0,
  model TEXT,
  model_config TEXT,
  system_prompt TEXT,
  parent_session_id TEXT,
  started_at REAL NOT NULL,
  ended_at REAL,
  end_reason TEXT,
  message_count INTEGER DEFAULT 0,
  tool_call_count INTEGER DEFAULT 0,
  input_tokens INTEGER DEFAULT 0,
  output_tokens INTEGER DEFAULT 0,
  cache_read_tokens INTEGER DEFAULT 0,
  cache_write_tokens INTEGER DEFAULT 0,
  reasoning_tokens INTEGER DEFAULT 0,
  cwd TEXT,
  git_branch TEXT,
  git_repo_root TEXT,
  billing_provider TEXT,
  billing_base_url TEXT,
  billing_mode TEXT,
  estimated_cost_usd REAL,
  actual_cost_usd REAL,
  cost_status TEXT,
  cost_source TEXT,
  pricing_version TEXT,
  title TEXT,
  api_call_count INTEGER DEFAULT 0,
  handoff_state TEXT,
  handoff_platform TEXT,
  handoff_error TEXT,
  compression_failure_cooldown_until REAL,
  compression_failure_error TEXT,
  compression_fallback_streak INTEGER NOT NULL DEFAULT 0,
  rewind_count INTEGER NOT NULL DEFAULT 0,
  archived INTEGER NOT NULL DEFAULT 0,
  FOREIGN KEY (parent_session_id) REFERENCES sessions(id)
);`;

const SESSIONS_V30 = `
CREATE TABLE sessions (
  id TEXT PRIMARY KEY,
  source TEXT NOT NULL,
  created_source TEXT,
  user_id TEXT,
  session_key TEXT,
  chat_id TEXT,
  chat_type TEXT,
  thread_id TEXT,
  display_name TEXT,
  origin_json TEXT,
  expiry_finalized INTEGER DEFAULT 0,
  model TEXT,
  model_config TEXT,
  system_prompt TEXT,
  system_prompt_hash TEXT REFERENCES system_prompts(hash),
  parent_session_id TEXT,
  started_at REAL NOT NULL,
  ended_at REAL,
  end_reason TEXT,
  message_count INTEGER DEFAULT 0,
  tool_call_count INTEGER DEFAULT 0,
  input_tokens INTEGER DEFAULT 0,
  output_tokens INTEGER DEFAULT 0,
  cache_read_tokens INTEGER DEFAULT 0,
  cache_write_tokens INTEGER DEFAULT 0,
  reasoning_tokens INTEGER DEFAULT 0,
  cwd TEXT,
  git_branch TEXT,
  git_repo_root TEXT,
  git_metadata_generation INTEGER NOT NULL DEFAULT 0,
  billing_provider TEXT,
  billing_base_url TEXT,
  billing_mode TEXT,
  estimated_cost_usd REAL,
  actual_cost_usd REAL,
  cost_status TEXT,
  cost_source TEXT,
  pricing_version TEXT,
  title TEXT,
  title_source TEXT,
  last_activity_at REAL,
  last_activity_description TEXT,
  last_activity_provenance TEXT,
  api_call_count INTEGER DEFAULT 0,
  handoff_state TEXT,
  handoff_platform TEXT,
  handoff_error TEXT,
  compression_failure_cooldown_until REAL,
  compression_failure_error TEXT,
  compression_fallback_streak INTEGER NOT NULL DEFAULT 0,
  compression_ineffective_count INTEGER NOT NULL DEFAULT 0,
  compression_overload_streak INTEGER NOT NULL DEFAULT 0,
  compression_recovery_deadline REAL,
  profile_name TEXT,
  transport_profile TEXT,
  rewind_count INTEGER NOT NULL DEFAULT 0,
  archived INTEGER NOT NULL DEFAULT 0,
  pinned INTEGER NOT NULL DEFAULT 0,
  hidden INTEGER NOT NULL DEFAULT 0,
  last_read_at REAL,
  tool_names TEXT,
  FOREIGN KEY (parent_session_id) REFERENCES sessions(id)
);`;

const MESSAGES_V21 = `
CREATE TABLE messages (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  session_id TEXT NOT NULL REFERENCES sessions(id),
  role TEXT NOT NULL,
  content TEXT,
  tool_call_id TEXT,
  tool_calls TEXT,
  tool_name TEXT,
  effect_disposition TEXT,
  timestamp REAL NOT NULL,
  token_count INTEGER,
  finish_reason TEXT,
  reasoning TEXT,
  reasoning_content TEXT,
  reasoning_details TEXT,
  codex_reasoning_items TEXT,
  codex_message_items TEXT,
  platform_message_id TEXT,
  observed INTEGER DEFAULT 0,
  active INTEGER NOT NULL DEFAULT 1,
  compacted INTEGER NOT NULL DEFAULT 0
);`;

const MESSAGES_V30 = `
CREATE TABLE messages (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  session_id TEXT NOT NULL REFERENCES sessions(id),
  role TEXT NOT NULL,
  content TEXT,
  tool_call_id TEXT,
  tool_calls TEXT,
  tool_name TEXT,
  effect_disposition TEXT,
  timestamp REAL NOT NULL,
  token_count INTEGER,
  finish_reason TEXT,
  reasoning TEXT,
  reasoning_content TEXT,
  reasoning_details TEXT,
  codex_reasoning_items TEXT,
  codex_message_items TEXT,
  platform_message_id TEXT,
  observed INTEGER DEFAULT 0,
  _compressed_summary INTEGER NOT NULL DEFAULT 0,
  active INTEGER NOT NULL DEFAULT 1,
  compacted INTEGER NOT NULL DEFAULT 0,
  api_content TEXT,
  display_kind TEXT,
  display_metadata TEXT,
  display_identity BLOB,
  display_order INTEGER
);`;

/** What current Hermes added after v25: the real v25 stores (test/fixtures/hermes-generations) lack exactly these. */
const V30_ONLY_SESSION_COLUMNS = [
	'created_source',
	'git_metadata_generation',
	'compression_overload_streak',
	'compression_recovery_deadline',
	'transport_profile',
	'hidden',
	'tool_names',
];
const V30_ONLY_MESSAGE_COLUMNS = ['_compressed_summary', 'display_identity', 'display_order'];

/** A CREATE TABLE of one column list without some columns (their lines; the last remaining one loses its comma). */
function withoutColumns(ddl: string, names: readonly string[]): string {
	const lines = ddl.split('\n').filter(l => !names.includes(l.trim().split(/\s+/)[0]!));
	const close = lines.findIndex(l => l.startsWith(');'));
	lines[close - 1] = lines[close - 1]!.replace(/,$/, '');
	return lines.join('\n');
}

/** v25: the v30 tables as they were before those columns (same order, as in the real v25 stores). */
const SESSIONS_V25 = withoutColumns(SESSIONS_V30, V30_ONLY_SESSION_COLUMNS);
const MESSAGES_V25 = withoutColumns(MESSAGES_V30, V30_ONLY_MESSAGE_COLUMNS);

const COMMON_TABLES =
	`
CREATE TABLE schema_version (version INTEGER NOT NULL);
CREATE TABLE state_meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE gateway_routing (
  scope TEXT NOT NULL DEFAULT '',
  session_key TEXT NOT NULL,
  entry_json TEXT NOT NULL,
  updated_at REAL NOT NULL,
  PRIMARY KEY (scope, session_key)
);
CREATE TABLE session_model_usage (
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  model TEXT NOT NULL,
  billing_provider TEXT NOT NULL DEFAULT '',
  billing_base_url TEXT NOT NULL DEFAULT '',
  billing_mode TEXT NOT NULL DEFAULT '',
  task TEXT NOT NULL DEFAULT '',
  api_call_count INTEGER NOT NULL DEFAULT 0,
  input_tokens INTEGER NOT NULL DEFAULT 0,
  output_tokens INTEGER NOT NULL DEFAULT 0,
  cache_read_tokens INTEGER NOT NULL DEFAULT 0,
  cache_write_tokens INTEGER NOT NULL DEFAULT 0,
  reasoning_tokens INTEGER NOT NULL DEFAULT 0,
  estimated_cost_usd REAL NOT NULL DEFAULT 0,
  actual_cost_usd REAL NOT NULL DEFAULT 0,
  cost_status TEXT,
  cost_source TEXT,
  first_seen REAL,
  last_seen REAL,
  PRIMARY KEY (session_id, model, billing_provider, billing_base_url, billing_mode, task)
);
CREATE TABLE compression_locks (session_id TEXT PRIMARY KEY, holder TEXT NOT NULL, acquired_at REAL NOT ` +
	`NULL, expires_at REAL NOT NULL);
`;

/** Added by v25 (the prompts move out of sessions.system_prompt). */
const V25_TABLES = `
CREATE TABLE system_prompts (hash TEXT PRIMARY KEY, prompt TEXT NOT NULL);
`;

/** Added after v25. */
const V30_ONLY_TABLES =
	`
CREATE TABLE gateway_hygiene_state (session_key TEXT PRIMARY KEY, failure_streak INTEGER NOT NULL DEFAULT 0);
CREATE TABLE conversation_generations (source TEXT NOT NULL, session_key TEXT NOT NULL, generation ` +
	`INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (source, session_key));
CREATE TABLE gateway_heartbeats (backend_id TEXT PRIMARY KEY, pid INTEGER NOT NULL, started_at REAL NOT ` +
	`NULL, last_heartbeat REAL NOT NULL, profile TEXT NOT NULL DEFAULT '', host TEXT NOT NULL DEFAULT '');
CREATE TABLE session_turn_leases (conversation_id TEXT PRIMARY KEY, holder TEXT NOT NULL, acquired_at ` +
	`REAL NOT NULL, expires_at REAL NOT NULL);
`;

const INDEXES_V21 = `
CREATE INDEX idx_sessions_source ON sessions(source);
CREATE INDEX idx_sessions_parent ON sessions(parent_session_id);
CREATE INDEX idx_sessions_started ON sessions(started_at DESC);
CREATE INDEX idx_sessions_session_key ON sessions(session_key, started_at DESC);
CREATE INDEX idx_sessions_gateway_peer ON sessions(source, user_id, chat_id, chat_type, thread_id, started_at DESC);
CREATE UNIQUE INDEX idx_sessions_title_unique ON sessions(title) WHERE title IS NOT NULL;
CREATE INDEX idx_messages_session ON messages(session_id, timestamp);
CREATE INDEX idx_messages_session_active ON messages(session_id, active, timestamp);
`;

const INDEXES_V25 = `${INDEXES_V21}
CREATE INDEX idx_messages_session_id ON messages(session_id, id);
`;

const INDEXES_V30 =
	`${INDEXES_V25}` +
	`CREATE INDEX idx_sessions_effective_activity ON sessions(COALESCE(last_activity_at, started_at) ` +
	`DESC, started_at DESC);
`;

export function schemaSql(shape: SchemaShape): string {
	switch (shape) {
		case 'v21': {
			return [
				SESSIONS_V21,
				MESSAGES_V21,
				COMMON_TABLES,
				INDEXES_V21,
				'INSERT INTO schema_version(version) VALUES (21);',
			].join('\n');
		}

		case 'v25': {
			return [
				SESSIONS_V25,
				MESSAGES_V25,
				COMMON_TABLES,
				V25_TABLES,
				INDEXES_V25,
				'INSERT INTO schema_version(version) VALUES (25);',
			].join('\n');
		}

		case 'v30': {
			return [
				SESSIONS_V30,
				MESSAGES_V30,
				COMMON_TABLES,
				V25_TABLES,
				V30_ONLY_TABLES,
				INDEXES_V30,
				'INSERT INTO schema_version(version) VALUES (30);',
			].join('\n');
		}
	}
}
