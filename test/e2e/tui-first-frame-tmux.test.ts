/**
 * Issue #26, render first and analyse after, on the real binary in tmux: a lone store is drawn from its newest rows
 * while its first analysis runs (held here by the test-pause hook `first-analysis`, which waits on a timer and keeps
 * the event loop free). Meanwhile the sessions are on screen, the banner and Findings say "analysing…" (never the
 * silence or the "nothing to report" that mean all is well), keys are answered and q quits at once; once the
 * analysis is published, the risks and the findings replace it. Held mid-way through the full read instead (the
 * hook `read-step`: its connection and read transaction open, a page read), or after the analysis's first step (the
 * hook `analysis-step`), keys are answered as well.
 */
import fs from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {copyIncident, incidentWriter} from '../helpers/post-restart.js';
import {screenOf, tmux, tmuxTestFile, waitForScreenOf} from '../helpers/tmux.js';
import type {WriterProcess} from '../helpers/writer.js';

let writer: WriterProcess | undefined;
const terminal = tmuxTestFile('first-frame', async () => {
	await writer?.kill();
	writer = undefined;
});

async function until(ok: () => boolean, ms = 10_000): Promise<void> {
	const end = Date.now() + ms;
	while (!ok()) {
		if (Date.now() > end) {
			throw new Error('the view was never held at its test-pause point');
		}

		await new Promise(resolve => setTimeout(resolve, 100));
	}
}

const held = (ms: number, at = 'first-analysis') => ({
	NO_COLOR: '1',
	FORCE_COLOR: '0',
	HFX_TEST_PAUSE_AT: at,
	HFX_TEST_PAUSE_MS: String(ms),
});

describe('the first frame comes before the analysis', () => {
	it('shows the sessions and "analysing…" while the analysis is held, answers keys, and q quits at once', async () => {
		const db = copyIncident(path.join(terminal.dir, 'held'));
		writer = await incidentWriter(db);
		// The hook's line goes to a file (on the screen it would scroll the frame): it proves the hold was reached.
		const said = path.join(terminal.dir, 'held.stderr');
		terminal.start(120, 30, `--db ${db} 2>${said}`, held(60_000));
		const first = await waitForScreenOf(terminal.session, /\d+ sessions · .*newest \d+ of \d+ rows read · analysing…/);
		expect(first).toContain('READ-ONLY');
		await until(() => /hfx-test: paused at first-analysis/.test(fs.readFileSync(said, 'utf8')));
		expect(screenOf(terminal.session)).toMatch(/analysing…/);
		expect(first).toMatch(/… analysing \d+ sessions: rollback risks and findings follow/);
		// The incident store is at rollback risk: while the analysis runs, nothing says so, nor that all is well.
		expect(first).not.toMatch(/ROLLBACK RISK|nothing to report/);

		tmux('send-keys', '-t', terminal.session, '5');
		const findings = await waitForScreenOf(terminal.session, /findings \(analysing…\)/, 5_000);
		expect(findings).toContain('analysing… the findings follow once the store has been read whole');
		expect(findings).not.toMatch(/nothing to report|ROLLBACK RISK/);

		const asked = Date.now();
		tmux('send-keys', '-t', terminal.session, 'q');
		await waitForScreenOf(terminal.session, /EXIT=0/, 5_000);
		// The hold lasts 60 s: q is answered without waiting for it.
		expect(Date.now() - asked).toBeLessThan(5_000);
	}, 60_000);

	it('replaces "analysing…" with the findings once the analysis is published', async () => {
		const db = copyIncident(path.join(terminal.dir, 'released'));
		writer = await incidentWriter(db);
		terminal.start(120, 30, `--db ${db} 2>/dev/null`, held(2_000));
		await waitForScreenOf(terminal.session, /analysing…/);
		tmux('send-keys', '-t', terminal.session, '5');
		const done = await waitForScreenOf(terminal.session, /findings \(\d+\)/, 15_000);
		expect(done).toContain('ROLLBACK RISK 2 chats');
		expect(done).not.toContain('analysing');
		tmux('send-keys', '-t', terminal.session, '1');
		const sessions = await waitForScreenOf(terminal.session, /\d+ sessions · .*Z zombie {2}O orphan/, 5_000);
		expect(sessions).not.toContain('analysing');
		expect(screenOf(terminal.session)).toContain('READ-ONLY');
		tmux('send-keys', '-t', terminal.session, 'q');
		await waitForScreenOf(terminal.session, /EXIT=0/, 5_000);
	}, 60_000);

	// The read held mid-way (its read transaction open), or the analysis held after its first step: keys go on.
	it.each([
		{held: 'read-step', what: 'the full read is held mid-way, its read transaction open'},
		{held: 'analysis-step', what: 'the analysis is held after its first step'},
	])(
		'answers keys while $what, and q quits at once',
		async ({held: at}) => {
			const db = copyIncident(path.join(terminal.dir, `mid-${at}`));
			writer = await incidentWriter(db);
			const said = path.join(terminal.dir, `mid-${at}.stderr`);
			terminal.start(120, 30, `--db ${db} 2>${said}`, held(60_000, at));
			await waitForScreenOf(terminal.session, /newest \d+ of \d+ rows read · analysing…/);
			// It waits (60 s) at its pause point for its next step.
			await until(() => new RegExp(`hfx-test: paused at ${at}`).test(fs.readFileSync(said, 'utf8')));
			let asked = Date.now();
			tmux('send-keys', '-t', terminal.session, '5');
			const findings = await waitForScreenOf(terminal.session, /findings \(analysing…\)/, 5_000);
			expect(findings).not.toMatch(/nothing to report|ROLLBACK RISK/);
			expect(Date.now() - asked).toBeLessThan(5_000);
			asked = Date.now();
			tmux('send-keys', '-t', terminal.session, 'q');
			await waitForScreenOf(terminal.session, /EXIT=0/, 5_000);
			expect(Date.now() - asked).toBeLessThan(5_000);
		},
		60_000,
	);
});
