/**
 * `hfx watch [--interval 15s] [--textfile PATH] [--json-lines] [--max-age 1d]`: the headless
 * follower for systemd (no Ink, no React). Every interval it re-reads each store under the root
 * (incrementally, as the TUI does), prints one line per event (JSON with --json-lines, for
 * journald and log shippers), and rewrites the textfile at every reading (its scan time is the
 * last read's). SIGTERM / SIGINT: a clean stop, exit 0.
 */
import fs from 'node:fs';
import path from 'node:path';
import {parseDuration} from '../../backup/ops/gate.js';
import {FailClosed, type ExitCode, errorCode, isFailClosed} from '../../ground/errors.js';
import type {StoreLocation} from '../../store/locate.js';
import {findHoldersOfAll} from '../../store/files/holders.js';
import {storeSamples, type StoreReading} from '../../report/metrics/metrics-samples.js';
import {exposition} from '../../report/metrics/prometheus-text.js';
import {type Digest, type WatchEvent, diffDigests, digestOf} from '../../report/metrics/watch-events.js';
import {toolVersion} from '../../ground/version.js';
import {ownSignals} from '../../ground/interrupts.js';
import {safeJson} from '../../text/sanitize.js';
import {type GlobalFlags, type Io, guarded, locate} from '../context.js';
import {rootBackups} from '../shared/store-reading.js';
import {checkTextfile, writeTextfile} from '../shared/textfile.js';
import {StoreFollower} from '../shared/watch-follower.js';

export type WatchFlags = GlobalFlags & {interval?: string; textfile?: string; jsonLines: boolean; maxAge?: string};

function duration(flag: string, text: string | undefined, fallback: number): number {
	const seconds = text === undefined ? fallback : parseDuration(text);
	if (seconds === null || seconds <= 0) {
		throw new FailClosed({
			file: flag,
			kind: 'usage',
			reason: `${JSON.stringify(text)} is not a positive duration`,
			next: `use e.g. ${flag} 15s, 5m or 1d`,
		});
	}

	return seconds;
}

/** Resolves when SIGTERM or SIGINT arrives (or `wake` is called); the handlers go with `dispose`. */
function stopSignal() {
	let stopped = false;
	let wake = () => {};
	const onSignal = () => {
		stopped = true;
		wake();
	};

	// Through the one signal policy (ground/interrupts.ts): temps still go on exit, and a private read copy
	// taken meanwhile cannot turn the clean stop into an exit 143.
	const release = ownSignals(onSignal);
	return {
		get stopped() {
			return stopped;
		},
		sleep: (ms: number) =>
			new Promise<void>(resolve => {
				if (stopped) {
					resolve();
					return;
				}

				const timer = setTimeout(resolve, ms);
				wake = () => {
					clearTimeout(timer);
					resolve();
				};
			}),
		dispose() {
			release();
		},
	};
}

/**
 * The textfile, rewritten at every reading, so `hfx_last_scan_timestamp_seconds` is the time of
 * the last read. The first write must work (a folder that is not there is refused at start, exit
 * 2); a later failure (the folder removed under the watch, the disk full) is one line on stderr,
 * the watch goes on and tries again at every reading, and one line says when the file is written
 * again.
 */
function textfileWriter(target: string | null, io: Io) {
	let written = false;
	let failing: string | null = null;
	return async (readings: readonly StoreReading[]) => {
		if (target === null) {
			return;
		}

		const text = await exposition(readings.flatMap(storeSamples), toolVersion());
		try {
			writeTextfile(target, text);
		} catch (error) {
			if (!written || !isFailClosed(error)) {
				throw error;
			}

			const line = `${error.line().replace(/\.?$/, '')}; the watch goes on and writes it again at every reading`;
			if (line !== failing) {
				io.err(line);
				failing = line;
			}

			return;
		}

		if (failing !== null) {
			io.err(`hfx watch: ${target}: written again`);
			failing = null;
		}

		written = true;
	};
}

function printer(io: Io, jsonLines: boolean): (e: WatchEvent) => void {
	// safeJson: a JSON line that stays valid JSON through the safe sink (DEL, C1 and bidi as \u escapes).
	return e => io.out(jsonLines ? safeJson(e) : `hfx watch: ${e.profile}: ${e.message}`);
}

/**
 * The store's folder is gone (a profile removed with its folder): a store deleted from a folder that is still there
 * stays followed, "down".
 */
function folderGone(location: StoreLocation): boolean {
	try {
		fs.lstatSync(path.dirname(location.path));
		return false;
	} catch (error) {
		return errorCode(error) === 'ENOENT';
	}
}

/**
 * The stores under the root now: a profile created since the watch started is followed from its
 * first reading on; a profile removed (its folder gone) is no longer followed, said once as an
 * event, and its series leave the textfile, so its alert clears. A store that went from a folder
 * still there keeps its follower (its readings say it is gone); a root that cannot be listed any
 * more changes nothing here (each store's reading says what is wrong).
 */
function followStores(followers: StoreFollower[], flags: WatchFlags, io: Io): StoreFollower[] {
	let stores: readonly StoreLocation[];
	try {
		stores = locate(flags, io).stores;
	} catch (error) {
		if (isFailClosed(error)) {
			return [];
		}

		throw error;
	}

	for (const location of stores) {
		if (!followers.some(f => f.location.path === location.path)) {
			followers.push(new StoreFollower(location, flags.maxGapSeconds));
		}
	}

	const removed = followers.filter(f => !stores.some(s => s.path === f.location.path) && folderGone(f.location));
	for (const f of removed) {
		followers.splice(followers.indexOf(f), 1);
	}

	return removed;
}

/** The event of a profile no longer followed. */
function removedEvent(f: StoreFollower, at: number): WatchEvent {
	const folder = path.dirname(f.location.path);
	return {
		event: 'store-removed',
		profile: f.location.owner,
		at,
		folder,
		message: [
			`store removed: ${folder} is gone,`,
			'so this profile is no longer followed and its metrics leave the textfile',
		].join(' '),
	};
}

export async function runWatch(flags: WatchFlags, io: Io): Promise<ExitCode> {
	return guarded(io, {json: false}, async (): Promise<ExitCode> => {
		const interval = duration('--interval', flags.interval, 15);
		const bound = duration('--max-age', flags.maxAge, 86_400);
		const located = locate(flags, io);
		const write = textfileWriter(
			flags.textfile === undefined ? null : checkTextfile(flags.textfile, located.stores),
			io,
		);
		const print = printer(io, flags.jsonLines);
		const followers = located.stores.map(l => new StoreFollower(l, flags.maxGapSeconds));
		const digests = new Map<StoreFollower, Digest>();
		const stop = stopSignal();
		try {
			while (!stop.stopped) {
				const now = io.now();
				for (const f of followStores(followers, flags, io)) {
					print(removedEvent(f, now));
					digests.delete(f);
					await f.close();
				}

				const backups = rootBackups(located.root, now);
				const readings: StoreReading[] = [];
				// One walk of /proc for every store, not one per store (#26).
				const holders = findHoldersOfAll(followers.map(f => f.filesPath));
				for (const [n, f] of followers.entries()) {
					const r = await f.read(backups, now, holders[n]);
					const digest = digestOf(r, bound, digests.get(f));
					diffDigests(digests.get(f), digest, {profile: r.profile, at: now, boundSeconds: bound}).forEach(print);
					digests.set(f, digest);
					readings.push(r);
				}

				await write(readings);
				await stop.sleep(interval * 1000);
			}
		} finally {
			stop.dispose();
			await Promise.all(followers.map(f => f.close()));
		}

		return 0;
	});
}
