/**
 * A small writer that produces stores shaped like the ones Hermes writes: sessions, messages,
 * ends, rotations and routing entries, in any of the schema shapes. It is the "agent" side of our
 * fixtures, demo and benchmarks; it only ever writes databases it created itself.
 */
import Database from 'better-sqlite3';
import {routingScopeOf} from '../store/read/routing-home.js';
import {type SchemaShape, schemaSql} from './hermes-schema.js';

export type NewSession = {
	id?: string;
	source: string;
	userId?: string | null;
	sessionKey?: string | null;
	chatId?: string | null;
	chatType?: string | null;
	threadId?: string | null;
	displayName?: string | null;
	originJson?: string | null;
	parentSessionId?: string | null;
	startedAt: number;
	endedAt?: number | null;
	endReason?: string | null;
	modelConfig?: Record<string, unknown> | null;
	title?: string | null;
	model?: string | null;
	profileName?: string | null;
	lastActivityAt?: number | null;
	handoffState?: string | null;
};

export type NewMessage = {
	role?: 'user' | 'assistant' | 'tool' | 'system';
	content?: string | null;
	timestamp: number;
	toolName?: string | null;
	tokenCount?: number | null;
	/** The inbound platform's message id (Telegram's per-chat `message_id`), where the store has the column. */
	platformMessageId?: string | null;
};

function pad2(n: number): string {
	return String(n).padStart(2, '0');
}

/** Hermes' id shape: YYYYMMDD_HHMMSS_<hex>, 8 hex for gateway rows, 6 for local surfaces. */
export function sessionIdFor(startedAt: number, hex: string): string {
	const d = new Date(startedAt * 1000);
	return (
		`${d.getUTCFullYear()}${pad2(d.getUTCMonth() + 1)}${pad2(d.getUTCDate())}_` +
		`${pad2(d.getUTCHours())}${pad2(d.getUTCMinutes())}${pad2(d.getUTCSeconds())}_${hex}`
	);
}

const LOCAL = new Set(['cli', 'tui', 'desktop', 'subagent', 'cron', 'kanban', 'acp', 'tool', 'recovered', 'oneshot']);

export type WriterOptions = {
	shape: SchemaShape;
	journalMode?: 'wal' | 'delete';
	/** Seed for the deterministic hex part of generated ids. */
	seed?: number;
	/** For the "writer holds an open transaction" scenario: a tiny page cache makes pages spill to the WAL. */
	cacheSizePages?: number;
};

export class StoreWriter {
	readonly db: Database.Database;
	readonly shape: SchemaShape;
	/** The scope its gateway's routing rows carry: the resolved `<home>/sessions` beside the store. */
	readonly routingScope: string;
	private counter: number;
	private readonly insertMessage: Database.Statement;
	private readonly bumpCount: Database.Statement;
	/** The store's messages have `platform_message_id` (every shape here does; a real store might not). */
	private readonly platformIds: boolean;

	constructor(path: string, options: WriterOptions) {
		this.shape = options.shape;
		this.routingScope = routingScopeOf(path);
		this.counter = options.seed ?? 1;
		this.db = new Database(path);
		this.db.pragma(`journal_mode = ${options.journalMode ?? 'wal'}`);
		if (options.cacheSizePages) {
			this.db.pragma(`cache_size = ${options.cacheSizePages}`);
		}

		const exists = this.db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'sessions'").get();
		if (!exists) {
			this.db.exec(schemaSql(options.shape));
		}

		this.platformIds =
			this.db.prepare("SELECT 1 FROM pragma_table_info('messages') WHERE name = 'platform_message_id'").get() !==
			undefined;
		this.insertMessage = this.platformIds
			? this.db.prepare(
					'INSERT INTO messages (session_id, role, content, timestamp, tool_name, ' +
						'token_count, platform_message_id) VALUES (?, ?, ?, ?, ?, ?, ?)',
				)
			: this.db.prepare(
					'INSERT INTO messages (session_id, role, content, timestamp, tool_name, ' +
						'token_count) VALUES (?, ?, ?, ?, ?, ?)',
				);
		// v25 and v30 have last_activity_at and profile_name; only v30 has created_source.
		this.bumpCount =
			this.shape !== 'v21'
				? this.db.prepare(
						'UPDATE sessions SET message_count = message_count + ?, last_activity_at ' +
							'= max(COALESCE(last_activity_at, 0), ?) WHERE id = ?',
					)
				: this.db.prepare('UPDATE sessions SET message_count = message_count + ? WHERE id = ?');
	}

