/**
 * Open a located store read-only, read one snapshot, describe the files. The single entry point
 * the commands use to get from a path to plain data.
 */
import type {Snapshot} from '../forensics/types.js';
import {formatSqliteVersionNumber} from './db-header.js';
import type {StoreLocation} from './locate.js';
import {ReadOnlyStore} from './open.js';
import {type SchemaInfo, detectSchema} from './schema.js';
import {type ReadOptions, type SnapshotMeta, readSnapshot} from './snapshot.js';

export type DatabaseFacts = {
	path: string;
	label: string;
	owner: string | null;
	schemaVersion: number | null;
	journalMode: 'wal' | 'delete';
	ruleSet: SchemaInfo['ruleSet'];
	ruleSetReason: string;
	openMode: 'in-place' | 'private-copy';
	openModeReason: string;
	sizes: {db: number; wal: number | null; shm: number | null; journal: number | null};
	pageSize: number;
	readerSqliteVersion: string;
	/** From header offset 96: the SQLite that last changed the main file (not every WAL commit). */
	lastWriterSqliteVersion: string;
	applicationId: number;
	dataVersion: number;
	sessionCount: number;
	messageHighWater: number | null;
	readMs: number;
	/** One read transaction (a single consistent snapshot), or several when the read outgrew its budget. */
	consistentSnapshot: boolean;
	/** Columns of the current generation this file lacks (it was last written by an older Hermes). */
	absentColumns: string[];
	notes: string[];
};

/** Columns whose absence changes what hfx can say; reported so an operator knows what was adapted. */
const NOTABLE_SESSION_COLUMNS = ['session_key', 'last_activity_at', 'profile_name', 'created_source', 'origin_json', 'handoff_state', 'model_config', 'message_count'];

export type LoadedStore = {
	facts: DatabaseFacts;
	schema: SchemaInfo;
	snapshot: Snapshot;
	meta: SnapshotMeta;
};

export function describe(store: ReadOnlyStore, location: StoreLocation, schema: SchemaInfo, snapshot: Snapshot, meta: SnapshotMeta): DatabaseFacts {
	const pre = store.preflight;
	return {
		path: pre.path,
		label: location.label,
		owner: location.owner,
		schemaVersion: schema.version,
		journalMode: pre.journalMode,
		ruleSet: schema.ruleSet,
		ruleSetReason: schema.ruleSetReason,
		openMode: store.isPrivateCopy ? 'private-copy' : 'in-place',
		openModeReason: pre.openModeReason,
		sizes: {db: pre.main.size, wal: pre.sidecars.wal?.size ?? null, shm: pre.sidecars.shm?.size ?? null, journal: pre.sidecars.journal?.size ?? null},
		pageSize: pre.header.pageSize,
		readerSqliteVersion: store.sqliteVersion(),
		lastWriterSqliteVersion: formatSqliteVersionNumber(pre.header.sqliteVersionNumber),
		applicationId: pre.header.applicationId,
		dataVersion: meta.dataVersion,
		sessionCount: snapshot.sessions.length,
		messageHighWater: meta.messageHighWater,
		readMs: Math.round(meta.readMs * 10) / 10,
		consistentSnapshot: meta.consistentSnapshot,
		absentColumns: NOTABLE_SESSION_COLUMNS.filter(c => !schema.sessionColumns.has(c)).map(c => `sessions.${c}`),
		notes: [...pre.notes, ...(meta.consistentSnapshot ? [] : [`the read outgrew its transaction budget and used ${meta.transactions} short transactions, so it is not one single snapshot (the WAL was never pinned for long)`])],
	};
}

/** Opens, reads one snapshot and closes. Throws FailClosed on any refusal. */
export function loadStore(location: StoreLocation, options: ReadOptions = {}): LoadedStore {
	const store = ReadOnlyStore.open(location.path);
	try {
		const schema = detectSchema(store);
		const {snapshot, meta} = readSnapshot(store, schema, location.owner, options);
		return {facts: describe(store, location, schema, snapshot, meta), schema, snapshot, meta};
	} finally {
		store.close();
	}
}
