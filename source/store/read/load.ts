/**
 * Open a located store read-only, read one snapshot, describe the files. The single entry point
 * the commands use to get from a path to plain data.
 */
import fs from 'node:fs';
import path from 'node:path';
import {errorCode} from '../../ground/errors.js';
import {grouped} from '../../text/format.js';
import {CURRENT_RULE_SET, CURRENT_SCHEMA_VERSION} from '../../forensics/generations.js';
import type {Snapshot} from '../../forensics/types.js';
import {formatSqliteVersionNumber} from '../db-header.js';
import type {StoreLocation} from '../locate.js';
import {readStore} from '../open/immutable-read.js';
import {type ReadOnlyStore, sqliteFailure} from '../open/open.js';
import {WAL_FRAME_HEADER_BYTES, WAL_HEADER_BYTES, parseWalHeader} from '../wal/wal.js';
import {type LegacyMirror, routingHomeOf} from './routing-home.js';
import {type SchemaInfo, detectSchema} from '../open/schema.js';
import {readPlaces} from '../places/read-places.js';
import {type ReadOptions, type SnapshotMeta, readSnapshot} from './read-snapshot.js';

export type DatabaseFacts = {
	/** The store's real path: the file read, with its -wal and -shm beside it. */
	path: string;
	/** The store was reached through a symbolic link: the link's path and its target (= path); null otherwise. */
	link: {path: string; target: string} | null;
	label: string;
	/** The owner profile Hermes derives from the store's path (never null for a store file). */
	owner: string;
	ownerSource: string;
	schemaVersion: number | null;
	journalMode: 'wal' | 'delete';
	/** The generation of rules that wrote the store, with its evidence. */
	ruleSet: SchemaInfo['ruleSet'];
	ruleSetReason: string;
	/** The rules of the newest Hermes (what an upgrade brings). */
	currentRuleSet: SchemaInfo['ruleSet'];
	/** Set when the store is older than current: what an upgrade (and Hermes' own repair-routing) does to it. */
	upgrade: UpgradeNotice | null;
	/**
	 * The gateway_routing scope this store's gateway loads (realpath of its sessions folder); null when the table has no
	 * scope column.
	 */
	routingScope: string | null;
	/** The legacy sessions.json mirror beside the store, when there is one. */
	legacyMirror: {path: string; entries: number; skipped: number; problem: string | null} | null;
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
const NOTABLE_SESSION_COLUMNS = [
	'session_key',
	'last_activity_at',
	'profile_name',
	'created_source',
	'origin_json',
	'handoff_state',
	'model_config',
	'message_count',
];

/**
 * The notable columns the store lacks, as `sessions.column`. A loop, not `filter`/`map` callbacks made per call: it
 * runs every refresh (issue #26, see foreignScopeNote).
 */
function absentColumns(schema: Pick<SchemaInfo, 'sessionColumns'>): string[] {
	const out: string[] = [];
	for (const c of NOTABLE_SESSION_COLUMNS) {
		if (!schema.sessionColumns.has(c)) {
			out.push(`sessions.${c}`);
		}
	}

	return out;
}

export type LoadedStore = {
	facts: DatabaseFacts;
	schema: SchemaInfo;
	snapshot: Snapshot;
	meta: SnapshotMeta;
};

export type UpgradeNotice = {fromVersion: number | null; toVersion: number; note: string; next: string};

/** What upgrading Hermes does to an older store: its first writable open migrates it (docs/hermes-rules.md, schema). */
export function upgradeNotice(schema: Pick<SchemaInfo, 'version' | 'ruleSet'>): UpgradeNotice | null {
	if (schema.ruleSet === CURRENT_RULE_SET) {
		return null;
	}

	const from = schema.version === null ? 'an unversioned schema' : `schema v${schema.version}`;
	return {
		fromVersion: schema.version,
		toVersion: CURRENT_SCHEMA_VERSION,
		note:
			`this store is ${from}, older than current Hermes ` +
			`(v${CURRENT_SCHEMA_VERSION}): upgrading Hermes, or running its own ` +
			`\`hermes sessions repair-routing\` even as a dry run, opens it writable ` +
			`and migrates it (new columns and tables, a new schema_version), after ` +
			`which the current rules decide`,
		next: 'take `hfx backup --quick` first, so the store as it is now can be restored',
	};
}

/**
 * A store whose routing rows all carry another gateway's scope is likely a copy: say how to judge it as that gateway.
 */
export function foreignScopeNote(snapshot: Pick<Snapshot, 'routing' | 'routingScope'>): string[] {
	const scope = snapshot.routingScope;
	if (scope === null || snapshot.routing.length === 0) {
		return [];
	}

	// Loops, not `some`/`map` callbacks: this runs on every refresh over every routing row, and a callback made per call
	// lost its optimised code at each mark-compact and was compiled again (issue #26; see rowMapper).
	const scopes = new Set<string>();
	for (const e of snapshot.routing) {
		if (e.scope === scope) {
			return [];
		}

		scopes.add(e.scope);
	}

	const [first] = scopes;
	return [
		`no gateway_routing row has this store's scope (${scope}); ` +
			`its ${snapshot.routing.length} rows ` +
			`carry ${scopes.size === 1 ? `the scope ${first}` : `${scopes.size} other scopes`}, ` +
			`so this store's gateway loads none of them. If the store is a copy, ` +
			`judge it as the gateway it came from: --routing-scope ${first}`,
	];
}

/** The -wal's first bytes: as the look before the open read them (a live refresh's preflight), else read now. */
function walHeaderBytes(pre: Pick<ReadOnlyStore['preflight'], 'walHeader'>, wal: string): Buffer {
	if (pre.walHeader) {
		return pre.walHeader;
	}

	const fd = fs.openSync(wal, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
	try {
		const buf = Buffer.alloc(WAL_HEADER_BYTES);
		return buf.subarray(0, fs.readSync(fd, buf, 0, WAL_HEADER_BYTES, 0));
	} finally {
		fs.closeSync(fd);
	}
}

/**
 * A -wal whose header SQLite rejects, with frames after it: SQLite reads the WAL as empty, so the
 * scan sees none of what those frames commit. Only the header is read here (32 bytes, plain I/O:
 * SQLite takes no POSIX lock on the -wal), or taken from the preflight's look when it read it before the open with
 * the size it judges (a live refresh: one open of the -wal fewer per refresh); `hfx files` counts the commits behind
 * it.
 */
export function walHeaderNote(
	pre: Pick<ReadOnlyStore['preflight'], 'journalMode' | 'sidecars' | 'header' | 'walHeader'>,
): string[] {
	const wal = pre.sidecars.wal;
	if (pre.journalMode !== 'wal' || !wal || wal.size < WAL_HEADER_BYTES + WAL_FRAME_HEADER_BYTES + pre.header.pageSize) {
		return [];
	}

	let state: string;
	try {
		state = parseWalHeader(walHeaderBytes(pre, wal.path)).state;
	} catch (error) {
		return [
			`${path.basename(wal.path)} could not be read ` +
				`(${errorCode(error) ?? 'error'}): what it commits is not in this scan`,
		];
	}

	const slots = Math.floor((wal.size - WAL_HEADER_BYTES) / (WAL_FRAME_HEADER_BYTES + pre.header.pageSize));
	return state === 'ok'
		? []
		: [
				`the ${path.basename(wal.path)} header is unusable (${state}) ` +
					`and ${grouped(slots)} frame slots follow it: SQLite ` +
					`reads that WAL as empty, so nothing they commit is in this scan (or a ` +
					`WAL reset was caught mid-write: run again). hfx files counts the ` +
					`committed transactions behind it`,
			];
}

export function describe(
	store: ReadOnlyStore,
	location: StoreLocation,
	schema: SchemaInfo,
	snapshot: Snapshot,
	meta: SnapshotMeta,
	mirror?: LegacyMirror,
): DatabaseFacts {
	const pre = store.preflight;
	return {
		path: pre.path,
		link: pre.link,
		label: location.label,
		owner: location.owner,
		ownerSource: location.ownerSource ?? 'given',
		schemaVersion: schema.version,
		journalMode: pre.journalMode,
		ruleSet: schema.ruleSet,
		ruleSetReason: schema.ruleSetReason,
		currentRuleSet: CURRENT_RULE_SET,
		upgrade: upgradeNotice(schema),
		routingScope: snapshot.routingScope,
		legacyMirror: mirror?.present
			? {path: mirror.path, entries: mirror.entries.length, skipped: mirror.skipped, problem: mirror.problem}
			: null,
		openMode: store.isPrivateCopy ? 'private-copy' : 'in-place',
		openModeReason: pre.openModeReason,
		sizes: {
			db: pre.main.size,
			wal: pre.sidecars.wal?.size ?? null,
			shm: pre.sidecars.shm?.size ?? null,
			journal: pre.sidecars.journal?.size ?? null,
		},
		pageSize: pre.header.pageSize,
		readerSqliteVersion: store.sqliteVersion(),
		lastWriterSqliteVersion: formatSqliteVersionNumber(pre.header.sqliteVersionNumber),
		applicationId: pre.header.applicationId,
		dataVersion: meta.dataVersion,
		sessionCount: snapshot.sessions.length,
		messageHighWater: meta.messageHighWater,
		readMs: Math.round(meta.readMs * 10) / 10,
		consistentSnapshot: meta.consistentSnapshot,
		absentColumns: absentColumns(schema),
		notes: [
			...pre.notes,
			...walHeaderNote(pre),
			...foreignScopeNote(snapshot),
			...(meta.consistentSnapshot
				? []
				: [
						`the read outgrew its transaction budget and used ${meta.transactions} ` +
							`short transactions, so it is not one single snapshot (the WAL was never ` +
							`pinned for long)`,
					]),
		],
	};
}

/**
 * Opens, reads one snapshot and closes. Throws FailClosed on any refusal. `also` runs after the
 * snapshot, on the same connection before it closes (a command's further reads: hfx timeline).
 * A stopped store is read in place as an immutable file (immutable-read.ts), read again if it
 * changed meanwhile: the read (and `also`) may then run twice, the last one standing. The places
 * beside the store are read after, unless `places` is false.
 */
export function loadStore(
	location: StoreLocation,
	options: ReadOptions & {also?: (loaded: LoadedStore, store: ReadOnlyStore) => void; places?: boolean} = {},
): LoadedStore {
	const loaded = readStore(location.path, store => {
		try {
			const schema = detectSchema(store);
			const {context, mirror} = routingHomeOf(location, schema);
			const {snapshot, meta} = readSnapshot(store, schema, context, options);
			const read: LoadedStore = {
				facts: describe(store, location, schema, snapshot, meta, mirror),
				schema,
				snapshot,
				meta,
			};
			options.also?.(read, store);
			return read;
		} catch (error) {
			throw sqliteFailure(location.path, error);
		}
	});

	// The places beside it once the store's connection is closed (never state.db, -wal or -shm); `places: false`
	// for a reader that does not judge them (a retired capture's image is copied to be read).
	if (options.places !== false) {
		loaded.snapshot.places = readPlaces(location.path, loaded.snapshot.sessions);
	}
	return loaded;
}
