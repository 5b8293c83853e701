/**
 * Node's built-in SQLite (`node:sqlite`), loaded on first use and only for the one read that needs
 * it: a stopped store read in place as an immutable file (immutable-read.ts). It is looked up at
 * run time, never imported at start-up: a Node without it (or without what the read needs) gets the
 * private copy with a note, never a crash at start.
 *
 * Node 22 prints "ExperimentalWarning: SQLite is an experimental feature" when the module is
 * loaded. That warning (that type, that text) is dropped while the module loads; every other
 * warning, then or later, goes through untouched.
 */
import type * as NodeSqlite from 'node:sqlite';

export type NodeSqliteModule = typeof NodeSqlite;

export type NodeSqliteLoad = {ok: true; sqlite: NodeSqliteModule} | {ok: false; reason: string};

let loaded: NodeSqliteLoad | undefined;

export function isSqliteExperimentalWarning(warning: unknown, rest: unknown[]): boolean {
	const first = rest[0];
	const type =
		typeof first === 'string'
			? first
			: ((first as {type?: unknown} | undefined)?.type ?? (warning instanceof Error ? warning.name : undefined));
	const text = warning instanceof Error ? warning.message : String(warning);
	return type === 'ExperimentalWarning' && /^SQLite is an experimental feature/.test(text);
}

/** `process.getBuiltinModule('node:sqlite')` with Node 22's experimental-feature warning for it dropped. */
function loadQuietly(): NodeSqliteModule | undefined {
	const emitWarning = process.emitWarning;
	process.emitWarning = function (this: NodeJS.Process, warning: string | Error, ...rest: unknown[]) {
		if (isSqliteExperimentalWarning(warning, rest)) {
			return;
		}

		return (emitWarning as (...args: unknown[]) => void).call(this, warning, ...rest);
	} as typeof process.emitWarning;
	try {
		return process.getBuiltinModule('node:sqlite') as NodeSqliteModule | undefined;
	} finally {
		process.emitWarning = emitWarning;
	}
}

/**
 * node:sqlite, when this Node's has what the in-place read needs: URI filenames (22.15+), rows as
 * arrays and column names (setReturnArrays, columns(): 22.16+, 24), isTransaction. Otherwise why
 * not, in words for the open-mode reason (the store is then read from a private copy, as before).
 */
export function nodeSqlite(): NodeSqliteLoad {
	if (loaded) {
		return loaded;
	}

	let sqlite: NodeSqliteModule | undefined;
	try {
		sqlite = loadQuietly();
	} catch {
		sqlite = undefined;
	}

	// setReturnArrays, columns() and isTransaction (an instance property) came together (22.16, 24.0).
	const statement = sqlite?.StatementSync?.prototype as Partial<NodeSqlite.StatementSync> | undefined;
	if (!sqlite || !statement || typeof sqlite.DatabaseSync !== 'function') {
		loaded = {ok: false, reason: `this Node (${process.version}) has no node:sqlite`};
	} else if (typeof statement.setReturnArrays !== 'function' || typeof statement.columns !== 'function') {
		loaded = {
			ok: false,
			reason:
				`this Node's node:sqlite (${process.version}) lacks rows as arrays or ` +
				`column names (Node 22.16 or newer has them)`,
		};
	} else {
		loaded = {ok: true, sqlite};
	}

	return loaded;
}
