/**
 * `hfx watch [--interval 15s] [--textfile PATH] [--json-lines] [--max-age 1d]`: the headless
 * follower for systemd (no Ink, no React). Every interval it re-reads each store under the root
 * (incrementally, as the TUI does), prints one line per event (JSON with --json-lines, for
 * journald and log shippers), and rewrites the textfile when a metric changed (and at least every
 * five minutes, so the scan time shows the watch is alive). SIGTERM / SIGINT: a clean stop, exit 0.
 */
import {parseDuration} from '../backup/gate.js';
import {FailClosed, type ExitCode, isFailClosed} from '../errors.js';
import type {StoreLocation} from '../store/locate.js';
import {storeSamples, type StoreReading} from '../report/metrics-samples.js';
import {exposition} from '../report/prometheus-text.js';
import {type Digest, type WatchEvent, diffDigests, digestOf} from '../report/watch-events.js';
import {toolVersion} from '../version.js';
import {ownSignals} from '../interrupts.js';
import {safeJson} from '../text/sanitize.js';
import {type GlobalFlags, type Io, guarded, locate} from './context.js';
import {rootBackups} from './store-reading.js';
import {checkTextfile, writeTextfile} from './textfile.js';
import {StoreFollower} from './watch-follower.js';

export type WatchFlags = GlobalFlags & {interval?: string; textfile?: string; jsonLines: boolean; maxAge?: string};

const HEARTBEAT_SECONDS = 300;
/** Metrics that move with the clock alone: a change in them is no reason to rewrite the file. */
const CLOCK_LINES = /^hfx_(last_scan_timestamp_seconds|last_scan_duration_seconds|backup_verified_age_seconds|backup_drilled_age_seconds)\{/;

function duration(flag: string, text: string | undefined, fallback: number): number {
	const seconds = text === undefined ? fallback : parseDuration(text);
	if (seconds === null || seconds <= 0) {
		throw new FailClosed({file: flag, kind: 'usage', reason: `${JSON.stringify(text)} is not a positive duration`, next: `use e.g. ${flag} 15s, 5m or 1d`});
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

	// Through the one signal policy (interrupts.ts): temps still go on exit, and a private read copy
	// taken meanwhile cannot turn the clean stop into an exit 143.
	const release = ownSignals(onSignal);
	return {
		get stopped() {
			return stopped;
		},
		sleep: (ms: number) => new Promise<void>(resolve => {
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

/** The textfile, rewritten when something other than the clock changed, or after the heartbeat. */
function textfileWriter(target: string | null) {
	let lastKey: string | null = null;
	let lastAt = 0;
	return async (readings: readonly StoreReading[], now: number) => {
		if (target === null) {
			return;
		}

		const text = await exposition(readings.flatMap(storeSamples), toolVersion());
		const key = text.split('\n').filter(line => !CLOCK_LINES.test(line)).join('\n');
		if (key !== lastKey || now - lastAt >= HEARTBEAT_SECONDS) {
			writeTextfile(target, text);
			lastKey = key;
			lastAt = now;
		}
	};
}

function printer(io: Io, jsonLines: boolean): (e: WatchEvent) => void {
	// safeJson: a JSON line that stays valid JSON through the safe sink (DEL, C1 and bidi as \u escapes).
	return e => io.out(jsonLines ? safeJson(e) : `hfx watch: ${e.profile}: ${e.message}`);
}

/**
 * The stores under the root now: a profile created since the watch started is followed from its
 * first reading on. A store that went keeps its follower (its readings say it is gone); a root
 * that cannot be listed any more changes nothing here (each store's reading says what is wrong).
 */
function addNewStores(followers: StoreFollower[], flags: WatchFlags, io: Io): void {
	let stores: readonly StoreLocation[];
	try {
		stores = locate(flags, io).stores;
	} catch (error) {
		if (isFailClosed(error)) {
			return;
		}

		throw error;
	}

	for (const location of stores) {
		if (!followers.some(f => f.location.path === location.path)) {
			followers.push(new StoreFollower(location, flags.maxGapSeconds));
		}
	}
}

export async function runWatch(flags: WatchFlags, io: Io): Promise<ExitCode> {
	return guarded(io, {json: false}, async (): Promise<ExitCode> => {
		const interval = duration('--interval', flags.interval, 15);
		const bound = duration('--max-age', flags.maxAge, 86_400);
		const located = locate(flags, io);
		const write = textfileWriter(flags.textfile === undefined ? null : checkTextfile(flags.textfile, located.stores));
		const print = printer(io, flags.jsonLines);
		const followers = located.stores.map(l => new StoreFollower(l, flags.maxGapSeconds));
		const digests = new Map<StoreFollower, Digest>();
		const stop = stopSignal();
		try {
			while (!stop.stopped) {
				addNewStores(followers, flags, io);
				const now = io.now();
				const backups = rootBackups(located.root, now);
				const readings: StoreReading[] = [];
				for (const f of followers) {
					const r = await f.read(backups, now);
					const digest = digestOf(r, bound, digests.get(f));
					diffDigests(digests.get(f), digest, {profile: r.profile, at: now, boundSeconds: bound}).forEach(print);
					digests.set(f, digest);
					readings.push(r);
				}

				await write(readings, now);
				await stop.sleep(interval * 1000);
			}
		} finally {
			stop.dispose();
			await Promise.all(followers.map(f => f.close()));
		}

		return 0;
	});
}
