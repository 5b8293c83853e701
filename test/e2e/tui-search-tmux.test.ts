/**
 * The real binary in a real terminal (tmux, 80x24): `/`, then Tab, turns the filter line into a
 * content search; ⏎ lists the rows whose messages hold the phrase (a keyless orphan among them,
 * labelled so, the match marked), ⏎ on it opens its Detail pane showing the message; Esc returns
 * to every session (issue #24 point 3). The store carries Hermes' v23+ FTS tables, written by a
 * second process that was then killed; every byte of the store's files is unchanged.
 */
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {ftsSql} from '../../source/simulator/hermes-fts.js';
import {T0} from '../fixtures/scenarios.js';
import {evidenceState} from '../helpers/cli.js';
import {screenOf, tmux, tmuxTestFile, waitForScreenOf} from '../helpers/tmux.js';
import {WriterProcess} from '../helpers/writer.js';

let writer: WriterProcess | undefined;
const terminal = tmuxTestFile('search', async () => {
	await writer?.kill();
});
const {session} = terminal;
const waitForScreen = async (pattern: RegExp, timeoutMs?: number): Promise<string> =>
	waitForScreenOf(session, pattern, timeoutMs);
const keys = (...k: string[]) => tmux('send-keys', '-t', session, ...k);

describe('content search in the TUI', () => {
	it('finds a phrase in an orphan at 80x24 and opens it', async () => {
		const db = path.join(terminal.dir, 'state.db');
		writer = new WriterProcess(db);
		await writer.started();
		await writer.send({op: 'exec', sql: ftsSql('external')});
		const key = 'agent:main:telegram:dm:777';
		const donor = await writer.create({
			source: 'telegram',
			userId: 'u7',
			sessionKey: key,
			chatId: '777',
			chatType: 'dm',
			startedAt: T0,
		});
		await writer.send({op: 'conversation', id: donor, count: 10, from: T0 + 5, to: T0 + 300});
		await writer.send({op: 'routing', key, id: donor, at: T0 + 300});
		const orphan = await writer.create({source: 'telegram', startedAt: T0 + 360});
		await writer.send({op: 'conversation', id: orphan, count: 6, from: T0 + 365, to: T0 + 900});
		await writer.send({
			op: 'messages',
			id: orphan,
			messages: [{role: 'user', content: 'did the invoice for Zanzibar get paid?', timestamp: T0 + 950}],
		});
		// The writer gone (SIGKILL: its -wal and -shm left, no owner): hfx reads it in place, its -shm read-only;
		// every byte must stay.
		await writer.kill();
		const before = evidenceState(terminal.dir);

		terminal.start(80, 24, `--db ${db}`);
		await waitForScreen(/\[1 ?Sessions]/);
		keys('/');
		await waitForScreen(/Tab content/);
		keys('Tab');
		await waitForScreen(/\/ content:/);
		keys('-l', 'invoice Zanzibar');
		// The words on the line before ⏎ (one burst of both is typed text to the line: CI saw ⏎ lost so).
		await waitForScreen(/\/ content: invoice Zanzibar/);
		keys('Enter');
		const hits = await waitForScreen(/content "invoice Zanzibar": 1 hits in 1 rows/);
		expect(hits).toContain(orphan);
		expect(hits).toContain('keyless: orphan');
		expect(hits).toMatch(/»invoice« for »Zanzibar«/);

		keys('Enter');
		const detail = await waitForScreen(/did the invoice for Zanzibar get paid\?/);
		expect(detail).toContain(orphan);
		keys('Escape');
		await waitForScreen(/content "invoice Zanzibar"/);
		keys('Escape');
		// The list of every session again: its own footer (the donor's id alone is no sign: the banner names it too).
		const all = await waitForScreen(/\d+ sessions · /);
		expect(all).toContain(donor);
		expect(screenOf(session)).not.toContain('content "invoice');
		keys('q');
		await waitForScreen(/EXIT=0/);
		expect(evidenceState(terminal.dir)).toEqual(before);
	});
});
