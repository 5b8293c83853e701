/**
 * Snapshot queries: one short read transaction that reads what the forensic engine needs,
 * adapted to the columns this file actually has. Every per-session message lookup is an index
 * seek on (session_id, timestamp); there is no full-table count on this path.
 */
import type {ReadOnlyStore} from './open.js';
import type {SchemaInfo} from './schema.js';
import {EPOCH_MAX, EPOCH_MIN} from '../forensics/time.js';
import {type Cell, type RoutingEntry, type SessionRecord, type Snapshot} from '../forensics/types.js';
import {isOrphanCandidate} from '../forensics/orphans.js';

type Column = {field: string; column: string; fallback: string};

const SESSION_COLUMNS: Column[] = [
	{field: 'user_id', column: 'user_id', fallback: 'NULL'},
	{field: 'session_key', column: 'session_key', fallback: 'NULL'},
	{field: 'chat_id', column: 'chat_id', fallback: 'NULL'},
	{field: 'chat_type', column: 'chat_type', fallback: 'NULL'},
	{field: 'thread_id', column: 'thread_id', fallback: 'NULL'},
	{field: 'display_name', column: 'display_name', fallback: 'NULL'},
	{field: 'origin_json', column: 'origin_json', fallback: 'NULL'},
	{field: 'parent_session_id', column: 'parent_session_id', fallback: 'NULL'},
	{field: 'started_at', column: 'started_at', fallback: 'NULL'},
	{field: 'ended_at', column: 'ended_at', fallback: 'NULL'},
	{field: 'end_reason', column: 'end_reason', fallback: 'NULL'},
	{field: 'message_count', column: 'message_count', fallback: '0'},
	{field: 'last_activity_at', column: 'last_activity_at', fallback: 'NULL'},
	{field: 'profile_name', column: 'profile_name', fallback: 'NULL'},
	{field: 'handoff_state', column: 'handoff_state', fallback: 'NULL'},
	{field: 'title', column: 'title', fallback: 'NULL'},
	{field: 'model', column: 'model', fallback: 'NULL'},
	{field: 'input_tokens', column: 'input_tokens', fallback: '0'},
	{field: 'output_tokens', column: 'output_tokens', fallback: '0'},
	{field: 'cache_read_tokens', column: 'cache_read_tokens', fallback: '0'},
	{field: 'cache_write_tokens', column: 'cache_write_tokens', fallback: '0'},
	{field: 'reasoning_tokens', column: 'reasoning_tokens', fallback: '0'},
	{field: 'tool_call_count', column: 'tool_call_count', fallback: '0'},
];

const WINDOW = `BETWEEN ${EPOCH_MIN.toFixed(1)} AND ${EPOCH_MAX.toFixed(1)}`;

function marker(schema: SchemaInfo, path: string): string {
	if (!schema.sessionColumns.has('model_config')) {
		return 'NULL';
	}

	// Invalid or NULL JSON counts as "no marker", as in Hermes.
	return `json_extract(CASE WHEN json_valid(s.model_config) THEN s.model_config ELSE '{}' END, '${path}')`;
}

/**
 * The sessions query for this schema. Exported so the benchmark can hand the same SQL to the
 * sqlite3 CLI. `paged` adds keyset paging by rowid (one page per call).
 */
export function sessionsSql(schema: SchemaInfo, options: {paged?: boolean; messageStats?: boolean} = {}): string {
	const cols = SESSION_COLUMNS.map(c => `${schema.sessionColumns.has(c.column) ? `s.${c.column}` : c.fallback} AS ${c.field}`);
	const stats = options.messageStats ?? true;
	return [
		`SELECT ${options.paged ? 's.rowid AS rowid_, ' : ''}s.id AS id, s.source AS source,`,
		`  ${cols.join(',\n  ')},`,
		`  ${marker(schema, '$._branched_from')} AS branched_from,`,
		`  ${marker(schema, '$._delegate_from')} AS delegate_from,`,
		`  ${marker(schema, '$._reset_from')} AS reset_from${stats ? ',' : ''}`,
		...(stats ? [messageStatsColumns(schema)] : []),
		'FROM sessions s',
		...(options.paged ? [`WHERE s.rowid > ? ORDER BY s.rowid LIMIT ${PAGE_ROWS}`] : []),
	].join('\n');
}

/** Per-session message facts: two index seeks on (session_id, timestamp). */
function messageStatsColumns(schema: SchemaInfo, id = 's.id'): string {
	const hasTs = schema.messageColumns.has('timestamp');
	return [
		`  EXISTS (SELECT 1 FROM messages m WHERE m.session_id = ${id}) AS has_rows,`,
		hasTs
			? `  (SELECT max(m.timestamp) FROM messages m WHERE m.session_id = ${id} AND m.timestamp ${WINDOW}) AS newest_message_at`
			: '  NULL AS newest_message_at',
	].join('\n');
}

/** The message facts of one session, for incremental refreshes. */
export function sessionStatsSql(schema: SchemaInfo): string {
	return `SELECT\n${messageStatsColumns(schema, '@id')}`;
}

/** Sessions read per page; the read transaction is re-checked against its budget between pages. */
export const PAGE_ROWS = 4000;

export function routingSql(schema: SchemaInfo): string | null {
	if (!schema.tables.has('gateway_routing') || !schema.routingColumns.has('session_key') || !schema.routingColumns.has('entry_json')) {
		return null;
	}

	const scope = schema.routingColumns.has('scope') ? 'scope' : '\'\'';
	const updated = schema.routingColumns.has('updated_at') ? 'updated_at' : 'NULL';
	return `SELECT ${scope} AS scope, session_key, entry_json, ${updated} AS updated_at FROM gateway_routing`;
}

