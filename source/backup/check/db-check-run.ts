/**
 * The database check of a private copy (db-check.ts), run in a worker thread (check-worker.ts) in
 * the CLI, inline from the TypeScript sources: what the backup, the quick snapshot and the
 * verifiers hand each copy to.
 */
import fs from 'node:fs';
import path from 'node:path';
import {Worker} from 'node:worker_threads';
import {type DbCheck, checkDatabaseFileSync} from './db-check.js';
import {distRoot} from '../../ground/paths.js';

// The compiled worker (dist/backup/check/check-worker.js); from the TypeScript sources the check runs inline.
const workerFile = path.join(distRoot(), 'backup', 'check', 'check-worker.js');
const fromSources = import.meta.url.endsWith('.ts');

/**
 * integrity_check reads every page: an hour covers stores far beyond any Hermes store (about 1 GB a minute on a slow
 * disk).
 */
const CHECK_TIMEOUT_MS = 3_600_000;

export type CheckOptions = {inline?: boolean; timeoutMs?: number};

/** A check whose worker is already starting; `run` hands it the file (once), `cancel` stops it unused. */
export type PendingCheck = {run: (file: string) => Promise<DbCheck>; cancel: () => void};

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
		return {run: async file => checkDatabaseFileSync(file), cancel() {}};
	}

	const worker = new Worker(workerFile);
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
					void worker.terminate();
				}, budgetMs);
				worker.postMessage({file});
			});
		},
		cancel() {
			settle(failedCheck('check cancelled', 0));
			void worker.terminate();
		},
	};
}

/** Checks a private copy (see startCheck). Never throws: failures are `ok: false`. */
export async function checkDatabaseFile(file: string, options: CheckOptions = {}): Promise<DbCheck> {
	return startCheck(options).run(file);
}
