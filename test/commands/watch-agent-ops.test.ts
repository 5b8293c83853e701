/**
 * hfx never stands in the agent's way (issue #29, class 4): while `hfx watch` follows a store, the
 * agent's own operations, run by a second process, all succeed: the journal-mode switch WAL ->
 * DELETE -> WAL (which fails "database is locked" while any other connection is open), every
 * checkpoint mode with no busy, VACUUM; hfx follows what they commit, and while idle it is no
 * holder of the store (no descriptor, no POSIX lock), by /proc and by `hfx files`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterAll, afterEach, describe, expect, it} from 'vitest';
import {AGENT_OPS, runAgentOps, sampleHeld} from '../helpers/agent-ops.js';
import {hfx} from '../helpers/cli.js';
import {parseExposition, sampleOf} from '../helpers/prometheus.js';
import {WatchProcess} from '../helpers/watch-process.js';
import {WriterProcess} from '../helpers/writer.js';
import {T0} from '../fixtures/scenarios.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-agent-ops-'));
const running: Array<WatchProcess | WriterProcess> = [];
afterEach(async () => {
	for (const p of running.splice(0)) {
		await (p instanceof WatchProcess ? p.stop('SIGKILL') : p.kill());
	}
});
afterAll(() => fs.rmSync(dir, {recursive: true, force: true}));

/** A Hermes home whose store a writer made (then closed, as an agent stopped). */
async function home(tag: string): Promise<{root: string; db: string}> {
	const root = path.join(dir, tag);
	fs.mkdirSync(root);
	const db = path.join(root, 'state.db');
	const w = new WriterProcess(db);
	running.push(w);
	await w.started();
	const id = await w.create({
		source: 'telegram',
		userId: 'u1',
		sessionKey: 'agent:main:telegram:dm:1',
		chatId: '1',
		chatType: 'dm',
		startedAt: T0,
	});
	await w.send({op: 'conversation', id, count: 20, from: T0 + 1, to: T0 + 200});
	await w.send({op: 'close'}).catch(() => undefined);
	return {root, db};
}

describe("hfx watch and the agent's own operations", () => {
	it(
		'journal-mode switch, every checkpoint mode and VACUUM succeed 10/10 ' +
			'while watch follows; watch follows their commits and holds nothing ' +
			'while idle',
		async () => {
			const {root, db} = await home('ops');
			const out = path.join(dir, 'ops-out');
			fs.mkdirSync(out);
			const file = path.join(out, 'hfx.prom');
			const watch = new WatchProcess(['--home', root, '--interval', '1s', '--json-lines', '--textfile', file]);
			running.push(watch);
			await watch.waitFor(() => fs.existsSync(file), 10_000, 'textfile');
			const sessions = () =>
				sampleOf(parseExposition(fs.readFileSync(file, 'utf8')), 'hfx_sessions', {profile: 'default'});
			expect(sessions()).toBe(1);

			const results = await runAgentOps(db, AGENT_OPS, 10, 120);
			const failed = results.filter(r => !r.ok);
			expect(failed, JSON.stringify(failed.slice(0, 5))).toEqual([]);
			expect(results).toHaveLength(60);
			// hfx followed every commit (one new session per attempt), through the switches and VACUUMs.
			await watch.waitFor(() => sessions() === 61, 10_000, "the agent's 60 sessions in the textfile");

			// Idle between readings: no descriptor on the store's files, no lock on them.
			const pid = watch.child.pid!;
			expect(await sampleHeld(pid, db, 15, 100)).toEqual([]);
			const files = hfx(['files', '--json', '--db', db]);
			const holders = (JSON.parse(files.stdout) as {holders: {holders: Array<{pid: number}>}}).holders.holders;
			expect(holders.map(h => h.pid)).not.toContain(pid);
			expect(watch.stderr).toBe('');
			expect((await watch.stop('SIGTERM')).code).toBe(0);
		},
	);
});
