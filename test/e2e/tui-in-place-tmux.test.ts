/**
 * The live view (the real bin in tmux, 140x40) follows a stopped store (WAL mode, no -wal/-shm) and a crashed one (-wal
 * and -shm its killed agent left) in place, as the one-shot reads do (issue #26, "no read may cost a copy of the
 * store"): its own TMPDIR, looked at every 10 ms while it runs, never holds anything (a private copy of the store was
 * made there), every byte of the store's files stays as it was, and the agent starting afterwards is followed (its new
 * session on screen), then its clean stop read in place again.
 */
import fs from 'node:fs';
import path from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {T0} from '../fixtures/scenarios.js';
import {evidenceState} from '../helpers/cli.js';
import {tmux, tmuxTestFile, waitForScreenOf} from '../helpers/tmux.js';
import {WriterProcess} from '../helpers/writer.js';

const writers: WriterProcess[] = [];
const timers: NodeJS.Timeout[] = [];
const terminal = tmuxTestFile('in-place', async () => {
	for (const w of writers.splice(0)) {
		await w.kill();
	}
});
afterEach(() => {
	for (const t of timers.splice(0)) {
		clearInterval(t);
	}
});
const {session} = terminal;
const waitFor = async (pattern: RegExp | string, timeoutMs?: number): Promise<string> =>
	waitForScreenOf(session, typeof pattern === 'string' ? new RegExp(pattern) : pattern, timeoutMs);

/** Every name seen in `folder` while the test runs (looked at every 10 ms). */
function watchFolder(folder: string): Set<string> {
	const seen = new Set<string>();
	timers.push(
		setInterval(() => {
			for (const name of fs.readdirSync(folder)) {
				seen.add(name);
			}
		}, 10),
	);
	return seen;
}

/** A store a second process wrote (one chat), then stopped cleanly or was killed; the chat's session id. */
async function storeLeft(how: 'stopped' | 'crashed'): Promise<{folder: string; db: string; first: string}> {
	const folder = path.join(terminal.dir, how);
	fs.mkdirSync(folder);
	const db = path.join(folder, 'state.db');
	const writer = new WriterProcess(db);
	await writer.started();
	const first = await writer.create({
		source: 'telegram',
		userId: 'u',
		sessionKey: 'agent:main:telegram:dm:81',
		chatId: '81',
		chatType: 'dm',
		startedAt: T0,
	});
	await writer.send({op: 'conversation', id: first, count: 4, from: T0 + 5, to: T0 + 60});
	if (how === 'stopped') {
		await writer.send({op: 'close'}).catch(() => undefined);
	} else {
		await writer.kill();
	}

	return {folder, db, first};
}

describe('the live view on a store whose agent is not running', () => {
	for (const how of ['stopped', 'crashed'] as const) {
		const title = `reads a ${how} store in place: nothing in its TMPDIR, every byte unchanged, the agent followed`;
		it(title, async () => {
			const {folder, db, first} = await storeLeft(how);
			const before = evidenceState(folder);
			const tmp = fs.mkdtempSync(path.join(terminal.dir, `${how}-tmp-`));
			const seen = watchFolder(tmp);
			terminal.start(140, 40, `--db ${db}`, {NO_COLOR: '1', FORCE_COLOR: '0', TMPDIR: tmp});
			await waitFor(/\[1 ?Sessions]/, 30_000);
			await waitFor(first);
			// A few more readings of the unchanged store (C-l: read again now).
			tmux('send-keys', '-t', session, 'C-l');
			await new Promise(resolve => setTimeout(resolve, 1000));
			expect([...seen]).toEqual([]);
			expect(evidenceState(folder)).toEqual(before);

			// The agent starts and writes a second session: on screen, followed live in place.
			const agent = new WriterProcess(db);
			writers.push(agent);
			await agent.started();
			const second = await agent.create({source: 'cli', startedAt: T0 + 100});
			await waitFor(second, 15_000);
			// It stops cleanly: a stopped store again, read in place.
			await agent.send({op: 'close'}).catch(() => undefined);
			tmux('send-keys', '-t', session, 'C-l');
			await new Promise(resolve => setTimeout(resolve, 1000));
			expect(fs.readdirSync(folder)).toEqual(['state.db']);
			await waitFor(second);
			expect([...seen]).toEqual([]);
			tmux('send-keys', '-t', session, 'q');
			await waitFor(/EXIT=0/);
			expect([...seen]).toEqual([]);
		});
	}
});
