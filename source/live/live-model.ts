/**
 * The live model: the forensic engine re-run on each refresh's rows (incrementally when the
 * changed sessions are known), activity events from the difference, and the model published to
 * the views (paused, waiting, failed). The only caller of the analysis in the live store.
 */
import {
	type ActivityEvent,
	changedSessionIds,
	diffActivity,
	foldActivity,
	rowActivity,
} from '../forensics/analysis/activity.js';
import {type Analysis, analyze, analyzeSteps} from '../forensics/analysis/analyze.js';
import {type Steps, drain} from '../forensics/analysis/steps.js';
import {newestFirstSteps} from '../forensics/analysis/newest-first.js';
import {analyzeIncremental, prepareIncremental, recordBefore} from '../forensics/analysis/incremental.js';
import {pendingAnalysis} from '../forensics/analysis/pending.js';
import type {Places} from '../forensics/places.js';
import type {RuleSet} from '../forensics/generations.js';
import type {BuildRules} from '../forensics/routing/build-rules.js';
import type {SessionRecord, Snapshot} from '../forensics/types.js';
import {readPlaces} from '../store/places/read-places.js';
import type {DatabaseFacts} from '../store/read/load.js';
import type {RowDelta, SincePreview} from '../store/read/row-deltas.js';
import type {Reopen} from '../store/open/live-connection.js';
import type {SessionIndex} from '../store/read/session-index.js';
import type {SnapshotMeta} from '../store/read/read-snapshot.js';

export type LiveModel = {
	facts: DatabaseFacts;
	analysis: Analysis;
	/** Newest last; bounded; routine commits folded into bursts (forensics/analysis/activity.ts foldActivity). */
	activity: ActivityEvent[];
	/** Session id -> wall-clock seconds it last changed (for a brief highlight). */
	changedAt: ReadonlyMap<string, number>;
	/** Commits (changes of the store's commit signature that were read) seen since start. */
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
	/**
	 * The first analysis is still running (issue #26: render first, analyse after): `analysis` holds the newest `shown`
	 * of the store's `total` session rows and no verdict; the views say "analysing…", never "nothing to report".
	 * Absent once the store has been read whole and analysed.
	 */
	analysing?: {shown: number; total: number};
};

export type LiveModelOptions = {
	maxGapSeconds: number | undefined;
	now: () => number;
	activityLimit: number;
	/** The store whose places beside it (places/read-places.ts) join each analysis; absent: none are read. */
	storePath?: string;
	/**
	 * The installed build's rules for the store's generation (store/places/store-build.ts, issue #27), asked again at
	 * most every PLACES_EVERY_MS or when the generation changes; absent: the generation's own rules.
	 */
	buildRules?: (ruleSet: RuleSet) => BuildRules;
};

/** No record changed (recordBefore then looks in the index alone). */
const NO_RECORDS: ReadonlyMap<string, SessionRecord | undefined> = new Map();

/** The places beside the store are read again at most this often (a retired capture is copied to be read). */
const PLACES_EVERY_MS = 10_000;

/** The database facts of a snapshot, as read through the current connection. */
export type FactsOf = (snapshot: Snapshot, meta: SnapshotMeta) => DatabaseFacts;

/** One commit seen: the rows read for it, and what the published model says about them. */
export type CommitRead = {
	delta: RowDelta;
	/** The store's commit signature taken before the read (null: unknown). */
	signature: string | null;
	index: SessionIndex;
	/** The store's label (the subject of the commit events). */
	label: string;
	messageHighWater: number | null;
	/** performance.now() when the refresh began. */
	started: number;
	facts: FactsOf;
};

type Listener = (model: LiveModel) => void;

export class LiveModelFeed {
	current: LiveModel;
	/** The commit signature the published model shows (null: unknown, after a reopen or before the first refresh). */
	lastSignature: string | null = null;
	/** Why the store was reopened since the last published model (an activity event). */
	reopened: Reopen | null = null;
	paused = false;
	private pausedSignature: string | null = null;
	/**
	 * data_version of the first read: the version shown (the header's dv) counts on from it, one per commit read (a
	 * connection per read has no data_version of its own to show).
	 */
	private firstVersion: number;
	private readonly listeners = new Set<Listener>();
	private readonly changedAt = new Map<string, number>();
	private places: {at: number; value: Places} | null = null;
	private build: {at: number; ruleSet: RuleSet; value: BuildRules} | null = null;

