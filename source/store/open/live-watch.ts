/**
 * Hints that the owner may have committed: `fs.watch` on the store's folder (inotify on Linux, FSEvents on macOS)
 * and a fallback poll, coalesced by a debounce into one check, and checks at most one per `minIntervalMs` (an agent
 * committing 200 times a second gets one check per interval, each reading every commit since the last).
 * Only a hint: the store's commit signature confirms (live-signature.ts).
 *
 * Not chokidar (used before): it lstat()s the file behind every event to tell a change from an add, a promise and a
 * thread-pool round trip per write the owner makes; following 200 commits/s on the bench store that was 1.2 s of
 * 25 s in a CPU profile (the largest single cost after the row comparison). A hint needs no stat: the name suffices.
 * A watcher that fails (the folder removed, no inotify watches left) is dropped; the poll still confirms.
 */
import fs from 'node:fs';
import path from 'node:path';

export type CommitHintOptions = {
	pollMs: number;
	debounceMs: number;
	/** At least this long from the start of one check to the start of the next (0: no floor). */
	minIntervalMs?: number;
	/** Watch the folder with fs.watch (off in some tests). */
	watch: boolean;
};

export class CommitHints {
	private watcher: fs.FSWatcher | undefined;
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
			this.watcher = this.watchFolder(path.dirname(dbPath), base);
		}

		this.pollTimer ??= setInterval(() => this.schedule(), this.options.pollMs);
		this.pollTimer.unref?.();
		// Catch up on whatever was committed between the first read and now.
		this.schedule();
	}

	/** The folder's events for files named like `base`, or undefined when it cannot be watched (the poll goes on). */
	private watchFolder(folder: string, base: string): fs.FSWatcher | undefined {
		try {
			const watcher = fs.watch(folder, {persistent: true}, (_event, file) => {
				// No name (some platforms, an overflow): any file may have changed.
				if (file === null || String(file).startsWith(base)) {
					this.schedule();
				}
			});
			watcher.on('error', () => {
				watcher.close();
				if (this.watcher === watcher) {
					this.watcher = undefined;
				}
			});
			return watcher;
		} catch {
			return undefined;
		}
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
		this.watcher?.close();
	}
}
