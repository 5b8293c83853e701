/**
 * Snapshot queries: one short read transaction that reads what the forensic engine needs,
 * adapted to the columns this file actually has. Every per-session message lookup is an index
 * seek on (session_id, timestamp); there is no full-table count on this path.
 */
import type {ReadOnlyStore} from '../open/open.js';
import {type SchemaInfo, quoteIdentifier} from '../open/schema.js';
import {type RestartProbeReader, readRestartProbes} from './restart-probes.js';
import {EPOCH_MAX, EPOCH_MIN, inWindow} from '../../forensics/time.js';
import type {Cell, RoutingEntry, SessionRecord, Snapshot} from '../../forensics/types.js';
import {needsMessageCount} from '../../forensics/routing/orphans.js';
import {chatScopeWhere, hitScopeRowids, scopeRowids} from './chat-scope-where.js';
import {drain} from '../../forensics/analysis/steps.js';
import {StringPool} from '../../text/interned.js';

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
	{field: 'title', column: 'title', fallback: 'NULL', views: true},
	{field: 'model', column: 'model', fallback: 'NULL', views: true},
	// Read by scans too: a phantom source='unknown' row is told by its accounting totals
	// (forensics/signatures/session-signatures.ts).
	{field: 'input_tokens', column: 'input_tokens', fallback: '0'},
	{field: 'output_tokens', column: 'output_tokens', fallback: '0'},
	{field: 'cache_read_tokens', column: 'cache_read_tokens', fallback: '0', views: true},
	{field: 'cache_write_tokens', column: 'cache_write_tokens', fallback: '0', views: true},
	{field: 'reasoning_tokens', column: 'reasoning_tokens', fallback: '0', views: true},
	{field: 'tool_call_count', column: 'tool_call_count', fallback: '0', views: true},
];

const WINDOW = `BETWEEN ${EPOCH_MIN.toFixed(1)} AND ${EPOCH_MAX.toFixed(1)}`;

/**
 * The three lineage markers as one JSON array ([branched, delegate, reset]), parsed once per row
 * and only when the text mentions a marker. Invalid or NULL JSON counts as "no marker", as in
 * current Hermes (json_valid guards it); an invalid cell reads as '!'. (Hermes writes keys with json.dumps, never
 * escaped, so the substring test is exact.)
 */