	constructor(
		private readonly options: LiveModelOptions,
		first: {snapshot: Snapshot; meta: SnapshotMeta},
		index: SessionIndex,
		facts: FactsOf,
		signature: string | null,
		/** `first` is a preview of this many rows (store/read/preview.ts): the analysis waits for `completeFirst`. */
		previewOf?: number,
	) {
		const {snapshot, meta} = first;
		this.lastSignature = signature;
		this.firstVersion = meta.dataVersion;
		const pending = previewOf !== undefined;
		this.current = {
			facts: facts(snapshot, meta),
			analysis: pending
				? pendingAnalysis(snapshot, {maxGapSeconds: this.options.maxGapSeconds})
				: this.firstAnalysis(snapshot, index),
			...(pending ? {analysing: {shown: snapshot.sessions.length, total: previewOf}} : {}),
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

	/** The first analysis, of a full read (places and the installed build's rules joined). */
	private firstAnalysis(snapshot: Snapshot, index: SessionIndex): Analysis {
		return drain(this.firstAnalysisSteps(snapshot, index));
	}

	/** As `firstAnalysis`, in steps: the places and the build's rules read, then the analysis's own steps. */
	private *firstAnalysisSteps(snapshot: Snapshot, index: SessionIndex): Steps<Analysis> {
		this.withPlaces(snapshot);
		const buildRules = this.buildRulesOf(snapshot);
		yield;
		// The analysis shares this store's index of sessions, as every later one does.
		return yield* analyzeSteps(snapshot, {maxGapSeconds: this.options.maxGapSeconds, byId: index.byId, buildRules});
	}

	/**
	 * A feed started from a preview: the first full read analysed (in steps: a caller may answer keys between them) and
	 * published at the last step (paused or not: this is no commit, it is what the view showed "analysing…" for). Its
	 * data_version is the one the header counts on from. What the rows gained since the preview (sessions created,
	 * messages, ends) is activity: it happened after hfx started.
	 */
	*completeFirstSteps(
		first: {snapshot: Snapshot; meta: SnapshotMeta; sincePreview?: SincePreview},
		index: SessionIndex,
		facts: DatabaseFacts,
	): Steps<void> {
		const {snapshot, meta, sincePreview: since} = first;
		const analysed = yield* this.firstAnalysisSteps(snapshot, index);
		yield;
		// Sorted for the sessions pane here, in steps, not by the redraw that shows the analysis (issue #26).
		const analysis: Analysis = {...analysed, newestFirst: yield* newestFirstSteps(snapshot.sessions)};
		this.firstVersion = meta.dataVersion;
		const now = this.options.now();
		const events = since ? rowActivity(analysis, since.newMessages, now, since.changed, id => since.old.get(id)) : [];
		for (const e of events) {
			if (analysis.byId.has(e.subject)) {
				this.changedAt.set(e.subject, now);
			}
		}

		const {analysing: _done, ...rest} = this.current;
		this.current = {
			...rest,
			facts,
			analysis,
			activity:
				events.length === 0 ? rest.activity : foldActivity(rest.activity, events).slice(-this.options.activityLimit),
			refreshedAt: now,
			refreshMs: meta.readMs,
			revision: this.current.revision + 1,
		};
		this.emit();
	}

	subscribe(listener: Listener): () => void {
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}

	/** Drops every listener (the store closed). */
	unsubscribeAll(): void {
		this.listeners.clear();
	}

	emit(): void {
		for (const listener of this.listeners) {
			listener(this.current);
		}
	}

	/** The connection was replaced: the next refresh publishes whatever it reads, and says why. */
	noteReopened(reason: Reopen): void {
		this.lastSignature = null;
		// Another file behind the path is the news: a same-file reason read after it (a retried read) does not hide it.
		this.reopened = this.reopened && !this.reopened.sameFile && reason.sameFile ? this.reopened : reason;
	}

	/** Pauses: the model (analysis included) stays exactly as it was. */
	pause(): void {
		this.paused = true;
		this.pausedSignature = null;
		this.current = {...this.current, paused: true, waiting: 0, revision: this.current.revision + 1};
		this.emit();
	}

	/** Resumes; returns how many commits came in while paused. */
	resume(): number {
		this.paused = false;
		const waited = this.current.waiting;
		this.current = {...this.current, paused: false, waiting: 0, revision: this.current.revision + 1};
		return waited;
	}

	/** While paused, a commit only bumps `waiting` (the signature is compared with the last one seen). */
	noteWhilePaused(signature: string | null): void {
		const last = this.pausedSignature ?? this.lastSignature;
		if (signature === null || signature !== last) {
			this.pausedSignature = signature;
			this.current = {...this.current, waiting: this.current.waiting + 1, revision: this.current.revision + 1};
			this.emit();
		}
	}

	publishError(message: string): boolean {
		if (this.current.error !== message) {
			this.current = {...this.current, error: message, revision: this.current.revision + 1};
			this.emit();
		}

		return false;
	}

	/**
	 * The places beside the store join the snapshot (forensics/places/elsewhere.ts judges them), read
	 * again at most every PLACES_EVERY_MS: plain files, never state.db, its -wal or its -shm.
	 */
	private withPlaces(snapshot: Snapshot): void {
		if (this.options.storePath === undefined) {
			return;
		}

		const now = Date.now();
		if (this.places === null || now - this.places.at >= PLACES_EVERY_MS) {
			this.places = {at: now, value: readPlaces(this.options.storePath, snapshot.sessions)};
		}

		snapshot.places = this.places.value;
	}

	/** The installed build's rules for this snapshot's generation, asked again at most every PLACES_EVERY_MS. */
	private buildRulesOf(snapshot: Snapshot): BuildRules | undefined {
		const ask = this.options.buildRules;
		if (ask === undefined) {
			return undefined;
		}

		const now = Date.now();
		if (this.build === null || this.build.ruleSet !== snapshot.ruleSet || now - this.build.at >= PLACES_EVERY_MS) {
			this.build = {at: now, ruleSet: snapshot.ruleSet, value: ask(snapshot.ruleSet)};
		}

		return this.build.value;
	}

	/** Before the index is patched: the last analysis shares the sessions array, so its key index first. */
	prepareIncremental(): void {
		prepareIncremental(this.current.analysis);
	}

	/** Analyses a commit's rows and publishes the model, with its activity. */
	publishCommit(commit: CommitRead): void {
		const before = this.current.analysis;
		const {
			delta: {newMessages, changed, snapshot},
			index,
			started,
		} = commit;
		this.withPlaces(snapshot);
		// The analysis shares this store's index of sessions (no copy per commit); `index.before`
		// holds what the changed ones were.
		const old = recordBefore.bind(null, index.before, before.byId);
		const buildRules = this.buildRulesOf(snapshot);
		const analysis =
			changed === null
				? analyze(snapshot, {maxGapSeconds: this.options.maxGapSeconds, byId: index.byId, buildRules})
				: analyzeIncremental(
						before,
						snapshot,
						changed,
						{maxGapSeconds: this.options.maxGapSeconds, buildRules},
						recordBefore.bind(null, NO_RECORDS, index.byId),
						{byId: index.byId, before: index.before},
					);
		const now = this.options.now();
		const commits = this.current.commits + 1;
		const events = this.commitEvents(before, analysis, commit, now, old);
		for (const id of changedSessionIds(
			before,
			analysis,
			newMessages,
			changed ?? undefined,
			changed ? old : undefined,
		)) {
			this.changedAt.set(id, now);
		}

		this.lastSignature = commit.signature;
		this.pausedSignature = null;
		const activity =
			events.length === 0
				? this.current.activity
				: foldActivity(this.current.activity, events).slice(-this.options.activityLimit);
		const snapshotMeta: SnapshotMeta = {
			dataVersion: this.firstVersion + commits,
			messageHighWater: commit.messageHighWater,
			sessionHighWater: null,
			readMs: performance.now() - started,
			consistentSnapshot: true,
			transactions: 1,
		};
		this.current = {
			facts: commit.facts(snapshot, snapshotMeta),
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
		index.before = new Map();
		this.emit();
	}

	/**
	 * Why the store was reopened (if it was), then what changed in the rows the panes show: a
	 * commit that changed none of them is no event (commits are counted in the header line).
	 */
	private commitEvents(
		before: Analysis,
		analysis: Analysis,
		commit: CommitRead,
		now: number,
		old: (id: string) => SessionRecord | undefined,
	): ActivityEvent[] {
		const {newMessages, changed} = commit.delta;
		const events = diffActivity(before, analysis, newMessages, now, changed ?? undefined, changed ? old : undefined);
		if (this.reopened) {
			const {why, sameFile} = this.reopened;
			const event: ActivityEvent = {at: now, kind: 'reopened', subject: commit.label, text: why};
			events.unshift(sameFile ? {...event, sameFile} : event);
			this.reopened = null;
		}

		return events;
	}
}
