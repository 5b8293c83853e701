/**
 * The Backups pane in a real terminal (tmux) on the real binary: S takes a quick snapshot and v
 * verifies it, each in a child process, and the list on screen updates with their results; the
 * store itself is not changed.
 */
import {createHash} from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {tmux, tmuxTestFile, waitForScreenOf} from '../helpers/tmux.js';
import {ROOT} from '../helpers/writer.js';

const terminal = tmuxTestFile('bk');
const {session} = terminal;

const waitForScreen = async (pattern: RegExp, timeoutMs = 20_000): Promise<string> =>
	waitForScreenOf(session, pattern, timeoutMs);

const sha = (file: string): string => createHash('sha256').update(fs.readFileSync(file)).digest('hex');

describe('the Backups pane in a real terminal', () => {
	it('S takes a quick snapshot, then v verifies it, and the list shows each result', async () => {
		const db = path.join(terminal.dir, 'state.db');
		fs.copyFileSync(path.join(ROOT, 'test/fixtures/hermes-v21-incident/state.db'), db);
		const before = sha(db);
		terminal.start(140, 30, `--db ${db}`, {NO_COLOR: '1'});
		await waitForScreen(/\[1 Sessions]/);
		tmux('send-keys', '-t', session, '8');
		await waitForScreen(new RegExp(`no backups yet under ${terminal.dir}`));

		tmux('send-keys', '-t', session, 'S');
		const taken = await waitForScreen(/✓ quick snapshot \S+-tui taken and verified/);
		const id = /✓ quick snapshot (\S+-tui)/.exec(taken)![1]!;
		expect(taken).toMatch(new RegExp(`› ${id} .* yes, just now \\(at write\\)\\s+no`));
		expect(fs.existsSync(path.join(terminal.dir, 'state-snapshots', id, 'state.db'))).toBe(true);

		tmux('send-keys', '-t', session, 'v');
		const verified = await waitForScreen(new RegExp(`✓ verified ${id}: sound`));
		const line = verified.split('\n').find(l => l.includes(`› ${id}`))!;
		expect(line).toMatch(/yes, just now\s+no/);
		expect(line).not.toContain('(at write)');

		tmux('send-keys', '-t', session, 'q');
		await waitForScreen(/EXIT=0/);
		expect(sha(db)).toBe(before);
	});
});
