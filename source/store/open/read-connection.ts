/**
 * What a ReadOnlyStore needs of a SQLite connection, whichever driver holds it: better-sqlite3's
 * Database (every read but one) or the node:sqlite adapter that reads a stopped store in place
 * (node-sqlite-connection.ts). The statements keep better-sqlite3's shapes: rows as objects, or
 * arrays under raw(), or the first column under pluck(); named parameters as @name; blobs as
 * Buffer; integers as numbers.
 */
export type ReadStatement = {
	get(...params: unknown[]): unknown;
	all(...params: unknown[]): unknown[];
	iterate(...params: unknown[]): IterableIterator<unknown>;
	/** The first column only (turns raw off), as better-sqlite3's pluck(). */
	pluck(toggle?: boolean): ReadStatement;
	/** Rows as arrays (turns pluck off), as better-sqlite3's raw(). */
	raw(toggle?: boolean): ReadStatement;
};

export type ReadConnection = {
	prepare(sql: string): ReadStatement;
	exec(sql: string): unknown;
	readonly inTransaction: boolean;
	close(): unknown;
};
