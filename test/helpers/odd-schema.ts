/**
 * Odd schema objects in place of a table hfx reads, made on a store the test wrote and closed
 * (never on evidence under test): the table as a VIEW over its rows, as a WITHOUT ROWID table, as
 * an FTS5 virtual table, or lacking one column. `legacy_alter_table` keeps the renames from
 * rewriting other tables' references.
 */
import Database from 'better-sqlite3';

export type OddKind = 'view' | 'without-rowid' | 'virtual';

const q = (name: string): string => `"${name.replaceAll('"', '""')}"`;

/** `table` of the store at `db` becomes an object of `kind` holding the same rows. */
export function makeOdd(db: string, table: string, kind: OddKind): void {
	const d = new Database(db);
	try {
		d.pragma('foreign_keys = OFF');
		d.pragma('legacy_alter_table = ON');
		const ddl = d.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?").pluck().get(table) as
			| string
			| undefined;
		if (!ddl) {
			throw new Error(`${db} has no table ${table}`);
		}

		const rows = `${table}_rows`;
		d.exec(`ALTER TABLE ${q(table)} RENAME TO ${q(rows)}`);
		if (kind === 'view') {
			d.exec(`CREATE VIEW ${q(table)} AS SELECT * FROM ${q(rows)}`);
			return;
		}

		if (kind === 'without-rowid') {
			d.exec(`${ddl.replace(/\bAUTOINCREMENT\b/i, '')} WITHOUT ROWID`);
		} else {
			const columns = d.prepare('SELECT name FROM pragma_table_info(?)').pluck().all(rows) as string[];
			d.exec(`CREATE VIRTUAL TABLE ${q(table)} USING fts5(${columns.map(q).join(', ')})`);
		}

		d.exec(`INSERT INTO ${q(table)} SELECT * FROM ${q(rows)}; DROP TABLE ${q(rows)}`);
	} finally {
		d.close();
	}
}

/** `table` of the store at `db` loses `column` (and the indexes that name it). */
export function dropColumn(db: string, table: string, column: string): void {
	const d = new Database(db);
	try {
		d.pragma('foreign_keys = OFF');
		const indexes = d
			.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL")
			.all(table) as Array<{name: string; sql: string}>;
		for (const index of indexes.filter(i => new RegExp(`\\b${column}\\b`).test(i.sql.replace(/^[^(]*\(/, '')))) {
			d.exec(`DROP INDEX ${q(index.name)}`);
		}

		try {
			d.exec(`ALTER TABLE ${q(table)} DROP COLUMN ${q(column)}`);
		} catch {
			// A key or foreign-key column SQLite will not drop: the table rebuilt without it (no constraints).
			const kept = (d.prepare('SELECT name FROM pragma_table_info(?)').pluck().all(table) as string[])
				.filter(c => c !== column)
				.map(q)
				.join(', ');
			d.pragma('legacy_alter_table = ON');
			d.exec(
				`CREATE TABLE ${q(`${table}_kept`)} AS SELECT ${kept} FROM ${q(table)}; ` +
					`DROP TABLE ${q(table)}; ALTER TABLE ${q(`${table}_kept`)} RENAME ` +
					`TO ${q(table)}`,
			);
		}
	} finally {
		d.close();
	}
}
