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
 *
 * While the owner commits without pause, the folder is not watched (issue #26): a check that found commits asks for the
 * next one at the floor, on a timer, and the first that finds none watches the folder again (and checks once more, for
 * a commit made between the two). Watched, an agent committing 200 times a second woke the process 300-400 times a
 * second for events the floor then ignored (strace: 3,953 epoll waits in 10 s of following). The TUI following it on
 * the 1M-message bench store, three interleaved 30 s runs: 11.8 / 14.6 / 15.9 % of one core watched, 9.6 / 9.7 / 11.3 %
 * on the timer; the main thread's time in the kernel 81 / 123 / 115 -> 36 / 35 / 44 ticks; commit -> screen p95
 * unchanged (bench tui: 76 ms).
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

/** A check: true when it found the owner had committed (the view read what changed), false when nothing moved. */
export type CommitCheck = () => boolean;

export class CommitHints {
	private watcher: fs.FSWatcher | undefined;
	private pollTimer: NodeJS.Timeout | undefined;
	private debounceTimer: NodeJS.Timeout | undefined;
	private closed = false;
	/** When the last check started (performance.now()). */
	private lastCheck = Number.NEGATIVE_INFINITY;
	/** The folder watched and the names asked for (set by `start` when watching). */
	private watched: {folder: string; base: string} | undefined;
	/** The last check found commits: the next comes on a timer at the floor, and the folder is not watched meanwhile. */
	private busy = false;

	/** `check` runs once per burst of hints. */
	constructor(
		private readonly options: CommitHintOptions,
		private readonly check: CommitCheck,
	) {}

	/** The folder's events are listened to now (not while the owner commits without pause). */
	get watching(): boolean {
		return this.watcher !== undefined;
	}

	/**
	 * Watches the folder of `dbPath` for files named like `base` (the store and its -wal/-shm), polls, and checks once
	 * now.
	 */
	start(dbPath: string, base: string): void {
		if (this.options.watch && !this.watched) {
			this.watched = {folder: path.dirname(dbPath), base};
			this.watcher = this.watchFolder(this.watched.folder, base);
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
					this.watched = undefined;
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
		this.debounceTimer = setTimeout(() => this.run(), Math.max(this.options.debounceMs, floor));
	}

	private run(): void {
		this.debounceTimer = undefined;
		this.lastCheck = performance.now();
		const moved = this.check();
		if (this.closed || !this.watched) {
			return;
		}

		if (moved) {
			// More commits are likely: the next check at the floor, without the hundreds of events a second until then.
			this.busy = true;
			this.watcher?.close();
			this.watcher = undefined;
			this.schedule();
		} else if (this.busy) {
			// Quiet: the folder watched again, and one more check for a commit made since this one looked.
			this.busy = false;
			this.watcher = this.watchFolder(this.watched.folder, this.watched.base);
			this.schedule();
		}
	}

	close(): void {
		this.closed = true;
		clearInterval(this.pollTimer);
		clearTimeout(this.debounceTimer);
		this.watcher?.close();
		this.watcher = undefined;
	}
}
