/**
 * Hints that the owner may have committed: chokidar on the store's folder (depth 0) and a fallback
 * poll, coalesced by a debounce into one check, and checks at most one per `minIntervalMs` (an agent
 * committing 200 times a second gets one check per interval, each reading every commit since the last).
 * Only a hint: the store's commit signature confirms (live-signature.ts).
 */
import path from 'node:path';
import {type FSWatcher, watch} from 'chokidar';

export type CommitHintOptions = {
	pollMs: number;
	debounceMs: number;
	/** At least this long from the start of one check to the start of the next (0: no floor). */
	minIntervalMs?: number;
	/** Watch the folder with chokidar (off in some tests). */
	watch: boolean;
};

export class CommitHints {
	private watcher: FSWatcher | undefined;
	private pollTimer: NodeJS.Timeout | undefined;
	private debounceTimer: NodeJS.Timeout | undefined;
	private closed = false;
	/** When the last check started (performance.now()). */
	private lastCheck = Number.NEGATIVE_INFINITY;

	/** `check` runs once per burst of hints. */
	constructor(
		private readonly options: CommitHintOptions,
		private readonly check: () => void,
	) {}

	/**
	 * Watches the folder of `dbPath` for files named like `base` (the store and its -wal/-shm), polls, and checks once
	 * now.
	 */
	start(dbPath: string, base: string): void {
		if (this.options.watch && !this.watcher) {
			this.watcher = watch(path.dirname(dbPath), {depth: 0, ignoreInitial: true, persistent: true});
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

		const floor = this.lastCheck + (this.options.minIntervalMs ?? 0) - performance.now();
		this.debounceTimer = setTimeout(
			() => {
				this.debounceTimer = undefined;
				this.lastCheck = performance.now();
				this.check();
			},
			Math.max(this.options.debounceMs, floor),
		);
	}

	close(): void {
		this.closed = true;
		clearInterval(this.pollTimer);
		clearTimeout(this.debounceTimer);
		void this.watcher?.close();
	}
}
