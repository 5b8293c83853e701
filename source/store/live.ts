/**
 * A store that follows its owner: one long-lived read-only connection; chokidar on the folder
 * (depth 0) as a hint, `PRAGMA data_version` as the confirmation; incremental refreshes (new
 * message ids, changed session rows) in short read transactions; the forensic engine re-run on
 * the result; activity events from the difference.
 */
import fs from 'node:fs';
import path from 'node:path';
import {type FSWatcher, watch} from 'chokidar';
import {type ActivityEvent, changedSessionIds, diffActivity} from '../forensics/activity.js';
import {type Analysis, analyze, indexById} from '../forensics/analyze.js';
import {analyzeIncremental, prepareIncremental} from '../forensics/incremental.js';
import type {SessionRecord, Snapshot} from '../forensics/types.js';
import {needsMessageCount} from '../forensics/orphans.js';
import {errorMessage} from '../errors.js';
import {startupMark} from '../startup.js';
import {type DatabaseFacts, describe} from './load.js';
import type {StoreLocation} from './locate.js';
import {ReadOnlyStore} from './open.js';
import {type SchemaInfo, detectSchema} from './schema.js';
import {routingHomeOf} from './routing-home.js';
import {type SnapshotContext, type SnapshotMeta, messageRowsSettler, readSnapshot, routingSql, rowMapper, signatureMatcher, signatureSql, sessionsSql, toRoutingEntry} from './snapshot.js';
import {type SessionDetail, readSessionDetail} from './detail.js';

export type LiveModel = {
	facts: DatabaseFacts;
	analysis: Analysis;
	/** Newest last; bounded. */
	activity: ActivityEvent[];
	/** Session id -> wall-clock seconds it last changed (for a brief highlight). */
	changedAt: ReadonlyMap<string, number>;
	/** Commits (data_version changes) seen since start. */
	commits: number;
	refreshedAt: number;
	/** How long the last refresh took, ms. */
	refreshMs: number;
	/** The last refresh failed (the previous model is kept); cleared by the next success. */
	error: string | null;
	/** Bumped on every published model, so views can tell them apart. */
	revision: number;
	/** Live updates are paused: the analysis stays as it was; `waiting` counts what came in. */
	paused: boolean;
	waiting: number;
};

export type LiveOptions = {
	/** Fallback poll of data_version when no fs event arrives (network filesystems). */
	pollMs?: number;
	/** Coalesce bursts of fs events. */
	debounceMs?: number;
	maxGapSeconds?: number;
	/** Watch the folder with chokidar (off in some tests). */
	watch?: boolean;
	/**
	 * A full reload every so often (default 10 min) reconciles what the incremental path cannot
	 * see: messages removed from a session whose row did not change. Deleted and edited rows are
	 * caught by the signature scan every 5 s. On a 1M-message store a full reload holds the event
	 * loop for about a second, hence rare.
	 */
	fullReloadMs?: number;
	now?: () => number;
	activityLimit?: number;
};

type Listener = (model: LiveModel) => void;

export class LiveStore {
	readonly location: StoreLocation;
	private store: ReadOnlyStore;
	private schema: SchemaInfo;
	/** The owner and the gateway's routing home (scope, sessions.json) every snapshot is read for. */
	private context: SnapshotContext;
	private readonly options: Required<Omit<LiveOptions, 'maxGapSeconds'>> & {maxGapSeconds: number | undefined};
	private sessions = new Map<string, SessionRecord>();
	/**
	 * The same sessions as one array, patched in place (a fresh twenty-thousand-element array per
	 * commit would land in V8's large-object space, straight in the old generation, and make the
	 * heap balloon between collections). `positions` finds a session's slot.
	 */
	private list: SessionRecord[] = [];
	private positionsBuilt: Map<string, number> | null = null;
	private lastMessageId = 0;
	/** Highest sessions rowid seen: rows above it are new. */
	private lastSessionRowid = 0;
	/** When every row's signature was last compared (catches updates that add no message and no row). */
	private lastSignatureScan = 0;
	private lastDataVersion: number;
	private lastFullReload: number;
	private current: LiveModel;
	private readonly listeners = new Set<Listener>();
	private watcher: FSWatcher | undefined;
	private pollTimer: NodeJS.Timeout | undefined;
	private debounceTimer: NodeJS.Timeout | undefined;
	private readonly changedAt = new Map<string, number>();
	private closed = false;
	private openedIno: number;
	/** Why the store was reopened since the last published model (an activity event). */
	private reopened: string | null = null;

