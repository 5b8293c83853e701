/**
 * The TUI's content search on a root with profiles (issue #24 point 2), on the real binary in
 * tmux at 80x24: `default` focused, the phrase only in a message a second process wrote into
 * `work`. `/`, Tab, the words, ⏎: the hit is listed with its profile named; ⏎ on it focuses `work`
 * and opens the row's detail showing the message. --profile default narrows the search to default.
 */
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {T0} from '../fixtures/scenarios.js';
import {homeRoot as writtenRoot} from '../helpers/home-root.js';
import {screenOf, tmux, tmuxTestFile, waitForScreenOf} from '../helpers/tmux.js';
import type {WriterProcess} from '../helpers/writer.js';

const writers: WriterProcess[] = [];
const terminal = tmuxTestFile('home-search', async () => {
	await Promise.all(writers.splice(0).map(async w => w.kill()));
});
const {session} = terminal;
const waitFor = async (pattern: RegExp, timeoutMs = 15_000): Promise<string> =>
	waitForScreenOf(session, pattern, timeoutMs, false);
const keys = (...k: string[]) => tmux('send-keys', '-t', session, ...k);

/** The root, with the phrase in one message of a session of work's store; that session's id. */
async function rootWithPhrase(root: string): Promise<string> {
	const made = await writtenRoot(root);
	writers.push(made.main, made.work);
	const id = await made.work.create({source: 'cli', startedAt: T0 + 100});
	await made.work.send({op: 'conversation', id, count: 3, from: T0 + 101, to: T0 + 200});
	await made.work.send({
		op: 'messages',
		id,
		messages: [{role: 'user', content: 'where is the quarterly Okavango report?', timestamp: T0 + 300}],
	});
	return id;
}

async function search(text: string): Promise<void> {
	await waitFor(/\[1 ?Sessions]/);
	keys('/');
	await waitFor(/Tab content/);
	keys('Tab');
	await waitFor(/\/ content:/);
	keys('-l', text);
	// The words on the line before ⏎ (one burst of both is typed text to the line).
	await waitFor(new RegExp(`/ content: ${text}`));
	keys('Enter');
}

describe('content search on a root with profiles', () => {
	it('finds a phrase in work while default is focused, names the profile, and ⏎ focuses work on its row', async () => {
		const root = path.join(terminal.dir, 'root');
		const id = await rootWithPhrase(root);
		terminal.start(80, 24, `--home ${root}`);
		await waitFor(/2 profiles · none at risk · on default/);
		await search('Okavango report');
		const hits = await waitFor(/content "Okavango report": 1 hits in 1 rows of 2 profiles/);
		// The snippet is cut at 80 columns: its first match shows.
		expect(hits).toMatch(new RegExp(`^› \\S work +${id} .*quarterly »Okav`, 'm'));
		expect(hits).toMatch(/^ +prof +row +chat/m);
		expect(hits).toMatch(/on default/);
		expect(
			screenOf(session, false)
				.split('\n')
				.every(l => l.length <= 80),
		).toBe(true);

		keys('Enter');
		const detail = await waitFor(/where is the quarterly Okavango report\?/);
		expect(detail).toContain(id);
		expect(detail).toMatch(/on work/);
		keys('q');
		await waitFor(/EXIT=0/);
	}, 60_000);

	it("--profile default narrows the search to default's store", async () => {
		const root = path.join(terminal.dir, 'root-narrow');
		await rootWithPhrase(root);
		terminal.start(80, 24, `--home ${root} --profile default`);
		await search('Okavango report');
		const none = await waitFor(/no message holds "Okavango report"/);
		expect(none).not.toMatch(/profiles|work/);
		keys('Escape');
		keys('q');
		await waitFor(/EXIT=0/);
	}, 60_000);
});
