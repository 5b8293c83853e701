/**
 * One job: bring an older Hermes store (v21, v25) to the current schema shape, as current Hermes
 * does on any writable open (docs/hermes-rules.md, schema: `_init_schema`/`_reconcile_columns`), so
 * that "what the newest Hermes decides once it has migrated the store" (docs/scenarios.md, G1–G6)
 * can be checked on a file that really was migrated rather than on a v30 store built from scratch.
 *
 * What it does, and nothing else:
 *   - CREATE TABLE IF NOT EXISTS for every table of the v30 shape the file lacks;
 *   - ALTER TABLE … ADD COLUMN for every column of a v30 table the file's table lacks, declared as
 *     Hermes' reconciler declares it (type, NOT NULL unless a key, DEFAULT): no backfill, so an
 *     existing row reads NULL in a new column, or that column's declared default;
 *   - schema_version set to 30 (updated, or inserted when the table is empty or was missing).
 * The column and table lists come from the v30 DDL in hermes-schema.ts, read back through an
 * in-memory SQLite, so they cannot drift from it. Indexes, FTS and Hermes' data migrations are not
 * reproduced; the journal mode is left as it is.
 *
 * It opens the file writable: a simulator/test tool for a COPY, never for evidence.
 */
import Database from 'better-sqlite3';
import {schemaSql} from './hermes-schema.js';

export const CURRENT_SCHEMA_VERSION = 30;

type DeclaredTable = {name: string; createSql: string; columns: Array<{name: string; definition: string}>};

type TableInfoRow = {name: string; type: string; notnull: number; dflt_value: string | null; pk: number};

function quote(identifier: string): string {
	return `"${identifier.replaceAll('"', '""')}"`;
}

function columnsOf(db: Database.Database, table: string): TableInfoRow[] {
	return db
		.prepare('SELECT name, type, "notnull", dflt_value, pk FROM pragma_table_info(?)')
		.all(table) as TableInfoRow[];
}

/** The tables and columns of the current (v30) shape, in creation order. */
function currentTables(): DeclaredTable[] {
	const ref = new Database(':memory:');
	try {
		ref.exec(schemaSql('v30'));
		const tables = ref
			.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY rowid")
			.all() as Array<{name: string; sql: string}>;
		return tables.map(t => ({
			name: t.name,
			createSql: t.sql.replace(/^CREATE TABLE /i, 'CREATE TABLE IF NOT EXISTS '),
			columns: columnsOf(ref, t.name).map(c => ({
				name: c.name,
				definition: [
					c.type,
					c.notnull && !c.pk ? 'NOT NULL' : '',
					c.dflt_value === null ? '' : `DEFAULT ${c.dflt_value}`,
				]
					.filter(Boolean)
					.join(' '),
			})),
		}));
	} finally {
		ref.close();
	}
}

export function migrateToCurrent(dbPath: string): void {
	const declared = currentTables();
	const db = new Database(dbPath, {fileMustExist: true});
	try {
		db.transaction(() => {
			const existing = new Set(
				db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[],
			);
			for (const table of declared) {
				if (!existing.has(table.name)) {
					db.exec(table.createSql);
					continue;
				}

				const live = new Set(columnsOf(db, table.name).map(c => c.name));
				for (const column of table.columns) {
					if (!live.has(column.name)) {
						db.exec(`ALTER TABLE ${quote(table.name)} ADD COLUMN ${quote(column.name)} ${column.definition}`);
					}
				}
			}

			const rows = db.prepare('SELECT count(*) FROM schema_version').pluck().get() as number;
			if (rows === 0) {
				db.prepare('INSERT INTO schema_version(version) VALUES (?)').run(CURRENT_SCHEMA_VERSION);
			} else {
				db.prepare('UPDATE schema_version SET version = ?').run(CURRENT_SCHEMA_VERSION);
			}
		})();
	} finally {
		db.close();
	}
}
