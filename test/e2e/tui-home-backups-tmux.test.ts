/**
 * The Backups pane on a root with profiles (issue #24 point 2), on the real binary in tmux: the
 * stores of `default` and `work` written by second processes, an archive of the home and a quick
 * snapshot of `work` taken by the CLI. The pane lists exactly what `hfx backups` lists for that
 * root, in its words (each snapshot naming its profile, the same verified, drilled and home
 * verdicts); S takes the snapshot of the profile P focuses; --profile default keeps default's
 * snapshots only, as `hfx backups --profile default` does (which refuses a profile the root lacks).
 */
import fs from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {hfx} from '../helpers/cli.js';
import {homeRoot} from '../helpers/home-root.js';
import {screenOf, tmux, tmuxTestFile, waitForScreenOf} from '../helpers/tmux.js';

const terminal = tmuxTestFile('home-bk');
const {session} = terminal;
const waitFor = async (pattern: RegExp, timeoutMs = 20_000): Promise<string> =>
	waitForScreenOf(session, pattern, timeoutMs, false);
const keys = (...k: string[]) => tmux('send-keys', '-t', session, ...k);
const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A CLI word as a pattern, its ages ("just now", "5s ago") any age: the pane reads a few seconds later. */
const worded = (text: string) => escaped(text).replace(/just now|\d+[smh] ago/g, '(?:just now|\\d+[smh] ago)');

/** The root, its stores written by their own processes (then killed), an archive of it and a quick snapshot of work. */
async function rootWithBackups(root: string): Promise<void> {
	const made = await homeRoot(root);
	const id = await made.work.create({source: 'cli', startedAt: 1_780_000_000});
	await made.work.send({op: 'conversation', id, count: 4, from: 1_780_000_001, to: 1_780_000_100});
	await Promise.all([made.main.kill(), made.work.kill()]);
	expect(hfx(['backup', '--home', root]).code).toBe(0);
	expect(hfx(['backup', '--quick', '--home', root, '--profile', 'work']).code).toBe(0);
}

/** `hfx backups`' rows for the root, each as its columns' words (NAME KIND AGE SIZE COMPLETE VERIFIED DRILLED HOME). */
function cliRows(args: string[]): string[][] {
	const run = hfx(['backups', ...args]);
	expect(run.code).toBe(0);
	const lines = run.stdout.split('\n');
	return lines.slice(2, lines.indexOf('')).map(l => l.trim().split(/ {2,}/));
}

/** The pane's line of a CLI row: name, kind, age, verified, drilled, home, size, complete, in that order. */
function paneLine(row: string[]): RegExp {
	const [name, kind, age, size, complete, verified, drilled, home] = row.map(worded);
	return new RegExp(`^[› ] ${name} +${kind} +${age} +${verified} +${drilled} +${home} +${size} +${complete}`, 'm');
}

describe('the Backups pane on a root with profiles', () => {
	it('lists what hfx backups lists, in its words, each snapshot naming its ' +
		'profile; S snapshots the focused profile', async () => {
		const root = path.join(terminal.dir, 'root');
		await rootWithBackups(root);
		const rows = cliRows(['--home', root]);
		expect(rows.map(r => r[1])).toEqual(['hfx-archive', 'snapshot (work)']);

		terminal.start(140, 30, `--home ${root}`);
		await waitFor(/2 profiles · .* on default/);
		keys('8');
		const pane = await waitFor(/snapshot \(work\)/);
		for (const row of rows) {
			expect(pane).toMatch(paneLine(row));
		}

		expect(pane).toMatch(/S quick snapshot of default/);
		keys('P');
		await waitFor(/S quick snapshot of work/);
		keys('S');
		const taken = await waitFor(/✓ quick snapshot \S+-tui taken and verified/);
		const id = /✓ quick snapshot (\S+-tui)/.exec(taken)![1]!;
		expect(taken).toMatch(new RegExp(`^[› ] ${id} +snapshot \\(work\\) `, 'm'));
		expect(fs.existsSync(path.join(root, 'profiles', 'work', 'state-snapshots', id, 'state.db'))).toBe(true);
		expect(fs.existsSync(path.join(root, 'state-snapshots', id))).toBe(false);
		keys('q');
		await waitFor(/EXIT=0/);
	}, 90_000);

	it("--profile default keeps default's snapshots, as hfx backups --profile " +
		'default does; at 80x24 each line names its kind', async () => {
		const root = path.join(terminal.dir, 'root-narrow');
		await rootWithBackups(root);
		const rows = cliRows(['--home', root, '--profile', 'default']);
		expect(rows.map(r => r[1])).toEqual(['hfx-archive']);
		// A profile the root does not have is refused (a typo would list no snapshot, silently): one line, exit 2.
		const typo = hfx(['backups', '--home', root, '--profile', 'wrok']);
		expect(typo.code).toBe(2);
		expect(typo.stderr.trim().split('\n')).toEqual([
			expect.stringMatching(/profiles\/wrok: no profile "wrok" in this Hermes home\. Next: /),
		]);

		terminal.start(80, 24, `--home ${root} --profile default`);
		await waitFor(/\[1 ?Sessions]/);
		keys('8');
		const pane = await waitFor(/hfx-archive/);
		expect(pane).toMatch(new RegExp(`^[› ] ${escaped(rows[0]![0]!)} +hfx-archive +${worded(rows[0]![2]!)} `, 'm'));
		expect(pane).not.toContain('snapshot (work)');
		expect(
			screenOf(session, false)
				.split('\n')
				.every(l => l.length <= 80),
		).toBe(true);
		keys('q');
		await waitFor(/EXIT=0/);
	}, 90_000);
});
