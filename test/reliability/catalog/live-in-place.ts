/**
 * Class 9, the follower reads in place (issue #26, "no read may cost a copy of the store"): `hfx watch` follows a
 * stopped store (WAL mode, no -wal/-shm) and a crashed one (-wal and -shm a killed reader left, no holder) where it
 * lies, as the one-shot reads do, with no private copy: the run's TMPDIR, looked at every 10 ms while watch reads,
 * stays empty. A stopped store replaced by a copy of itself while watch is inside one of its readings (paused there by
 * the test hook): that reading is thrown away and read again, and watch goes on. 0 bytes changed in every kind.
 */
import fs from 'node:fs';
import path from 'node:path';
import {parseExposition} from '../../helpers/prometheus.js';
import {bigHome} from '../fixtures.js';
import type {Fault, Step, TempSpace} from '../types.js';
import {step, verdict} from './kit.js';
import {leaveSidecars} from './in-place-reads.js';

async function waitFor(predicate: () => boolean, ms: number): Promise<boolean> {
	const until = Date.now() + ms;
	while (!predicate()) {
		if (Date.now() > until) {
			return false;
		}

		await new Promise(resolve => setTimeout(resolve, 10));
	}

	return true;
}

/** The textfile's session count of the default profile (NaN when absent or not there). */
function sessions(file: string): number {
	try {
		const samples = parseExposition(fs.readFileSync(file, 'utf8'));
		return samples.find(s => s.name === 'hfx_sessions' && s.labels.profile === 'default')?.value ?? Number.NaN;
	} catch {
		return Number.NaN;
	}
}

/** What appears in `folder` within `ms` (looked at every 10 ms). */
async function appearing(folder: string, ms: number): Promise<string[]> {
	const seen = new Set<string>();
	await waitFor(() => {
		for (const name of fs.readdirSync(folder)) {
			seen.add(name);
		}

		return false;
	}, ms);
	return [...seen];
}

/**
 * `hfx watch --db db` (concurrent, stopped by SIGTERM once `act` ended) and `hfx files` after `act` ran while watch
 * followed; `act` returns a problem or null.
 */
function watchScene(db: string, file: string, act: () => Promise<string | null>, env?: NodeJS.ProcessEnv): Step[] {
	let doneAt = 0;
	let problem: string | null = null;
	const watch = step('killed', ['watch', '--db', db, '--interval', '0.2s', '--json-lines', '--textfile', file], {
		concurrent: true,
		env,
		kill: {signal: 'SIGTERM', when: () => doneAt > 0 && Date.now() - doneAt > 500, afterMs: 28_000},
		check: r => (r.killedOnPurpose ? problem : `watch ended on its own (${r.code}) before it was stopped: ${r.stderr}`),
	});
	const files: Step = {
		...verdict(['files', '--db', db]),
		before: async () => {
			try {
				problem = await act();
			} finally {
				doneAt = Date.now();
			}
		},
	};
	return [watch, files];
}

/** The big home's store, stopped (as the fixture is) or crashed (a reader SIGKILLed while it held it). */
async function storeOf(t: TempSpace, how: 'stopped' | 'crashed'): Promise<{root: string; db: string}> {
	const h = await bigHome(t.dir('home'));
	const db = fs.realpathSync(h.db);
	if (fs.existsSync(`${db}-wal`) || fs.existsSync(`${db}-shm`)) {
		throw new Error("the home's store is not stopped");
	}

	if (how === 'crashed') {
		await leaveSidecars(db);
	}

	return {root: h.root, db};
}

function followedInPlace(how: 'stopped' | 'crashed'): Fault {
	return {
		id: `live-in-place-watch-${how}`,
		cls: 9,
		outcome: 'ok',
		notes:
			`watch follows a ${how} store in place: nothing ever in its TMPDIR (looked at every 10 ms for 2 s of ` +
			'readings), its textfile written; 0 bytes changed (-wal and -shm included)',
		async setup(t) {
			const {root, db} = await storeOf(t, how);
			const file = path.join(t.dir('out'), 'hfx.prom');
			const steps = watchScene(db, file, async () => {
				const early = await appearing(t.tmpdir, 300);
				if (!(await waitFor(() => sessions(file) > 0, 20_000))) {
					return 'watch wrote no session count within 20 s';
				}

				const seen = [...early, ...(await appearing(t.tmpdir, 2000))];
				return seen.length > 0 ? `watch made ${seen.join(', ')} in its TMPDIR (a private copy)` : null;
			});
			return {evidence: [root], steps};
		},
	};
}

/** Whether some process has `file` open (its /proc/PID/fd links): here, watch paused inside its reading in place. */
function heldOpen(file: string): boolean {
	for (const pid of fs.readdirSync('/proc').filter(n => /^\d+$/.test(n))) {
		try {
			if (fs.readdirSync(`/proc/${pid}/fd`).some(fd => fs.readlinkSync(`/proc/${pid}/fd/${fd}`) === file)) {
				return true;
			}
		} catch {
			// A process gone or not ours to look at.
		}
	}

	return false;
}

/** Watch inside its first reading: the store held open across 300 ms (its paused reading, not a glance at it). */
async function insideReading(db: string): Promise<boolean> {
	const until = Date.now() + 20_000;
	while (Date.now() < until) {
		if (heldOpen(db)) {
			await new Promise(resolve => setTimeout(resolve, 300));
			if (heldOpen(db)) {
				return true;
			}
		}

		await new Promise(resolve => setTimeout(resolve, 20));
	}

	return false;
}

const replacedMidReading: Fault = {
	id: 'live-in-place-watch-replaced-mid-reading',
	cls: 9,
	outcome: 'ok',
	notes:
		'state.db renamed over by a copy of itself (the same bytes, another inode) while watch is inside its first ' +
		'reading in place (paused 2 s there): the reading is thrown away and read again, watch goes on; nothing in ' +
		'its TMPDIR; 0 bytes changed',
	async setup(t) {
		const {root, db} = await storeOf(t, 'stopped');
		const file = path.join(t.dir('out'), 'hfx.prom');
		const env = {HFX_TEST_PAUSE_AT: 'live-read', HFX_TEST_PAUSE_MS: '2000'};
		const steps = watchScene(
			db,
			file,
			async () => {
				if (!(await insideReading(db))) {
					return 'watch never held the store open inside a reading within 20 s';
				}

				const copy = path.join(path.dirname(db), '.state.db.replacing');
				fs.copyFileSync(db, copy);
				fs.renameSync(copy, db);
				if (!(await waitFor(() => sessions(file) > 0, 25_000))) {
					return 'watch wrote no session count within 25 s of the store replaced under its reading';
				}

				const seen = fs.readdirSync(t.tmpdir);
				return seen.length > 0 ? `watch made ${seen.join(', ')} in its TMPDIR (a private copy)` : null;
			},
			env,
		);
		return {evidence: [root], steps};
	},
};

export const LIVE_IN_PLACE: Fault[] = [followedInPlace('stopped'), followedInPlace('crashed'), replacedMidReading];
