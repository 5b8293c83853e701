/**
 * The floor for any Node implementation of the scan: node + better-sqlite3 (the binding and the
 * SQLite build hfx uses) executing exactly the statements hfx executed, rows fetched as arrays and
 * dropped, no analysis and no output. `node dist-bench/sql-floor.js DB detect.json`
 */
import fs from 'node:fs';
import Database from 'better-sqlite3';

type Executed = {sql: string; params: unknown[]; inTransaction: boolean};

const [dbPath, statementsPath] = process.argv.slice(2);
if (!dbPath || !statementsPath) {
	throw new Error('usage: node dist-bench/sql-floor.js DB detect.json');
}

const executed = JSON.parse(fs.readFileSync(statementsPath, 'utf8')) as Executed[];
const db = new Database(dbPath, {readonly: true, fileMustExist: true});
let rows = 0;
for (const e of executed) {
	if (e.inTransaction && !db.inTransaction) {
		db.exec('BEGIN');
	} else if (!e.inTransaction && db.inTransaction) {
		db.exec('COMMIT');
	}

	const stmt = db.prepare(e.sql);
	if (stmt.reader) {
		rows += stmt.raw().all(...e.params).length;
	} else {
		stmt.run(...e.params);
	}
}

if (db.inTransaction) {
	db.exec('COMMIT');
}

db.close();
process.stdout.write(`${rows}\n`);