	private constructor(location: StoreLocation, store: ReadOnlyStore, schema: SchemaInfo, options: LiveOptions) {
		this.location = location;
		this.store = store;
		this.schema = schema;
		this.options = {
			pollMs: options.pollMs ?? 1000,
			debounceMs: options.debounceMs ?? 25,
			maxGapSeconds: options.maxGapSeconds,
			watch: options.watch ?? true,
			fullReloadMs: options.fullReloadMs ?? 600_000,
			now: options.now ?? (() => Date.now() / 1000),
			activityLimit: options.activityLimit ?? 500,
		};
		this.openedIno = store.preflight.main.ino;
		// A long-lived observer: a small page cache (the OS caches the file anyway).
		store.setCacheSizeKib(4096);
		this.context = routingHomeOf(location, schema).context;
		const {snapshot, meta} = readSnapshot(store, schema, this.context);
		startupMark('store read');
		this.absorbFull(snapshot, meta);
		this.lastDataVersion = meta.dataVersion;
		this.lastFullReload = Date.now();
		// The analysis shares this store's index of sessions, as every later one does.
		const analysis = analyze(snapshot, {maxGapSeconds: this.options.maxGapSeconds, byId: this.sessions});
		this.current = {
			facts: describe(store, location, schema, snapshot, meta),
			analysis,
			activity: [],
			changedAt: this.changedAt,
			commits: 0,
			refreshedAt: this.options.now(),
			refreshMs: meta.readMs,
			error: null,
			revision: 1,
			paused: false,
			waiting: 0,
		};
	}

	/** Opens read-only and reads the first snapshot (throws FailClosed on refusal). */
	static open(location: StoreLocation, options: LiveOptions = {}): LiveStore {
		const store = ReadOnlyStore.open(location.path);
		startupMark('store opened');
		try {
			return new LiveStore(location, store, detectSchema(store), options);
		} catch (error) {
			store.close();
			throw error;
		}
	}

	get model(): LiveModel {
		return this.current;
	}

	get readOnlyStore(): ReadOnlyStore {
		return this.store;
	}

	get schemaInfo(): SchemaInfo {
		return this.schema;
	}

	subscribe(listener: Listener): () => void {
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}

	private paused = false;
	private pausedVersion = -1;
	/** Records of the sessions the current refresh changes, as they were (for the shared index). */
	private before = new Map<string, SessionRecord | undefined>();

	/**
	 * Pauses or resumes. While paused nothing is re-read: each commit only bumps `waiting`, and
	 * the model (analysis included) stays exactly as it was. Resuming catches up at once.
	 */
	setPaused(paused: boolean): void {
		if (paused === this.paused) {
			return;
		}

		this.paused = paused;
		if (paused) {
			this.current = {...this.current, paused: true, waiting: 0, revision: this.current.revision + 1};
			this.emit();
		} else {
			const waited = this.current.waiting;
			this.current = {...this.current, paused: false, waiting: 0, revision: this.current.revision + 1};
			if (!this.refresh(waited > 0)) {
				this.emit();
			}
		}
	}

	/**
	 * Starts following the owner's commits. A closed store stays closed: the TUI starts following
	 * after its first frame, and an operator who quit before that (a key pressed during start-up
	 * is read as soon as the frame is up) must not get a watcher that keeps the process alive.
	 */
	start(): void {
		if (this.closed) {
			return;
		}

		if (this.options.watch && !this.watcher) {
			const base = path.basename(this.location.path);
			this.watcher = watch(path.dirname(this.store.preflight.path), {depth: 0, ignoreInitial: true, persistent: true});
			this.watcher.on('all', (_event, file) => {
				if (path.basename(file).startsWith(base)) {
					this.schedule();
				}
			});
			this.watcher.on('error', () => {
				// The poll below still confirms changes.
			});
		}

		this.pollTimer ??= setInterval(() => this.schedule(), this.options.pollMs);
		this.pollTimer.unref?.();
		// Catch up on whatever was committed between the first read and now.
		this.schedule();
	}

	private schedule(): void {
		if (this.closed || this.debounceTimer) {
			return;
		}

		this.debounceTimer = setTimeout(() => {
			this.debounceTimer = undefined;
			this.refresh();
		}, this.options.debounceMs);
	}

