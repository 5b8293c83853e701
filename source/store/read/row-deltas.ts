/**
 * Row deltas: what the owner's commits changed in sessions, messages and gateway_routing, read in
 * short read transactions (new message ids, new and changed session rows, the routing probe), or a
 * full reload now and then; the session index is patched with the result.
 */
import type {SessionRecord, Snapshot} from '../../forensics/types.js';
import {needsMessageCount} from '../../forensics/routing/orphans.js';
import {startupMark} from '../../ground/startup.js';
import type {StoreLocation} from '../locate.js';
import type {ReadOnlyStore} from '../open/open.js';
import type {SchemaInfo} from '../open/schema.js';
import {routingHomeOf} from './routing-home.js';
import {drain} from '../../forensics/analysis/steps.js';
import {
	type SnapshotContext,
	type SnapshotMeta,
	type SnapshotRead,
	messageRowsSettler,
	readSnapshotSteps,
	routingSql,
	rowMapper,
	sameRecord,
	signatureMatcher,
	signatureSql,
	sessionsSql,
	toRoutingEntry,
} from './read-snapshot.js';
import {SessionIndex} from './session-index.js';
import {type Preview, readPreview} from './preview.js';
import {RestartProbeReader} from './restart-probes.js';
import {HotRowsSweep, sliceSize} from './hot-rows-sweep.js';

/**
 * A round of the rolling comparison of every row takes at least this long (the hot rows, those Hermes changes in place
 * in the ordinary course, have their own round of ~5 s: hot-rows-sweep.ts). 5 -> 60 s (issue #26, the follower's CPU):
 * every row every 5 s was ~13 % of the TUI's CPU following 200 commits/s (hot-rows-sweep.ts header).
 */
const SWEEP_MS = 60_000;
/** At least this many rows per slice (a refresh compares them in well under a millisecond). */
const SWEEP_MIN_ROWS = 16;
/**
 * A slice is sized for at most this long since the last, and holds at most a second's rows (SWEEP_MAX_ROWS_PER_SECOND).
 * Nothing is read while no commit comes, so the first refresh after a pause of 30 s sized its slice for 30 s: every
 * row of the store in one read (135,000 on the scale store at the cap, the 0.1-1 s hold the slices are there to
 * prevent). A change in place made during the pause came in a commit that added nothing, compared whole at once. 1 ->
 * 5 s with the 60 s round: an agent committing every 2-3 s made a round of 2-3 minutes (review).
 */
const SWEEP_GAP_MS = 5000;
/**
 * At most this many rows a second (issue #26: the follower's cost must not grow with the store). A round of every row
 * in 5 s compared 4,300 rows a second on the bench store (21,516 rows), 13 % of the TUI's samples following 200
 * commits/s, and 20,000 a second on the scale store (100,210 rows), 35 % of its samples; capped at 4,500 a second, then
 * with every row's round at 60 s (the hot rows' at 5 s) at 1,000: a store of more than 60,000 rows takes longer per
 * round (100 s on the scale store), and a cold row (ended over a day ago) changed in place in a commit that also adds
 * messages or rows (neither a re-read session, a new row nor its parent) is seen within the round while commits go
 * on (a refresh reads only after a commit). A commit that adds neither is still compared whole at once.
 * SWEEP_MIN_ROWS lifts a slice above the round's share for the smallest stores: the TUI's refreshes are at least
 * REFRESH_FLOOR_MS (85 ms) apart, 11.8 a second (the bench store's round, 21,516 rows: ~360 rows a second).
 */
export const SWEEP_MAX_ROWS_PER_SECOND = 1000;

const SWEEP_PACE = {
	roundMs: SWEEP_MS,
	gapMs: SWEEP_GAP_MS,
	maxPerSecond: SWEEP_MAX_ROWS_PER_SECOND,
	minRows: SWEEP_MIN_ROWS,
};
/**
 * While commits only add messages to existing sessions, the routing table is probed at most this often (its probe reads
 * every gateway_routing row: ~1.1 ms a refresh on the bench store's 1,652 rows, 0.48 s of CPU in 24 s following 200
 * commits/s, as each refresh starts on an empty page cache). A commit that adds a session row (a new route is published
 * with it) or adds nothing (a change in place) is probed at once, as is every read of hfx watch (a read every 15 s).
 * 250 -> 1000 ms (issue #26, the follower's CPU): at 250 the probe was still ~0.6 ms four times a second (cpu profile
 * of a follow, readRouting 23 ms in the bench's 10 s window; perf: SQLite's length() and total() 0.9 % of the process's
 * samples). A route changed in a commit that also adds messages is now seen within a second while commits go on (a
 * refresh reads only after a commit).
 */
