/**
 * Issue #29, classes 3 and 4: the follower's answers stay true, and hfx never stands in the
 * agent's way. Class 13 (4): each of the agent's own operations, run 10 times by a second process
 * while `hfx watch` follows the home, succeeds (the journal-mode switch WAL -> DELETE -> WAL, each
 * checkpoint mode with no busy, VACUUM); watch follows every commit they make and is no holder of
 * the store while idle (/proc, as `hfx files` and `hermes sessions optimize` look). Class 12 (3):
 * a profile removed while watch runs leaves the textfile, the scan time is each reading's, a
 * textfile folder removed under a quiet watch is one line on stderr and the file comes back.
 * Evidence is measured from after the operator's or agent's own change, while watch still follows.
 */
import fs from 'node:fs';
import path from 'node:path';
import {type AgentOp, AGENT_OPS, runAgentOps} from '../../helpers/agent-ops.js';
import {parseExposition} from '../../helpers/prometheus.js';
import {findHolders} from '../../../source/store/files/holders.js';
import {home} from '../fixtures.js';
import type {Fault, RunResult, Step} from '../types.js';
import {step, verdict} from './kit.js';

const WORDS: Record<AgentOp, string> = {
	'journal-mode': 'journal-mode switch WAL -> DELETE -> WAL',
	'checkpoint-PASSIVE': 'wal_checkpoint(PASSIVE)',
	'checkpoint-FULL': 'wal_checkpoint(FULL)',
	'checkpoint-RESTART': 'wal_checkpoint(RESTART)',
	'checkpoint-TRUNCATE': 'wal_checkpoint(TRUNCATE)',
	vacuum: 'VACUUM',
};

async function waitFor(predicate: () => boolean, ms: number): Promise<boolean> {
	const until = Date.now() + ms;
	while (!predicate()) {
		if (Date.now() > until) {
			return false;
		}

		await new Promise(resolve => setTimeout(resolve, 50));
	}

	return true;
}

/** A sample of the textfile (NaN when absent or not there). */
function metric(file: string, name: string, profile: string): number {
	try {
		return (
			parseExposition(fs.readFileSync(file, 'utf8')).find(s => s.name === name && s.labels.profile === profile)
				?.value ?? Number.NaN
		);
	} catch {
		return Number.NaN;
	}
}

/** What a running `hfx watch` of `root` held of the store `db` (descriptors, locks) in two samples in a row. */
async function watchHeld(db: string, root: string, count: number): Promise<string[]> {
	const seen: string[] = [];
	let before = new Set<string>();
	for (let i = 0; i < count; i++) {
		const now = new Set<string>();
		for (const h of findHolders(db).holders.filter(h => h.cmdline.includes('watch') && h.cmdline.includes(root))) {
			now.add(
				`pid ${h.pid}: ` +
					[...h.files.map(f => `fd on ${f.role}`), ...h.locks.map(l => `${l.access} lock on ${l.role}`)].join(', '),
			);
		}

		// Held across two samples 60 ms apart: a read of the watch's 0.3 s interval (its raw signature read of the header,
		// or its connection, open for a few ms) caught by one sample is a read, not a hold (CI caught one: "fd on db").
		seen.push(...[...now].filter(held => before.has(held)));
		before = now;
		await new Promise(resolve => setTimeout(resolve, 60));
	}

	return seen;
}

/**
 * A watch of `root` (concurrent, stopped by SIGTERM 1.5 s after `act` ends) and `hfx files` on `db`
 * after `act` ran while the watch followed. `act` returns a problem or null.
 */
function watchScene(
	root: string,
	db: string,
	file: string,
	act: () => Promise<string | null>,
	watchCheck?: (r: RunResult) => string | null,
): {steps: Step[]; after: () => string | null} {
	let doneAt = 0;
	let problem: string | null = null;
	const watch = step('killed', ['watch', '--home', root, '--interval', '0.3s', '--json-lines', '--textfile', file], {
		concurrent: true,
		kill: {signal: 'SIGTERM', when: () => doneAt > 0 && Date.now() - doneAt > 1500, afterMs: 28_000},
		check: r =>
			(r.killedOnPurpose ? null : `watch ended on its own (${r.code}) before it was stopped`) ??
			watchCheck?.(r) ??
			null,
	});
	const files: Step = {
		...verdict(['files', '--db', db]),
		before: async () => {
			try {
				problem = (await waitFor(() => fs.existsSync(file), 10_000))
					? await act()
					: 'watch wrote no textfile within 10 s';
			} finally {
				doneAt = Date.now();
			}
		},
	};
	return {steps: [watch, files], after: () => problem};
}

