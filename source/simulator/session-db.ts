/**
 * The `SessionDB` writes a Hermes gateway makes around a restart (Aug-20 tree, `hermes_state.py`:
 * `reopen_session`, `replace_gateway_routing_entries`, `save_gateway_routing_entry`,
 * `record_gateway_session_peer`, `append_message`, `touch_session_activity`, `end_session`,
 * `promote_to_session_reset`, `create_session`), as plain SQL on a read-write connection to a store
 * the simulator made or copied, never an observed one. Schema-aware: each write uses only the
 * tables and columns the store has (real v21 and v25 stores lack some of v30's), and none opens a
 * transaction of its own; the caller wraps a whole gateway step in one.
 */
import type Database from 'better-sqlite3';
import {pythonJson} from './session-entry.js';

/** Which of the tables and columns these writes touch a store has. */
export type StoreShape = {
	sessions: ReadonlySet<string>;
	messages: ReadonlySet<string>;
	/** `gateway_routing`'s columns, or null when the table is absent. */
	routing: ReadonlySet<string> | null;
	/** `conversation_generations` exists (v30: bumped with each reset-class end stamp). */
	generations: boolean;
};

/** `_RESET_END_REASONS` (hermes_state_common.py): the deliberate boundaries. */
export const RESET_END_REASONS = [
	'session_reset',
	'session_switch',
	'idle',
	'daily',
	'suspended',
	'resume_pending_expired',
] as const;

export function shapeOf(db: Database.Database): StoreShape {
	const columns = (table: string) =>
		new Set((db.prepare('SELECT name FROM pragma_table_info(?)').all(table) as Array<{name: string}>).map(r => r.name));
	const exists = (table: string) =>
		db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(table) !== undefined;
	return {
		sessions: columns('sessions'),
		messages: columns('messages'),
		routing: exists('gateway_routing') ? columns('gateway_routing') : null,
		generations: exists('conversation_generations'),
	};
}

/** `reopen_session`: stamp markerless legacy reset children of the row, then clear its end stamp. */
export function reopenSession(db: Database.Database, shape: StoreShape, id: string): void {
	if (['model_config', 'parent_session_id', 'session_key'].every(c => shape.sessions.has(c))) {
		const marks = RESET_END_REASONS.map(() => '?').join(', ');
		db.prepare(
			`UPDATE sessions AS child SET model_config = json_set(COALESCE(child.model_config, ` +
				`'{}'), '$._reset_from', child.parent_session_id)
			WHERE child.parent_session_id = ? AND json_extract(COALESCE(child.model_config, '{}'), '$._reset_from') IS NULL
			AND EXISTS (SELECT 1 FROM sessions p WHERE p.id = child.parent_session_id AND p.end_reason IN (${marks})
				AND child.session_key IS NOT NULL AND child.session_key != '' AND child.session_key = p.session_key)`,
		).run(id, ...RESET_END_REASONS);
	}

	db.prepare('UPDATE sessions SET ended_at = NULL, end_reason = NULL WHERE id = ?').run(id);
}

/** `load_gateway_routing_entries`: {session_key: entry_json} of one scope, in stored order. */
export function loadGatewayRoutingEntries(
	db: Database.Database,
	shape: StoreShape,
	scope: string,
): Map<string, string> {
	if (!shape.routing) {
		return new Map();
	}

	const rows = shape.routing.has('scope')
		? db.prepare('SELECT session_key, entry_json FROM gateway_routing WHERE scope = ? ORDER BY rowid').all(scope)
		: db.prepare('SELECT session_key, entry_json FROM gateway_routing').all();
	return new Map((rows as Array<{session_key: string; entry_json: string}>).map(r => [r.session_key, r.entry_json]));
}

/** `replace_gateway_routing_entries`: the full rewrite, every row of the scope stamped `now`. */
export function replaceGatewayRoutingEntries(
	db: Database.Database,
	shape: StoreShape,
	entries: ReadonlyMap<string, string>,
	scope: string,
	now: number,
): void {
	if (!shape.routing) {
		return;
	}

	const scoped = shape.routing.has('scope');
	if (scoped) {
		db.prepare('DELETE FROM gateway_routing WHERE scope = ?').run(scope);
	} else {
		db.prepare('DELETE FROM gateway_routing').run();
	}

	const insert = scoped
		? db.prepare('INSERT INTO gateway_routing (scope, session_key, entry_json, updated_at) VALUES (?, ?, ?, ?)')
		: db.prepare('INSERT INTO gateway_routing (session_key, entry_json, updated_at) VALUES (?, ?, ?)');
	for (const [key, json] of entries) {
		if (scoped) {
			insert.run(scope, key, json, now);
		} else {
			insert.run(key, json, now);
		}
	}
}

/** `save_gateway_routing_entry`: the per-turn single-row upsert. */
export function saveGatewayRoutingEntry(
	db: Database.Database,
	shape: StoreShape,
	key: string,
	json: string,
	scope: string,
	now: number,
): void {
	if (!shape.routing) {
		return;
	}

	if (shape.routing.has('scope')) {
		db.prepare(
			`INSERT INTO gateway_routing (scope, session_key, entry_json, updated_at) VALUES (?, ?, ?, ?)
			ON CONFLICT(scope, session_key) DO UPDATE SET entry_json = excluded.entry_json, updated_at = ` +
				`excluded.updated_at`,
		).run(scope, key, json, now);
	} else {
		db.prepare(`INSERT INTO gateway_routing (session_key, entry_json, updated_at) VALUES (?, ?, ?)
			ON CONFLICT(session_key) DO UPDATE SET entry_json = excluded.entry_json, updated_at = excluded.updated_at`).run(
			key,
			json,
			now,
		);
	}
}