	/** Checks data_version and, if another connection committed, refreshes incrementally. Returns true when a new model was published. */
	refresh(force = false): boolean {
		if (this.closed) {
			return false;
		}

		const started = performance.now();
		try {
			const reason = this.staleOpen();
			if (reason) {
				this.reopen(reason);
				force = true;
			}

			const dataVersion = this.store.dataVersion();
			if (this.paused) {
				if (dataVersion !== this.pausedVersion) {
					this.pausedVersion = dataVersion;
					this.current = {...this.current, waiting: this.current.waiting + 1, revision: this.current.revision + 1};
					this.emit();
				}

				return false;
			}

			if (dataVersion === this.lastDataVersion && !force) {
				if (this.current.error) {
					this.current = {...this.current, error: null, revision: this.current.revision + 1};
					this.emit();
				}

				return false;
			}

			const before = this.current.analysis;
			const full = this.reopened !== null || Date.now() - this.lastFullReload > this.options.fullReloadMs;
			const {newMessages, changed, meta} = full ? this.fullRefresh() : this.incrementalRefresh();
			const snapshot: Snapshot = {sessions: this.list, routing: meta.routing, ...this.context, ruleSet: this.schema.ruleSet};
			// The analysis shares this store's index of sessions (no copy per commit); `this.before`
			// holds what the changed ones were.
			const old = (id: string) => (this.before.has(id) ? this.before.get(id) : before.byId.get(id));
			const analysis = changed === null
				? analyze(snapshot, {maxGapSeconds: this.options.maxGapSeconds, byId: this.sessions})
				: analyzeIncremental(before, snapshot, changed, {maxGapSeconds: this.options.maxGapSeconds}, id => this.sessions.get(id), {byId: this.sessions, before: this.before});
			const now = this.options.now();
			const commits = this.current.commits + 1;
			const events = diffActivity(before, analysis, newMessages, now, changed ?? undefined, changed ? old : undefined);
			if (this.reopened) {
				events.unshift({at: now, kind: 'commit', subject: this.location.label, text: this.reopened});
				this.reopened = null;
			}

			events.unshift({at: now, kind: 'commit', subject: this.location.label, text: `commit seen (data_version ${this.lastDataVersion} → ${meta.dataVersion}): ${[...newMessages.values()].reduce((a, b) => a + b, 0)} new message rows, ${events.filter(e => e.kind !== 'messages').length} session/routing changes`});
			for (const id of changedSessionIds(before, analysis, newMessages, changed ?? undefined, changed ? old : undefined)) {
				this.changedAt.set(id, now);
			}

			this.lastDataVersion = meta.dataVersion;
			const activity = [...this.current.activity, ...events].slice(-this.options.activityLimit);
			const snapshotMeta: SnapshotMeta = {dataVersion: meta.dataVersion, messageHighWater: this.lastMessageId || null, readMs: performance.now() - started, consistentSnapshot: true, transactions: 1};
			this.current = {
				facts: describe(this.store, this.location, this.schema, snapshot, snapshotMeta),
				analysis,
				activity,
				changedAt: this.changedAt,
				commits,
				refreshedAt: now,
				refreshMs: performance.now() - started,
				error: null,
				revision: this.current.revision + 1,
				paused: false,
				waiting: 0,
			};
			this.before = new Map();
			this.emit();
			return true;
		} catch (error) {
			// The index may be half updated: the next refresh reads everything again.
			this.lastFullReload = 0;
			return this.publishError(`refresh failed: ${errorMessage(error)}; showing the last good snapshot`);
		}
	}

	/** Latest messages and card facts of one session. */
	detail(sessionId: string, limit = 200): SessionDetail {
		const s = this.sessions.get(sessionId);
		const edge = this.current.analysis.lineage.parentEdge.get(sessionId);
		return readSessionDetail(this.store, this.schema, sessionId, {
			limit,
			parentId: edge?.parentId ?? null,
			startedAt: typeof s?.startedAtRaw === 'number' ? s.startedAtRaw : null,
			branch: edge?.kind === 'branch',
		});
	}

	close(): void {
		if (this.closed) {
			return;
		}

		this.closed = true;
		clearInterval(this.pollTimer);
		clearTimeout(this.debounceTimer);
		void this.watcher?.close();
		this.listeners.clear();
		this.store.close();
	}

	private emit(): void {
		for (const listener of this.listeners) {
			listener(this.current);
		}
	}

	private publishError(message: string): boolean {
		if (this.current.error !== message) {
			this.current = {...this.current, error: message, revision: this.current.revision + 1};
			this.emit();
		}

		return false;
	}