function text(v: unknown): string | null {
	if (v === null || v === undefined) {
		return null;
	}

	return typeof v === 'string' ? v : String(v);
}

function count(v: unknown): number {
	return typeof v === 'number' && Number.isFinite(v) ? v : (typeof v === 'bigint' ? Number(v) : 0);
}

function cell(v: unknown): Cell {
	if (v === undefined) {
		return null;
	}

	return v as Cell;
}

export function toSessionRecord(r: Record<string, unknown>): SessionRecord {
	return {
		id: String(r.id),
		source: text(r.source) ?? '',
		userId: text(r.user_id),
		sessionKey: text(r.session_key),
		chatId: text(r.chat_id),
		chatType: text(r.chat_type),
		threadId: text(r.thread_id),
		displayName: text(r.display_name),
		originJson: text(r.origin_json),
		parentSessionId: text(r.parent_session_id),
		startedAtRaw: cell(r.started_at),
		endedAtRaw: cell(r.ended_at),
		lastActivityAtRaw: cell(r.last_activity_at),
		endReason: text(r.end_reason),
		messageCountColumn: count(r.message_count),
		hasMessageRows: Boolean(r.has_rows),
		newestMessageAt: typeof r.newest_message_at === 'number' ? r.newest_message_at : null,
		messageRows: null,
		profileName: text(r.profile_name),
		handoffState: text(r.handoff_state),
		title: text(r.title),
		model: text(r.model),
		branchedFrom: text(r.branched_from),
		delegateFrom: text(r.delegate_from),
		resetFrom: text(r.reset_from),
		inputTokens: count(r.input_tokens),
		outputTokens: count(r.output_tokens),
		cacheReadTokens: count(r.cache_read_tokens),
		cacheWriteTokens: count(r.cache_write_tokens),
		reasoningTokens: count(r.reasoning_tokens),
		toolCallCount: count(r.tool_call_count),
	};
}

export function toRoutingEntry(r: Record<string, unknown>): RoutingEntry {
	const base = {scope: text(r.scope) ?? '', sessionKey: String(r.session_key), updatedAt: typeof r.updated_at === 'number' ? r.updated_at : null};
	const raw = r.entry_json;
	try {
		const parsed: unknown = JSON.parse(String(raw));
		const id = parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>).session_id : undefined;
		if (typeof id === 'string' && id) {
			return {...base, sessionId: id, problem: null};
		}

		return {...base, sessionId: null, problem: 'entry_json has no session_id'};
	} catch {
		return {...base, sessionId: null, problem: 'entry_json is not valid JSON'};
	}
}

export type SnapshotMeta = {
	dataVersion: number;
	/** Highest message id (an index seek, not a count). */
	messageHighWater: number | null;
	readMs: number;
	/** False when the read outgrew its transaction budget and continued in a new transaction. */
	consistentSnapshot: boolean;
	transactions: number;
};

export type ReadOptions = {
	/** Longest a single read transaction may stay open (it pins the owner's WAL meanwhile, H6). */
	transactionBudgetMs?: number;
};

export const DEFAULT_TRANSACTION_BUDGET_MS = 2000;

export function readSnapshot(store: ReadOnlyStore, schema: SchemaInfo, owner: string | null, options: ReadOptions = {}): {snapshot: Snapshot; meta: SnapshotMeta} {
	const budget = options.transactionBudgetMs ?? DEFAULT_TRANSACTION_BUDGET_MS;
	const started = performance.now();
	const page = store.prepare(sessionsSql(schema, {paged: true}));
	const sessions: SessionRecord[] = [];
	let transactions = 1;
	let txStarted = started;
	let lastRowid = Number.MIN_SAFE_INTEGER;
	store.db.exec('BEGIN');
	try {
		for (;;) {
			const rows = page.all(lastRowid) as Array<Record<string, unknown>>;
			for (const r of rows) {
				sessions.push(toSessionRecord(r));
			}

			if (rows.length < PAGE_ROWS) {
				break;
			}

			lastRowid = rows.at(-1)!.rowid_ as number;
			if (performance.now() - txStarted > budget) {
				// End this snapshot so the owner can checkpoint; continue in a fresh one.
				store.db.exec('COMMIT');
				store.db.exec('BEGIN');
				transactions++;
				txStarted = performance.now();
			}
		}

		// Hermes counts an orphan's messages with COUNT(*); only candidates pay for it.
		const countStmt = store.prepare('SELECT count(*) FROM messages WHERE session_id = ?').pluck();
		for (const s of sessions) {
			if (isOrphanCandidate(s)) {
				s.messageRows = countStmt.get(s.id) as number;
			}
		}

		const rSql = routingSql(schema);
		const routing = rSql ? (store.prepare(rSql).all() as Array<Record<string, unknown>>).map(toRoutingEntry) : [];
		const high = store.prepare('SELECT max(rowid) FROM messages').pluck().get();
		const dataVersion = store.dataVersion();
		return {
			snapshot: {sessions, routing, owner, ruleSet: schema.ruleSet},
			meta: {dataVersion, messageHighWater: typeof high === 'number' ? high : null, readMs: performance.now() - started, consistentSnapshot: transactions === 1, transactions},
		};
	} finally {
		if (store.db.inTransaction) {
			store.db.exec('COMMIT');
		}
	}
}
