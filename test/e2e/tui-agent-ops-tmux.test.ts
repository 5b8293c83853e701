/**
 * The TUI in a real terminal (tmux) never stands in the agent's way (issue #29, class 4): while it
 * follows a store, the agent's own operations, run by a second process, all succeed (the
 * journal-mode switch WAL -> DELETE -> WAL, every checkpoint mode with no busy, VACUUM), the TUI
 * shows what they commit, and while idle it holds nothing of the store (no descriptor, no lock).
 */
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {findHolders} from '../../source/store/files/holders.js';
import {T0} from '../fixtures/scenarios.js';
import {AGENT_OPS, runAgentOps} from '../helpers/agent-ops.js';
import {tmux, tmuxTestFile, waitForScreenOf} from '../helpers/tmux.js';
import {WriterProcess} from '../helpers/writer.js';

let writer: WriterProcess | undefined;
const terminal = tmuxTestFile('agent-ops', async () => {
	await writer?.kill();
});

/** What the running TUI (dist/hfx.js on `db`) holds of the store, sampled `count` times 100 ms apart. */
async function tuiHeld(db: string, count: number): Promise<string[]> {
	const seen: string[] = [];
	for (let i = 0; i < count; i++) {
		for (const h of findHolders(db).holders.filter(h => h.cmdline.includes('hfx.js') && h.cmdline.includes(db))) {
			seen.push(
				`pid ${h.pid}: ` +
					[...h.files.map(f => `fd on ${f.role}`), ...h.locks.map(l => `${l.access} lock on ${l.role}`)].join(', '),
			);
		}

		await new Promise(resolve => setTimeout(resolve, 100));
	}

	return seen;
}

describe("the TUI and the agent's own operations", () => {
	it(
		'journal-mode switch, every checkpoint mode and VACUUM succeed 5/5 each ' +
			'while the TUI follows; it shows their commits and holds nothing while idle',
		async () => {
			const db = path.join(terminal.dir, 'state.db');
			writer = new WriterProcess(db);
			await writer.started();
			const id = await writer.create({
				source: 'telegram',
				userId: 'u1',
				sessionKey: 'agent:main:telegram:dm:5',
				chatId: '5',
				chatType: 'dm',
				startedAt: T0,
			});
			await writer.send({op: 'conversation', id, count: 5, from: T0 + 1, to: T0 + 50});
			// The agent stops; its own operations below open the store as it would.
			await writer.send({op: 'close'}).catch(() => undefined);
			terminal.start(120, 36, `--db ${db}`);
			await waitForScreenOf(terminal.session, /\[1 ?Sessions]/);

			const results = await runAgentOps(db, AGENT_OPS, 5, 150);
			const failed = results.filter(r => !r.ok);
			expect(failed, JSON.stringify(failed.slice(0, 5))).toEqual([]);
			expect(results).toHaveLength(30);
			// The TUI followed through the switches and VACUUMs: the last session the agent added is on screen.
			await waitForScreenOf(terminal.session, /agent-op-\d+-29/, 10_000);
			expect(await tuiHeld(db, 15)).toEqual([]);
			tmux('send-keys', '-t', terminal.session, 'q');
			await waitForScreenOf(terminal.session, /EXIT=0/);
		},
	);
});