	/**
	 * Why the open connection no longer shows the store: the path names another file now (a
	 * restore, a `cp` over it), or we read a private copy and the original changed since (its
	 * owner started: -wal/-shm appeared; or the file itself changed). Null when it still does.
	 */
	private staleOpen(): string | null {
		const pre = this.store.preflight;
		let st: fs.Stats;
		try {
			st = fs.statSync(pre.path);
		} catch {
			throw new Error(`${pre.path} disappeared; this view shows the last snapshot`);
		}

		if (!this.store.isPrivateCopy) {
			return st.ino === this.openedIno ? null : `${pre.path} was replaced on disk (a new inode: a restore or a copy over it): reopened on the new file`;
		}

		const owner = fs.existsSync(`${pre.path}-wal`) && fs.existsSync(`${pre.path}-shm`);
		if (owner) {
			return 'the agent opened the store (-wal and -shm appeared): now following it in place';
		}

		return st.size !== pre.main.size || st.mtimeMs !== pre.main.mtimeMs || st.ino !== pre.main.ino ? 'the store file changed while no agent held it: re-read from a fresh private copy' : null;
	}

	/** Replaces the connection (preflight again; in place once an owner holds the store). */
	private reopen(reason: string): void {
		const next = ReadOnlyStore.open(this.location.path);
		let schema: SchemaInfo;
		try {
			schema = detectSchema(next);
		} catch (error) {
			next.close();
			throw error;
		}

		this.store.close();
		next.setCacheSizeKib(4096);
		this.store = next;
		this.schema = schema;
		this.openedIno = next.preflight.main.ino;
		this.lastDataVersion = -1;
		this.reopened = reason;
	}

	private absorbFull(snapshot: Snapshot, meta: SnapshotMeta): void {
		this.sessions = indexById(snapshot.sessions);
		// The snapshot's own array (readSnapshot hands over a fresh one); slots are indexed on the
		// first patch, not before the first frame.
		this.list = snapshot.sessions;
		this.positionsBuilt = null;
		this.lastSignatureScan = Date.now();
		this.lastMessageId = meta.messageHighWater ?? 0;
		this.lastSessionRowid = (this.store.prepare('SELECT max(rowid) FROM sessions').pluck().get() as number | null) ?? 0;
	}

	/** Each session's slot in `list`. */
	private get positions(): Map<string, number> {
		if (!this.positionsBuilt) {
			this.positionsBuilt = new Map();
			for (let i = 0; i < this.list.length; i++) {
				this.positionsBuilt.set(this.list[i]!.id, i);
			}
		}

		return this.positionsBuilt;
	}

	/** Sets a session in the index and in its slot of the list. */
	private put(record: SessionRecord): void {
		this.sessions.set(record.id, record);
		const at = this.positions.get(record.id);
		if (at === undefined) {
			this.positions.set(record.id, this.list.length);
			this.list.push(record);
		} else {
			this.list[at] = record;
		}
	}

	/** Removes a session (the last slot moves into its place). */
	private drop(id: string): boolean {
		const at = this.positions.get(id);
		if (at === undefined) {
			return false;
		}

		const last = this.list.pop()!;
		if (at < this.list.length) {
			this.list[at] = last;
			this.positions.set(last.id, at);
		}

		this.positions.delete(id);
		this.sessions.delete(id);
		return true;
	}

	private remember(id: string): void {
		if (!this.before.has(id)) {
			this.before.set(id, this.sessions.get(id));
		}
	}

	private routingRaw = '';
	private routing: Snapshot['routing'] = [];

	/** The routing entries; the previous array itself when no row changed (so the analysis can tell at a glance). */
	private readRouting(): Snapshot['routing'] {
		const rSql = routingSql(this.schema);
		if (!rSql) {
			return this.routing;
		}

		// Every save of an entry rewrites its updated_at and entry_json: a cheap aggregate tells whether any did.
		const stamp = this.schema.routingColumns.has('updated_at') ? ', max(updated_at), total(updated_at)' : '';
		const probe = this.store.prepare(`SELECT count(*), total(length(entry_json))${stamp} FROM gateway_routing`).raw(true).get() as unknown[];
		const raw = JSON.stringify(probe);
		if (raw !== this.routingRaw) {
			this.routingRaw = raw;
			this.routing = (this.store.prepare(rSql).all() as Array<Record<string, unknown>>).map(toRoutingEntry);
		}

		return this.routing;
	}