export const ROUTING_PROBE_MS = 1000;

/**
 * A round of the rolling comparison: its number, the rowid it has reached and when its last slice ran. The rows it did
 * not meet by its end are looked up then (a row added meanwhile has a greater rowid: the round meets it).
 */
type Sweep = {round: number; after: number; at: number};

function nextSweep(last: Sweep | null): Sweep {
	return {round: (last?.round ?? 0) + 1, after: 0, at: Date.now()};
}

/** What one refresh read. */
export type RowDelta = {
	/** Session id -> message rows added since the last read. */
	newMessages: Map<string, number>;
	/** The sessions re-read or dropped; null after a full reload (every session was read). */
	changed: Set<string> | null;
	/** data_version inside the read. */
	dataVersion: number;
	/** The patched sessions, routing and context, as the analysis takes them. */
	snapshot: Snapshot;
};

/**
 * What the store gained between the preview a live view was first drawn from and its first full read (issue #26: the
 * view shows "activity since hfx started"): messages above the preview's, sessions above its rows, and what the preview
 * held of the rows it read (to compare with the full read's).
 */
export type SincePreview = {
	newMessages: Map<string, number>;
	changed: Set<string>;
	old: ReadonlyMap<string, SessionRecord>;
};

export type RowDeltasOptions = {
	/**
	 * Given (hfx watch, which reads every 15 s): every row's signature is compared in one pass at most this
	 * often while commits add messages. Not given (the TUI, which refreshes up to 20 times a second): the
	 * rolling comparisons, a slice per refresh: the hot rows about every five seconds (hot-rows-sweep.ts), every row
	 * about every 60 (longer on a store of more than 60,000 rows: SWEEP_MAX_ROWS_PER_SECOND). Either way a commit that
	 * adds no message and no row is compared at once.
	 */
	signatureEveryMs?: number;
};

export class RowDeltas {
	readonly index = new SessionIndex();
	/** How many times every row's signature was compared (a scan of every session row: tests count it). */
	signatureScans = 0;
	/** The owner and the gateway's routing home (scope, sessions.json) every snapshot is read for. */
	context!: SnapshotContext;
	lastMessageId = 0;
	/** Highest sessions rowid seen: rows above it are new. */
	private lastSessionRowid = 0;
	/**
	 * The rolling comparison of every row's signature (catches updates that add no message and no row): each
	 * refresh compares the next slice of rows in rowid order, sized so that a round takes about SWEEP_MS however
	 * often refreshes come (a whole-table pass at once held the event loop for 0.1-1 s every five seconds: the
	 * worst commit-to-screen latencies), and no more than SWEEP_MAX_ROWS_PER_SECOND rows a second.
	 */
	private sweep: Sweep = nextSweep(null);
	/**
	 * Each indexed session's id -> the round of the rolling comparison that last met its row. One map for the life of
	 * the view, keyed by the records' own id strings (issue #26: a set of the ids read in each round, a fresh string per
	 * row, lived the round's five seconds, so it was promoted and left ~1.3 MB of the old generation to collect every
	 * round on the bench store).
	 */
	private readonly met = new Map<string, number>();
	/** The hot rows' own rolling comparison, about every five seconds (hot-rows-sweep.ts). */
	readonly hot = new HotRowsSweep();
	private lastFullReload = 0;
	private distrusted = false;
	private lastSignatureScan = 0;
	private routingRaw = '';
	private routing: Snapshot['routing'] = [];
	/** When the routing table was last probed (Date.now()); 0: at the next read. */
	private routingProbedAt = 0;
	/** How many times the routing table was probed (tests count them). */
	routingProbes = 0;
	private readonly probes = new RestartProbeReader();
	private restartProbes: Snapshot['restartProbes'] = [];

	private readonly signatureEveryMs: number | null;
	/** The preview's high-water marks and rows, until the first full read compares with them. */
	private previewed: {highWater: Preview['highWater']; old: Map<string, SessionRecord>} | null = null;