function markersColumn(schema: SchemaInfo): string {
	if (!schema.sessionColumns.has('model_config')) {
		return 'NULL AS markers';
	}

	// '!' marks a cell that is set but not JSON: v25's repair-routing fails on it
	// (docs/hermes-rules.md, generations).
	return (
		'CASE WHEN s.model_config IS NULL THEN NULL WHEN NOT ' +
		"json_valid(s.model_config) THEN '!' WHEN instr(s.model_config, " +
		"'_from\"') > 0 THEN json_extract(s.model_config, '$._branched_from', " +
		"'$._delegate_from', '$._reset_from') END AS markers"
	);
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
export function sessionsSql(
	schema: SchemaInfo,
	options: {paged?: boolean; messageStats?: boolean; columns?: ColumnSet; where?: string; keylessRows?: boolean} = {},
): string {
	// A loop, not a callback made per call: this runs every refresh, and a callback made per call loses its optimised
	// code at each mark-compact (issue #26, test/live/optimised-code.test.ts).
	const cols: string[] = [];
	for (const c of selected(options.columns ?? 'full')) {
		cols.push(`${schema.sessionColumns.has(c.column) ? `s.${c.column}` : c.fallback} AS ${c.field}`);
	}

	const stats = options.messageStats ?? true;
	const where = [options.where, options.paged ? 's.rowid > ?' : undefined].filter(Boolean);
	const tail = [
		`  ${markersColumn(schema)}`,
		...(stats ? messageStatsColumns(schema) : []),
		...(stats && options.keylessRows ? [`  ${keylessRowsColumn(schema)}`] : []),
	];
	return [
		'SELECT s.rowid AS rowid_, s.id AS id, s.source AS source,',
		`  ${cols.join(',\n  ')},`,
		tail.join(',\n'),
		'FROM sessions s',
		...(where.length > 0 ? [`WHERE ${where.join(' AND ')}`] : []),
		...(options.paged ? [`ORDER BY s.rowid LIMIT ${PAGE_ROWS}`] : []),
	].join('\n');
}

/**
 * Per-session message facts with one index seek on (session_id, timestamp): the newest message
 * inside the plausible-time window. A session with such a message has rows; one without it may
 * still have some (NULL, text or out-of-window timestamps): `has_rows` is NULL then, and
 * `settleMessageRows` asks those few with an EXISTS in the same read transaction.
 */
function messageStatsColumns(schema: SchemaInfo): string[] {
	if (!schema.messageColumns.has('timestamp')) {
		return ['  EXISTS (SELECT 1 FROM messages m WHERE m.session_id = s.id) AS has_rows', '  NULL AS newest_message_at'];
	}

	// The newest cell in SQLite's order (raw, as v25 reads it): one seek. Only when it is outside the
	// window (rare: TEXT, a salvaged double) does the settler seek the newest in-window one.
	return [
		'  NULL AS has_rows',
		'  (SELECT m.timestamp FROM messages m WHERE m.session_id = s.id ORDER ' +
			'BY m.timestamp DESC LIMIT 1) AS newest_message_raw',
	];
}

/** The rows a keyless row's message count covers (repair-routing lists every keyless row but tool rows). */
function keylessWhere(schema: SchemaInfo, s: string): string {
	return (
		`${schema.sessionColumns.has('session_key') ? `${s}.session_key IS NULL AND ` : ''}` +
		`COALESCE(${s}.source, '') != 'tool'`
	);
}

/**
 * COUNT(*) of a keyless row's messages (tool rows aside; NULL for every other row), in the page's own statement
 * (`keylessRows`, the last column): from the (session_id, timestamp) index the newest-message seek of the same row
 * has just walked to, so the count reads the index pages that seek brought in. As its own grouped query
 * (keylessMessageRows) SQLite chose the narrower (session_id, id) index and read every keyless row's entries
 * from a second index. Measured on the bench store (1,050,000 messages; 195,410 of them in 6,418 keyless rows), machine
 * under load (average 12 on 2 cores), before -> after: the sqlite3 CLI running the pages and that query, 19,600 ->
 * 12,400 pread calls and 0.28 -> 0.18 s of CPU (median of 8, interleaved); the same in a fresh Node process through
 * better-sqlite3, 305-345 -> 245-280 ms of main-thread CPU (6 interleaved); `hfx scan --json`, 19,506 -> 13,250 preads.
 */
function keylessRowsColumn(schema: SchemaInfo): string {
	const index = schema.messageTimeIndex ? ` INDEXED BY ${quoteIdentifier(schema.messageTimeIndex)}` : '';
	return (
		`CASE WHEN ${keylessWhere(schema, 's')} THEN (SELECT count(*) FROM messages m${index} ` +
		'WHERE m.session_id = s.id) END AS keyless_rows'
	);
}

/**
 * Completes `hasMessageRows` for records read by sessionsSql: sessions with no in-window message
 * get one EXISTS seek (most sessions have a newest message and need none). Call inside the read
 * transaction the rows came from.
 */
export function messageRowsSettler(store: ReadOnlyStore): (record: SessionRecord) => void {
	// A module function bound to the read's statements, not a closure made per read: it runs on every row, and a
	// closure made per call loses its optimised code at each mark-compact (issue #26).
	return settleRowOf.bind(null, {store, exists: undefined, inWindow: undefined});
}

/** A read's statements of messageRowsSettler, each prepared when first needed. */
type Settling = {
	store: ReadOnlyStore;
	exists: ReturnType<ReadOnlyStore['prepare']> | undefined;
	inWindow: ReturnType<ReadOnlyStore['prepare']> | undefined;
};

function settleRowOf(settling: Settling, record: SessionRecord): void {
	// Each prepared when first needed: a live refresh opens a connection per read, and most of its rows need neither.
	if (!record.hasMessageRows && record.newestMessageAt === null) {
		settling.exists ??= settling.store.prepare('SELECT 1 FROM messages WHERE session_id = ? LIMIT 1').pluck();
		record.hasMessageRows = settling.exists.get(record.id) !== undefined;
	}

	if (record.newestMessageRaw !== null && record.newestMessageAt === null) {
		settling.inWindow ??= settling.store
			.prepare(
				`SELECT m.timestamp FROM messages m WHERE m.session_id = ? AND ` +
					`m.timestamp ${WINDOW} ORDER BY m.timestamp DESC LIMIT 1`,
			)
			.pluck();
		const newest = settling.inWindow.get(record.id);
		record.newestMessageAt = typeof newest === 'number' ? newest : null;
	}
}

/**
 * The columns Hermes updates in place, and the record field each one becomes. A row whose values
 * here still map to what its record holds has not changed in any way the views or the engine see.
 */
const SIGNATURE_COLUMNS: ReadonlyArray<{column: string; same: (r: SessionRecord, v: unknown) => boolean}> = [
	{column: 'ended_at', same: (r, v) => sameCell(r.endedAtRaw, v)},
	{column: 'end_reason', same: (r, v) => r.endReason === text(v)},
	{column: 'session_key', same: (r, v) => r.sessionKey === text(v)},
	{column: 'message_count', same: (r, v) => r.messageCountColumn === count(v)},
	{column: 'last_activity_at', same: (r, v) => sameCell(r.lastActivityAtRaw, v)},
	{column: 'parent_session_id', same: (r, v) => r.parentSessionId === text(v)},
	{column: 'title', same: (r, v) => r.title === text(v)},
	{column: 'chat_id', same: (r, v) => r.chatId === text(v)},
	{column: 'user_id', same: (r, v) => r.userId === text(v)},
	{column: 'profile_name', same: (r, v) => r.profileName === text(v)},
	{column: 'handoff_state', same: (r, v) => r.handoffState === text(v)},
	{column: 'input_tokens', same: (r, v) => r.inputTokens === count(v)},
	{column: 'output_tokens', same: (r, v) => r.outputTokens === count(v)},
];

function sameCell(a: Cell, v: unknown): boolean {
	return a === cell(v) || (Buffer.isBuffer(a) && Buffer.isBuffer(v) && a.equals(v));
}

/**
 * A cheap scan for the live view: per row, its id and the columns Hermes updates in place; a row
 * for which `rowMatches` is false must be re-read. (The records themselves are the baseline: no
 * second copy of 20,000 rows, and nothing to format.)
 */
export function signatureSql(schema: SchemaInfo, rows: 'all' | 'slice' | 'ids' = 'all'): string {
	const columns = SIGNATURE_COLUMNS.filter(c => schema.sessionColumns.has(c.column))
		.map(c => `, s.${c.column}`)
		.join('');
	// A slice: the rows after a rowid, in rowid order, at most a number of them; the rowid last. Ids: the rows of the
	// ids in a JSON array (hot-rows-sweep.ts), each a seek on the id's index.
	switch (rows) {
		case 'slice':
			return `SELECT s.id${columns}, s.rowid FROM sessions s WHERE s.rowid > ? ORDER BY s.rowid LIMIT ?`;
		case 'ids':
			return `SELECT s.id${columns} FROM sessions s WHERE s.id IN (SELECT value FROM json_each(?))`;
		default:
			return `SELECT s.id${columns} FROM sessions s`;
	}
}

type SignatureMatch = (record: SessionRecord, row: readonly unknown[]) => boolean;

/**
 * The matcher of each set of signature columns, made once per process: it runs on every row at every refresh, and made
 * per refresh its optimised code went at each mark-compact and was compiled again (issue #26; see rowMapper).
 */
const matchers = new Map<string, SignatureMatch>();

/** Compares one row of `signatureSql(schema)` with the record read before. */
export function signatureMatcher(schema: SchemaInfo): SignatureMatch {
	let key = '';
	for (const c of SIGNATURE_COLUMNS) {
		key += schema.sessionColumns.has(c.column) ? '1' : '0';
	}

	let matcher = matchers.get(key);
	if (!matcher) {
		matcher = makeSignatureMatcher(SIGNATURE_COLUMNS.filter(c => schema.sessionColumns.has(c.column)).map(c => c.same));
		matchers.set(key, matcher);
	}

	return matcher;
}

function makeSignatureMatcher(checks: ReadonlyArray<(r: SessionRecord, v: unknown) => boolean>): SignatureMatch {
	return (record, row) => {
		for (let i = 0; i < checks.length; i++) {
			if (!checks[i]!(record, row[i + 1])) {
				return false;
			}
		}

		return true;
	};
}

/**
 * Whether a freshly mapped row says exactly what an earlier, settled record of the same session
 * says. Only rows that need no settling qualify: one with an in-window newest message (so
 * `hasMessageRows` is known from the row) that is no orphan candidate (whose `messageRows` is a
 * count read after the rows). Everything else is settled afresh.
 */
function sameRead(earlier: SessionRecord, fresh: SessionRecord): boolean {
	return fresh.newestMessageAt !== null && !needsMessageCount(fresh) && sameRecord(earlier, fresh);
}

/** Whether two records of a session say the same in every field (a settled record included). */
export function sameRecord(earlier: SessionRecord, fresh: SessionRecord): boolean {
	for (const key in fresh) {
		const a = earlier[key as keyof SessionRecord];
		const b = fresh[key as keyof SessionRecord];
		if (a !== b && !(Buffer.isBuffer(a) && Buffer.isBuffer(b) && a.equals(b))) {
			return false;
		}
	}

	return true;
}

/**
 * Sessions read per page; the read transaction is re-checked against its budget between pages, and a stepped read
 * (readSnapshotSteps: the live view's first read, issue #26) lets the event loop answer keys between them. A page of
 * 4,000 rows held the loop 100-240 ms on the 1M-message bench store (machine at load ~4 on 2 cores; CPU profile of
 * the first read); 1,000 rows hold it a quarter of that, and the whole read costs no more (one indexed seek per page).
 */
export const PAGE_ROWS = 1000;

function text(v: unknown): string | null {
	if (v === null || v === undefined) {
		return null;
	}

	return typeof v === 'string' ? v : typeof v === 'object' && !Buffer.isBuffer(v) ? JSON.stringify(v) : String(v);
}

/**
 * The cells many sessions repeat (source, chat, model, end reason…), one instance per value across every read of
 * this process (text/interned.ts: ~3.7 MB of the TUI's live heap on the bench store were copies). Ids and titles,
 * unique per row, are not pooled.
 */
const REPEATED = new StringPool();

function pooled(v: unknown): string | null {
	const s = text(v);
	return s === null ? null : REPEATED.intern(s);
}

function count(v: unknown): number {
	return typeof v === 'number' && Number.isFinite(v) ? v : typeof v === 'bigint' ? Number(v) : 0;
}

function cell(v: unknown): Cell {
	return v === undefined ? null : (v as Cell);
}

/** [branched, delegate, reset, model_config is not JSON]. */
function parseMarkers(v: unknown): [string | null, string | null, string | null, boolean] {
	if (typeof v !== 'string') {
		return [null, null, null, false];
	}

	if (v === '!') {
		return [null, null, null, true];
	}

	try {
		const parsed = JSON.parse(v) as unknown[];
		return [text(parsed[0]), text(parsed[1]), text(parsed[2]), false];
	} catch {
		return [null, null, null, false];
	}
}

/**
 * The mapper of each (column set, stats), made once per process. The mapper runs on every row of every read; made
 * anew per read (as it was), its optimised code was held by nothing but short-lived closures, so each mark-compact
 * (one every ~4 s while following 200 commits/s) dropped it and TurboFan compiled the same code again, with the
 * column lookups' `findIndex` callbacks (issue #26: 21 TurboFan compiles of them in 80 s of following, --log-code).
 */
const mappers = new Map<string, (row: unknown[]) => SessionRecord>();

/**
 * Maps raw rows of `sessionsSql(schema, {columns})` (rowid, id, source, columns…, markers[, has_rows,
 * newest_message_at]) to records. Absent view columns read as null/0.
 */
export function rowMapper(set: ColumnSet, stats = true): (row: unknown[]) => SessionRecord {
	const key = `${set}:${stats}`;
	let mapper = mappers.get(key);
	if (!mapper) {
		mapper = makeRowMapper(set, stats);
		mappers.set(key, mapper);
	}

	return mapper;
}

function makeRowMapper(set: ColumnSet, stats: boolean): (row: unknown[]) => SessionRecord {
	const cols = selected(set);
	// Column positions resolved once; a field the set does not select reads past the row (undefined).
	const at = (field: string): number => {
		const i = cols.findIndex(c => c.field === field);
		return i < 0 ? Number.MAX_SAFE_INTEGER : i + 3;
	};

	const userId = at('user_id');
	const sessionKey = at('session_key');
	const chatId = at('chat_id');
	const chatType = at('chat_type');
	const threadId = at('thread_id');
	const displayName = at('display_name');
	const parent = at('parent_session_id');
	const startedAt = at('started_at');
	const endedAt = at('ended_at');
	const lastActivityAt = at('last_activity_at');
	const endReason = at('end_reason');
	const messageCount = at('message_count');
	const profileName = at('profile_name');
	const handoffState = at('handoff_state');
	const title = at('title');
	const model = at('model');
	const inputTokens = at('input_tokens');
	const outputTokens = at('output_tokens');
	const cacheRead = at('cache_read_tokens');
	const cacheWrite = at('cache_write_tokens');
	const reasoning = at('reasoning_tokens');
	const toolCalls = at('tool_call_count');
	const markersAt = 3 + cols.length;

	return row => {
		const [branchedFrom, delegateFrom, resetFrom, modelConfigInvalid] = parseMarkers(row[markersAt]);
		const newest = stats ? cell(row[markersAt + 2]) : null;
		const newestInWindow = inWindow(newest ?? undefined);
		return {
			id: String(row[1]),
			source: pooled(row[2]) ?? '',
			userId: pooled(row[userId]),
			sessionKey: pooled(row[sessionKey]),
			chatId: pooled(row[chatId]),
			chatType: pooled(row[chatType]),
			threadId: pooled(row[threadId]),
			displayName: pooled(row[displayName]),
			parentSessionId: text(row[parent]),
			startedAtRaw: cell(row[startedAt]),
			endedAtRaw: cell(row[endedAt]),
			lastActivityAtRaw: cell(row[lastActivityAt]),
			endReason: pooled(row[endReason]),
			messageCountColumn: count(row[messageCount]),
			// A newest message proves rows exist; otherwise has_rows says (NULL until settled).
			hasMessageRows: stats ? Boolean(row[markersAt + 1]) || newest !== null : false,
			// Out of the window: the settler seeks the newest in-window message.
			newestMessageAt: newestInWindow,
			newestMessageRaw: newest,
			messageRows: null,
			profileName: pooled(row[profileName]),
			handoffState: pooled(row[handoffState]),
			title: text(row[title]),
			model: pooled(row[model]),
			branchedFrom,
			delegateFrom,
			resetFrom,
			modelConfigInvalid,
			inputTokens: count(row[inputTokens]),
			outputTokens: count(row[outputTokens]),
			cacheReadTokens: count(row[cacheRead]),
			cacheWriteTokens: count(row[cacheWrite]),
			reasoningTokens: count(row[reasoning]),
			toolCallCount: count(row[toolCalls]),
		};
	};
}

export function routingSql(schema: SchemaInfo): string | null {
	if (
		!schema.tables.has('gateway_routing') ||
		!schema.routingColumns.has('session_key') ||
		!schema.routingColumns.has('entry_json')
	) {
		return null;
	}

	const scope = schema.routingColumns.has('scope') ? 'scope' : "''";
	const updated = schema.routingColumns.has('updated_at') ? 'updated_at' : 'NULL';
	return `SELECT ${scope} AS scope, session_key, entry_json, ${updated} AS updated_at FROM gateway_routing`;
}

export function toRoutingEntry(r: Record<string, unknown>): RoutingEntry {
	const base = {
		scope: pooled(r.scope) ?? '',
		sessionKey: REPEATED.intern(String(r.session_key)),
		updatedAt: typeof r.updated_at === 'number' ? r.updated_at : null,
	};
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

/**
 * COUNT(*) of the messages of every keyless row but tool rows, by session, in one grouped query
 * (an index-only walk of (session_id, timestamp) for those rows): repair-routing reports each row it lists with
 * this count, local surfaces included, and no statement runs per row. `only`: count just these
 * sessions (a read of part of the store counts only the rows it holds).
 */
export function keylessMessageRows(
	store: ReadOnlyStore,
	schema: SchemaInfo,
	only?: readonly string[],
): Map<string, number> {
	// Tool rows are never listed: their messages are not counted.
	const keyless = only
		? 'SELECT value FROM json_each(?)'
		: `SELECT s.id FROM sessions s WHERE ${keylessWhere(schema, 's')}`;
	const sql = `SELECT m.session_id, count(*) FROM messages m WHERE m.session_id IN (${keyless}) GROUP BY m.session_id`;
	const rows = store
		.prepare(sql)
		.raw(true)
		.all(...(only ? [JSON.stringify(only)] : [])) as Array<[unknown, number]>;
	const counts = new Map<string, number>();
	for (const [id, n] of rows) {
		counts.set(String(id), n);
	}

	return counts;
}

export type SnapshotMeta = {
	dataVersion: number;
	/** Highest message id (an index seek, not a count). */
	messageHighWater: number | null;
	/**
	 * Highest message id when the read began (its first transaction). A read that continued in a new transaction
	 * (`transactions` > 1) may not hold a message added meanwhile to a row it had already read: a follower reads the
	 * messages after this one as new (those already held are read twice, which costs nothing but a re-read row).
	 */
	messageHighWaterAtStart?: number | null;
	/**
	 * Highest sessions rowid, in the read's (last) transaction: a row added after it is new to the next incremental
	 * read. (Asked after the read's transaction, a row added in between was never new: only every row's rolling
	 * comparison, up to a minute later, would meet it.) Null where the read does not say.
	 */
	sessionHighWater: number | null;
	readMs: number;
	/** False when the read outgrew its transaction budget and continued in a new transaction. */
	consistentSnapshot: boolean;
	transactions: number;
};

export type ReadOptions = {
	/**
	 * Longest a single read transaction may stay open (it pins the owner's WAL meanwhile: docs/sqlite-wal.md, pinning).
	 */
	transactionBudgetMs?: number;
	/** `lean` (default for scans) reads only what the forensic engine uses; views need `full`. */
	columns?: ColumnSet;
	/**
	 * Records of an earlier read (a live store's full reload): a row that maps to the same values
	 * yields that record itself, so an unchanged session costs no long-lived allocation (the fresh
	 * copy dies young) and the heap does not grow by a second copy of every session.
	 */
	reuse?: ReadonlyMap<string, SessionRecord>;
	/**
	 * The live store's probe reader, which keeps the pairs it read; without one, the pairs are found for this read
	 * alone and nothing is kept (readRestartProbes).
	 */
	probes?: RestartProbeReader;
	/**
	 * Read only the rows that name the chat of a keyless row of these sources (forensics/rollbacks/chat-scope.ts):
	 * what `hfx search` labels its hits from. Every row when the scope cannot be narrowed.
	 */
	chatsOfSources?: ReadonlySet<string>;
	/**
	 * Narrower still: only the rows that name the chat of these keyless rows (their ids; hitScope in
	 * forensics/rollbacks/chat-scope.ts), where SQLite can tell them; `chatsOfSources`' rows where it cannot.
	 */
	chatsOfRows?: ReadonlySet<string>;
};

/** The rowids of a scope's rows after a rowid, ascending (listed inside the read transaction). */
type ScopeLister = (after: number) => number[];

/** The scope a read asks for, or null: every row. Run inside the read transaction. */
function scopeOf(store: ReadOnlyStore, schema: SchemaInfo, options: ReadOptions): ScopeLister | null {
	const where = options.chatsOfSources ? chatScopeWhere(store, schema, options.chatsOfSources) : null;
	const wide: ScopeLister = where
		? after => scopeRowids(store, where, after)
		: after =>
				store.prepare('SELECT rowid FROM sessions WHERE rowid > ? ORDER BY rowid').pluck().all(after) as number[];
	const rows = options.chatsOfRows;
	let first = rows ? hitScopeRowids(store, schema, rows, Number.MIN_SAFE_INTEGER) : null;
	if (rows && first !== null) {
		// Listed again in a later transaction; where the hits' rows can no longer tell, the sources' scope.
		return after => {
			const listed = first ?? hitScopeRowids(store, schema, rows, after) ?? wide(after);
			first = null;
			return listed;
		};
	}

	return where ? wide : null;
}

export const DEFAULT_TRANSACTION_BUDGET_MS = 2000;

/** What a snapshot is read for: the store's owner and its gateway's routing home (routing-home.ts). */
export type SnapshotContext = Pick<Snapshot, 'owner' | 'routingScope' | 'legacyRouting'>;

/** What a read returns: the snapshot and how it was read. */
export type SnapshotRead = {snapshot: Snapshot; meta: SnapshotMeta};

export function readSnapshot(
	store: ReadOnlyStore,
	schema: SchemaInfo,
	context: SnapshotContext,
	options: ReadOptions = {},
): SnapshotRead {
	return drain(readSnapshotSteps(store, schema, context, options));
}

/**
 * As `readSnapshot`, in steps: it yields after each page of sessions, after the last, and after each later query, its
 * read transaction open across the yields (one snapshot, as the budget allows), so a caller may answer keys between
 * steps (issue #26; LiveConnection.readAsync). A caller that abandons it closes the connection (the transaction goes
 * with it).
 */
export function* readSnapshotSteps(
	store: ReadOnlyStore,
	schema: SchemaInfo,
	context: SnapshotContext,
	options: ReadOptions = {},
): Generator<void, SnapshotRead> {
	const started = performance.now();
	store.connection.exec('BEGIN');
	try {
		const highAtStart = store.prepare('SELECT max(rowid) FROM messages').pluck().get();
		// Only the rows that name the chats of keyless rows of these sources, where a read asks for them.
		const scope = scopeOf(store, schema, options);
		const pages = yield* readSessionPages(store, schema, options, started, scope);
		const {sessions, transactions} = pages;
		// The last page and the keyless rows' message count are each one of the longest steps of the read: apart.
		yield;
		settleMessageRows(store, schema, pages, options.reuse, scope !== null);
		yield;
		const rSql = routingSql(schema);
		const routing = rSql ? (store.prepare(rSql).all() as Array<Record<string, unknown>>).map(toRoutingEntry) : [];
		yield;
		const restartProbes = options.probes
			? yield* options.probes.readSteps(store, schema, sessions)
			: readRestartProbes(store, schema, sessions);
		yield;
		const high = store.prepare('SELECT max(rowid) FROM messages').pluck().get();
		const sessionHigh = store.prepare('SELECT max(rowid) FROM sessions').pluck().get();
		const dataVersion = store.dataVersion();
		return {
			snapshot: {
				sessions,
				routing,
				restartProbes,
				owner: context.owner,
				routingScope: context.routingScope,
				legacyRouting: context.legacyRouting,
				ruleSet: schema.ruleSet,
				missingColumns: schema.missingColumns,
			},
			meta: {
				dataVersion,
				messageHighWater: typeof high === 'number' ? high : null,
				messageHighWaterAtStart: typeof highAtStart === 'number' ? highAtStart : null,
				sessionHighWater: typeof sessionHigh === 'number' ? sessionHigh : null,
				readMs: performance.now() - started,
				consistentSnapshot: transactions === 1,
				transactions,
			},
		};
	} finally {
		if (store.connection.inTransaction) {
			store.connection.exec('COMMIT');
		}
	}
}

/**
 * The rows of the page after `lastRowid` in the read's `transaction`th transaction: the next PAGE_ROWS
 * rows of the table, or of the scope. The scope's rowids are listed once per transaction and each
 * page read by its rowids, so SQLite asks the scope's rule once (not once per page) and reads the
 * newest message and the markers of the page's rows alone: a page cut by LIMIT after the scope as
 * a WHERE computed every column of every later row before sorting them (measured on the
 * 1M-message bench store, the keyless orphan's 6,157 rows: ~130 ms -> ~85 ms of SQLite). Within
 * one transaction the list is what the scope answers on every page; a new transaction lists
 * again from `lastRowid`, as a page of a WHERE would.
 */
function pageSource(
	store: ReadOnlyStore,
	schema: SchemaInfo,
	options: {columns: ColumnSet; keylessRows: boolean},
	scope: ScopeLister | null,
): (lastRowid: number, transaction: number) => IterableIterator<unknown[]> {
	if (scope === null) {
		const page = store.prepare(sessionsSql(schema, {paged: true, ...options})).raw(true);
		return lastRowid => page.iterate(lastRowid) as IterableIterator<unknown[]>;
	}

	const where = 's.rowid IN (SELECT value FROM json_each(?))';
	const page = store.prepare(sessionsSql(schema, {paged: true, ...options, where})).raw(true);
	let listedIn: number | null = null;
	let rowids: number[] = [];
	let at = 0;
	return (lastRowid, transaction) => {
		if (listedIn !== transaction) {
			listedIn = transaction;
			rowids = scope(lastRowid);
			at = 0;
		}

		const chunk = rowids.slice(at, at + PAGE_ROWS);
		at += PAGE_ROWS;
		return page.iterate(JSON.stringify(chunk), lastRowid) as IterableIterator<unknown[]>;
	};
}

/** What the pages read: the sessions, in how many transactions, and the keyless rows' message counts by id. */
type Pages = {sessions: SessionRecord[]; transactions: number; keylessRows: Map<string, number> | undefined};

/**
 * The sessions, page by page inside the open read transaction (a step after each page); a read that outgrows its
 * budget ends its transaction so the owner can checkpoint, and continues in a fresh one. A read of every row afresh
 * (no `reuse`) counts the keyless rows' messages in the pages (keylessRowsColumn); a re-read counts only the rows
 * that changed, after (settleMessageRows).
 */
function* readSessionPages(
	store: ReadOnlyStore,
	schema: SchemaInfo,
	options: ReadOptions,
	started: number,
	scope: ScopeLister | null,
): Generator<void, Pages> {
	// An immutable read pins no WAL (there is none): one transaction, one snapshot, whatever the budget.
	const budget = store.isImmutable
		? Number.POSITIVE_INFINITY
		: (options.transactionBudgetMs ?? DEFAULT_TRANSACTION_BUDGET_MS);
	const columns = options.columns ?? 'full';
	const keylessRows = options.reuse === undefined ? new Map<string, number>() : undefined;
	const page = pageSource(store, schema, {columns, keylessRows: keylessRows !== undefined}, scope);
	const map = rowMapper(columns);
	const sessions: SessionRecord[] = [];
	let transactions = 1;
	let txStarted = started;
	let lastRowid = Number.MIN_SAFE_INTEGER;
	for (;;) {
		// Row by row: each raw row is garbage as soon as it is mapped (a page held whole survives
		// the young-generation collections and costs their copying).
		let read = 0;
		for (const r of page(lastRowid, transactions)) {
			const record = map(r);
			const earlier = options.reuse?.get(record.id);
			sessions.push(earlier && sameRead(earlier, record) ? earlier : record);
			if (keylessRows) {
				const count = r.at(-1);
				if (typeof count === 'number') {
					keylessRows.set(record.id, count);
				}
			}

			lastRowid = r[0] as number;
			read++;
		}

		if (read < PAGE_ROWS) {
			return {sessions, transactions, keylessRows};
		}

		yield;
		if (performance.now() - txStarted > budget) {
			// End this snapshot so the owner can checkpoint; continue in a fresh one.
			store.connection.exec('COMMIT');
			store.connection.exec('BEGIN');
			transactions++;
			txStarted = performance.now();
		}
	}
}

/**
 * Each newly read session's message rows settled, and a keyless row's counted: from the pages' counts when they
 * read them, else by one grouped query for all.
 */
function settleMessageRows(
	store: ReadOnlyStore,
	schema: SchemaInfo,
	pages: Pages,
	reuse: ReadOptions['reuse'],
	partial: boolean,
): void {
	const {sessions} = pages;
	const settle = messageRowsSettler(store);
	// A read of part of the store counts the keyless rows it holds (the rows the grouped query takes).
	const only = partial ? sessions.filter(r => r.sessionKey === null && r.source !== 'tool').map(r => r.id) : undefined;
	let counts = pages.keylessRows;
	for (const s of sessions) {
		if (s === reuse?.get(s.id)) {
			continue;
		}

		settle(s);
		if (needsMessageCount(s)) {
			counts ??= keylessMessageRows(store, schema, only);
			s.messageRows = counts.get(s.id) ?? 0;
		}
	}
}
