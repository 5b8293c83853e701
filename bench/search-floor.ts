/**
 * The search section's Node floor: a Node process that opens the store read-only with
 * better-sqlite3, runs one statement (argv[3]) and drops the rows. What any Node tool pays for the
 * same MATCH: start-up, the native module, the open, the query.
 */
import Database from 'better-sqlite3';

const db = new Database(process.argv[2]!, {readonly: true, fileMustExist: true});
const rows = db.prepare(process.argv[3]!).all();
db.close();
process.exitCode = rows.length > 0 ? 0 : 1;
