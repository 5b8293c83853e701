/**
 * The live file state follows the store (issue #28 point 4), on the real binary at 80x24: a store
 * in rollback-journal mode that a second process (the agent, as a newer Hermes does on its first
 * open) turns to WAL while hfx runs: the header says WAL and the Files pane lists the new -wal and
 * -shm, no longer "not in WAL mode"; turned back to DELETE, the sidecars are gone from the pane
 * and the header says rollback journal again; a file put over state.db (a restore) is followed.
 * (A regression test: on this branch the per-read connection of cfb31d2, each read through
 * preflight again, already follows these; they pass before and after issue #28's changes.)
 */
import fs from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {T0} from '../fixtures/scenarios.js';
import {tmux, tmuxTestFile, waitForScreenOf} from '../helpers/tmux.js';
import {WriterProcess} from '../helpers/writer.js';

const writers: WriterProcess[] = [];
const terminal = tmuxTestFile('file-state', async () => {
	for (const w of writers.splice(0)) {
		await w.kill();
	}
});
const {session} = terminal;
const keys = (...k: string[]) => tmux('send-keys', '-t', session, ...k);
const screen = async (pattern: RegExp) => waitForScreenOf(session, pattern, 15_000);
const header = (text: string) => text.split('\n')[0]!;

let n = 0;
async function commit(w: WriterProcess): Promise<string> {
	n++;
	return w.create({
		source: 'telegram',
		userId: `u${n}`,
		sessionKey: `agent:main:telegram:dm:${n}`,
		chatId: String(n),
		chatType: 'dm',
		startedAt: T0 + n * 60,
	});
}

describe('the live file state follows the store', () => {
	it('rollback journal -> WAL -> rollback journal while hfx runs: header and ' +
		'Files pane follow, sidecars come and go', async () => {
		const db = path.join(terminal.dir, 'state.db');
		const w = new WriterProcess(db, {journal: 'delete'});
		writers.push(w);
		await w.started();
		await commit(w);
		terminal.start(80, 24, `--db ${db}`);
		expect(header(await screen(/rollback journal/))).toContain('rollback journal');
		keys('6');
		await screen(/not in WAL mode/);

		// The agent turns the store to WAL (a newer Hermes on its first open) and commits in it.
		await w.send({op: 'exec', sql: 'PRAGMA journal_mode=WAL'});
		await commit(w);
		expect(fs.existsSync(`${db}-wal`)).toBe(true);
		const wal = await screen(/^ hfx .*· WAL /m);
		expect(header(wal)).not.toContain('rollback journal');
		// The frame that means the whole state: the pane's sidecar rows (the file probe) and its notice (the
		// store's read) update on their own ticks, so a frame between the two may show one without the other.
		const files = await screen(/^(?![\s\S]*not in WAL mode)[\s\S]*state\.db-wal +[\d,]+ bytes/);
		expect(files).not.toContain('not in WAL mode');
		expect(files).toMatch(/state\.db-shm +[\d,]+ bytes/);

		// And back: the sidecars are removed, the pane and the header say so.
		await w.send({op: 'exec', sql: 'PRAGMA journal_mode=DELETE'});
		await commit(w);
		expect(fs.existsSync(`${db}-wal`)).toBe(false);
		const back = await screen(/not in WAL mode/);
		expect(header(back)).toContain('rollback journal');
		expect(back).toMatch(/state\.db-wal +absent/);
		expect(back).toMatch(/state\.db-shm +absent/);
		keys('q');
		await screen(/EXIT=0/);
	}, 60_000);

	it('a store hfx opened with no agent, in rollback-journal mode, that the ' +
		"agent opens in WAL (a newer Hermes' first open): header and pane follow", async () => {
		const db = path.join(terminal.dir, 'first-open.db');
		const w = new WriterProcess(db, {journal: 'delete'});
		writers.push(w);
		await w.started();
		await commit(w);
		await w.kill();
		terminal.start(80, 24, `--db ${db}`);
		await screen(/rollback journal/);
		keys('6');
		await screen(/not in WAL mode/);
		// The agent starts: its first open turns the store to WAL, then it writes.
		const agent = new WriterProcess(db, {journal: 'wal'});
		writers.push(agent);
		await agent.started();
		await commit(agent);
		// The frame that means the whole state: the pane's sidecar rows (the file probe) and its notice (the
		// store's read) update on their own ticks, so a frame between the two may show one without the other.
		const files = await screen(/^(?![\s\S]*not in WAL mode)[\s\S]*state\.db-wal +[\d,]+ bytes/);
		expect(files).not.toContain('not in WAL mode');
		expect(header(files)).not.toContain('rollback journal');
		expect(header(files)).toMatch(/· WAL /);
		keys('q');
		await screen(/EXIT=0/);
	}, 60_000);

	it('a file put over state.db (a restore) is followed: the header and Files pane say the new file', async () => {
		const db = path.join(terminal.dir, 'replaced.db');
		const w = new WriterProcess(db, {journal: 'delete'});
		writers.push(w);
		await w.started();
		await commit(w);
		await w.kill();
		const other = path.join(terminal.dir, 'other.db');
		const o = new WriterProcess(other, {journal: 'wal'});
		writers.push(o);
		await o.started();
		for (let i = 0; i < 3; i++) {
			await commit(o);
		}

		await o.kill();
		terminal.start(80, 24, `--db ${db}`);
		await screen(/rollback journal/);
		keys('6');
		await screen(/not in WAL mode/);
		// The other store (WAL, its -wal beside it) put over this one, as a restore does.
		fs.copyFileSync(`${other}-wal`, `${db}-wal.tmp`);
		fs.copyFileSync(other, `${db}.tmp`);
		fs.renameSync(`${db}-wal.tmp`, `${db}-wal`);
		fs.renameSync(`${db}.tmp`, db);
		// The -wal lands a moment before the main file: a frame drawn between the two renames shows the new
		// -wal beside the old rollback-journal file. Wait for a frame of the replaced store whole.
		const after = await screen(/^(?![\s\S]*not in WAL mode)[\s\S]*state\.db-wal +407,912 bytes/);
		expect(after).not.toContain('not in WAL mode');
		expect(header(after)).not.toContain('rollback journal');
		keys('q');
		await screen(/EXIT=0/);
	}, 60_000);
});
