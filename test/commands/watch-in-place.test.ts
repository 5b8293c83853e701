/**
 * `hfx watch` (the real bin) follows a stopped store (WAL mode, no -wal/-shm) and a crashed one (-wal and -shm its
 * killed agent left) in place, as the one-shot reads do (issue #26, "no read may cost a copy of the store"): its own
 * TMPDIR, looked at every 10 ms while it runs, never holds anything (a private copy of the store was made there), every
 * byte of the store's files stays as it was, and the agent starting afterwards is followed (its new session counted in
 * the textfile), then its clean stop read in place again.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterAll, afterEach, describe, expect, it} from 'vitest';
import {T0} from '../fixtures/scenarios.js';
import {evidenceState} from '../helpers/cli.js';
import {parseExposition, sampleOf} from '../helpers/prometheus.js';
import {WatchProcess} from '../helpers/watch-process.js';
import {WriterProcess} from '../helpers/writer.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-watch-in-place-'));
const running: Array<WatchProcess | WriterProcess> = [];
const timers: NodeJS.Timeout[] = [];
afterEach(async () => {
	for (const t of timers.splice(0)) {
		clearInterval(t);
	}

	for (const p of running.splice(0)) {
		await (p instanceof WatchProcess ? p.stop('SIGKILL') : p.kill());
	}
});
afterAll(() => fs.rmSync(dir, {recursive: true, force: true}));

const sessions = (file: string): number | undefined => {
	try {
		return sampleOf(parseExposition(fs.readFileSync(file, 'utf8')), 'hfx_sessions', {profile: 'default'});
	} catch {
		return undefined;
	}
};

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

/** A home whose store a second process wrote (two sessions), then stopped cleanly or was killed. */
async function storeLeft(name: string, how: 'stopped' | 'crashed'): Promise<{home: string; db: string}> {
	const home = path.join(dir, name);
	fs.mkdirSync(home);
	const db = path.join(home, 'state.db');
	const writer = new WriterProcess(db);
	await writer.started();
	for (const chat of ['71', '72']) {
		const id = await writer.create({
			source: 'telegram',
			userId: 'u',
			sessionKey: `agent:main:telegram:dm:${chat}`,
			chatId: chat,
			chatType: 'dm',
			startedAt: T0,
		});
		await writer.send({op: 'conversation', id, count: 4, from: T0 + 5, to: T0 + 60});
	}

	if (how === 'stopped') {
		await writer.send({op: 'close'}).catch(() => undefined);
		expect(fs.readdirSync(home)).toEqual(['state.db']);
	} else {
		await writer.kill();
		expect(fs.readdirSync(home).sort()).toEqual(['state.db', 'state.db-shm', 'state.db-wal']);
	}

	return {home, db};
}

describe('hfx watch on a store whose agent is not running', () => {
	for (const how of ['stopped', 'crashed'] as const) {
		const title = `reads a ${how} store in place: nothing in its TMPDIR, every byte unchanged, the agent followed`;
		it(title, async () => {
			const {home, db} = await storeLeft(how, how);
			const before = evidenceState(home);
			const tmp = fs.mkdtempSync(path.join(dir, `${how}-tmp-`));
			const seen = watchFolder(tmp);
			const out = fs.mkdtempSync(path.join(dir, `${how}-out-`));
			const file = path.join(out, 'hfx.prom');
			const watch = new WatchProcess(['--db', db, '--interval', '0.2s', '--json-lines', '--textfile', file], {
				env: {TMPDIR: tmp},
			});
			running.push(watch);
			await watch.waitFor(() => sessions(file) === 2, 15_000, 'the two sessions in the textfile');
			// A few more readings of the unchanged store.
			await new Promise(resolve => setTimeout(resolve, 1000));
			expect([...seen]).toEqual([]);
			expect(evidenceState(home)).toEqual(before);

			// The agent starts and writes a third session: followed live, in place.
			const agent = new WriterProcess(db);
			running.push(agent);
			await agent.started();
			await agent.create({source: 'cli', startedAt: T0 + 100});
			await watch.waitFor(() => sessions(file) === 3, 15_000, 'the third session in the textfile');
			// It stops cleanly: a stopped store again, read in place.
			await agent.send({op: 'close'}).catch(() => undefined);
			await new Promise(resolve => setTimeout(resolve, 1000));
			expect(fs.readdirSync(home)).toEqual(['state.db']);
			expect(sessions(file)).toBe(3);
			expect([...seen]).toEqual([]);
			expect(watch.child.exitCode).toBeNull();
			expect(watch.stderr).toBe('');
		});
	}
});
