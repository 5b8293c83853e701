/**
 * The verifiers' database checks, one at a time behind the reading, each checked file removed
 * with its sidecars once judged. `settle` stops what still runs and waits for it, so that the
 * extraction folder is removed only once no check writes into it (a check of a WAL-mode copy
 * creates the copy's -wal and -shm).
 */
import fs from 'node:fs';
import type {DbCheck} from '../check/db-check.js';
import {inventoryOfCopy} from '../inventory.js';
import {type PendingCheck, startCheck} from '../check/db-check-run.js';
import type {DbReport} from './report.js';

/** Runs database checks one at a time behind the reading (a worker thread each, in the CLI). */
export class CheckQueue {
	private chain: Promise<void> = Promise.resolve();
	private running: PendingCheck | null = null;
	private stopped = false;
	readonly results: Array<Promise<DbReport>> = [];
	constructor(
		private readonly inline: boolean,
		private readonly inventory = false,
	) {}

	add(file: string, judge: (check: DbCheck) => DbReport): void {
		const result = this.chain.then(async () => {
			const report = judge(await this.check(file));
			return this.inventory && report.ok ? {...report, inventory: inventoryOfCopy(file)} : report;
		});
		this.chain = result.then(
			() => {
				removeWithSidecars(file);
			},
			() => {},
		);
		this.results.push(result);
	}

	async all(): Promise<DbReport[]> {
		return Promise.all(this.results);
	}

	/** Stops the running check (its worker exited) and skips the queued ones; resolves once none runs. */
	async settle(): Promise<void> {
		this.stopped = true;
		await this.running?.cancel();
		await this.chain;
	}

	private async check(file: string): Promise<DbCheck> {
		if (this.stopped) {
			return skipped();
		}

		const pending = startCheck({inline: this.inline});
		this.running = pending;
		try {
			return await pending.run(file);
		} finally {
			this.running = null;
		}
	}
}

function removeWithSidecars(file: string): void {
	for (const s of ['', '-wal', '-shm', '-journal']) {
		fs.rmSync(`${file}${s}`, {force: true});
	}
}

/** The verdict of a check never run: the verification already failed. */
function skipped(): DbCheck {
	return {
		ok: false,
		integrity: ['not checked: the verification stopped before this database'],
		counts: {},
		schemaVersion: null,
		pageSize: null,
		pageCount: null,
		freelistCount: null,
		ms: 0,
	};
}
