/**
 * Feeds the Files pane: polls the files probe after every published model (the owner committed)
 * and at least every second while the pane is shown, and formats the report into pane lines, followed by every other
 * place the conversation can be beside the store, with its meaning. Hidden, it does not poll (after its first probe,
 * which readies the pane): a probe walks /proc for the holders and reads the whole -wal, ~40 ms of the event loop on
 * the bench store, which the hidden cadence (every 15 s) spent for a pane nobody looked at (issue #26: the follower's
 * CPU, 0.26 % of one core on average). Shown, the pane polls at once.
 */
import {asRefusal} from '../../ground/errors.js';
import {FilesProbe} from '../../store/files/files-probe.js';
import {describeFiles} from '../../report/files/files-text.js';
import type {LiveStore} from '../../live/live.js';
import {placeLines} from '../../report/files/places-text.js';
import type {FilesModel, FilesSource} from './files-model.js';

type Options = {intervalMs?: number; firstPollMs?: number};

/** One probe's polling: at most one read at a time (a poll asked for meanwhile runs right after). */
class FilesFeed {
	model: FilesModel | null = null;
	readonly listeners = new Set<(m: FilesModel) => void>();
	visible = false;
	lastPoll = 0;
	closed = false;
	private shown = '';
	private running = false;
	private again = false;

	constructor(
		private readonly live: LiveStore,
		readonly probe: FilesProbe,
	) {}

	async poll(): Promise<void> {
		if (this.closed) {
			return;
		}

		if (this.running) {
			this.again = true;
			return;
		}

		this.running = true;
		this.lastPoll = Date.now();
		try {
			await this.read();
		} catch (error) {
			// A refusal or a file error of the OS: its one line's words (the file, the true cause, the next step),
			// as `hfx files` says it; published like a report, so a refusal (a FIFO named -wal) reaches the pane.
			const refusal = asRefusal(error);
			const text = refusal
				? `${refusal.file}: ${refusal.reason}. Next: ${refusal.next}`
				: error instanceof Error
					? error.message
					: String(error);
			this.publish({lines: [{text: `files: ${text}`, tone: 'warn'}], holders: null, updatedAt: Date.now() / 1000});
		} finally {
			this.running = false;
			if (this.again) {
				this.again = false;
				void this.poll();
			}
		}
	}

	private async read(): Promise<void> {
		const report = await this.probe.read();
		const lines = [...describeFiles(report, this.live.model.facts.journalMode), ...this.placeLinesNow()];
		this.publish({lines, holders: report.holders, updatedAt: report.readAt});
	}

	/** The places beside the store with their meaning (report/files/places-text.ts), as the live analysis judged them. */
	private placeLinesNow(): FilesModel['lines'] {
		return placeLines(this.live.model.analysis.places);
	}

	/** Publishes only what changed: every publish re-renders the app. */
	private publish(model: FilesModel): void {
		const text = JSON.stringify(model.lines);
		if (!this.closed && text !== this.shown) {
			this.shown = text;
			this.model = model;
			for (const l of this.listeners) {
				l(model);
			}
		}
	}
}

/** How long after the first analysis is published its deferred first probe waits: that analysis's frame goes first. */
const AFTER_ANALYSIS_MS = 300;

/**
 * Polls after every published model while visible, and on a timer while visible; `firstPollMs` delays the first probe
 * (the TUI lets its first frame go first), which runs shown or hidden.
 */
export function startFilesProbe(live: LiveStore, options: Options = {}): FilesSource & {close: () => void} {
	const feed = new FilesFeed(live, new FilesProbe(live.storePath));
	// Not while the first analysis runs with the pane hidden (issue #26): a probe scans /proc for the holders and held
	// the event loop 30-50 ms in the middle of the first read on the bench machine (CPU profile); the findings come
	// first, the probe polls once they are published (or at once when the pane is shown).
	let deferred = false;
	const mayWait = () => {
		deferred = !feed.visible && live.model.analysing !== undefined;
		return deferred;
	};

	const off = live.subscribe(model => {
		if (feed.visible) {
			deferred = false;
			void feed.poll();
		} else if (deferred && model.analysing === undefined) {
			// Not in the first analysis's frame either: its holders scan and report were ~21 ms of the ~87 ms that frame
			// held the event loop (a start's CPU profile, bench store), and a key pressed then waited for both.
			deferred = false;
			setTimeout(() => void feed.poll(), AFTER_ANALYSIS_MS).unref?.();
		}
	});
	const every = options.intervalMs ?? 1000;
	const timer = setInterval(() => {
		if (feed.visible && Date.now() - feed.lastPoll >= every) {
			void feed.poll();
		}
	}, every);
	timer.unref?.();
	const first = setTimeout(() => {
		if (!mayWait()) {
			void feed.poll();
		}
	}, options.firstPollMs ?? 0);
	first.unref?.();
	return {
		get model() {
			return feed.model;
		},
		subscribe(listener) {
			feed.listeners.add(listener);
			return () => feed.listeners.delete(listener);
		},
		setVisible(next) {
			if (next && !feed.visible) {
				void feed.poll();
			}

			feed.visible = next;
		},
		close() {
			feed.closed = true;
			off();
			clearInterval(timer);
			clearTimeout(first);
			void feed.probe.close();
		},
	};
}
