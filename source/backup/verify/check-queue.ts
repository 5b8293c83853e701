/**
 * The verifiers' database checks, one at a time behind the reading, each checked file removed
 * with its sidecars once judged.
 */
import fs from 'node:fs';
import type {DbCheck} from '../check/db-check.js';
import {inventoryOfCopy} from '../inventory.js';
import {checkDatabaseFile} from '../check/db-check-run.js';
import type {DbReport} from './report.js';

/** Runs database checks one at a time behind the reading (a worker thread each, in the CLI). */
export class CheckQueue {
	private chain: Promise<void> = Promise.resolve();
	readonly results: Array<Promise<DbReport>> = [];
	constructor(
		private readonly inline: boolean,
		private readonly inventory = false,
	) {}

	add(file: string, judge: (check: DbCheck) => DbReport): void {
		const result = this.chain.then(async () => {
			const report = judge(await checkDatabaseFile(file, {inline: this.inline}));
			return this.inventory && report.ok ? {...report, inventory: inventoryOfCopy(file)} : report;
		});
		this.chain = result.then(
			() => {
				fs.rmSync(file, {force: true});
				for (const s of ['-wal', '-shm', '-journal']) {
					fs.rmSync(`${file}${s}`, {force: true});
				}
			},
			() => {},
		);
		this.results.push(result);
	}

	async all(): Promise<DbReport[]> {
		return Promise.all(this.results);
	}
}
