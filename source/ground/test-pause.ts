/**
 * A test hook for crash windows, and nothing else: with `HFX_TEST_PAUSE_AT=<point>` the process
 * announces `hfx-test: paused at <point> (pid N)` on stderr when it reaches that point, then
 * blocks for `HFX_TEST_PAUSE_MS` (default 10000, bounded at 60000) so a test can SIGKILL or
 * signal it there; it then goes on as if nothing happened. Unset (always, outside tests), it does nothing.
 *
 * Points: `after-intent` and `after-commit` (repair/write/guarded-write.ts: the write's intent is in the
 * audit trail / the transaction committed, its outcome not yet recorded), `private-copy`
 * (store/open/open.ts: a private read copy exists in the temp folder), `temp-<kind>` (ground/temps.ts: our temp
 * folder `hfx-<kind>-<pid>-<rand>` was just made, e.g. temp-verify, temp-drill, temp-read),
 * `live-read` (store/open/live-connection.ts: a live view's read runs, its connection open: a read of a large store
 * lasts),
 * `analysis` (commands/context.ts: a store is read and its analysis about to run; `hfx scan --json` has sent its
 * document's head by then),
 * `backup-in-place` (backup/create/sqlite-copy.ts: a stopped or crashed store is open in place for the backup's copy,
 * the copy not yet started),
 * `restore-staged` (backup/restore/stage.ts: a member is staged as `.NAME.hfx-p<pid>.partial`),
 * `restore-renamed` (backup/restore/commit.ts: the first staged member was renamed into place, the rest not yet),
 * `check-worker-load` (backup/check/check-worker.ts: a backup's check worker started, its native driver not loaded),
 * `check-open` (backup/check/db-check.ts: a check about to open its copy, which creates a WAL-mode copy's sidecars),
 * `check-reading` (the same check after its first read: every file it makes is made).
 */
export function testPause(point: string): void {
	if (process.env.HFX_TEST_PAUSE_AT !== point) {
		return;
	}

	const ms = Math.min(Number(process.env.HFX_TEST_PAUSE_MS ?? 10_000) || 0, 60_000);
	announce(`paused at ${point} (pid ${process.pid})`);
	if (ms > 0) {
		Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
	}
}

/**
 * As `testPause`, without blocking the event loop: the process says `hfx-test: paused at <point> (pid N)` and waits
 * `HFX_TEST_PAUSE_MS` on a timer, so a view keeps answering keys meanwhile. Points: `first-analysis` (live/live.ts: a
 * view drawn from a preview, its first analysis read and not yet published), `analysis-step` (live/live.ts: that
 * analysis after its first step, under way), `read-step` (store/open/live-connection.ts
 * readAsync: a stepped read after its first step, its connection and read transaction open). Unset, it resolves at
 * once.
 */
export async function testPauseAsync(point: string): Promise<void> {
	if (process.env.HFX_TEST_PAUSE_AT !== point) {
		return;
	}

	const ms = Math.min(Number(process.env.HFX_TEST_PAUSE_MS ?? 10_000) || 0, 60_000);
	announce(`paused at ${point} (pid ${process.pid})`);
	// Unref'd: a view quit meanwhile exits at once, the timer does not hold the process.
	await new Promise(resolve => setTimeout(resolve, ms).unref());
}

/**
 * A test hook that counts: with `HFX_TEST_MARK=<point>` the process says `hfx-test: at <point>` on stderr each time
 * it reaches that point, and goes on. Points: `preflight` (store/open/preflight.ts: the store's files looked at before
 * SQLite is let near them; one `hfx repair` dry run looks once); the repair's checks, each made once per `hfx repair`
 * (test/commands/repair-preflight.test.ts): `plan` (repair/apply.ts computePlan), `plan-refusal` (its planRefusal),
 * `reconcile` (repair/write/reconcile.ts: the audit trail's crash windows), `undo-entry` (repair/undo.ts
 * resolveUndoEntry)
 * and `holders` (repair/write/preconditions.ts: one scan of /proc per holders' check); `check-worker-loaded`
 * (backup/check/db-check-run.ts: an exit or a cancel waited for a check worker to load its driver, and it did).
 */
export function testMark(point: string): void {
	if (process.env.HFX_TEST_MARK === point) {
		announce(`at ${point}`);
	}
}

function announce(what: string): void {
	process.stderr.write(`hfx-test: ${what}\n`);
}
