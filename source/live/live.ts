/**
 * A store that follows its owner: a read-only connection open only while a read runs (nothing of
 * the store is held between reads: the agent's journal-mode switch, checkpoints and VACUUM never
 * wait on hfx); fs.watch on the folder as a hint, the store's commit signature (read
 * with nothing open) as the confirmation; incremental refreshes (new message ids, changed session
 * rows) in short read transactions; the forensic engine re-run on the result; activity events
 * from the difference.
 *
 * This module is the entry and the refresh step; the parts: live-connection.ts (the connection
 * per read, and when the rows start over), live-signature.ts (did the owner commit), live-watch.ts
 * (the hints), row-deltas.ts and session-index.ts (what the commits changed, patched into the
 * index), live-model.ts (analysis, activity, the published model).
 */
import path from 'node:path';
import {errorMessage, throwFileError} from '../ground/errors.js';
import {startupMark} from '../ground/startup.js';
import {testPauseAsync} from '../ground/test-pause.js';
import fs from 'node:fs';
import {type DatabaseFacts, describe} from '../store/read/load.js';
import {statSidecars} from '../store/open/preflight.js';
import {type StoreLocation, realStorePath} from '../store/locate.js';
import {type SessionDetail, readSessionDetail} from '../store/read/detail.js';
import {readMessageSpans} from '../store/read/chat-timeline.js';
import type {MessageSpan} from '../forensics/timeline/timeline-types.js';
import {LiveConnection} from '../store/open/live-connection.js';
import {type StoreLook, lookAtStore, nothingCommitted, onlyCheckpointed} from '../store/open/live-signature.js';
import {CommitHints} from '../store/open/live-watch.js';
import {type FactsOf, type LiveModel, LiveModelFeed, type LiveModelOptions} from './live-model.js';
import {RowDeltas} from '../store/read/row-deltas.js';
import {RefreshStats} from './refresh-stats.js';

export type {LiveModel} from './live-model.js';

export type LiveOptions = {
	/** Fallback poll of the commit signature when no fs event arrives (network filesystems). */
	pollMs?: number;
	/** Coalesce bursts of fs events. */
	debounceMs?: number;
	/**
	 * Refreshes start at least this far apart (default `REFRESH_FLOOR_MS`): a writer committing 200 times a second is
	 * read in batches of commits, each refresh costing about what one commit would (the per-read work is mostly fixed:
	 * the connection, the signature, the analysis's pass, the frame), while a commit still reaches the screen within
	 * 100 ms (bench/tui.ts judges the p95).
	 */
	minIntervalMs?: number;
	maxGapSeconds?: number;
	/** Watch the folder (fs.watch; off in some tests). */
	watch?: boolean;
	/**
	 * A full reload every so often (default 10 min) reconciles what the incremental path cannot
	 * see: messages removed from a session whose row did not change. Deleted and edited rows are
	 * caught by the rolling signature comparisons (hot rows every ~5 s, store/read/hot-rows-sweep.ts; every row every
	 * ~60 s, longer past 60,000 rows, store/read/row-deltas.ts SWEEP_MAX_ROWS_PER_SECOND). On a 1M-message store a full
	 * reload holds the event
	 * loop for about a second, hence rare.
	 */
	fullReloadMs?: number;
	now?: () => number;
	activityLimit?: number;
	/** The installed build's rules for the store's generation (issue #27); absent: the generation's own. */
	buildRules?: LiveModelOptions['buildRules'];
	/** Every row's signature compared at least this often (store/read/row-deltas.ts; default 5 s). */
	signatureEveryMs?: number;
};

type Listener = (model: LiveModel) => void;

