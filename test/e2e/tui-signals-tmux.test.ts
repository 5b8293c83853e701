/**
 * The live view's signals go through the one interrupt policy (issue #30 point 3, source/ground/interrupts.ts):
 * SIGTERM,
 * SIGHUP and a SIGINT sent by kill (Ctrl-C itself is a key in raw mode) each close the view, restore the terminal
 * and exit 0, in a real terminal (tmux), with the real binary.
 */
import {execFileSync} from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {screenOf, tmux, tmuxTestFile, waitForScreenOf} from '../helpers/tmux.js';
import {ROOT} from '../helpers/writer.js';

const FIXTURE = path.resolve(ROOT, 'test/fixtures/hermes-v21-incident/state.db');
const terminal = tmuxTestFile('signals');
const {session} = terminal;

/** The pid of hfx in the pane: the shell's one child. */
function hfxPid(): number {
	const shell = tmux('list-panes', '-t', session, '-F', '#{pane_pid}').trim();
	return Number(execFileSync('pgrep', ['-P', shell], {encoding: 'utf8'}).trim().split('\n')[0]);
}

describe('the live view on a signal', () => {
	it.each(['SIGTERM', 'SIGHUP', 'SIGINT'] as const)(
		'%s closes it: the terminal restored, exit 0, nothing left beside the store',
		async signal => {
			const dir = fs.mkdtempSync(path.join(terminal.dir, `${signal}-`));
			const db = path.join(dir, 'state.db');
			fs.copyFileSync(FIXTURE, db);
			terminal.start(120, 36, `--db ${db}`);
			await waitForScreenOf(session, /\[1 Sessions]/);
			process.kill(hfxPid(), signal);
			const end = await waitForScreenOf(session, /EXIT=\d+/);
			expect(end).toContain('EXIT=0');
			expect(screenOf(session)).not.toContain('[1 Sessions]');
			expect(fs.readdirSync(dir)).toEqual(['state.db']);
		},
	);
});