	constructor(
		private readonly location: StoreLocation,
		options: RowDeltasOptions = {},
	) {
		this.signatureEveryMs = options.signatureEveryMs ?? null;
	}

	/** The first full read, at open (before any other call). */
	first(store: ReadOnlyStore, schema: SchemaInfo): SnapshotRead {
		return drain(this.firstSteps(store, schema));
	}

	/** As `first`, in steps (read-snapshot.ts readSnapshotSteps): a view answers keys between them (issue #26). */
	*firstSteps(store: ReadOnlyStore, schema: SchemaInfo): Generator<void, SnapshotRead & {sincePreview?: SincePreview}> {
		this.context = routingHomeOf(this.location, schema).context;
		const {snapshot, meta} = yield* readSnapshotSteps(store, schema, this.context, {probes: this.probes});
		startupMark('store read');
		// The index of every row and what came after the preview: a step of their own (after the probes' last step).
		yield;
		// In the same read transaction: what came after the preview.
		const sincePreview = this.sincePreview(store);
		this.index.replace(snapshot.sessions);
		this.absorbFull(store, snapshot, meta);
		this.lastFullReload = Date.now();
		return sincePreview ? {snapshot, meta, sincePreview} : {snapshot, meta};
	}

	/** After a preview, inside the first full read's transaction: what the store gained since the preview. */
	private sincePreview(store: ReadOnlyStore): SincePreview | undefined {
		const previewed = this.previewed;
		this.previewed = null;
		if (!previewed) {
			return undefined;
		}

		const newMessages = this.newMessagesSince(store, previewed.highWater.messages).counts;
		const newRows = store.prepare('SELECT id FROM sessions WHERE rowid > ?').pluck().all(previewed.highWater.sessions);
		const changed = new Set([...previewed.old.keys(), ...newRows.map(String)]);
		return {newMessages, changed, old: previewed.old};
	}

	/**
	 * The newest `limit` rows and the count of all (preview.ts), as the index until `first` reads them all: a live view
	 * drawn before its first full read (issue #26).
	 */
	preview(store: ReadOnlyStore, schema: SchemaInfo, limit: number): Preview {
		this.context = routingHomeOf(this.location, schema).context;
		const preview = readPreview(store, schema, this.context, limit);
		startupMark('store previewed');
		this.index.replace(preview.snapshot.sessions);
		this.previewed = {highWater: preview.highWater, old: new Map(preview.snapshot.sessions.map(s => [s.id, s]))};
		return preview;
	}

	/** A full reload is due (every `fullReloadMs`, or at once after `distrust`). */
	fullReloadDue(fullReloadMs: number): boolean {
		return Date.now() - this.lastFullReload > fullReloadMs;
	}

	/** Whether the index holds what the last reads found (false after `distrust`, until a full reload replaces it). */
	get trusted(): boolean {
		return !this.distrusted;
	}

	/** The index may be half updated: the next refresh reads everything again. */
	distrust(): void {
		this.lastFullReload = 0;
		this.distrusted = true;
	}

	/**
	 * Every row read again, in steps (read-snapshot.ts readSnapshotSteps): a live view answers keys between them (issue
	 * #26: read at once, the periodic reload held the event loop ~0.8 s every 10 minutes on the bench store). `patch`
	 * (the periodic reload of a trusted index): the rows that differ from their records are patched into the index and
	 * named in `changed`, as an incremental read's are, so the analysis runs incrementally (a reload analysed in full
	 * every 10 minutes was the follower's worst 10 s and its peak of memory, the whole analysis built beside the last).
	 * Else the index is replaced and `changed` is null. `proceed`, asked once every row is read and before anything
	 * changes: false abandons the reload (null; the index as it was, the reload still due); true lets it patch or
	 * replace the index, in the same step as the caller's use of it.
	 */
	*fullReloadSteps(
		store: ReadOnlyStore,
		schema: SchemaInfo,
		patch: boolean,
		proceed: () => boolean,
	): Generator<void, RowDelta | null> {
		const newMessages = store.read(() => this.newMessagesSince(store, this.lastMessageId).counts);
		// Unchanged sessions keep their records: the reload does not briefly hold two copies of
		// every session (with a reload every 20 s on the bench store, RSS levelled off ~16 MB lower).
		// The legacy mirror is a plain file: read again with every full reload.
		this.context = routingHomeOf(this.location, schema).context;
		const reuse = this.index.byId;
		const {snapshot, meta} = yield* readSnapshotSteps(store, schema, this.context, {reuse, probes: this.probes});
		if (!proceed()) {
			return null;
		}

		let changed: Set<string> | null = null;
		if (patch && !this.distrusted && this.sameOrder(snapshot.sessions)) {
			changed = this.patchIndex(snapshot.sessions);
		} else {
			this.index.replace(snapshot.sessions);
		}

		this.absorbFull(store, snapshot, meta);
		this.lastFullReload = Date.now();
		return {
			newMessages,
			changed,
			dataVersion: meta.dataVersion,
			snapshot: this.snapshotOf(schema, snapshot.routing),
		};
	}

