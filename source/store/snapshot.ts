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

/** Which columns a read needs: `lean` for the forensic engine alone (scan), `full` adds what views display. */
export type ColumnSet = 'lean' | 'full';

type Column = {field: string; column: string; fallback: string; views?: true};

/** In this order after id and source; the row mapper reads them by index. */
const SESSION_COLUMNS: readonly Column[] = [
	{field: 'user_id', column: 'user_id', fallback: 'NULL'},
	{field: 'session_key', column: 'session_key', fallback: 'NULL'},
	{field: 'chat_id', column: 'chat_id', fallback: 'NULL'},
	{field: 'chat_type', column: 'chat_type', fallback: 'NULL'},
	{field: 'thread_id', column: 'thread_id', fallback: 'NULL'},
	{field: 'parent_session_id', column: 'parent_session_id', fallback: 'NULL'},
	{field: 'started_at', column: 'started_at', fallback: 'NULL'},
	{field: 'ended_at', column: 'ended_at', fallback: 'NULL'},
	{field: 'end_reason', column: 'end_reason', fallback: 'NULL'},
	{field: 'message_count', column: 'message_count', fallback: '0'},
	{field: 'last_activity_at', column: 'last_activity_at', fallback: 'NULL'},
	{field: 'profile_name', column: 'profile_name', fallback: 'NULL'},
	{field: 'handoff_state', column: 'handoff_state', fallback: 'NULL'},
	{field: 'display_name', column: 'display_name', fallback: 'NULL', views: true},
	{field: 'origin_json', column: 'origin_json', fallback: 'NULL', views: true},
	{field: 'title', column: 'title', fallback: 'NULL', views: true},
	{field: 'model', column: 'model', fallback: 'NULL', views: true},
	{field: 'input_tokens', column: 'input_tokens', fallback: '0', views: true},
	{field: 'output_tokens', column: 'output_tokens', fallback: '0', views: true},
	{field: 'cache_read_tokens', column: 'cache_read_tokens', fallback: '0', views: true},
	{field: 'cache_write_tokens', column: 'cache_write_tokens', fallback: '0', views: true},
	{field: 'reasoning_tokens', column: 'reasoning_tokens', fallback: '0', views: true},
	{field: 'tool_call_count', column: 'tool_call_count', fallback: '0', views: true},
];

const WINDOW = `BETWEEN ${EPOCH_MIN.toFixed(1)} AND ${EPOCH_MAX.toFixed(1)}`;

/**
 * The three lineage markers as one JSON array ([branched, delegate, reset]), parsed once per row
 * and only when the text mentions a marker. Invalid or NULL JSON counts as "no marker", as in
 * Hermes. (Hermes writes keys with json.dumps, never escaped, so the substring test is exact.)
 */
function markersColumn(schema: SchemaInfo): string {
	if (!schema.sessionColumns.has('model_config')) {
		return 'NULL AS markers';
	}

	return 'CASE WHEN instr(s.model_config, \'_from"\') > 0 AND json_valid(s.model_config) THEN json_extract(s.model_config, \'$._branched_from\', \'$._delegate_from\', \'$._reset_from\') END AS markers';
}

/** The selected columns (in order) for a column set. */
function selected(set: ColumnSet): readonly Column[] {
	return set === 'full' ? SESSION_COLUMNS : SESSION_COLUMNS.filter(c => !c.views);
}

/**
 * The sessions query for this schema. Exported so the benchmark can hand the same SQL to the
 * sqlite3 CLI. `paged` adds keyset paging by rowid (one page per call). Rows are read as arrays
 * (`.raw()`) and mapped by `rowMapper` in the same column order.
 */
