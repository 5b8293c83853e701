/**
 * The agent's own operations on its store, run by a second process (better-sqlite3 in a child,
 * one writable connection, a 2 s busy timeout as Hermes' connections have, and the retry Hermes'
 * writer makes of a write that meets SQLITE_BUSY: 20–150 ms of jitter, for up to 2 s): the journal-mode
 * switch WAL -> DELETE -> WAL, `PRAGMA wal_checkpoint` in every mode, VACUUM. Each attempt is
 * followed by a new session row (so a follower has a commit to read) and a pause. And who holds
 * the store: the processes `hfx files --json` names, and one process's descriptors and POSIX locks
 * on the store's files (what `hermes sessions optimize`'s holder check looks at).
 */
import {execFile} from 'node:child_process';
import fs from 'node:fs';
import {findHolders} from '../../source/store/files/holders.js';
import {ROOT} from './writer.js';

export type AgentOp =
	| 'journal-mode'
	| 'checkpoint-PASSIVE'
	| 'checkpoint-FULL'
	| 'checkpoint-RESTART'
	| 'checkpoint-TRUNCATE'
	| 'vacuum';
export const AGENT_OPS: readonly AgentOp[] = [
	'journal-mode',
	'checkpoint-PASSIVE',
	'checkpoint-FULL',
	'checkpoint-RESTART',
	'checkpoint-TRUNCATE',
	'vacuum',
];

/** One attempt: ok, or what SQLite said (an error, or a checkpoint's busy flag). */
export type AgentOpResult = {op: AgentOp; ok: boolean; got: string};

const CHILD =
	`
const Database = require('better-sqlite3');
const [db, ops, times, gapMs] = [process.argv[1], process.argv[2].split(','), Number(process.argv[3]), ` +
	`Number(process.argv[4])];
const c = new Database(db, {timeout: 2000});
const sleep = ms => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
const out = [];
let n = 0;
// SQLite answers a journal-mode switch out of WAL with SQLITE_BUSY at once while any other
// connection is open (its busy handler is not called for that lock), so a reader that holds the
// store for a few ms at the wrong moment is met; Hermes retries a busy write for 2 s.
function withRetry(fn) {
	const until = Date.now() + 2000;
	for (;;) {
		try {
			return fn();
		} catch (error) {
			if (error.code !== 'SQLITE_BUSY' || Date.now() > until) {
				throw error;
			}
			sleep(20 + Math.floor(Math.random() * 130));
		}
	}
}
function attempt(op) {
	if (op === 'journal-mode') {
		return withRetry(switchJournal);
	}
	return once(op);
}
function switchJournal() {
	const a = c.pragma('journal_mode=DELETE', {simple: true});
	const b = c.pragma('journal_mode=WAL', {simple: true});
	return {ok: a === 'delete' && b === 'wal', got: a + '/' + b};
}
function once(op) {
	if (op === 'journal-mode') {
		const a = c.pragma('journal_mode=DELETE', {simple: true});
		const b = c.pragma('journal_mode=WAL', {simple: true});
		return {ok: a === 'delete' && b === 'wal', got: a + '/' + b};
	}
	if (op.startsWith('checkpoint-')) {
		const r = c.pragma('wal_checkpoint(' + op.slice(11) + ')')[0];
		return {ok: r.busy === 0, got: JSON.stringify(r)};
	}
	c.exec('VACUUM');
	return {ok: true, got: 'vacuumed'};
}
for (const op of ops) {
	for (let i = 0; i < times; i++) {
		try {
			out.push({op, ...attempt(op)});
		} catch (error) {
			out.push({op, ok: false, got: error.code + ': ' + error.message});
		}
		c.prepare("INSERT INTO sessions (id, source, started_at) VALUES (?, 'cli', ?)").run('agent-op-' + ` +
	`process.pid + '-' + n++, 1767225600 + n);
		sleep(gapMs);
	}
}
c.close();
process.stdout.write(JSON.stringify(out));
`;

/** Runs `ops` (each `times` times, `gapMs` apart) in a child process; resolves with every attempt. */
export function runAgentOps(
	db: string,
	ops: readonly AgentOp[],
	times: number,
	gapMs: number,
): Promise<AgentOpResult[]> {
	return new Promise((resolve, reject) => {
		execFile(
			process.execPath,
			['-e', CHILD, db, ops.join(','), String(times), String(gapMs)],
			{cwd: ROOT, timeout: 120_000},
			(error, stdout, stderr) => {
				if (error) {
					reject(new Error(`agent ops: ${error.message} ${stderr}`));
					return;
				}

				resolve(JSON.parse(stdout) as AgentOpResult[]);
			},
		);
	});
}

/** What process `pid` holds of the store now: descriptors on its files and POSIX locks on them (empty: nothing). */
export function heldBy(pid: number, db: string): string[] {
	const report = findHolders(db, {includeSelf: true});
	return report.holders
		.filter(h => h.pid === pid)
		.flatMap(h => [
			...h.files.map(f => `fd ${f.fd} ${f.target}`),
			...h.locks.map(l => `${l.access} lock on ${l.role}`),
		]);
}

/** Samples `heldBy` `count` times `everyMs` apart; every sample's findings. */
export async function sampleHeld(pid: number, db: string, count: number, everyMs: number): Promise<string[]> {
	const seen: string[] = [];
	for (let i = 0; i < count; i++) {
		seen.push(...heldBy(pid, db));
		await new Promise(resolve => setTimeout(resolve, everyMs));
	}

	return seen;
}

/** The store's files that exist now (for messages). */
export function storeFiles(db: string): string[] {
	return ['', '-wal', '-shm', '-journal'].filter(s => fs.existsSync(`${db}${s}`)).map(s => `${db}${s}`);
}
