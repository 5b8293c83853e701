/**
 * Issue #27 in the live view: the TUI's analysis (the incremental one included) judges by the
 * installed build's rules and says them in its Findings, as `hfx scan` does, at 80x24. On the real
 * binary in tmux, a real store (helpers/installed-build.ts: a donor whose last_activity_at is the
 * garbage of #91536) beside an install (no gateway runs: the checkout HEAD decides, §3.2 step 2).
 *
 * - A checkout before #91543: the Findings header names `v30 before #91543` and the build; the
 *   orphan is refused (no donor falls quiet near its start), and stays refused when a second
 *   process commits to another chat (the incremental analysis takes the build's rules too).
 * - No build known: both candidate rule sets are named, and the selected orphan's finding says what
 *   the other rules decide.
 */
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {tmux, tmuxTestFile, waitForScreenOf} from '../helpers/tmux.js';
import {WriterProcess} from '../helpers/writer.js';
import {SHA_WITHOUT, garbageDonorStore, sourceCheckout} from '../helpers/installed-build.js';

const writers: WriterProcess[] = [];
const terminal = tmuxTestFile('build-rules', async () => {
	for (const w of writers.splice(0)) {
		await w.kill();
	}
});
const {session} = terminal;
const keys = (...k: string[]) => tmux('send-keys', '-t', session, ...k);
const screen = async (pattern: RegExp) => waitForScreenOf(session, pattern, 15_000);
const env = {HERMES_HOME: '', HERMES_INSTALL_DIR: ''};

describe('the live view judges by the installed build (issue #27)', () => {
	it('a checkout before #91543: Findings name its rules and build; the orphan stays refused on commits', async () => {
		const s = garbageDonorStore(path.join(terminal.dir, 'before'));
		sourceCheckout(path.join(s.home, 'hermes-agent'), SHA_WITHOUT, '0.20.5');
		terminal.start(80, 24, `--db ${s.db}`, env);
		await screen(/LIVE/);
		keys('5');
		const first = await screen(/findings \(\d+\) · rules v30 before #91543 · build 0\.20\.5@f31cf9710000 \(medium\)/);
		expect(first).not.toMatch(/orphan .*adoptable/i);
		expect(first).toContain(s.orphan);
		// A second process commits to another chat: the incremental analysis keeps the build's rules.
		const w = new WriterProcess(s.db);
		writers.push(w);
		await w.started();
		await w.create({
			source: 'telegram',
			userId: 'u88',
			sessionKey: 'agent:main:telegram:dm:88',
			chatId: '88',
			chatType: 'dm',
			startedAt: 1_786_070_000,
		});
		const after = await screen(/dv [2-9]/);
		expect(after).toMatch(/findings \(\d+\) · rules v30 before #91543 · build 0\.20\.5@f31cf9710000 \(medium\)/);
		expect(after).toContain(s.orphan);
		expect(after).not.toMatch(/orphan .*adoptable/i);
		keys('q');
		await screen(/EXIT=0/);
	}, 60_000);

	it('no build known: both rule sets named, and the orphan says what the other rules decide', async () => {
		const s = garbageDonorStore(path.join(terminal.dir, 'unknown'));
		terminal.start(80, 24, `--db ${s.db}`, env);
		await screen(/LIVE/);
		keys('5');
		await screen(/findings \(\d+\) · rules v30 \(or v30 before #91543\) · build unknown \(weak\)/);
		// The orphan's finding selected: its detail says the other candidate build's verdict.
		for (let i = 0; i < 6; i++) {
			const now = await screen(/findings/);
			if (/build undecided: with v30 adoptable/.test(now)) {
				break;
			}

			keys('j');
			await new Promise(resolve => setTimeout(resolve, 300));
		}

		const detail = await screen(/build undecided: with v30 adoptable/);
		expect(detail).toMatch(/with v30 before #91543,\s+refused\s+\(no_predecessor\)/);
		keys('q');
		await screen(/EXIT=0/);
	}, 60_000);
});
