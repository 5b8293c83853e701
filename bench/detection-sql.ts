/**
 * The detection as plain SQL, the way Hermes' own code computes it (docs/hermes-rules.md, restart,
 * orphans, repair-routing; the quoted queries of hermes_state_gateway.py), so the sqlite3 CLI can
 * do the same job hfx does:
 *   1. the orphan query (windowed freshest-of last_active, message count), local surfaces excluded;
 *   2. per orphan: the lineage query, or the contiguity query (top 2 by last_active);
 *   3. per session key: the restart query (exact key, recoverable reasons, reset fence, rows with
 *      messages first) and the chat's newest message;
 *   4. the routing entries.
 * The per-orphan and per-key statements are generated for this store (their parameters inlined):
 * what a SQL-only tool would run. The contest pass and the comparisons are trivial and left out.
 */
import Database from 'better-sqlite3';

const LOCAL = [
	'cli',
	'tui',
	'desktop',
	'subagent',
	'cron',
	'kanban',
	'acp',
	'api_server',
	'tool',
	'recovered',
	'oneshot',
];
const WINDOW = 'BETWEEN 0.0 AND 4200000000.0';
const RECOVERABLE = "'agent_close', 'ws_orphan_reap', 'superseded_by_resume', 'startup_orphan_reap'";
const RESET = "'session_reset', 'session_switch', 'idle', 'daily', 'suspended', 'resume_pending_expired'";

function q(v: string | null): string {
	return v === null ? 'NULL' : `'${v.replaceAll("'", "''")}'`;
}

function lastActive(a: string): string {
	return (
		`COALESCE((SELECT MAX(_v.v) FROM (SELECT ${a}.last_activity_at AS v ` +
		`UNION ALL SELECT (SELECT MAX(_m.timestamp) FROM messages _m WHERE ` +
		`_m.session_id = ${a}.id AND _m.timestamp ${WINDOW})) _v WHERE ` +
		`_v.v ${WINDOW}), (SELECT _w.v FROM (SELECT ${a}.started_at AS v) _w ` +
		`WHERE _w.v ${WINDOW}))`
	);
}

function marker(a: string, path: string): string {
	return (
		`json_extract(CASE WHEN json_valid(${a}.model_config) ` +
		`THEN ${a}.model_config ELSE json_object() END, '${path}')`
	);
}

export function orphanSql(): string {
	return `SELECT o.id, o.source, o.user_id, o.started_at, o.parent_session_id, o.profile_name,
  ${lastActive('o')} AS last_active,
  (SELECT COUNT(*) FROM messages m WHERE m.session_id = o.id) AS message_count
FROM sessions o
WHERE o.session_key IS NULL
  AND EXISTS (SELECT 1 FROM messages m WHERE m.session_id = o.id)
  AND COALESCE(o.source, '') != 'tool'
  AND ${marker('o', '$._branched_from')} IS NULL
  AND ${marker('o', '$._delegate_from')} IS NULL
  AND COALESCE(o.source, '') NOT IN (${LOCAL.map(s => `'${s}'`).join(', ')})
ORDER BY o.started_at ASC`;
}

type Orphan = {
	id: string;
	source: string | null;
	user_id: string | null;
	started_at: number | null;
	parent_session_id: string | null;
	last_active: number | null;
};

function lineageSql(o: Orphan): string {
	return (
		`SELECT d.id, d.session_key FROM sessions d WHERE d.id ` +
		`= ${q(o.parent_session_id)} AND d.session_key IS NOT NULL AND ` +
		`COALESCE(d.source, '') = COALESCE(${q(o.source)}, '')`
	);
}

function contiguitySql(o: Orphan, gap: number): string {
	const started = o.started_at ?? 0;
	return `SELECT d.id, d.session_key, ${lastActive('d')} AS last_active
FROM sessions d
WHERE d.session_key IS NOT NULL AND d.id != ${q(o.id)}
  AND COALESCE(d.source, '') = COALESCE(${q(o.source)}, '')
  AND (COALESCE(d.user_id, '') = '' OR COALESCE(${q(o.user_id)}, '') = '' OR d.user_id = ${q(o.user_id)})
  AND ${lastActive('d')} BETWEEN ${started - gap} AND ${started + gap}
  AND ${lastActive('d')} < ${o.last_active ?? 'NULL'}
ORDER BY last_active DESC LIMIT 2`;
}

function restartSql(key: string, platform: string): string {
	return (
		`SELECT s.id FROM sessions s
WHERE s.session_key = ${q(key)} AND ` +
		`s.source ` +
		`= ${q(platform)}
  AND (s.ended_at IS NULL OR s.end_reason IN (${RECOVERABLE}) OR s.handoff_state = 'completed')
  AND NOT EXISTS (SELECT 1 FROM sessions b WHERE b.session_key = s.session_key AND b.source = s.source ` +
		`AND b.ended_at IS NOT NULL AND b.end_reason IN (${RESET}` +
		`) AND b.ended_at > COALESCE(s.last_activity_at, s.started_at))
ORDER BY (COALESCE(s.message_count, 0) > 0 OR EXISTS (SELECT 1 FROM messages WHERE messages.session_id ` +
		`= s.id LIMIT 1)) DESC, COALESCE(s.last_activity_at, s.started_at) DESC
LIMIT 1`
	);
}

function newestSql(key: string): string {
	return (
		`SELECT s.id, (SELECT max(m.timestamp) FROM messages m WHERE ` +
		`m.session_id = s.id AND m.timestamp ${WINDOW}) AS newest FROM sessions ` +
		`s WHERE s.session_key = ${q(key)} ORDER BY newest DESC LIMIT 1`
	);
}

/** The whole detection for this store, as one sqlite3 script (one read transaction). */
export function detectionScript(
	dbPath: string,
	gap = 900,
): {script: string; statements: number; orphans: number; keys: number} {
	const db = new Database(dbPath, {readonly: true, fileMustExist: true});
	try {
		const orphans = db.prepare(orphanSql()).all() as Orphan[];
		const keys = db
			.prepare('SELECT DISTINCT session_key FROM sessions WHERE session_key IS NOT NULL ORDER BY 1')
			.pluck()
			.all() as string[];
		const statements = [orphanSql()];
		for (const o of orphans) {
			statements.push(o.parent_session_id ? lineageSql(o) : contiguitySql(o, gap));
		}

		for (const key of keys) {
			const platform = key.split(':')[2] ?? '';
			statements.push(restartSql(key, platform), newestSql(key));
		}

		statements.push('SELECT scope, session_key, entry_json, updated_at FROM gateway_routing');
		return {
			script: `BEGIN;\n${statements.map(s => `${s};`).join('\n')}\nCOMMIT;\n`,
			statements: statements.length,
			orphans: orphans.length,
			keys: keys.length,
		};
	} finally {
		db.close();
	}
}
