/**
 * chatScope (forensics/rollbacks/chat-scope.ts) asked of SQLite: the rowids of the rows deciding
 * the chat of every keyless row of some sources, so `hfx search` reads those rows and nothing else
 * (no light read of every row into JavaScript first). The same rule, term by term:
 * - a row of one of the sources, or one v25's repair-routing may fail on (mayFailScan: keyless, not
 *   a tool row, a model_config that is not JSON or a started_at that is a non-empty TEXT or BLOB);
 * - the parent of every such row that is keyless;
 * - every row (null) when a source asked for is '' or 'unknown', or when a row's source is '',
 *   'unknown' or no TEXT at all, and (so the SQL compares what JavaScript compares) when a row's id
 *   is no TEXT or its parent is neither TEXT nor NULL.
 * test/store/read/chat-scope-where.test.ts checks it against chatScope on stores a second process wrote.
 */
import {UNKNOWN_SOURCE} from '../../forensics/rollbacks/rollback-pairs.js';
import type {ReadOnlyStore} from '../open/open.js';
import type {SchemaInfo} from '../open/schema.js';

/** chatScope's rule on `p` (a sessions row), and the values `kept` binds, in order. */
export type ScopeWhere = {
	/** A row of the scope itself: of a source asked for, or one repair-routing may fail on. */
	kept: string;
	/** A kept row whose parent is in the scope too: it is keyless and names a parent. */
	keylessWithParent: string;
	/** The parent column (NULL where the schema has none). */
	parent: string;
	params: string[];
};

/** chatScope's mayFailScan of the row `a`, in SQL (the markers column asks json_valid the same way). */
function mayFailScanSql(schema: SchemaInfo, a: string): string {
	const col = (name: string) => (schema.sessionColumns.has(name) ? `${a}.${name}` : 'NULL');
	const invalidConfig = schema.sessionColumns.has('model_config')
		? `(${a}.model_config IS NOT NULL AND NOT json_valid(${a}.model_config))`
		: '0';
	const started = col('started_at');
	const textStart =
		`(typeof(${started}) = 'text' AND ${started} != '') OR ` +
		`(typeof(${started}) = 'blob' AND length(${started}) > 0)`;
	return (
		`(${col('session_key')} IS NULL AND COALESCE(${a}.source, '') != 'tool' ` +
		`AND (${invalidConfig} OR ${textStart}))`
	);
}

/**
 * Whether some row makes chatScope read everything (or could compare otherwise in SQL than in
 * JavaScript): each asked of one column alone, which SQLite answers from that column's index where
 * Hermes keeps one (idx_sessions_source, the id's own, idx_sessions_parent), never the whole table.
 */
function anyRowWidens(store: ReadOnlyStore, schema: SchemaInfo): boolean {
	const checks = [
		`typeof(source) != 'text' OR source IN ('', '${UNKNOWN_SOURCE}')`,
		"typeof(id) != 'text'",
		...(schema.sessionColumns.has('parent_session_id') ? ["typeof(parent_session_id) NOT IN ('text', 'null')"] : []),
	];
	return checks.some(c => store.prepare(`SELECT 1 FROM sessions WHERE ${c} LIMIT 1`).pluck().get() !== undefined);
}

/**
 * The condition keeping chatScope's rows for `sources`, or null: every row. Run inside the read
 * transaction the rows are read in.
 */
export function chatScopeWhere(
	store: ReadOnlyStore,
	schema: SchemaInfo,
	sources: ReadonlySet<string>,
): ScopeWhere | null {
	// A source read back from a cell that is not UTF-8 holds U+FFFD: SQLite's bytes would not compare equal.
	if ([...sources].some(s => s === '' || s === UNKNOWN_SOURCE || s.includes('\uFFFD')) || anyRowWidens(store, schema)) {
		return null;
	}

	const key = schema.sessionColumns.has('session_key') ? 'p.session_key' : 'NULL';
	const parent = schema.sessionColumns.has('parent_session_id') ? 'p.parent_session_id' : 'NULL';
	return {
		kept: `(p.source IN (SELECT value FROM json_each(?)) OR ${mayFailScanSql(schema, 'p')})`,
		keylessWithParent: `(${key} IS NULL AND ${parent} IS NOT NULL)`,
		parent,
		params: [JSON.stringify([...sources])],
	};
}