	/**
	 * Whether the index lists the same sessions as a full read, in its order (rowid order). A row dropped moves the last
	 * into its slot, and the analysis meets a key's rows in the index's order (a key without a platform takes its first
	 * row's source): then the reload replaces the index and is analysed in full, as every reload was before.
	 */
	private sameOrder(sessions: readonly SessionRecord[]): boolean {
		const {list} = this.index;
		if (list.length !== sessions.length) {
			return false;
		}

		for (let i = 0; i < list.length; i++) {
			if (list[i]!.id !== sessions[i]!.id) {
				return false;
			}
		}

		return true;
	}

	/** The records of a full read that say something else than the index's (or are new) put in it; those gone dropped. */
	private patchIndex(sessions: readonly SessionRecord[]): Set<string> {
		this.index.before = new Map();
		const changed = new Set<string>();
		const present = new Set<string>();
		for (const record of sessions) {
			present.add(record.id);
			const was = this.index.byId.get(record.id);
			if (was !== record && !(was && sameRecord(was, record))) {
				this.index.remember(record.id);
				this.index.put(record);
				changed.add(record.id);
			}
		}

		for (const id of [...this.index.byId.keys()]) {
			if (!present.has(id)) {
				this.index.remember(id);
				this.index.drop(id);
				changed.add(id);
			}
		}

		return changed;
	}

	/**
	 * What changed, without scanning every session on every commit: the sessions that got messages,
	 * new rows and their parents (a rotation ends the parent) are re-read. A commit that adds no
	 * message and no row changed some row in place (an end, a key): then every row's signature is
	 * compared; otherwise, with `signatureEveryMs` every row at most that often, else the next slice of the
	 * rolling comparisons (the hot rows about every five seconds, every row about every 60, longer on the biggest
	 * stores). `checkpointed`: the store's signature says only a checkpoint moved it (store/open/live-signature.ts
	 * onlyCheckpointed): no row changed in place, and a read that finds nothing new compares the next slices, not every
	 * row.
	 */
	incremental(store: ReadOnlyStore, schema: SchemaInfo, checkpointed = false): RowDelta {
		this.index.before = new Map();
		const {newMessages, changed, dataVersion, routing} = store.read(() => {
			const dataVersion = store.dataVersion();
			const {counts: newMessages, high} = this.newMessagesSince(store, this.lastMessageId);
			const {candidates, newRows} = this.newSessionRows(store, schema, newMessages);
			const changed = new Set<string>();
			const periodic = this.signatureEveryMs !== null;
			if (newMessages.size === 0 && newRows === 0 && !checkpointed) {
				this.compareSignatures(store, schema, candidates, changed);
			} else if (!periodic) {
				this.hot.compare(store, schema, this.index.byId, this.index.list, candidates);
				this.compareSlice(store, schema, candidates, changed);
			} else if (Date.now() - this.lastSignatureScan > this.signatureEveryMs!) {
				this.compareSignatures(store, schema, candidates, changed);
			}

			this.reread(store, schema, candidates, changed);
			this.restartProbes = this.probes.readChanged(store, schema, this.index.changes());
			this.lastMessageId = high;
			const probe = periodic || newRows > 0 || newMessages.size === 0;
			return {newMessages, changed, dataVersion, routing: this.readRouting(store, schema, probe)};
		});
		return {newMessages, changed, dataVersion, snapshot: this.snapshotOf(schema, routing)};
	}