/** The peer a gateway turn records on its routed row (`record_gateway_session_peer`'s arguments). */
export type GatewayPeer = {
	source: string;
	userId: string | null;
	chatId: string | null;
	chatType: string | null;
	threadId: string | null;
	displayName: string | null;
	originJson: string | null;
};

/** `record_gateway_session_peer`: identity overwritten (not coalesced); the row inserted if missing. */
export function recordGatewaySessionPeer(
	db: Database.Database,
	id: string,
	key: string,
	peer: GatewayPeer,
	now: number,
): void {
	const identity = [
		key,
		peer.source,
		peer.userId,
		peer.chatId,
		peer.chatType,
		peer.threadId,
		peer.displayName,
		peer.originJson,
	];
	db.prepare(`UPDATE sessions SET session_key = ?, source = ?, user_id = ?, chat_id = ?, chat_type = ?, thread_id = ?,
		display_name = COALESCE(?, display_name), origin_json = COALESCE(?, origin_json) WHERE id = ?`).run(
		...identity,
		id,
	);
	if (db.prepare('SELECT 1 FROM sessions WHERE id = ?').get(id) === undefined) {
		db.prepare(
			`INSERT INTO sessions (id, session_key, source, user_id, chat_id, chat_type, thread_id, ` +
				`display_name, origin_json, started_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		).run(id, ...identity, now);
	}
}

export type AppendedMessage = {
	role: string;
	content: string | null;
	timestamp: number;
	platformMessageId?: string | null;
};

/** `append_message`: one row (`timestamp` as given), `message_count` + 1. Returns the row id. */
export function appendMessage(db: Database.Database, shape: StoreShape, sessionId: string, m: AppendedMessage): number {
	const cols: Record<string, unknown> = {
		session_id: sessionId,
		role: m.role,
		content: m.content,
		timestamp: m.timestamp,
	};
	if (shape.messages.has('platform_message_id')) {
		cols.platform_message_id = m.platformMessageId ?? null;
	}

	if (shape.messages.has('active')) {
		cols.active = 1;
	}

	const names = Object.keys(cols);
	const r = db
		.prepare(`INSERT INTO messages (${names.join(', ')}) VALUES (${names.map(() => '?').join(', ')})`)
		.run(...names.map(n => cols[n]));
	db.prepare('UPDATE sessions SET message_count = COALESCE(message_count, 0) + 1 WHERE id = ?').run(sessionId);
	return Number(r.lastInsertRowid);
}

/** `touch_session_activity`: `last_activity_at` advanced, never moved backwards (absent before v25). */
export function touchSessionActivity(db: Database.Database, shape: StoreShape, id: string, at: number): void {
	if (shape.sessions.has('last_activity_at')) {
		db.prepare(
			'UPDATE sessions SET last_activity_at = ? WHERE id = ? AND (last_activity_at IS NULL OR last_activity_at < ?)',
		).run(at, id, at);
	}
}

/** `end_session`: the first reason wins. */
export function endSession(db: Database.Database, id: string, at: number, reason: string): void {
	db.prepare('UPDATE sessions SET ended_at = ?, end_reason = ? WHERE id = ? AND ended_at IS NULL').run(at, reason, id);
}

/**
 * `promote_to_session_reset`: live or accidentally ended rows take the reset reason; v30 bumps the peer's generation.
 */
export function promoteToSessionReset(
	db: Database.Database,
	shape: StoreShape,
	id: string,
	at: number,
	reason: string,
): boolean {
	const r = db
		.prepare(
			'UPDATE sessions SET ended_at = ?, end_reason = ? WHERE id = ? AND ' +
				"(ended_at IS NULL OR end_reason IN ('agent_close', 'ws_orphan_reap'))",
		)
		.run(at, reason, id);
	if (r.changes > 0 && shape.generations && (RESET_END_REASONS as readonly string[]).includes(reason)) {
		db.prepare(`INSERT INTO conversation_generations (source, session_key, generation)
			SELECT source, session_key, 1 FROM sessions WHERE id = ? AND session_key IS NOT NULL
			ON CONFLICT(source, session_key) DO UPDATE SET generation = generation + 1`).run(id);
	}

	return r.changes > 0;
}

export type GatewayCreate = GatewayPeer & {
	id: string;
	sessionKey: string;
	startedAt: number;
	parentSessionId: string | null;
	modelConfig: Record<string, unknown> | null;
	profileName: string | null;
};

/** `create_session` with the gateway's kwargs: identity and lineage land in the INSERT itself. */
export function createSession(db: Database.Database, shape: StoreShape, s: GatewayCreate): void {
	const cols: Record<string, unknown> = {
		id: s.id,
		source: s.source,
		user_id: s.userId,
		session_key: s.sessionKey,
		chat_id: s.chatId,
		chat_type: s.chatType,
		thread_id: s.threadId,
		display_name: s.displayName,
		origin_json: s.originJson,
		parent_session_id: s.parentSessionId,
		started_at: s.startedAt,
		model_config: s.modelConfig ? pythonJson(s.modelConfig) : null,
	};
	const optional: Record<string, unknown> = {profile_name: s.profileName, created_source: s.source, message_count: 0};
	for (const [name, value] of Object.entries(optional)) {
		if (shape.sessions.has(name)) {
			cols[name] = value;
		}
	}

	const names = Object.keys(cols);
	db.prepare(`INSERT INTO sessions (${names.join(', ')}) VALUES (${names.map(() => '?').join(', ')})`).run(
		...names.map(n => cols[n]),
	);
}