	nextHex(length: number): string {
		// A deterministic, well-mixed sequence (xorshift) so fixtures are reproducible.
		let x = (this.counter++ * 2_654_435_761) >>> 0;
		x ^= x << 13;
		x >>>= 0;
		x ^= x >>> 17;
		x ^= x << 5;
		x >>>= 0;
		return (x.toString(16).padStart(8, '0') + ((x * 31) >>> 0).toString(16).padStart(8, '0')).slice(0, length);
	}

	createSession(s: NewSession): string {
		const id = s.id ?? sessionIdFor(s.startedAt, this.nextHex(LOCAL.has(s.source) ? 6 : 8));
		const cols: Record<string, unknown> = {
			id,
			source: s.source,
			user_id: s.userId ?? null,
			session_key: s.sessionKey ?? null,
			chat_id: s.chatId ?? null,
			chat_type: s.chatType ?? null,
			thread_id: s.threadId ?? null,
			display_name: s.displayName ?? null,
			origin_json: s.originJson ?? null,
			parent_session_id: s.parentSessionId ?? null,
			started_at: s.startedAt,
			ended_at: s.endedAt ?? null,
			end_reason: s.endReason ?? null,
			model_config: s.modelConfig ? JSON.stringify(s.modelConfig) : null,
			title: s.title ?? null,
			model: s.model ?? 'hermes-3-large',
			handoff_state: s.handoffState ?? null,
		};
		if (this.shape !== 'v21') {
			cols.profile_name = s.profileName ?? null;
			cols.last_activity_at = s.lastActivityAt ?? null;
		}

		if (this.shape === 'v30') {
			cols.created_source = s.source;
		}

		const names = Object.keys(cols);
		this.db
			.prepare(`INSERT INTO sessions (${names.join(', ')}) VALUES (${names.map(() => '?').join(', ')})`)
			.run(...names.map(n => cols[n]));
		return id;
	}

	addMessages(sessionId: string, messages: readonly NewMessage[]): void {
		const tx = this.db.transaction(() => {
			let newest = 0;
			for (const [i, m] of messages.entries()) {
				const role = m.role ?? (i % 2 === 0 ? 'user' : 'assistant');
				const values = [
					sessionId,
					role,
					m.content ?? `${role} message at ${m.timestamp.toFixed(0)}`,
					m.timestamp,
					m.toolName ?? null,
					m.tokenCount ?? 12,
				];
				this.insertMessage.run(...values, ...(this.platformIds ? [m.platformMessageId ?? null] : []));
				newest = Math.max(newest, m.timestamp);
			}

			if (this.shape !== 'v21') {
				this.bumpCount.run(messages.length, newest, sessionId);
			} else {
				this.bumpCount.run(messages.length, sessionId);
			}
		});
		tx();
	}

	/** `count` messages evenly spread over [from, to]. */
	addConversation(sessionId: string, count: number, from: number, to: number): void {
		const step = count > 1 ? (to - from) / (count - 1) : 0;
		this.addMessages(
			sessionId,
			Array.from({length: count}, (_, i) => ({timestamp: from + i * step})),
		);
	}

	/** Hermes' end_session: the first reason wins. */
	endSession(id: string, at: number, reason: string): void {
		this.db
			.prepare('UPDATE sessions SET ended_at = ?, end_reason = ? WHERE id = ? AND ended_at IS NULL')
			.run(at, reason, id);
	}

	setRouting(sessionKey: string, sessionId: string, updatedAt: number, scope = this.routingScope): void {
		const entry = {
			session_key: sessionKey,
			session_id: sessionId,
			created_at: new Date(updatedAt * 1000).toISOString(),
			updated_at: new Date(updatedAt * 1000).toISOString(),
		};
		this.db
			.prepare(
				'INSERT OR REPLACE INTO gateway_routing (scope, session_key, entry_json, updated_at) VALUES (?, ?, ?, ?)',
			)
			.run(scope, sessionKey, JSON.stringify(entry), updatedAt);
	}

	exec(sql: string): void {
		this.db.exec(sql);
	}

	/** A clean close: the last connection checkpoints and removes -wal/-shm. */
	close(): void {
		this.db.close();
	}
}
