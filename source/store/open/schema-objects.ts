/**
 * The kind of each schema object hfx reads. Hermes writes `sessions`, `messages`,
 * `gateway_routing` and `schema_version` as ordinary tables (`CREATE TABLE`), and hfx reads them as
 * such: sessions in rowid order, the newest message by rowid. A VIEW (rows computed by a query, not
 * what the agent wrote), a virtual table (rows a module makes up) or a `WITHOUT ROWID` table (no
 * rowid to page by) under one of those names is a store hfx cannot read: one line for that store,
 * never an internal error, and the other stores of a home are still reported.
 */
import {FailClosed, errorMessage} from '../../ground/errors.js';
import type {ReadOnlyStore} from './open.js';

/** What sqlite_schema and `pragma_table_list` say an object is. */
export type ObjectKind = 'table' | 'without-rowid table' | 'view' | 'virtual table' | 'shadow table' | 'unreadable';

/**
 * The objects hfx reads, and whether it needs a rowid in each (it pages sessions and finds the newest message by
 * rowid).
 */
export const READ_OBJECTS: ReadonlyArray<{name: string; needsRowid: boolean}> = [
	{name: 'sessions', needsRowid: true},
	{name: 'messages', needsRowid: true},
	{name: 'gateway_routing', needsRowid: false},
	{name: 'schema_version', needsRowid: false},
];

/** The kind of one object that exists, and SQLite's words when its definition cannot be read. */
export function objectKind(store: ReadOnlyStore, name: string): {kind: ObjectKind; problem: string | null} {
	try {
		const row = store.prepare('SELECT type, wr FROM pragma_table_list(?)').get(name) as
			| {type: string; wr: number}
			| undefined;
		if (!row) {
			return {kind: 'unreadable', problem: 'SQLite lists no such table although sqlite_schema names it'};
		}

		if (row.type === 'table') {
			return {kind: row.wr ? 'without-rowid table' : 'table', problem: null};
		}

		return {
			kind: row.type === 'view' ? 'view' : row.type === 'virtual' ? 'virtual table' : 'shadow table',
			problem: null,
		};
	} catch (error) {
		return {kind: 'unreadable', problem: errorMessage(error)};
	}
}

const WHY: Readonly<Record<Exclude<ObjectKind, 'table' | 'without-rowid table' | 'unreadable'>, string>> = {
	view: "a VIEW (its rows are a query's result, not rows the agent wrote)",
	'virtual table': 'a virtual table (its rows come from a module, not from rows the agent wrote)',
	'shadow table': 'a shadow table of a virtual table',
};

/** Why hfx cannot read this object, or null when it can. */
function unreadableBecause(kind: ObjectKind, problem: string | null, needsRowid: boolean): string | null {
	if (kind === 'table' || (kind === 'without-rowid table' && !needsRowid)) {
		return null;
	}

	if (kind === 'unreadable') {
		return `SQLite cannot read its definition (${problem ?? 'no reason given'})`;
	}

	return kind === 'without-rowid table'
		? 'a WITHOUT ROWID table (hfx reads it in rowid order, and it has no rowid)'
		: WHY[kind];
}

/**
 * Refuses a store where an object hfx reads is not the ordinary table Hermes creates. `present`
 * holds the names sqlite_schema lists (tables and views); absent objects are judged elsewhere.
 */
export function refuseUnreadableObjects(store: ReadOnlyStore, present: ReadonlySet<string>): void {
	for (const {name, needsRowid} of READ_OBJECTS) {
		if (!present.has(name)) {
			continue;
		}

		const {kind, problem} = objectKind(store, name);
		const why = unreadableBecause(kind, problem, needsRowid);
		if (why !== null) {
			throw new FailClosed({
				file: store.preflight.path,
				kind: 'schema-object',
				reason: `its ${name} is ${why}, not the table Hermes creates, so hfx cannot read this store`,
				next:
					`check the file is the agent's state.db as Hermes wrote it (on a copy, ` +
					`never the live file: sqlite3 COPY '.schema ${name}')`,
			});
		}
	}
}
