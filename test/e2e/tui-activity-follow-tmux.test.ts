/**
 * Activity follows the newest event (issue #28 point 8), on the real binary at 80x24 while a
 * second process writes: the cursor is on the newest row from the start and stays there as new
 * events come; moving the cursor pauses it (the list header says so, the selected event keeps
 * its row as new ones arrive above); `f` follows the newest again.
 */
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {T0} from '../fixtures/scenarios.js';
import {tmux, tmuxTestFile, waitForScreenOf} from '../helpers/tmux.js';
import {WriterProcess} from '../helpers/writer.js';

let writer: WriterProcess | undefined;
const terminal = tmuxTestFile('follow', async () => {
	await writer?.kill();
});
const {session} = terminal;
const keys = (...k: string[]) => tmux('send-keys', '-t', session, ...k);
const waitRows = async (pattern: RegExp) => (await waitForScreenOf(session, pattern, 15_000, false)).split('\n');
/**
 * The screen once `header` shows and the cursor row (›) is `id`'s event. Waited for, not asserted on the first
 * settled frame that shows the event: that frame had the cursor one row off in 1 CI run and in 1 local run of 20 at
 * load 12 on 2 cores, and was never seen again in the next 30 (a frame not wholly written when tmux was asked, the
 * likeliest cause, not proved). A cursor that never reaches `id` still fails, at the timeout.
 */
const waitSelected = (header: string, id: string) => waitRows(new RegExp(`${header}[\\s\\S]*^›.*${id}`, 'm'));
/** The selected row (›) and the first row of the list (under its header). */
function selection(lines: string[]): {selected: string; first: string} {
	const header = lines.findIndex(l => l.includes('activity since hfx started'));
	return {selected: lines.find(l => l.startsWith('›')) ?? '', first: lines[header + 1] ?? ''};
}

let chat = 0;
/** A new keyed session: one "new session" event of its own in Activity. */
async function newSession(): Promise<string> {
	chat++;
	const id = await writer!.create({
		source: 'telegram',
		userId: `u${chat}`,
		sessionKey: `agent:main:telegram:dm:${9000 + chat}`,
		chatId: String(9000 + chat),
		chatType: 'dm',
		startedAt: T0 + chat * 600,
	});
	return id;
}

describe('Activity follows the newest event', () => {
	it('on by default, paused by moving the cursor, f follows again, while a second process writes', async () => {
		writer = new WriterProcess(path.join(terminal.dir, 'state.db'));
		await writer.started();
		await newSession();
		terminal.start(80, 24, `--db ${path.join(terminal.dir, 'state.db')} --pane activity`);
		await waitRows(/activity since hfx started/);
		const a = await newSession();
		const b = await newSession();
		let lines = await waitSelected('following newest', `NEW SESSION +${b}`);
		expect(selection(lines).first).toBe(selection(lines).selected);

		// Moving the cursor pauses it: the selected event keeps the cursor as newer ones arrive above.
		keys('j');
		lines = await waitSelected('paused: f follows newest', a);
		const c = await newSession();
		lines = await waitRows(new RegExp(`NEW SESSION +${c}`));
		expect(selection(lines).selected).toContain(a);
		expect(selection(lines).first).toContain(c);

		// f: the newest again, and followed.
		keys('f');
		lines = await waitSelected('following newest', c);
		const d = await newSession();
		lines = await waitSelected('following newest', `NEW SESSION +${d}`);
		expect(selection(lines).first).toBe(selection(lines).selected);
		keys('q');
		await waitForScreenOf(session, /EXIT=0/);
	}, 60_000);
});
