/**
 * A writer that holds nothing (the sqlite3 CLI opens the store, commits and closes it, its -wal folded back) makes
 * every commit a reopen: "the store file changed while no agent held it". On the real binary at 80x24 that notice is
 * one line that counts it, and the messages between form one burst; before, each commit took two lines (an operator's
 * trial: 51 commits, 102 lines). A reading that meets the writer's -wal in passing says another reason of the same
 * file, "the agent opened the store": the two alternate, each still on one line, and the burst goes on across them
 * (CI, 2026-12-04: under load one commit was met so, and the burst broke in two). One commit here holds the store
 * open for a while, so that reason comes every run.
 */
import {execFileSync, spawn} from 'node:child_process';
import {once} from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {ROOT} from '../helpers/writer.js';
import {tmuxTestFile, waitForScreenOf} from '../helpers/tmux.js';

const terminal = tmuxTestFile('reopen');
const {session} = terminal;
const COMMITS = 8;
/** The commit made by a writer that keeps the store open (its -wal and -shm there) for HOLD_MS. */
const HELD = 4;
const HOLD_MS = 2000;

function sqlite(db: string, sql: string): string {
	return execFileSync('sqlite3', [db, sql], {encoding: 'utf8'}).trim();
}

/** Commits `sql` with the sqlite3 CLI and keeps it open `ms` after (its -wal and -shm held), then closes it. */
async function sqliteHeld(db: string, sql: string, ms: number): Promise<void> {
	const cli = spawn('sqlite3', [db], {stdio: ['pipe', 'ignore', 'inherit']});
	cli.stdin.write(`${sql}\n`);
	await new Promise(resolve => setTimeout(resolve, ms));
	cli.stdin.end();
	const [code] = (await once(cli, 'exit')) as [number | null];
	expect(code).toBe(0);
}

const insert = (id: string, i: number) =>
	'INSERT INTO messages (session_id, role, content, timestamp) ' +
	`VALUES ('${id}', 'user', 'held by nobody ${i}', strftime('%s','now'));`;

describe('Activity under a writer that holds nothing', () => {
	it('counts each reopen reason on one line and the messages in one burst', async () => {
		const db = path.join(terminal.dir, 'state.db');
		fs.copyFileSync(path.join(ROOT, 'test/fixtures/hermes-v21-incident/state.db'), db);
		sqlite(db, 'PRAGMA journal_mode=WAL;');
		const id = sqlite(db, 'SELECT id FROM sessions WHERE session_key IS NOT NULL ORDER BY started_at DESC LIMIT 1');
		terminal.start(80, 24, `--db ${db} --pane activity`);
		await waitForScreenOf(session, /activity since hfx started/, 15_000);
		for (let i = 1; i <= COMMITS; i++) {
			if (i === HELD) {
				await sqliteHeld(db, insert(id, i), HOLD_MS);
			} else {
				sqlite(db, insert(id, i));
			}

			await new Promise(resolve => setTimeout(resolve, 300));
		}

		const screen = await waitForScreenOf(session, new RegExp(`\\+${COMMITS} messages in ${id}`), 15_000);
		const notices = screen.split('\n').filter(l => l.includes('■ STORE'));
		// The held commit was seen as its own reason: the flap this test is about happened.
		expect(
			notices.some(l => l.includes('the agent opened')),
			screen,
		).toBe(true);
		// The same notice is never on two lines (another reason is a line of its own).
		const texts = notices.map(l => l.replace(/^.*■ STORE( ×\d+)? +/, ''));
		expect(new Set(texts).size, screen).toBe(texts.length);
		expect(Math.max(...notices.map(l => Number(/STORE ×(\d+)/.exec(l)?.[1] ?? 1))), screen).toBeGreaterThanOrEqual(2);
		expect(
			screen.split('\n').filter(l => l.includes('messages in')),
			screen,
		).toHaveLength(1);
	}, 60_000);
});
