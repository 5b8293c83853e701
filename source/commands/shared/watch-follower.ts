/**
 * One store `hfx watch` follows, as the TUI does (LiveStore): re-read incrementally, on a
 * read-only connection open only for the read, when the store's commit signature says the owner
 * committed; its files probed incrementally (WalTail). Nothing of the store is held between
 * readings. No folder watcher: the watch reads on its own interval, so a writer
 * committing 200 times a second costs one incremental refresh per interval. A store that cannot
 * be opened is retried at every reading.
 */
import path from 'node:path';
import type {BackupEntry} from '../../backup/ops/list.js';
import {isFailClosed} from '../../ground/errors.js';
import {backupAges} from '../../report/metrics/backup-ages.js';
import type {StoreReading} from '../../report/metrics/metrics-samples.js';
import {FilesProbe} from '../../store/files/files-probe.js';
import type {HolderReport} from '../../store/files/holders.js';
import {LiveStore} from '../../live/live.js';
import type {StoreLocation} from '../../store/locate.js';
import {gatewayBuild} from '../../store/places/gateway-build.js';
import {storeBuildRules} from '../../store/places/store-build.js';

/**
 * The watch compares every session row's signature (a scan of the whole sessions table, store/read/row-deltas.ts) at
 * most once a minute while commits add messages, not at every reading: at --interval 15s under a writer at 200
 * commits/s that scan was 42 % of the watch's CPU profile (each reading opens a cold connection, so it reads the
 * 21,516 rows of the bench store from the file). A commit that adds no message and no row is still compared at once;
 * an in-place change beside new messages (an end, a title) reaches the textfile within a minute.
 */
export const SIGNATURE_EVERY_MS = 60_000;

export class StoreFollower {
	private live: LiveStore | null = null;
	private probe: FilesProbe | null = null;

	constructor(
		readonly location: StoreLocation,
		private readonly maxGapSeconds: number,
	) {}

	/**
	 * One reading. `holders`: the store's holders from the caller's one walk of /proc for every store it follows
	 * (findHoldersOfAll); without it the probe walks /proc for this store alone.
	 */
	async read(backups: readonly BackupEntry[], now: number, holders?: HolderReport): Promise<StoreReading> {
		const started = performance.now();
		const result = await this.refresh();
		// Probed whether or not the store could be read: a holder of a deleted -wal is why, at times.
		// The headers only when the files changed: an unchanged profile starts no `head` child (#26).
		this.probe ??= new FilesProbe(result.ok ? result.facts.path : this.filesPath, {
			holdersEveryMs: 0,
			headersWhenChanged: true,
		});
		const files = await this.probe.read(holders === undefined ? {} : {holders});
		return {
			profile: this.location.owner,
			at: now,
			seconds: (performance.now() - started) / 1000,
			result,
			files,
			backups: backupAges(backups, this.location.owner, now),
			build: gatewayBuild(path.dirname(path.resolve(this.location.path))),
		};
	}

	/** The store's path as the watch names it to findHoldersOfAll (holders are matched by the file's real path). */
	get filesPath(): string {
		return path.resolve(this.location.path);
	}

	/** Child processes started to read the store's headers so far (tests count them). */
	get headerChildren(): number {
		return this.probe?.headerChildren ?? 0;
	}

	/** How many times every session row's signature was compared since the store was opened (tests count it). */
	get signatureScans(): number {
		return this.live?.signatureScans ?? 0;
	}

	async close(): Promise<void> {
		this.live?.close();
		this.live = null;
		await this.probe?.close();
		this.probe = null;
	}

	private async refresh(): Promise<StoreReading['result']> {
		try {
			if (this.live === null) {
				this.live = LiveStore.open(this.location, {
					watch: false,
					maxGapSeconds: this.maxGapSeconds,
					signatureEveryMs: SIGNATURE_EVERY_MS,
					// The installed build's rules, as scan judges by them (issue #27).
					buildRules: ruleSet => storeBuildRules(this.location.path, ruleSet, {env: process.env}),
				});
			} else if (!this.live.refresh()) {
				// The periodic reload is read in steps: this reading waits for it (nothing to answer meanwhile).
				await this.live.settled();
			}
		} catch (error) {
			if (!isFailClosed(error)) {
				throw error;
			}

			return {ok: false, kind: error.kind, line: error.line()};
		}

		const {model} = this.live;
		if (model.error !== null) {
			return {
				ok: false,
				kind: 'refresh-failed',
				line: `hfx: ${this.location.path}: ${model.error}. Next: hfx scan --db ${this.location.path}`,
			};
		}

		return {ok: true, facts: model.facts, analysis: model.analysis};
	}
}