function agentOpKind(op: AgentOp): Fault {
	return {
		id: `agent-${op.toLowerCase()}-while-watch`,
		cls: 13,
		outcome: 'ok',
		notes:
			`the agent's ${WORDS[op]} 10 times (a second process, a session ` +
			`committed after each) while watch follows: all succeed (no "database is ` +
			`locked", no busy), watch follows every commit and holds nothing while idle`,
		async setup(t) {
			const h = await home(t.dir('home'));
			const file = path.join(t.dir('out'), 'hfx.prom');
			const sessions = () => metric(file, 'hfx_sessions', 'default');
			const scene = watchScene(h.root, h.db, file, async () => {
				const base = sessions();
				const failed = (await runAgentOps(h.db, [op], 10, 120)).filter(r => !r.ok);
				if (failed.length > 0) {
					return `${failed.length}/10 of the agent's ${WORDS[op]} failed while watch followed: ${failed[0]!.got}`;
				}

				if (!(await waitFor(() => sessions() === base + 10, 10_000))) {
					return `watch did not follow the agent's commits: hfx_sessions ${sessions()}, expected ${base + 10}`;
				}

				const held = await watchHeld(h.db, h.root, 10);
				return held.length > 0 ? `watch held the store while idle: ${held[0]}` : null;
			});
			return {evidence: [h.root], measureFrom: 1, ...scene};
		},
	};
}

const stopsReportingRemoved: Fault = {
	id: 'watch-profile-removed',
	cls: 12,
	outcome: 'ok',
	notes:
		'a profile removed with its folder while watch runs: one store-removed ' +
		'event, its series leave the textfile (its alert clears), the others stay up',
	async setup(t) {
		const h = await home(t.dir('home'));
		const file = path.join(t.dir('out'), 'hfx.prom');
		const scene = watchScene(
			h.root,
			h.db,
			file,
			async () => {
				if (!(await waitFor(() => metric(file, 'hfx_store_up', 'work') === 1, 10_000))) {
					return 'profile work never in the textfile';
				}

				fs.rmSync(path.dirname(h.profileDb), {recursive: true});
				if (!(await waitFor(() => !fs.readFileSync(file, 'utf8').includes('profile="work"'), 5000))) {
					return 'the removed profile work stays in the textfile';
				}

				return metric(file, 'hfx_store_up', 'default') === 1 ? null : 'the default store is no longer up';
			},
			r =>
				(r.stdout.match(/"event":"store-removed"/g) ?? []).length === 1
					? null
					: `expected one store-removed event, got: ${r.stdout.slice(-300)}`,
		);
		return {evidence: [h.root], measureFrom: 1, ...scene};
	},
};

const scanTimeCurrent: Fault = {
	id: 'watch-scan-time-current',
	cls: 12,
	outcome: 'ok',
	notes:
		"a quiet store: the textfile's hfx_last_scan_timestamp_seconds is each reading's time (it lagged up to 5 minutes)",
	async setup(t) {
		const h = await home(t.dir('home'));
		const file = path.join(t.dir('out'), 'hfx.prom');
		const scene = watchScene(h.root, h.db, file, async () => {
			const stamp = () => metric(file, 'hfx_last_scan_timestamp_seconds', 'default');
			const first = stamp();
			await new Promise(resolve => setTimeout(resolve, 1500));
			const later = stamp();
			return later - first >= 0.9 && Date.now() / 1000 - later < 1.5
				? null
				: `the scan time did not follow the readings: ${first} then ${later} at ${Date.now() / 1000}`;
		});
		return {evidence: [h.root], ...scene};
	},
};

const textfileFolderRemoved: Fault = {
	id: 'watch-textfile-folder-removed',
	cls: 12,
	outcome: 'ok',
	notes:
		"the textfile's folder removed under a quiet watch: one line on stderr " +
		'naming the file, the watch goes on; the folder back, the file is ' +
		'written again and one line says so',
	async setup(t) {
		const h = await home(t.dir('home'));
		const out = t.dir('out');
		const file = path.join(out, 'hfx.prom');
		const scene = watchScene(
			h.root,
			h.db,
			file,
			async () => {
				fs.rmSync(out, {recursive: true});
				await new Promise(resolve => setTimeout(resolve, 1200));
				fs.mkdirSync(out);
				return (await waitFor(() => fs.existsSync(file), 5000))
					? null
					: 'the textfile was not written again once its folder was back';
			},
			r => {
				const lines = r.stderr.trim().split('\n');
				return lines.length === 2 &&
					/^hfx: .*hfx\.prom: .*Next: .*goes on/.test(lines[0]!) &&
					/hfx\.prom: written again$/.test(lines[1]!)
					? null
					: `expected two lines on stderr (the failure, then written again), ` +
							`got ${JSON.stringify(r.stderr.slice(0, 400))}`;
			},
		);
		return {evidence: [h.root], ...scene};
	},
};

export const AGENT_OPS_FAULTS: Fault[] = [
	...AGENT_OPS.map(agentOpKind),
	stopsReportingRemoved,
	scanTimeCurrent,
	textfileFolderRemoved,
];