/**
 * The floor between the starts of two refreshes while an agent commits without pause (issue #26). Each refresh has a
 * fixed cost whatever it reads (a connection opened and closed, SQLite's schema parse, the preflight and the commit
 * signature, one analysis pass and one frame), so the follower's CPU is about the refreshes a second times that cost.
 * At 50 ms the TUI following 200 commits/s made 18.4 refreshes and 19.4 frames a second (HFX_REFRESH_STATS; strace of
 * its pty writes), 17.1-25.7 % of one core, against 10.5 refreshes a second and 17.1 % at 100 ms (the 1M-message bench
 * store, one loaded machine, so the shares are noisy; the refreshes' own CPU went 3.8 -> 2.4 s). A commit waits for
 * the next refresh (up to the floor), then the read, the analysis and the frame (~20 ms at the median): the bench's
 * commit -> screen p95 was 77 ms at 50 ms: at 75 ms a wait of up to 75 ms plus ~20 ms stays within the 100 ms
 * target (judged by the bench), for ~27 % fewer refreshes. 75 -> 85 ms (the follower's CPU target, 10 % of one core,
 * once the folder is not watched while the owner commits, store/open/live-watch.ts): three interleaved 30 s follows of
 * the same writer, 10.3 / 11.0 / 10.5 % of one core at 75 ms against 8.9 / 9.8 / 9.7 % at 85 ms.
 */
export const REFRESH_FLOOR_MS = 85;

/** The rows a live view is first drawn from when it opens with a preview (`LiveStore.openPreview`). */
export const PREVIEW_ROWS = 500;

/** One turn of the event loop: the keys read meanwhile are answered before the next step. */
const turn = () => new Promise<void>(resolve => setImmediate(resolve));

/**
 * The store's file sizes at this commit (the header's WAL size follows the WAL as the Files pane
 * does), by lstat alone: nothing is opened. A sidecar that is no longer a regular file is refused
 * as at the open (a refresh then says so and keeps the last good snapshot).
 */
function withSizesNow(facts: DatabaseFacts): DatabaseFacts {
	const sidecars = statSidecars(facts.path);
	let db: number;
	try {
		db = fs.lstatSync(facts.path).size;
	} catch (error) {
		throwFileError(error, {file: facts.path, doing: 'looking at its size'});
	}

	return {
		...facts,
		sizes: {
			db,
			wal: sidecars.wal?.size ?? null,
			shm: sidecars.shm?.size ?? null,
			journal: sidecars.journal?.size ?? null,
		},
	};
}

/**
 * One look at the store a path names now (live-signature.ts): its commit signature, and what the preflight of a read
 * opened right after it is made of; null when the path cannot be resolved (the open says why) or this process holds
 * a connection to the store.
 */
function lookAt(location: string): StoreLook | null {
	try {
		const {path: real, link} = realStorePath(location);
		return lookAtStore(real, link);
	} catch {
		return null;
	}
}

/** A look's commit signature, its real path included (a link retargeted changes it); null: unknown. */
function signatureOf(look: StoreLook | null): string | null {
	return look === null ? null : `${look.path}|${look.signature}`;
}

/** The commit signature of the store a path names now (`lookAt`). */
function signatureAt(location: string): string | null {
	return signatureOf(lookAt(location));
}

export class LiveStore {
	readonly location: StoreLocation;
	private readonly options: Required<Omit<LiveOptions, 'maxGapSeconds' | 'buildRules' | 'signatureEveryMs'>> &
		Pick<LiveOptions, 'buildRules'> & {maxGapSeconds: number | undefined};
	private readonly connection: LiveConnection;
	private readonly rows: RowDeltas;
	private readonly feed: LiveModelFeed;
	private readonly hints: CommitHints;
	/** Per-refresh timings for diagnostics (HFX_REFRESH_STATS=FILE; refresh-stats.ts), null unless asked. */
	private readonly stats = RefreshStats.fromEnv(process.env.HFX_REFRESH_STATS);
	private closed = false;
	/** Opened from a preview: the first full read and its analysis wait for `analyseFirst` (refresh reads nothing). */
	private pending: boolean;
	/**
	 * The store's commit signature just after the last refresh's read closed (null: unknown). A read usually sees
	 * commits made after the signature it was started on (at 200 commits/s most do): the next signature differs from
	 * that one, not from this. See `seenUpTo`.
	 */
	private afterRead: string | null = null;
	/** The periodic reload under way, read in steps (`reloadInSteps`): to whether it published a model. */
	private reloading: Promise<boolean> | null = null;
	/**
	 * The facts of a snapshot, read through the connection open now, with the files' sizes as they are now: in place,
	 * as this read's own preflight saw them just before its open (each read opens afresh); a private copy is kept open
	 * across reads, its preflight as old as the copy, so its files are looked at again.
	 */
	private readonly facts: FactsOf = (snapshot, meta) => {
		const facts = describe(this.connection.current, this.location, this.connection.schema, snapshot, meta);
		return this.connection.current.isPrivateCopy ? withSizesNow(facts) : facts;
	};

