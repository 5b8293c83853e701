/**
 * Hermes' full-text indexes over `messages`, as its store carries them (hermes-state.md §1.4–1.5,
 * hermes-incidents.md §5.1), for the fixtures and the benchmark store: the v23+ external-content
 * layout (`messages_fts` over the view `messages_fts_src`, `messages_fts_trigram` over
 * `messages_fts_trigram_src`) or the legacy inline one (pre-v23: the text copied into the index),
 * each with its triggers gated by `state_meta.fts_rebuild_high_water`/`fts_rebuild_progress`.
 * Only ever run on stores this project created itself.
 */

export type FtsLayout = 'external' | 'legacy';

/** A trigger fires only outside a pending rebuild window (the rebuild indexes the rows inside it). */
const GATE = (
	row: 'new' | 'old',
) => `${row}.id > COALESCE((SELECT CAST(value AS INTEGER) FROM state_meta WHERE key = 'fts_rebuild_high_water'), -1)
  OR ${row}.id <= COALESCE((SELECT CAST(value AS INTEGER) FROM state_meta WHERE key = 'fts_rebuild_progress'), -1)`;

/** Tool rows are indexed truncated to 8192 characters. */
const INDEXED_CONTENT = "CASE WHEN m.role = 'tool' THEN substr(m.content, 1, 8192) ELSE m.content END";

/** The trigram view leaves out tool rows, cron and subagent sessions and delegate children. */
const TRIGRAM_INCLUDED =
	`m.role <> 'tool' AND s.source NOT IN ('cron', 'subagent')
    AND (s.model_config IS NULL OR NOT json_valid(s.model_config) OR json_extract(s.model_config, ` +
	`'$._delegate_from') IS NULL)`;

const EXTERNAL =
	`
CREATE VIEW messages_fts_src AS
  SELECT m.id AS id, ${INDEXED_CONTENT}` +
	` AS content, m.tool_name AS tool_name, m.tool_calls AS tool_calls FROM messages m;
CREATE VIRTUAL TABLE messages_fts USING fts5(content, tool_name, tool_calls, ` +
	`content='messages_fts_src', content_rowid='id');
CREATE VIEW messages_fts_trigram_src AS
  SELECT m.id AS id, m.role AS role, m.content AS content, m.tool_name AS tool_name FROM messages m ` +
	`JOIN sessions s ON s.id = m.session_id
  WHERE ${TRIGRAM_INCLUDED};
CREATE VIRTUAL TABLE messages_fts_trigram USING fts5(content, tool_name, ` +
	`content='messages_fts_trigram_src', content_rowid='id', tokenize='trigram');
CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages WHEN ${GATE('new')} BEGIN
  INSERT INTO messages_fts(rowid, content, tool_name, tool_calls) SELECT id, content, tool_name, ` +
	`tool_calls FROM messages_fts_src WHERE id = new.id;
END;
CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages WHEN ${GATE('old')} BEGIN
  INSERT INTO messages_fts(messages_fts, rowid, content, tool_name, tool_calls)
    VALUES ('delete', old.id, CASE WHEN old.role = 'tool' THEN substr(old.content, 1, 8192) ELSE ` +
	`old.content END, old.tool_name, old.tool_calls);
END;
CREATE TRIGGER messages_fts_trigram_insert AFTER INSERT ON messages WHEN ${GATE('new')} BEGIN
  INSERT INTO messages_fts_trigram(rowid, content, tool_name) SELECT id, content, tool_name FROM ` +
	`messages_fts_trigram_src WHERE id = new.id;
END;
`;

const LEGACY =
	`
CREATE VIRTUAL TABLE messages_fts USING fts5(content);
CREATE VIRTUAL TABLE messages_fts_trigram USING fts5(content, tokenize='trigram');
CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages WHEN ${GATE('new')} BEGIN
  INSERT INTO messages_fts(rowid, content) VALUES (new.id, COALESCE(new.content, '') || ' ' || ` +
	`COALESCE(new.tool_name, '') || ' ' || COALESCE(new.tool_calls, ''));
END;
CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages WHEN ${GATE('old')} BEGIN
  DELETE FROM messages_fts WHERE rowid = old.id;
END;
CREATE TRIGGER messages_fts_trigram_insert AFTER INSERT ON messages WHEN ${GATE('new')} BEGIN
  INSERT INTO messages_fts_trigram(rowid, content) VALUES (new.id, COALESCE(new.content, ''));
END;
CREATE TRIGGER messages_fts_trigram_delete AFTER DELETE ON messages WHEN ${GATE('old')} BEGIN
  DELETE FROM messages_fts_trigram WHERE rowid = old.id;
END;
`;

/** The DDL of one layout (tables, views, triggers); run it on a store whose schema exists. */
export function ftsSql(layout: FtsLayout): string {
	return layout === 'external' ? EXTERNAL : LEGACY;
}

/** Indexes every row already in `messages` (what Hermes' rebuild does), for a store filled before the DDL ran. */
export function ftsRebuildSql(layout: FtsLayout): string {
	return layout === 'external'
		? "INSERT INTO messages_fts(messages_fts) VALUES ('rebuild'); INSERT INTO " +
				"messages_fts_trigram(messages_fts_trigram) VALUES ('rebuild');"
		: `INSERT INTO messages_fts(rowid, content) SELECT id, COALESCE(content, '') || ' ' || ` +
				`COALESCE(tool_name, '') || ' ' || COALESCE(tool_calls, '') FROM messages;
INSERT INTO messages_fts_trigram(rowid, content) SELECT id, COALESCE(content, '') FROM messages;`;
}
