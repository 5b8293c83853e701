/**
 * The database check of a private copy (db-check.ts), run in a worker thread (check-worker.ts) in
 * the CLI, inline from the TypeScript sources: what the backup, the quick snapshot and the
 * verifiers hand each copy to.
 */
import fs from 'node:fs';
import path from 'node:path';
import {Worker} from 'node:worker_threads';
import {type DbCheck, checkDatabaseFileSync} from './db-check.js';
import {onInterruptOrExit} from '../../ground/interrupts.js';
import {distRoot} from '../../ground/paths.js';
import {testMark} from '../../ground/test-pause.js';

// The compiled worker (dist/backup/check/check-worker.js); from the TypeScript sources the check runs inline.
const workerFile = path.join(distRoot(), 'backup', 'check', 'check-worker.js');
const fromSources = import.meta.url.endsWith('.ts');

/**
 * integrity_check reads every page: an hour covers stores far beyond any Hermes store (about 1 GB a minute on a slow
 * disk).
 */
const CHECK_TIMEOUT_MS = 3_600_000;

export type CheckOptions = {inline?: boolean; timeoutMs?: number};

/**
 * Node aborts the whole process (SIGABRT, "FATAL ERROR: Error::New napi_get_last_error_info") when a worker thread is
 * stopped while it registers better-sqlite3's native addon, by the process exiting (hfx's exit on SIGINT/SIGTERM) or
 * by worker.terminate(). CI saw it once (2026-12-02, faults.test.ts: `hfx backup` given SIGTERM ended by a signal, not
 * exit 143); here 2 of 370 SIGTERMs of `hfx backup` at random moments of a 150,000-message store's backup ended so
 * (Node 24.21.0, better-sqlite3 13.2.0), both with the worker in better-sqlite3's getBinding. So the worker loads the
 * driver first and then sets a shared flag, and nothing stops it before: the exit (its hook) and `cancel` wait for
 * the flag, at most LOAD_WAIT_MS (a worker that never loads is stopped anyway). 0 of 600 after the change.
 */
const LOAD_WAIT_MS = 5000;

/**
 * A started check worker and the safe way to stop it (after the driver is loaded). `stop` resolves once the worker
 * exited or once its check has begun reading. Where worker.terminate() cannot stop native code, a worker inside an
 * integrity_check runs on until that statement returns (minutes, on a 2 GB copy); a check that has begun reading has
 * made every file it will make (a WAL-mode copy's -wal and -shm), so the folder holding the copy may go then (the
 * worker's open descriptors keep what it reads). Node 24.21 here: terminate() returned ~65 ms into a 1.2 s check.
 */
type CheckWorker = {worker: Worker; stop: () => Promise<void>};

/** Slot 0: the worker loaded its driver. Slot 1: its check began reading (1), or the worker exited (2). */
const LOADED = 0;
const READING = 1;

function startWorker(): CheckWorker {
	const loaded = new Int32Array(new SharedArrayBuffer(8));
	const worker = new Worker(workerFile, {workerData: {loaded}});
	const waitLoaded = (): void => {
		if (Atomics.load(loaded, LOADED) === 0 && Atomics.wait(loaded, LOADED, 0, LOAD_WAIT_MS) === 'ok') {
			testMark('check-worker-loaded');
		}
	};

	const unhook = onInterruptOrExit(waitLoaded);
	worker.once('exit', () => {
		// A worker that ended (or failed to start) is never waited for.
		Atomics.store(loaded, LOADED, 1);
		Atomics.store(loaded, READING, 2);
		Atomics.notify(loaded, READING);
		unhook();
	});
	return {
		worker,
		async stop() {
			waitLoaded();
			const exited = worker.terminate();
			const waited = Atomics.waitAsync(loaded, READING, 0);
			await Promise.race([exited, waited.async ? waited.value : Promise.resolve()]);
		},
	};
}

/**
 * A check whose worker is already starting; `run` hands it the file (once). `cancel` stops it, used or not, and
 * resolves once the worker has exited: a check opening a WAL-mode copy read-only creates its -wal and -shm, so the
 * folder holding the copy is removed only after that (else its removal races those files: ENOTEMPTY, seen in CI).
 */
export type PendingCheck = {run: (file: string) => Promise<DbCheck>; cancel: () => Promise<void>};

function failedCheck(reason: string, ms: number): DbCheck {
	return {
		ok: false,
		integrity: [reason],
		counts: {},
		schemaVersion: null,
		pageSize: null,
		pageCount: null,
		freelistCount: null,
		ms,
	};
}

/**
 * Starts a check worker before its file exists, so that the worker's start-up (loading node's
 * worker, our modules and better-sqlite3: 0.1-0.25 s measured) overlaps the copy instead of
 * following it. In a worker thread when the compiled worker exists (the CLI), inline otherwise
 * (tests importing the TypeScript sources). `run` never throws: failures are `ok: false`.
 */
export function startCheck(options: CheckOptions = {}): PendingCheck {
	if (options.inline || fromSources || !fs.existsSync(workerFile)) {
		return {run: async file => checkDatabaseFileSync(file), async cancel() {}};
	}

	const {worker, stop} = startWorker();
	let outcome: DbCheck | undefined;
	let deliver: ((check: DbCheck) => void) | undefined;
	let timer: NodeJS.Timeout | undefined;
	const settle = (check: DbCheck): void => {
		if (outcome === undefined) {
			outcome = check;
			clearTimeout(timer);
			deliver?.(check);
		}
	};

	worker.once('message', (result: DbCheck) => settle(result));
	worker.once('error', error => settle(failedCheck(`check worker failed: ${error.message}`, 0)));
	worker.once('exit', code => settle(failedCheck(`check worker exited with ${code}`, 0)));
	return {
		async run(file) {
			// Bounded: a check that outlives its budget is stopped and counts as failed (the copy is not trusted).
			const budgetMs = options.timeoutMs ?? CHECK_TIMEOUT_MS;
			return new Promise(resolve => {
				deliver = resolve;
				if (outcome !== undefined) {
					resolve(outcome);
					return;
				}

				timer = setTimeout(() => {
					settle(
						failedCheck(
							`check worker did not finish within ${Math.round(budgetMs / 1000)} s and was stopped`,
							budgetMs,
						),
					);
					void stop();
				}, budgetMs);
				worker.postMessage({file});
			});
		},
		async cancel() {
			settle(failedCheck('check cancelled', 0));
			await stop();
		},
	};
}

/** Checks a private copy (see startCheck). Never throws: failures are `ok: false`. */
export async function checkDatabaseFile(file: string, options: CheckOptions = {}): Promise<DbCheck> {
	return startCheck(options).run(file);
}