	private snapshotOf(schema: SchemaInfo, routing: Snapshot['routing']): Snapshot {
		return {
			sessions: this.index.list,
			routing,
			restartProbes: this.restartProbes,
			...this.context,
			ruleSet: schema.ruleSet,
			missingColumns: schema.missingColumns,
		};
	}

	/** What a full read sets besides the index (which the caller replaced or patched). */
	private absorbFull(store: ReadOnlyStore, snapshot: Snapshot, meta: SnapshotMeta): void {
		this.distrusted = false;
		this.restartProbes = snapshot.restartProbes;
		// The next read probes the routing table (this.routing is the last probe's, not this read's).
		this.routingProbedAt = 0;
		this.sweep = nextSweep(this.sweep);
		this.hot.restart();
		this.lastSignatureScan = Date.now();
		// A read in several transactions may not hold a message added meanwhile to a row it read early: from its start.
		this.lastMessageId = (meta.transactions > 1 ? meta.messageHighWaterAtStart : meta.messageHighWater) ?? 0;
		this.lastSessionRowid =
			meta.sessionHighWater ?? (store.prepare('SELECT max(rowid) FROM sessions').pluck().get() as number | null) ?? 0;
	}

	/**
	 * Sessions that got messages since `high`: one range read on the rowid, counted here (a GROUP BY would walk an index
	 * of every message).
	 */
	private newMessagesSince(store: ReadOnlyStore, high: number): {counts: Map<string, number>; high: number} {
		const counts = new Map<string, number>();
		let top = high;
		// By rowid (messages.id is its alias in every store Hermes writes; a store without that column reads the same).
		for (const [id, sessionId] of store
			.prepare('SELECT rowid, session_id FROM messages WHERE rowid > ? ORDER BY rowid')
			.raw(true)
			.iterate(high) as IterableIterator<[number, unknown]>) {
			const key = String(sessionId);
			counts.set(key, (counts.get(key) ?? 0) + 1);
			top = id;
		}

		return {counts, high: top};
	}

	/** The sessions to re-read: those that got messages, new rows and their parents. */
	private newSessionRows(
		store: ReadOnlyStore,
		schema: SchemaInfo,
		newMessages: Map<string, number>,
	): {candidates: Set<string>; newRows: number} {
		const parent = schema.sessionColumns.has('parent_session_id') ? 'parent_session_id' : 'NULL';
		const newRows = store
			.prepare(`SELECT rowid, id, ${parent} FROM sessions WHERE rowid > ? ORDER BY rowid`)
			.raw(true)
			.all(this.lastSessionRowid) as Array<[number, unknown, unknown]>;
		const candidates = new Set<string>(newMessages.keys());
		for (const [rowid, id, parent] of newRows) {
			candidates.add(String(id));
			if (parent !== null && parent !== undefined) {
				candidates.add(String(parent));
			}

			this.lastSessionRowid = Math.max(this.lastSessionRowid, rowid);
		}

		return {candidates, newRows: newRows.length};
	}

	/** Adds the rows whose signature differs to `candidates`; drops the sessions whose row is gone. */
	private compareSignatures(
		store: ReadOnlyStore,
		schema: SchemaInfo,
		candidates: Set<string>,
		changed: Set<string>,
	): void {
		// Every row's in-place columns against its record (the baseline read with the rows), a row at a time (all rows
		// at once cost 20 % less CPU but held every row in memory), and no set of the ids met: the ids are unique, so
		// when as many known rows were met as the index holds, none is gone (only then is the index walked).
		const matches = signatureMatcher(schema);
		const statement = store.prepare(signatureSql(schema)).raw(true);
		let known = 0;
		for (const row of statement.iterate() as IterableIterator<unknown[]>) {
			const id = String(row[0]);
			const record = this.index.byId.get(id);
			if (!record) {
				candidates.add(id);
				continue;
			}

			known++;
			if (!matches(record, row)) {
				candidates.add(id);
			}
		}

		if (known < this.index.byId.size) {
			const present = new Set((statement.all() as unknown[][]).map(row => String(row[0])));
			for (const id of [...this.index.byId.keys()]) {
				if (!present.has(id) && !candidates.has(id)) {
					this.index.remember(id);
					this.index.drop(id);
					changed.add(id);
				}
			}
		}

		this.lastSignatureScan = Date.now();
		this.signatureScans++;
		this.sweep = nextSweep(this.sweep);
	}