	/** Reads the first snapshot through the connection (opened for that read, closed after unless a private copy). */
	private constructor(
		location: StoreLocation,
		options: LiveOptions,
		signature: string | null,
		previewRows: number | null = null,
	) {
		this.location = location;
		this.options = {
			pollMs: options.pollMs ?? 1000,
			debounceMs: options.debounceMs ?? 25,
			minIntervalMs: options.minIntervalMs ?? REFRESH_FLOOR_MS,
			maxGapSeconds: options.maxGapSeconds,
			watch: options.watch ?? true,
			fullReloadMs: options.fullReloadMs ?? 600_000,
			now: options.now ?? (() => Date.now() / 1000),
			activityLimit: options.activityLimit ?? 500,
			buildRules: options.buildRules,
		};
		this.connection = new LiveConnection(location.path);
		this.rows = new RowDeltas(location, {signatureEveryMs: options.signatureEveryMs});
		// A reading in place the store changed under runs again: each reading starts the index and the feed afresh.
		try {
			this.feed = this.connection.read(({store, schema}) => {
				startupMark('store opened');
				const feedOptions = {...this.options, storePath: location.path};
				if (previewRows !== null) {
					const preview = this.rows.preview(store, schema, previewRows);
					return new LiveModelFeed(feedOptions, preview, this.rows.index, this.facts, signature, preview.total);
				}

				const first = this.rows.first(store, schema);
				return new LiveModelFeed(feedOptions, first, this.rows.index, this.facts, signature);
			});
		} catch (error) {
			// A private copy stays open after a failed read: removed here.
			this.connection.close();
			throw error;
		}

		this.pending = previewRows !== null;
		this.hints = new CommitHints(this.options, () => this.refresh());
	}

	/** Opens read-only and reads the first snapshot (throws FailClosed on refusal). */
	static open(location: StoreLocation, options: LiveOptions = {}): LiveStore {
		// Taken before the open (it cannot be while a connection is): a commit meanwhile is read by the first refresh.
		const signature = signatureAt(location.path);
		return new LiveStore(location, options, signature);
	}

	/**
	 * Opens read-only and reads only the newest `rows` session rows and the count of all (store/read/preview.ts): the
	 * view is drawn from that, "analysing…", and `analyseFirst` then reads the store whole and analyses it (issue #26).
	 */
	static openPreview(location: StoreLocation, options: LiveOptions = {}, rows = PREVIEW_ROWS): LiveStore {
		const signature = signatureAt(location.path);
		return new LiveStore(location, options, signature, rows);
	}

	/**
	 * A store opened from a preview: reads it whole, a page at a time in one read transaction with a turn of the event
	 * loop between pages (LiveConnection.readAsync), then analyses it in steps with a turn between each
	 * (forensics/analysis/analyze.ts analyzeSteps) and publishes the model at the last (a key pressed meanwhile is
	 * answered between them; q quits and the rest is skipped). Throws as `open` does when the read
	 * is refused. Nothing to do on a store opened whole.
	 */
	async analyseFirst(): Promise<void> {
		await turn();
		if (!this.pending || this.closed) {
			return;
		}

		const rows = this.rows;
		const facts = this.facts;
		const read = await this.connection.readAsync(function* ({store, schema}) {
			const first = yield* rows.firstSteps(store, schema);
			return {first, facts: facts(first.snapshot, first.meta)};
		});
		if (read === null || this.closed) {
			return;
		}

		await turn();
		// Tests hold the analysis here (HFX_TEST_PAUSE_AT=first-analysis) to see the view while it runs.
		await testPauseAsync('first-analysis');
		// The analysis in steps, a turn between each (keys answered meanwhile); published at its last step.
		const steps = this.feed.completeFirstSteps(read.first, this.rows.index, read.facts);
		for (let at = 0; !this.closed; at++) {
			if (steps.next().done) {
				startupMark('store read and analysed');
				this.pending = false;
				return;
			}

			await turn();
			// Or after its first step (HFX_TEST_PAUSE_AT=analysis-step), the analysis under way.
			if (at === 0) {
				await testPauseAsync('analysis-step');
			}
		}
	}

	get model(): LiveModel {
		return this.feed.current;
	}