export function sessionsSql(schema: SchemaInfo, options: {paged?: boolean; messageStats?: boolean; columns?: ColumnSet; where?: string; signature?: boolean} = {}): string {
	const cols = selected(options.columns ?? 'full').map(c => `${schema.sessionColumns.has(c.column) ? `s.${c.column}` : c.fallback} AS ${c.field}`);
	const stats = options.messageStats ?? true;
	const where = [options.where, options.paged ? 's.rowid > ?' : undefined].filter(Boolean);
	return [
		'SELECT s.rowid AS rowid_, s.id AS id, s.source AS source,',
		`  ${cols.join(',\n  ')},`,
		`  ${markersColumn(schema)}${stats || options.signature ? ',' : ''}`,
		...(stats ? [messageStatsColumns(schema) + (options.signature ? ',' : '')] : []),
		...(options.signature ? [`  ${signatureExpr(schema)} AS signature_`] : []),
		'FROM sessions s',
		...(where.length > 0 ? [`WHERE ${where.join(' AND ')}`] : []),
		...(options.paged ? [`ORDER BY s.rowid LIMIT ${PAGE_ROWS}`] : []),
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

/** The message facts of one session, for incremental refreshes (named parameter @id). */
export function sessionStatsSql(schema: SchemaInfo): string {
	return `SELECT\n${messageStatsColumns(schema, '@id')}`;
}

/** Columns whose change marks a session row as changed (what Hermes updates in place). */
const SIGNATURE_COLUMNS = ['ended_at', 'end_reason', 'session_key', 'message_count', 'last_activity_at', 'parent_session_id', 'title', 'chat_id', 'user_id', 'profile_name', 'handoff_state', 'input_tokens', 'output_tokens'];

/**
 * A cheap scan for the live view: per row, its id and one text SQLite builds from the mutable
 * columns (quote() keeps NULL, '' and numbers apart), to find the rows that changed.
 */
export function signatureSql(schema: SchemaInfo): string {
	return `SELECT s.id, ${signatureExpr(schema)} FROM sessions s`;
}

/** The signature of one row, as an expression over `s` (also read with a full snapshot). */
export function signatureExpr(schema: SchemaInfo): string {
	const cols = SIGNATURE_COLUMNS.filter(c => schema.sessionColumns.has(c)).map(c => `quote(s.${c})`);
	return cols.length > 0 ? cols.join(' || \',\' || ') : '\'\'';
}

/** Sessions read per page; the read transaction is re-checked against its budget between pages. */
export const PAGE_ROWS = 4000;

function text(v: unknown): string | null {
	if (v === null || v === undefined) {
		return null;
	}

	return typeof v === 'string' ? v : (typeof v === 'object' && !Buffer.isBuffer(v) ? JSON.stringify(v) : String(v));
}

function count(v: unknown): number {
	return typeof v === 'number' && Number.isFinite(v) ? v : (typeof v === 'bigint' ? Number(v) : 0);
}

function cell(v: unknown): Cell {
	return v === undefined ? null : v as Cell;
}

function parseMarkers(v: unknown): [string | null, string | null, string | null] {
	if (typeof v !== 'string') {
		return [null, null, null];
	}

	try {
		const parsed = JSON.parse(v) as unknown[];
		return [text(parsed[0]), text(parsed[1]), text(parsed[2])];
	} catch {
		return [null, null, null];
	}
}

/**
 * Maps raw rows of `sessionsSql(schema, {columns})` (rowid, id, source, columns…, markers[, has_rows,
 * newest_message_at]) to records. Absent view columns read as null/0.
 */
export function rowMapper(set: ColumnSet, stats = true): (row: unknown[]) => SessionRecord {
	const cols = selected(set);
	const at = new Map(cols.map((c, i) => [c.field, i + 3]));
	const markersAt = 3 + cols.length;
	const get = (row: unknown[], field: string): unknown => {
		const i = at.get(field);
		return i === undefined ? undefined : row[i];
	};

	return row => {
		const [branchedFrom, delegateFrom, resetFrom] = parseMarkers(row[markersAt]);
		return {
			id: String(row[1]),
			source: text(row[2]) ?? '',
			userId: text(get(row, 'user_id')),
			sessionKey: text(get(row, 'session_key')),
			chatId: text(get(row, 'chat_id')),
			chatType: text(get(row, 'chat_type')),
			threadId: text(get(row, 'thread_id')),
			displayName: text(get(row, 'display_name')),
			originJson: text(get(row, 'origin_json')),
			parentSessionId: text(get(row, 'parent_session_id')),
			startedAtRaw: cell(get(row, 'started_at')),
			endedAtRaw: cell(get(row, 'ended_at')),
			lastActivityAtRaw: cell(get(row, 'last_activity_at')),
			endReason: text(get(row, 'end_reason')),
			messageCountColumn: count(get(row, 'message_count')),
			hasMessageRows: stats ? Boolean(row[markersAt + 1]) : false,
			newestMessageAt: stats && typeof row[markersAt + 2] === 'number' ? row[markersAt + 2] as number : null,
			messageRows: null,
			profileName: text(get(row, 'profile_name')),
			handoffState: text(get(row, 'handoff_state')),
			title: text(get(row, 'title')),
			model: text(get(row, 'model')),
			branchedFrom,
			delegateFrom,
			resetFrom,
			inputTokens: count(get(row, 'input_tokens')),
			outputTokens: count(get(row, 'output_tokens')),
			cacheReadTokens: count(get(row, 'cache_read_tokens')),
			cacheWriteTokens: count(get(row, 'cache_write_tokens')),
			reasoningTokens: count(get(row, 'reasoning_tokens')),
			toolCallCount: count(get(row, 'tool_call_count')),
		};
	};
}

export function routingSql(schema: SchemaInfo): string | null {
	if (!schema.tables.has('gateway_routing') || !schema.routingColumns.has('session_key') || !schema.routingColumns.has('entry_json')) {
		return null;
	}

	const scope = schema.routingColumns.has('scope') ? 'scope' : '\'\'';
	const updated = schema.routingColumns.has('updated_at') ? 'updated_at' : 'NULL';
	return `SELECT ${scope} AS scope, session_key, entry_json, ${updated} AS updated_at FROM gateway_routing`;
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
	/** Row signatures by session id, when asked for (ReadOptions.signatures). */
	signatures?: Map<string, string>;
};

export type ReadOptions = {
	/** Longest a single read transaction may stay open (it pins the owner's WAL meanwhile, H6). */
	transactionBudgetMs?: number;
	/** `lean` (default for scans) reads only what the forensic engine uses; views need `full`. */
	columns?: ColumnSet;
	/**
	 * Also read each row's change signature (see signatureSql) in the same statement: the live
	 * store's baseline, consistent with the rows, and no second pass over the table.
	 */
	signatures?: boolean;
};

export const DEFAULT_TRANSACTION_BUDGET_MS = 2000;

export function readSnapshot(store: ReadOnlyStore, schema: SchemaInfo, owner: string | null, options: ReadOptions = {}): {snapshot: Snapshot; meta: SnapshotMeta} {
	const budget = options.transactionBudgetMs ?? DEFAULT_TRANSACTION_BUDGET_MS;
	const started = performance.now();
	const columns = options.columns ?? 'full';
	const page = store.prepare(sessionsSql(schema, {paged: true, columns, signature: options.signatures})).raw(true);
	const map = rowMapper(columns);
	const sessions: SessionRecord[] = [];
	const signatures = options.signatures ? new Map<string, string>() : undefined;
	let transactions = 1;
	let txStarted = started;
	let lastRowid = Number.MIN_SAFE_INTEGER;
	store.db.exec('BEGIN');
	try {
		for (;;) {
			const rows = page.all(lastRowid) as unknown[][];
			for (const r of rows) {
				const record = map(r);
				sessions.push(record);
				signatures?.set(record.id, r.at(-1) as string);
			}

			if (rows.length < PAGE_ROWS) {
				break;
			}

			lastRowid = rows.at(-1)![0] as number;
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
			meta: {dataVersion, messageHighWater: typeof high === 'number' ? high : null, readMs: performance.now() - started, consistentSnapshot: transactions === 1, transactions, signatures},
		};
	} finally {
		if (store.db.inTransaction) {
			store.db.exec('COMMIT');
		}
	}
}