/**
 * The rowids of the scope's rows after `after`, ascending: the kept rows and the parents of the
 * keyless ones. `kept` is asked once (the rows that may fail repair-routing are every keyless row's
 * to check), the parents then found by the kept rows' rowids, so no id or parent leaves SQLite (a
 * cell that is not UTF-8 would not come back the same). Run inside the read transaction the rows
 * are read in.
 */
export function scopeRowids(store: ReadOnlyStore, scope: ScopeWhere, after: number): number[] {
	const kept = store
		.prepare(`SELECT p.rowid, ${scope.keylessWithParent} FROM sessions p WHERE ${scope.kept}`)
		.raw(true)
		.all(...scope.params) as Array<[number, unknown]>;
	const withParent = kept.filter(r => Number(r[1]) === 1).map(r => r[0]);
	const parents =
		withParent.length === 0
			? []
			: (store
					.prepare(
						`SELECT s.rowid FROM sessions s WHERE s.id IN (SELECT ${scope.parent} FROM sessions p ` +
							'WHERE p.rowid IN (SELECT value FROM json_each(?)))',
					)
					.pluck()
					.all(JSON.stringify(withParent)) as number[]);
	const rowids = new Set([...kept.map(r => r[0]), ...parents]);
	return [...rowids].filter(r => r > after).sort((a, b) => a - b);
}

/**
 * hitScope (forensics/rollbacks/chat-scope.ts) asked of SQLite: the rowids of the rows deciding the
 * chat of the keyless rows `hits` (their ids), ascending, after `after`; or null where chatScopeWhere
 * reads every row, where a hit's id or source would not come back from SQLite the same (U+FFFD) or
 * a hit's row is not there. The parent is found by the hit's rowid, so no id leaves SQLite. A keyed
 * row of the hit's source is kept where its user may be the hit's: either user NULL or '', the same
 * TEXT, or a cell that is no TEXT (where JavaScript reads its text otherwise than SQLite compares it):
 * a superset of hitScope's rows, which labels the hits the same. Run inside the read transaction
 * the rows are read in.
 */
export function hitScopeRowids(
	store: ReadOnlyStore,
	schema: SchemaInfo,
	hits: ReadonlySet<string>,
	after: number,
): number[] | null {
	if ([...hits].some(id => id.includes('\uFFFD'))) {
		return null;
	}

	const has = (c: string) => schema.sessionColumns.has(c);
	const found = store
		.prepare(
			`SELECT rowid, source, ${has('user_id') ? 'user_id' : 'NULL'} FROM sessions ` +
				'WHERE id IN (SELECT value FROM json_each(?))',
		)
		.raw(true)
		.all(JSON.stringify([...hits])) as Array<[number, unknown, unknown]>;
	const sources = new Set(found.map(r => (typeof r[1] === 'string' ? r[1] : '')));
	if (found.length < hits.size || chatScopeWhere(store, schema, sources) === null) {
		return null;
	}

	// A user SQLite compares byte by byte where JavaScript reads a U+FFFD: every user may be the hit's.
	const anyUser = !has('user_id') || found.some(r => typeof r[2] === 'string' && r[2].includes('\uFFFD'));
	const none = (a: string) => `(${a}.user_id IS NULL OR typeof(${a}.user_id) != 'text' OR ${a}.user_id = '')`;
	const mayMatch = anyUser ? '1' : `(${none('h')} OR ${none('k')} OR k.user_id = h.user_id)`;
	const hitRows = 'SELECT value FROM json_each(@hits)';
	const donors = has('session_key')
		? ' UNION SELECT k.rowid FROM sessions h JOIN sessions k ON k.source = h.source WHERE h.rowid IN ' +
			`(${hitRows}) AND k.session_key IS NOT NULL AND ${mayMatch}`
		: '';
	const parents = has('parent_session_id')
		? ' UNION SELECT s.rowid FROM sessions s WHERE s.id IN (SELECT h.parent_session_id FROM sessions h ' +
			`WHERE h.rowid IN (${hitRows}))`
		: '';
	const rowids = store
		.prepare(`${hitRows}${donors}${parents} UNION SELECT p.rowid FROM sessions p WHERE ${mayFailScanSql(schema, 'p')}`)
		.pluck()
		.all({hits: JSON.stringify(found.map(r => r[0]))}) as number[];
	return rowids.filter(r => r > after).sort((a, b) => a - b);
}