	/** The store's real path (a link resolved), where its -wal and -shm are. */
	get storePath(): string {
		return this.connection.preflight.path;
	}

	/** How many times every session row's signature was compared (store/read/row-deltas.ts: tests count it). */
	get signatureScans(): number {
		return this.rows.signatureScans;
	}

	/** How many times the routing table was probed (store/read/row-deltas.ts: tests count them). */
	get routingProbes(): number {
		return this.rows.routingProbes;
	}

	/** The last read was of a private copy (no owner holds the store). */
	get isPrivateCopy(): boolean {
		return this.connection.isPrivateCopy;
	}

	subscribe(listener: Listener): () => void {
		return this.feed.subscribe(listener);
	}

	/**
	 * Pauses or resumes. While paused nothing is re-read: each commit only bumps `waiting`, and
	 * the model (analysis included) stays exactly as it was. Resuming catches up at once.
	 */
	setPaused(paused: boolean): void {
		if (paused === this.feed.paused) {
			return;
		}

		if (paused) {
			this.feed.pause();
		} else {
			const waited = this.feed.resume();
			if (!this.refresh(waited > 0)) {
				this.feed.emit();
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

		// The real path (a linked store's -wal and -shm change beside its target, not beside the link).
		const real = this.connection.preflight.path;
		this.hints.start(real, path.basename(real));
	}

	/**
	 * Checks the commit signature (nothing opened) and, if the owner committed, reads what changed
	 * on a connection opened for the read and closed after. Returns true when a new model was published.
	 */
	refresh(force = false): boolean {
		// A reload's connection is open: no signature is looked at meanwhile (the commits are read after it).
		if (this.closed || this.pending || this.reloading) {
			return false;
		}

		const started = performance.now();
		try {
			// One look: the signature, and the preflight of the read below (nothing happens between them).
			const look = lookAt(this.location.path);
			const signature = signatureOf(look);
			if (this.feed.paused) {
				this.feed.noteWhilePaused(signature);
				return false;
			}

			// Unknown (null) is read; a failed refresh is tried again until one succeeds. Nothing committed since the
			// signature the last read began with (a transaction's frames written, not committed yet): nothing to read.
			const unmoved = signature !== null && nothingCommitted(this.feed.lastSignature, signature);
			if (unmoved && !force && this.feed.current.error === null) {
				return false;
			}

			if (this.rows.fullReloadDue(this.options.fullReloadMs)) {
				this.reloadNow(signature, started);
				return false;
			}

			// Taken before the read (a reopen forgets the last signature).
			const checkpointed = onlyCheckpointed(this.feed.lastSignature, signature) || this.seenUpTo(signature);
			this.afterRead = null;
			this.stats?.begin(started);
			const published = this.connection.readLooked(look, ({store, schema, reopened}) => {
				this.stats?.mark();
				if (reopened) {
					this.feed.noteReopened(reopened);
				}

				if (this.feed.reopened !== null) {
					// Another file, perhaps (or the first reading of a store whose owner came back): everything is read
					// again, in steps, below.
					return 'reload' as const;
				}

				// The last analysis shares the sessions array patched below: its key index first.
				this.feed.prepareIncremental();
				const delta = this.rows.incremental(store, schema, checkpointed);
				this.stats?.mark();
				this.feed.publishCommit({
					delta,
					signature,
					index: this.rows.index,
					label: this.location.label,
					messageHighWater: this.rows.lastMessageId || null,
					started,
					facts: this.facts,
				});
				this.stats?.mark();
				return true;
			});
			// With the connection closed (the signature cannot be read while one is open). The real path this read opened,
			// not resolved again: had a link been retargeted meanwhile, the next signature differs in its path (and is read).
			const real = this.connection.preflight.path;
			this.afterRead = signatureOf(lookAtStore(real, null));
			this.stats?.mark();
			this.stats?.end();
			if (published === 'reload') {
				this.reloadNow(signature, started);
				return false;
			}

			return published;
		} catch (error) {
			// The index may be half updated: the next refresh reads everything again.
			this.rows.distrust();
			return this.feed.publishError(`refresh failed: ${errorMessage(error)}; showing the last good snapshot`);
		}
	}

	/** Starts the full reload, read in steps (keys answered between them); `settled` resolves once it has published. */
	private reloadNow(signature: string | null, started: number): void {
		this.reloading = this.reloadInSteps(signature, started).finally(() => {
			this.reloading = null;
		});
	}

	/**
	 * The full reload (every `fullReloadMs`; at once after a failed refresh, or when the store was reopened), read a
	 * page at a time with a turn of the event loop between pages, as the first read is: read at once, the periodic one
	 * held a view's keys ~0.8 s every 10 minutes on the bench store, and the one after a reopen ~0.55 s (issue #26).
	 * Refreshes wait meanwhile; the index is patched (or replaced: a store reopened, an index distrusted) and the model
	 * published in one step, at the end, unless the view was paused meanwhile (then nothing changes and the reload
	 * stays due). Commits made while it ran are read right after.
	 */
	private async reloadInSteps(signature: string | null, started: number): Promise<boolean> {
		const {rows, feed, facts} = this;
		const label = this.location.label;
		try {
			const published = await this.connection.readAsync(function* ({store, schema, reopened}) {
				if (reopened) {
					feed.noteReopened(reopened);
				}

				const patch = feed.reopened === null && rows.trusted;
				const proceed = (): boolean => {
					if (feed.paused) {
						return false;
					}

					if (patch) {
						// The last analysis shares the sessions array the patch changes: its key index first.
						feed.prepareIncremental();
					}

					return true;
				};
				const delta = yield* rows.fullReloadSteps(store, schema, patch, proceed);
				if (delta === null) {
					return false;
				}

				const messageHighWater = rows.lastMessageId || null;
				feed.publishCommit({delta, signature, index: rows.index, label, messageHighWater, started, facts});
				return true;
			});
			if (!published || this.closed) {
				return false;
			}

			this.afterRead = signatureOf(lookAtStore(this.connection.preflight.path, null));
			if (this.afterRead !== signature) {
				// Commits made while it ran (their hints found it running): read once `reloading` is cleared (a macrotask:
				// the promise's finally runs first).
				setImmediate(() => this.refresh());
			}
		} catch (error) {
			this.rows.distrust();
			return this.feed.publishError(`refresh failed: ${errorMessage(error)}; showing the last good snapshot`);
		}

		return true;
	}

	/** Resolves once no periodic reload runs: to whether the one running (if any) published a model. */
	async settled(): Promise<boolean> {
		return (await this.reloading) ?? false;
	}

	/** Latest messages and card facts of one session. */
	detail(sessionId: string, limit = 200): SessionDetail {
		const s = this.rows.index.byId.get(sessionId);
		const edge = this.feed.current.analysis.lineage.parentEdge.get(sessionId);
		return this.connection.read(
			({store, schema}) =>
				readSessionDetail(store, schema, sessionId, {
					limit,
					parentId: edge?.parentId ?? null,
					startedAt: typeof s?.startedAtRaw === 'number' ? s.startedAtRaw : null,
					branch: edge?.kind === 'branch',
				}),
			false,
		);
	}

	/** The messages of a chat's rows as spans (hfx timeline), on a connection opened for the read. */
	messageSpans(sessionIds: readonly string[], gapSeconds: number): MessageSpan[] {
		return this.connection.read(({store, schema}) => readMessageSpans(store, schema, sessionIds, gapSeconds), false);
	}

	close(): void {
		if (this.closed) {
			return;
		}

		this.closed = true;
		this.stats?.write(this.rows.signatureScans);
		this.hints.close();
		this.feed.unsubscribeAll();
		this.connection.close();
	}

	/**
	 * Nothing but a checkpoint moved the store since the last read closed: the commits the signature moved by since the
	 * last refresh are those that read saw, or ones made while it ran. A read then finding no new message and no new
	 * row compares the next slice of rows, not every row (store/read/row-deltas.ts). Before, each such read compared
	 * all 21,516 rows of the bench store (~100 ms of CPU, once a second following 200 commits/s: 24 whole passes in
	 * 25 s, 27 % of the refreshes' CPU); a row changed in place while that read ran is met by the rolling comparisons
	 * (within ~5 s for a hot row, ~a minute for the rest), as one changed while messages keep coming always is.
	 */
	private seenUpTo(signature: string | null): boolean {
		const after = this.afterRead;
		return after !== null && signature !== null && (after === signature || onlyCheckpointed(after, signature));
	}
}
