/**
 * Which of Hermes' full-text indexes a store carries and whether they can be trusted
 * (hermes-incidents.md §5.1, §5.3): `messages_fts` as the v23+ external-content layout (over the
 * view `messages_fts_src`) or the legacy inline one, `messages_fts_trigram`, `messages_fts_cjk`
 * (never queried: its tokenizer is a loadable extension a plain SQLite lacks), the
 * `state_meta.fts_stale` mark, and a pending rebuild window (`fts_rebuild_progress` <
 * id ≤ `fts_rebuild_high_water`: rows no index holds yet). Read from sqlite_master and state_meta.
 */
import type {ReadOnlyStore} from '../open/open.js';
import type {SchemaInfo} from '../open/schema.js';

export type FtsLayout = 'external' | 'legacy' | 'none';

export type FtsIndex = {
	layout: FtsLayout;
	/** `messages_fts_trigram` is there (SQLite ≥ 3.34 reads it). */
	trigram: boolean;
	/** `messages_fts_cjk` is there (not read: it needs the cjk_unicode61 extension). */
	cjk: boolean;
	/** `state_meta.fts_stale` says the index is known to be out of date. */
	stale: boolean;
	/** Message ids a rebuild has not reached yet (no index holds them): null when no rebuild is pending. */
	rebuildWindow: {after: number; upTo: number} | null;
};

function flag(value: unknown): boolean {
	return (
		value !== null && value !== undefined && !['', '0', 'false', 'no'].includes(String(value).trim().toLowerCase())
	);
}

function whole(value: unknown): number | null {
	const n = Number(value);
	return value === null || value === undefined || String(value).trim() === '' || !Number.isFinite(n)
		? null
		: Math.trunc(n);
}

/** The stored CREATE of each FTS table this reader knows, by name. */
function ftsTables(store: ReadOnlyStore): Map<string, string> {
	const rows = store
		.prepare(
			"SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name IN " +
				"('messages_fts', 'messages_fts_trigram', 'messages_fts_cjk')",
		)
		.all() as Array<{name: string; sql: string | null}>;
	return new Map(rows.map(r => [r.name, r.sql ?? '']));
}

function stateMeta(store: ReadOnlyStore, schema: SchemaInfo): Map<string, unknown> {
	if (!schema.tables.has('state_meta')) {
		return new Map();
	}

	const rows = store
		.prepare(
			"SELECT key, value FROM state_meta WHERE key IN ('fts_stale', 'fts_rebuild_high_water', 'fts_rebuild_progress')",
		)
		.all() as Array<{key: string; value: unknown}>;
	return new Map(rows.map(r => [r.key, r.value]));
}

export function readFtsIndex(store: ReadOnlyStore, schema: SchemaInfo): FtsIndex {
	return store.read(() => {
		const tables = ftsTables(store);
		const main = tables.get('messages_fts');
		const isFts5 = (sql: string | undefined) => sql !== undefined && /using\s+fts5/i.test(sql);
		// hermes-state.md §1.4: the legacy inline table's CREATE lacks the word tool_name.
		const layout: FtsLayout = isFts5(main) ? (/tool_name/i.test(main!) ? 'external' : 'legacy') : 'none';
		const meta = stateMeta(store, schema);
		const highWater = whole(meta.get('fts_rebuild_high_water'));
		const progress = whole(meta.get('fts_rebuild_progress')) ?? -1;
		return {
			layout,
			trigram: isFts5(tables.get('messages_fts_trigram')),
			cjk: tables.has('messages_fts_cjk'),
			stale: flag(meta.get('fts_stale')),
			rebuildWindow: highWater !== null && highWater > progress ? {after: progress, upTo: highWater} : null,
		};
	});
}