	/**
	 * The next slice of the rolling comparison: rows whose signature differs (or that have no record) join
	 * `candidates`. At the end of a round, the rows that were there when it began and that it did not meet are
	 * looked up one by one (a VACUUM may renumber rowids): those gone are dropped.
	 */
	private compareSlice(store: ReadOnlyStore, schema: SchemaInfo, candidates: Set<string>, changed: Set<string>): void {
		const now = Date.now();
		const limit = sliceSize(this.index.list.length, now - this.sweep.at, SWEEP_PACE);
		this.sweep.at = now;
		const matches = signatureMatcher(schema);
		const rows = store.prepare(signatureSql(schema, 'slice')).raw(true).all(this.sweep.after, limit) as unknown[][];
		const {round} = this.sweep;
		for (const row of rows) {
			const id = String(row[0]);
			const record = this.index.byId.get(id);
			if (record) {
				this.met.set(record.id, round);
			}

			if (!record || !matches(record, row)) {
				candidates.add(id);
			}
		}

		if (rows.length === limit) {
			this.sweep.after = Number(rows.at(-1)!.at(-1));
			return;
		}

		this.endSweep(store, candidates, changed);
	}

	/** A round's end: the indexed rows it did not meet and no slice re-reads are looked up; those gone are dropped. */
	private endSweep(store: ReadOnlyStore, candidates: Set<string>, changed: Set<string>): void {
		const {round} = this.sweep;
		const exists = store.prepare('SELECT 1 FROM sessions WHERE id = ?').pluck();
		const gone: string[] = [];
		for (const id of this.index.byId.keys()) {
			if (this.met.get(id) !== round && !candidates.has(id) && !exists.get(id)) {
				gone.push(id);
			}
		}

		for (const id of gone) {
			this.index.remember(id);
			this.index.drop(id);
			changed.add(id);
		}

		for (const id of this.met.keys()) {
			if (!this.index.byId.has(id)) {
				this.met.delete(id);
			}
		}

		this.sweep = nextSweep(this.sweep);
	}

	/** Re-reads each candidate's row into the index (or drops it when the row is gone). */
	private reread(store: ReadOnlyStore, schema: SchemaInfo, candidates: Set<string>, changed: Set<string>): void {
		const reread = store.prepare(sessionsSql(schema, {columns: 'full', where: 's.id = ?'})).raw(true);
		const settle = messageRowsSettler(store);
		const map = rowMapper('full');
		// Prepared when first needed (a connection per refresh: a statement prepared is ~0.03-0.05 ms of CPU).
		let count: ReturnType<ReadOnlyStore['prepare']> | undefined;
		for (const id of candidates) {
			const row = reread.get(id) as unknown[] | undefined;
			this.index.remember(id);
			if (!row) {
				if (this.index.drop(id)) {
					changed.add(id);
				}

				continue;
			}

			const record = map(row);
			settle(record);
			if (needsMessageCount(record)) {
				count ??= store.prepare('SELECT count(*) FROM messages WHERE session_id = ?').pluck();
				record.messageRows = count.get(id) as number;
			}

			this.index.put(record);
			changed.add(id);
		}
	}

	/**
	 * The routing entries; the previous array itself when no row changed (so the analysis can tell at a glance), or when
	 * neither `now` nor ROUTING_PROBE_MS since the last probe asks to look.
	 */
	private readRouting(store: ReadOnlyStore, schema: SchemaInfo, now: boolean): Snapshot['routing'] {
		const rSql = routingSql(schema);
		if (!rSql || (!now && Date.now() - this.routingProbedAt < ROUTING_PROBE_MS)) {
			return this.routing;
		}

		this.routingProbedAt = Date.now();
		this.routingProbes++;
		// Every save of an entry rewrites its updated_at and entry_json: a cheap aggregate tells whether any did.
		const stamp = schema.routingColumns.has('updated_at') ? ', max(updated_at), total(updated_at)' : '';
		const probe = store
			.prepare(`SELECT count(*), total(length(entry_json))${stamp} FROM gateway_routing`)
			.raw(true)
			.get() as unknown[];
		const raw = JSON.stringify(probe);
		if (raw !== this.routingRaw) {
			this.routingRaw = raw;
			this.routing = (store.prepare(rSql).all() as Array<Record<string, unknown>>).map(toRoutingEntry);
		}

		return this.routing;
	}
}
