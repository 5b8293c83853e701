/**
 * On-demand reads for one session: its latest messages and the facts of Hermes' session card
 * (turns, model usage per range of turns, where a branch left its parent). Each call is one short
 * read transaction.
 */
import type {ReadOnlyStore} from '../open/open.js';
import type {SchemaInfo} from '../open/schema.js';

export type MessageRow = {
	id: number;
	role: string;
	text: string;
	timestamp: number | null;
	toolName: string | null;
	tokenCount: number | null;
	/** Not part of the live transcript (compacted away). */
	inactive: boolean;
};

export type ModelRange = {
	model: string;
	firstTurn: number | null;
	lastTurn: number | null;
	calls: number;
	inputTokens: number;
	outputTokens: number;
};

export type SessionDetail = {
	messages: MessageRow[];
	/** Message rows in total (an index range count for one session). */
	messageRows: number;
	turns: number;
	models: ModelRange[];
	/** For a branch child: how many user turns its parent had when the branch started. */
	branchedAtTurn: number | null;
};

export const JSON_CONTENT_PREFIX = '\u0000json:';

/** Hermes stores structured content as "\x00json:" + JSON; show it as text. */
export function decodeContent(raw: unknown): string {
	if (raw === null || raw === undefined) {
		return '';
	}

	if (Buffer.isBuffer(raw)) {
		return `<${raw.length} bytes>`;
	}

	const text = String(raw);
	if (!text.startsWith(JSON_CONTENT_PREFIX)) {
		return text;
	}

	try {
		const value: unknown = JSON.parse(text.slice(JSON_CONTENT_PREFIX.length));
		const parts = Array.isArray(value) ? value : [value];
		return parts
			.map(p => {
				if (typeof p === 'string') {
					return p;
				}

				if (p && typeof p === 'object') {
					const o = p as Record<string, unknown>;
					if (typeof o.text === 'string') {
						return o.text;
					}

					return `[${typeof o.type === 'string' ? o.type : 'part'}]`;
				}

				return String(p);
			})
			.join(' ');
	} catch {
		return `[structured content, invalid JSON: ${text.length - JSON_CONTENT_PREFIX.length} chars]`;
	}
}

function col(schema: SchemaInfo, name: string, fallback = 'NULL'): string {
	return schema.messageColumns.has(name) ? name : `${fallback} AS ${name}`;
}

type DetailOptions = {limit?: number; parentId?: string | null; startedAt?: number | null; branch?: boolean};

export function readSessionDetail(
	store: ReadOnlyStore,
	schema: SchemaInfo,
	sessionId: string,
	options: DetailOptions = {},
): SessionDetail {
	return store.read(() => {
		const messages = latestMessages(store, schema, sessionId, options.limit ?? 200);
		const messageRows = store
			.prepare('SELECT count(*) FROM messages WHERE session_id = ?')
			.pluck()
			.get(sessionId) as number;
		const hasRole = schema.messageColumns.has('role');
		const hasTs = schema.messageColumns.has('timestamp');
		const userTimes =
			hasRole && hasTs
				? (
						store
							.prepare("SELECT timestamp FROM messages WHERE session_id = ? AND role = 'user' ORDER BY timestamp")
							.pluck()
							.all(sessionId) as unknown[]
					).filter((t): t is number => typeof t === 'number')
				: [];
		const models = schema.tables.has('session_model_usage') ? modelRanges(store, sessionId, userTimes) : [];
		const branchedAtTurn = hasRole && hasTs ? branchTurn(store, options) : null;
		return {messages, messageRows, turns: userTimes.length, models, branchedAtTurn};
	});
}

/** The session's latest `limit` messages, oldest first. */
function latestMessages(store: ReadOnlyStore, schema: SchemaInfo, sessionId: string, limit: number): MessageRow[] {
	const rows = store
		.prepare(
			`SELECT rowid AS ` +
				`id, ${col(schema, 'role', "'?'")}, ${col(schema, 'content')}, ${col(schema, 'timestamp')}, ` +
				`${col(schema, 'tool_name')}, ${col(schema, 'token_count')}, ${col(schema, 'active', '1')} ` +
				`FROM messages WHERE session_id = ? ORDER BY rowid DESC LIMIT ?`,
		)
		.all(sessionId, limit) as Array<Record<string, unknown>>;
	return rows.reverse().map(r => ({
		id: Number(r.id),
		role: String(r.role ?? '?'),
		text: decodeContent(r.content),
		timestamp: typeof r.timestamp === 'number' ? r.timestamp : null,
		toolName: typeof r.tool_name === 'string' ? r.tool_name : null,
		tokenCount: typeof r.token_count === 'number' ? r.token_count : null,
		inactive: r.active === 0,
	}));
}

/** Model usage per model, its first and last use as user turns (how many user messages came by then). */
function modelRanges(store: ReadOnlyStore, sessionId: string, userTimes: readonly number[]): ModelRange[] {
	const turnAt = (t: number | null): number | null => (t === null ? null : userTimes.filter(u => u <= t).length);
	const usage = store
		.prepare(
			'SELECT model, sum(api_call_count) AS calls, sum(input_tokens) AS input, ' +
				'sum(output_tokens) AS output, min(first_seen) AS first, max(last_seen) ' +
				'AS last FROM session_model_usage WHERE session_id = ? GROUP BY model ' +
				'ORDER BY min(first_seen)',
		)
		.all(sessionId) as Array<Record<string, unknown>>;
	return usage.map(u => ({
		model: String(u.model),
		firstTurn: turnAt(typeof u.first === 'number' ? u.first : null),
		lastTurn: turnAt(typeof u.last === 'number' ? u.last : null),
		calls: Number(u.calls ?? 0),
		inputTokens: Number(u.input ?? 0),
		outputTokens: Number(u.output ?? 0),
	}));
}

/** For a branch child: how many user turns its parent had when the branch started (null otherwise). */
function branchTurn(store: ReadOnlyStore, options: DetailOptions): number | null {
	if (!options.branch || !options.parentId || options.startedAt === null || options.startedAt === undefined) {
		return null;
	}

	return store
		.prepare("SELECT count(*) FROM messages WHERE session_id = ? AND role = 'user' AND timestamp <= ?")
		.pluck()
		.get(options.parentId, options.startedAt) as number;
}
