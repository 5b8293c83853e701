/**
 * A rollback that already happened, in the TUI on the real binary at 80x24 (issue #23, point 1):
 * the TUI follows the v21 incident store before the restart (the chat at rollback risk); a second
 * process, the gateway's side, writes the post-restart turns into the zombie; the live view shows
 * the rollback appear: the banner says ROLLED BACK first (no "do not restart"), the Sessions list
 * marks the resumed row R and the stranded one S, and Findings lists it first with its evidence,
 * certainty and the adoption preview as the next step.
 */
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {
	INCIDENT_ORPHAN,
	INCIDENT_ZOMBIE,
	INCIDENT_RESTART,
	copyIncident,
	incidentWriter,
} from '../helpers/post-restart.js';
import {screenOf, tmux, tmuxTestFile, waitForScreenOf} from '../helpers/tmux.js';
import type {WriterProcess} from '../helpers/writer.js';

let writer: WriterProcess | undefined;
const terminal = tmuxTestFile('rollback', async () => {
	await writer?.kill();
});

/** The screen's rows (not joined), each as tmux shows it. */
const rows = () => screenOf(terminal.session, false).split('\n');

describe('the TUI sees a rollback happen', () => {
	it('at 80x24: banner first, R and S in Sessions, the finding first in ' +
		'Findings, while a second process writes the post-restart turns', async () => {
		const db = copyIncident(path.join(terminal.dir, 'incident'));
		writer = await incidentWriter(db);
		terminal.start(80, 24, `--db ${db}`);
		const before = await waitForScreenOf(terminal.session, /ROLLBACK RISK 2 chats/, 15_000, false);
		expect(before).not.toContain('ROLLED BACK');

		await writer.send(INCIDENT_RESTART);
		const after = await waitForScreenOf(terminal.session, /ROLLED BACK/, 15_000, false);
		const lines = after.split('\n');
		// The banner: under the tabs, first; whole (no cut), within 80 columns; the remaining risk under it.
		expect(lines[2]).toBe(' ✗ ROLLED BACK …telegram:dm:777001 4.7 days; 798 messages stranded in 427c496c');
		expect(lines[3]).toMatch(/^ ✗ ROLLBACK RISK 1 chat: …discord:group:9001/);
		expect(after).not.toMatch(/do not restart/i);
		// Sessions: the resumed row and the stranded row with statuses of their own, the legend leading with them.
		expect(lines.find(l => l.includes(INCIDENT_ZOMBIE))).toMatch(/^[ ›] R {2}/);
		expect(lines.find(l => l.includes(INCIDENT_ORPHAN))).toMatch(/^[ ›] S {2}/);
		expect(lines.find(l => l.includes('sessions ·'))).toContain('R resumed stale');

		tmux('send-keys', '-t', terminal.session, '5');
		const findings = await waitForScreenOf(terminal.session, /\[5Findings/, 5_000, false);
		const f = findings.split('\n');
		expect(f[5]).toMatch(/^› ✗ ROLLED BACK agent:main:telegram:dm:777001/);
		// The story wraps at 80 columns (issue #28 point 6): read whole, no line of it cut.
		expect(findings).toMatch(
			/stranded: 20260807_052242_427c496c, 798 messages, 2026-08-07 05:22 UTC to\s+2026-08-\d\d \d\d:\d\d UTC/,
		);
		// The story, the next step and ⏎ first; the evidence under them as room allows (hfx timeline and --json list it
		// all).
		expect(findings).toContain("evidence: keyless, with 798 messages, all inside the resumed row's silence");
		expect(findings).toMatch(/since: 2 user turns \(4 messages\) written into 20260807_050620_46fab954/);
		expect(findings).toContain('⏎ open 20260807_052242_427c496c');
		expect(rows().every(l => l.length <= 80)).toBe(true);

		// The whole story read wrapped without w (issue #28 point 6): the certainty and the adoption preview as the next
		// step.
		const wrapped = await waitForScreenOf(terminal.session, /certainty strong/, 5_000);
		expect(wrapped).toMatch(
			/next: the skipped conversation is safe; preview its adoption with: hfx repair\s+--only 427c496c --donor 46fab954/,
		);
		tmux('send-keys', '-t', terminal.session, 'q');
		await waitForScreenOf(terminal.session, /EXIT=0/);
	}, 60_000);
});
