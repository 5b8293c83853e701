/**
 * The operator's view at 80x24 (issue #28 points 3 and 6), on the real binary in tmux: the `/`
 * line stays one row whatever is typed (a wrapped input grew the frame and pushed the header off
 * screen), while a second process moves the store under it; the banner counts the chats at risk
 * and names the worst (the most messages a restart would skip); `?` scrolls to its last key;
 * `DEMO` shows in the header at 80 and 60 columns; the demo started for want of a home says so
 * inside the TUI; a finding's explanation wraps by default (no line of it ends in `…`).
 */
import fs from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {INCIDENT_RESTART, copyIncident, incidentWriter} from '../helpers/post-restart.js';
import {screenOf, tmux, tmuxTestFile, waitForScreenOf} from '../helpers/tmux.js';
import type {WriterProcess} from '../helpers/writer.js';

let writer: WriterProcess | undefined;
const terminal = tmuxTestFile('frames', async () => {
	await writer?.kill();
	writer = undefined;
});
const {session} = terminal;
const keys = (...k: string[]) => tmux('send-keys', '-t', session, ...k);
/** The screen's rows as tmux shows them (not joined). */
const rows = () => screenOf(session, false).split('\n');
const waitRows = async (pattern: RegExp, timeoutMs = 15_000) =>
	(await waitForScreenOf(session, pattern, timeoutMs, false)).split('\n');

/** Every frame: the header on the first row, the tabs on the second, no row wider than the terminal. */
function expectWhole(lines: string[], columns = 80): void {
	expect(lines[0], lines.join('\n')).toMatch(/^ hfx · /);
	expect(lines[1], lines.join('\n')).toMatch(/^.1Sessions/);
	for (const line of lines) {
		expect([...line].length, line).toBeLessThanOrEqual(columns);
	}
}

const LONG = 'telegram discord slack whatsapp signal 20260807_052242_427c496c and more words to type END';

describe('frames at 80x24', () => {
	it('the / line stays one row with a long text typed, the header on top, ' +
		'while a second process moves the store', async () => {
		const db = copyIncident(path.join(terminal.dir, 'filter'));
		writer = await incidentWriter(db);
		terminal.start(80, 24, `--db ${db}`);
		await waitRows(/ROLLBACK RISK 2 chats/);
		keys('/');
		await waitRows(/Tab content/);
		keys('-l', LONG);
		const typed = await waitRows(/more words to type END/);
		expectWhole(typed);
		// The input shows its end, where the cursor is, on the last row of the frame.
		expect(typed.findLast(l => l.trim() !== '')).toMatch(/^ \/ .*to type END\s*$/);

		await writer.send(INCIDENT_RESTART);
		const moved = await waitRows(/ROLLED BACK/);
		expectWhole(moved);
		expect(moved.findLast(l => l.trim() !== '')).toMatch(/to type END\s*$/);
		keys('Escape');
		await waitRows(/\? help/);
		expectWhole(rows());
		keys('q');
		await waitForScreenOf(session, /EXIT=0/);
	}, 60_000);

	it('the banner counts the chats at risk and names the worst: the most messages a restart would skip', async () => {
		const db = copyIncident(path.join(terminal.dir, 'banner'));
		terminal.start(80, 24, `--db ${db}`);
		const lines = await waitRows(/ROLLBACK RISK 2 chats/);
		expect(lines[2]).toBe(' ✗ ROLLBACK RISK 2 chats, worst …telegram:dm:777001: skips 798 msgs in 427c496c');
		keys('q');
		await waitForScreenOf(session, /EXIT=0/);
	});

	it('? help scrolls to its last key (↓ and End), saying what is above and below', async () => {
		const db = copyIncident(path.join(terminal.dir, 'help'));
		terminal.start(80, 24, `--db ${db}`);
		await waitRows(/ROLLBACK RISK/);
		keys('?');
		const first = await waitRows(/Keys — type to filter/);
		expect(first.join('\n')).toMatch(/↓ \d+ more \(1–\d+ of \d+\)/);
		expect(first.join('\n')).not.toContain("the timeline's first or last line");
		keys('Down');
		await waitRows(/↑ 1 above/);
		keys('End');
		const last = await waitRows(/the timeline's first or last line/);
		expect(last.join('\n')).toMatch(/↑ \d+ above \(\d+–(\d+) of \1\)/);
		expectWhole(last);
		keys('Home');
		await waitRows(/↓ \d+ more \(1–/);
		// Esc, then the list again before q: an Esc and a q in one read are Alt-q to the terminal.
		keys('Escape');
		await waitRows(/ id +source +chat/);
		keys('q');
		await waitForScreenOf(session, /EXIT=0/);
	});

	it("a finding's explanation wraps by default at 80 columns: none of its lines is cut with …", async () => {
		const db = copyIncident(path.join(terminal.dir, 'wrap'));
		terminal.start(80, 24, `--db ${db}`);
		await waitRows(/ROLLBACK RISK/);
		keys('5');
		const lines = await waitRows(/\[5Findings/);
		const from = lines.findIndex(l => /^ (a restart|if the gateway|next:)/.test(l));
		expect(from, lines.join('\n')).toBeGreaterThan(0);
		const detail = lines.slice(from, -2).filter(l => l.trim() !== '');
		expect(detail.join('\n')).toContain('reports it ROLLED BACK)');
		for (const line of detail) {
			expect(line, lines.join('\n')).not.toMatch(/…\s*$/);
		}

		keys('q');
		await waitForScreenOf(session, /EXIT=0/);
	});
});

describe('the demo says it is one', () => {
	for (const columns of [80, 60]) {
		it(`DEMO in the header at ${columns} columns`, async () => {
			terminal.start(columns, 24, 'demo');
			const lines = await waitRows(/LIVE/);
			expect(lines[0]).toMatch(/^ hfx · DEMO · READ-ONLY · /);
			expectWhole(lines, columns);
			keys('q');
			await waitForScreenOf(session, /EXIT=0/, 30_000);
		}, 45_000);
	}

	it('with no Hermes home, the TUI says on its first screen that it started the demo', async () => {
		const home = path.join(terminal.dir, 'empty-home');
		fs.mkdirSync(home, {recursive: true});
		terminal.start(80, 24, '', {NO_COLOR: '1', FORCE_COLOR: '0', HOME: home, HERMES_HOME: ''});
		const lines = await waitRows(/LIVE/);
		expect(lines.join('\n')).toContain(
			'no Hermes home here: this is the live DEMO. Yours: hfx --db PATH or --home DIR',
		);
		expect(lines[0]).toContain('DEMO');
		keys('q');
		await waitForScreenOf(session, /EXIT=0/, 30_000);
	}, 45_000);
});
