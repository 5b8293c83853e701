/**
 * A Hermes store's sessions by id, each with its message count and highest message id: taken of a
 * verifier's temp extraction (verify/check-queue.ts) and of the live store (read-only, store/open/open.ts),
 * for a restore to say what it would drop (restore/compare.ts).
 */
import Database from 'better-sqlite3';
import {errorMessage} from '../ground/errors.js';
import {readStore} from '../store/open/immutable-read.js';

/** Per session id: its message count and highest message id. */
export type Inventory = {sessions: Record<string, {messages: number; maxId: number | null}>} | {error: string};

const INVENTORY_SQL =
	'SELECT s.id AS id, count(m.id) AS n, max(m.id) AS maxId FROM sessions s ' +
	'LEFT JOIN messages m ON m.session_id = s.id GROUP BY s.id';

type Row = {id: string; n: number; maxId: number | null};

function toInventory(rows: Row[]): Inventory {
	return {sessions: Object.fromEntries(rows.map(r => [String(r.id), {messages: r.n, maxId: r.maxId}]))};
}

/**
 * The inventory of our own temp extraction of an archived database (a Hermes store; null when it is another database).
 */
export function inventoryOfCopy(file: string): Inventory | null {
	let db: Database.Database | undefined;
	try {
		db = new Database(file, {readonly: true, fileMustExist: true});
		const tables = new Set(db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[]);
		return tables.has('sessions') && tables.has('messages')
			? toInventory(db.prepare(INVENTORY_SQL).all() as Row[])
			: null;
	} catch (error) {
		return {error: errorMessage(error)};
	} finally {
		db?.close();
	}
}

/** The live store's inventory, read where it lies (readStore: never a write, a checkpoint or a private copy). */
export function inventoryOfLive(dbPath: string): Inventory {
	try {
		return readStore(dbPath, store => toInventory(store.prepare(INVENTORY_SQL).all() as Row[]));
	} catch (error) {
		return {error: errorMessage(error)};
	}
}