	private fullRefresh(): {newMessages: Map<string, number>; changed: null; meta: {dataVersion: number; routing: Snapshot['routing']}} {
		const newMessages = this.store.read(() => this.newMessagesSince(this.lastMessageId).counts);
		// Unchanged sessions keep their records: the reload does not briefly hold two copies of
		// every session (with a reload every 20 s on the bench store, RSS levelled off ~16 MB lower).
		// The legacy mirror is a plain file: read again with every full reload.
		this.context = routingHomeOf(this.location, this.schema).context;
		const {snapshot, meta} = readSnapshot(this.store, this.schema, this.context, {reuse: this.sessions});
		this.absorbFull(snapshot, meta);
		this.lastFullReload = Date.now();
		return {newMessages, changed: null, meta: {dataVersion: meta.dataVersion, routing: snapshot.routing}};
	}

	/** Sessions that got messages since `high`: one range read on the rowid, counted here (a GROUP BY would walk an index of every message). */
	private newMessagesSince(high: number): {counts: Map<string, number>; high: number} {
		const counts = new Map<string, number>();
		let top = high;
		for (const [id, sessionId] of this.store.prepare('SELECT id, session_id FROM messages WHERE id > ? ORDER BY id').raw(true).iterate(high) as IterableIterator<[number, unknown]>) {
			const key = String(sessionId);
			counts.set(key, (counts.get(key) ?? 0) + 1);
			top = id;
		}

		return {counts, high: top};
	}

	/**
	 * What changed, without scanning every session on every commit: the sessions that got messages,
	 * new rows and their parents (a rotation ends the parent) are re-read. A commit that adds no
	 * message and no row changed some row in place (an end, a key): then, and at least every
	 * five seconds, every row's signature is compared.
	 */
	private incrementalRefresh(): {newMessages: Map<string, number>; changed: Set<string>; meta: {dataVersion: number; routing: Snapshot['routing']}} {
		this.before = new Map();
		// The last analysis shares the sessions array patched below: its key index first.
		prepareIncremental(this.current.analysis);
		return this.store.read(() => {
			const dataVersion = this.store.dataVersion();
			const {counts: newMessages, high} = this.newMessagesSince(this.lastMessageId);
			const newRows = this.store.prepare('SELECT rowid, id, parent_session_id FROM sessions WHERE rowid > ? ORDER BY rowid').raw(true).all(this.lastSessionRowid) as Array<[number, unknown, unknown]>;
			const candidates = new Set<string>(newMessages.keys());
			for (const [rowid, id, parent] of newRows) {
				candidates.add(String(id));
				if (parent !== null && parent !== undefined) {
					candidates.add(String(parent));
				}

				this.lastSessionRowid = Math.max(this.lastSessionRowid, rowid);
			}

			const changed = new Set<string>();
			if ((newMessages.size === 0 && newRows.length === 0) || Date.now() - this.lastSignatureScan > 5000) {
				// Every row's in-place columns against its record (the baseline read with the rows).
				const matches = signatureMatcher(this.schema);
				const present = new Set<string>();
				for (const row of this.store.prepare(signatureSql(this.schema)).raw(true).iterate() as IterableIterator<unknown[]>) {
					const id = String(row[0]);
					present.add(id);
					const record = this.sessions.get(id);
					if (!record || !matches(record, row)) {
						candidates.add(id);
					}
				}

				for (const id of [...this.sessions.keys()]) {
					if (!present.has(id) && !candidates.has(id)) {
						this.remember(id);
						this.drop(id);
						changed.add(id);
					}
				}

				this.lastSignatureScan = Date.now();
			}

			const reread = this.store.prepare(sessionsSql(this.schema, {columns: 'full', where: 's.id = ?'})).raw(true);
			const settle = messageRowsSettler(this.store);
			const map = rowMapper('full');
			const count = this.store.prepare('SELECT count(*) FROM messages WHERE session_id = ?').pluck();
			for (const id of candidates) {
				const row = reread.get(id) as unknown[] | undefined;
				this.remember(id);
				if (!row) {
					if (this.drop(id)) {
						changed.add(id);
					}

					continue;
				}

				const record = map(row);
				settle(record);
				if (needsMessageCount(record)) {
					record.messageRows = count.get(id) as number;
				}

				this.put(record);
				changed.add(id);
			}

			this.lastMessageId = high;
			return {newMessages, changed, meta: {dataVersion, routing: this.readRouting()}};
		});
	}
}
