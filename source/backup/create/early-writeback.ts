/**
 * Early writeback of a file being written: every `every` bytes, one fdatasync in the thread pool
 * (never two at once), so the kernel flushes the file while the rest is still being produced and
 * the final fsync finds little left. Nothing is weakened: the writer still fsyncs the whole file
 * at the end; this only moves most of the flushing earlier, beside the writing.
 *
 * Measured on this machine (785 MB written in 1 MiB writes): writes then fsync 1.2–1.9 s, of which
 * the fsync 0.44–0.49 s; with an fdatasync every 64 MiB 0.5–0.7 s, final fsync 0.04 s.
 *
 * A failed early fdatasync (EIO, ENOSPC of delayed allocation) is kept and thrown by close(): the
 * kernel reports a writeback error once per open file, so the final fsync on another descriptor
 * might not see it again. Only for files of ours (never the observed store): the descriptor is
 * read-only and closed only after the caller's own connection to the file is gone.
 */
import fs from 'node:fs';

export const WRITEBACK_EVERY = 64 * 1_048_576;

export class EarlyWriteback {
	private fd: number | undefined;
	private pending: Promise<void> | undefined;
	private lastAt = 0;
	private failure: unknown;
	/** fdatasyncs started (for tests and --json context). */
	started = 0;

	constructor(
		private readonly file: string,
		private readonly every = WRITEBACK_EVERY,
	) {}

	/**
	 * `written`: bytes of the file written so far. Starts an fdatasync when `every` more were written since the last one
	 * began and none is running.
	 */
	progress(written: number): void {
		if (this.failure !== undefined || this.pending || written - this.lastAt < this.every) {
			return;
		}

		this.lastAt = written;
		try {
			this.fd ??= fs.openSync(this.file, 'r');
		} catch (error) {
			this.failure = error;
			return;
		}

		const fd = this.fd;
		this.started++;
		this.pending = new Promise<void>(resolve => {
			fs.fdatasync(fd, error => {
				if (error) {
					this.failure ??= error;
				}

				this.pending = undefined;
				resolve();
			});
		});
	}

	/** Resolves once no fdatasync runs: the next `progress` past the interval starts one. */
	async settled(): Promise<void> {
		await this.pending;
	}

	/** Waits for the running fdatasync and closes the descriptor; throws the first failure. */
	async close(): Promise<void> {
		await this.pending;
		if (this.fd !== undefined) {
			fs.closeSync(this.fd);
			this.fd = undefined;
		}

		if (this.failure !== undefined) {
			throw this.failure;
		}
	}

	/** close() for a run that failed anyway: the descriptor is closed once no fdatasync uses it; failures are dropped. */
	dispose(): void {
		void this.close().catch(() => {});
	}
}
