/**
 * Every sessions row of a store, by id, read by this test process on its own read-only
 * connection (the repair tests compare the rows before and after a write).
 */
import Database from 'better-sqlite3';

export function sessionRows(db: string): Map<string, Record<string, unknown>> {
	const conn = new Database(db, {readonly: true});
	try {
		return new Map(
			(conn.prepare('SELECT * FROM sessions').all() as Array<Record<string, unknown>>).map(r => [String(r.id), r]),
		);
	} finally {
		conn.close();
	}
}
