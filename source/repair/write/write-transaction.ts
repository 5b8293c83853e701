/**
 * The repair's one write path, shared by --apply and --undo: a connection opened for writing
 * (foreign keys on), BEGIN IMMEDIATE, the body, COMMIT. A body that stops (a re-check failed) or
 * throws is rolled back first, and only then is its refusal recorded; the connection is always
 * closed. Nothing else in hfx opens the store writable.
 */
import Database from 'better-sqlite3';

/** Why the body stopped, turned into the outcome once the transaction is rolled back. */
export type Stop<T> = () => T;

export async function inWriteTransaction<T>(
	dbPath: string,
	body: (db: Database.Database) => Promise<Stop<T> | null> | Stop<T> | null,
	failed: (error: unknown) => T,
): Promise<T | null> {
	const db = new Database(dbPath, {fileMustExist: true, timeout: 5000});
	try {
		db.pragma('foreign_keys = ON');
		db.exec('BEGIN IMMEDIATE');
		let stop: Stop<T> | null;
		try {
			stop = await body(db);
		} catch (error) {
			if (db.inTransaction) {
				db.exec('ROLLBACK');
			}

			return failed(error);
		}

		if (stop) {
			db.exec('ROLLBACK');
			return stop();
		}

		db.exec('COMMIT');
		return null;
	} catch (error) {
		if (db.inTransaction) {
			db.exec('ROLLBACK');
		}

		return failed(error);
	} finally {
		db.close();
	}
}
