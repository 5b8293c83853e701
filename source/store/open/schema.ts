/**
 * Schema-generation detection. Hermes adds missing columns on any writable open and never on a
 * read-only one, so a file in the wild may lack any column newer than the code that last wrote it
 * (docs/hermes-rules.md, schema). We detect, never assume.
 */
import {FailClosed} from '../../ground/errors.js';
import {type RuleSet, generationOf} from '../../forensics/generations.js';
import {type MissingColumn, missingRuleColumns} from '../../forensics/rule-columns.js';
import type {ReadOnlyStore} from './open.js';
import {refuseUnreadableObjects} from './schema-objects.js';

export type {RuleSet} from '../../forensics/generations.js';

export type SchemaInfo = {
	/** From the one-row `schema_version` table; null when it is absent or unreadable. */
	version: number | null;
	tables: Set<string>;
	sessionColumns: Set<string>;
	messageColumns: Set<string>;
	routingColumns: Set<string>;
	/** Which generation of Hermes' rules wrote this store (forensics/generations.ts), and the evidence. */
	ruleSet: RuleSet;
	ruleSetReason: string;
	/** Columns the rules decide on that this store lacks: each one a finding (forensics/rule-columns.ts). */
	missingColumns: MissingColumn[];
	/**
	 * The index on messages (session_id, timestamp) SQLite can walk for one session's rows (Hermes'
	 * idx_messages_session), by name: the index the newest-message seek of each session uses. Null when the store has
	 * none (or no timestamp column).
	 */
	messageTimeIndex: string | null;
};

function columns(store: ReadOnlyStore, table: string): Set<string> {
	const rows = store.prepare('SELECT name FROM pragma_table_info(?)').pluck().all(table) as string[];
	return new Set(rows);
}

/** The routing identity of a session row (docs/hermes-rules.md, schema: v19 added them together). */
export const ROUTING_IDENTITY_COLUMNS = ['session_key', 'chat_id', 'chat_type', 'thread_id'] as const;

/**
 * Without session_key every row with messages would look like a routing orphan (a keyless row):
 * false findings. Every generation hfx knows (v19 onward: docs/hermes-rules.md, generations) has
 * it, so a sessions table without it is a store hfx cannot judge: refused, never guessed.
 */
function refuseWithoutRoutingIdentity(file: string, sessionColumns: ReadonlySet<string>): void {
	if (sessionColumns.has('session_key')) {
		return;
	}

	const absent = ROUTING_IDENTITY_COLUMNS.filter(c => !sessionColumns.has(c));
	throw new FailClosed({
		file,
		kind: 'schema-unknown',
		reason:
			`not a Hermes store hfx knows: sessions lacks ${absent.join(', ')} (the ` +
			`routing identity Hermes added in schema v19), so hfx cannot tell a ` +
			`routing orphan from any other row`,
		next:
			"check the file is the agent's state.db; a store older than schema v19 " +
			'is migrated by current Hermes on its first writable open (take hfx ' +
			'backup --quick first), after which hfx can judge it',
	});
}

/** A name as a quoted SQL identifier. */
export function quoteIdentifier(name: string): string {
	return `"${name.replaceAll('"', '""')}"`;
}

/**
 * The first index on messages whose leading columns are (session_id, timestamp), whole (not partial), that SQLite
 * accepts for `m.session_id = s.id` (prepared, never run: a collation or affinity it cannot use makes the prepare
 * fail, and the index is passed over).
 */
function messageTimeIndexOf(store: ReadOnlyStore, messageColumns: ReadonlySet<string>): string | null {
	if (!messageColumns.has('timestamp')) {
		return null;
	}

	const indexes = store
		.prepare("SELECT name FROM pragma_index_list('messages') WHERE partial = 0 ORDER BY seq")
		.pluck()
		.all() as string[];
	const info = store.prepare('SELECT name FROM pragma_index_info(?) ORDER BY seqno LIMIT 2').pluck();
	for (const name of indexes) {
		const [first, second] = info.all(name) as Array<string | null>;
		if (first !== 'session_id' || second !== 'timestamp') {
			continue;
		}

		try {
			store.prepare(
				`SELECT (SELECT count(*) FROM messages m INDEXED BY ${quoteIdentifier(name)} ` +
					'WHERE m.session_id = s.id) FROM sessions s',
			);
			return name;
		} catch {
			// SQLite cannot use it for this comparison: the next one, or none.
		}
	}

	return null;
}

export function detectSchema(store: ReadOnlyStore): SchemaInfo {
	const tables = new Set(
		store.prepare("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')").pluck().all() as string[],
	);
	if (!tables.has('sessions') || !tables.has('messages')) {
		const missing = ['sessions', 'messages'].filter(t => !tables.has(t)).join(' and ');
		throw new FailClosed({
			file: store.preflight.path,
			kind: 'not-hermes',
			reason: `a SQLite database, but not a Hermes session store (no ${missing} table)`,
			next: "point --db at the agent's state.db (usually ~/.hermes/state.db or ~/.hermes/profiles/NAME/state.db)",
		});
	}

	refuseUnreadableObjects(store, tables);
	const sessionColumns = columns(store, 'sessions');
	const messageColumns = columns(store, 'messages');
	for (const [table, cols, required] of [
		['sessions', sessionColumns, ['id', 'source', 'started_at']],
		['messages', messageColumns, ['session_id']],
	] as const) {
		const absent = required.filter(c => !cols.has(c));
		if (absent.length > 0) {
			throw new FailClosed({
				file: store.preflight.path,
				kind: 'not-hermes',
				reason: `the ${table} table lacks ${absent.join(', ')}; this is not a Hermes session store hfx understands`,
				next: "check the file is the agent's state.db",
			});
		}
	}

	refuseWithoutRoutingIdentity(store.preflight.path, sessionColumns);
	const routingColumns = tables.has('gateway_routing') ? columns(store, 'gateway_routing') : new Set<string>();
	let version: number | null = null;
	if (tables.has('schema_version') && columns(store, 'schema_version').has('version')) {
		const v = store.prepare('SELECT max(version) FROM schema_version').pluck().get();
		version = typeof v === 'number' && Number.isInteger(v) ? v : null;
	}

	const {ruleSet, reason: ruleSetReason} = generationOf({
		hasLastActivity: sessionColumns.has('last_activity_at'),
		schemaVersion: version,
	});
	const byTable = {
		sessions: sessionColumns,
		messages: messageColumns,
		gateway_routing: tables.has('gateway_routing') ? routingColumns : null,
	};
	const missingColumns = missingRuleColumns(table => byTable[table]);
	return {
		version,
		tables,
		sessionColumns,
		messageColumns,
		routingColumns,
		ruleSet,
		ruleSetReason,
		missingColumns,
		messageTimeIndex: messageTimeIndexOf(store, messageColumns),
	};
}
