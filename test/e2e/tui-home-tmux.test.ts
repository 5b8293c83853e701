/**
 * The whole Hermes home in the live view (issue #24, point 2), on the real binary in tmux: a root
 * with `default` and `work`, a second process writing the incident into `work` (not the profile
 * the panes show first). The header counts the profiles and names `work` at risk, the banner and
 * Findings name the profile, P focuses `work` (its sessions in the Sessions pane), the "N stores"
 * notice is on screen (not behind it), and --profile still narrows to one store. At 80x24 and 140x40.
 */
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {homeRoot as writtenRoot, writeIncident} from '../helpers/home-root.js';
import {screenOf, tmux, tmuxTestFile, waitForScreenOf} from '../helpers/tmux.js';
import type {WriterProcess} from '../helpers/writer.js';

const writers: WriterProcess[] = [];
const terminal = tmuxTestFile('home', async () => {
	await Promise.all(writers.splice(0).map(async w => w.kill()));
});
const {session} = terminal;
const rows = (): string[] => screenOf(session, false).split('\n');
const waitFor = async (pattern: RegExp, timeoutMs = 15_000): Promise<string> =>
	waitForScreenOf(session, pattern, timeoutMs, false);

/** The root (helpers/home-root.ts), its writers killed after each test. */
async function homeRoot(root: string): Promise<{work: WriterProcess; quiet: string}> {
	const made = await writtenRoot(root);
	writers.push(made.main, made.work);
	return made;
}

describe.each([
	[80, 24],
	[140, 40],
])('hfx on a root with profiles at %ix%i', (columns, height) => {
	it('follows every profile: the risk written into work reaches the header, ' +
		"the banner and Findings, P shows work's sessions", async () => {
		const root = path.join(terminal.dir, `root-${columns}`);
		const {work, quiet} = await homeRoot(root);
		terminal.start(columns, height, `--home ${root}`);
		const first = await waitFor(/2 profiles · none at risk/);
		// The notice is on the screen (its last line), not printed behind it.
		expect(first).toMatch(/2 stores, showing default: P switches profile/);
		expect(first).toContain(quiet);

		const {orphan} = await writeIncident(work);
		const risky = await waitFor(/2 profiles · work ✗ rollback risk · on default/);
		const lines = risky.split('\n');
		expect(lines[2]).toMatch(/^ \[work] ✗ ROLLBACK RISK 1 chat: /);
		// The panes still show default: the orphan written into work is not among its sessions (the banner may name it).
		const sessionRows = (screen: string) => screen.split('\n').filter(l => /^[› ] \S\s+\d{8}_/.test(l));
		expect(sessionRows(risky).join('\n')).not.toContain(orphan);
		expect(rows().every(l => l.length <= columns)).toBe(true);

		tmux('send-keys', '-t', session, '5');
		const findings = await waitFor(/\[5 ?Findings/);
		expect(findings).toMatch(/› ✗ \[work] ROLLBACK RISK agent:main:telegram:dm:424242/);
		expect(findings).toMatch(/P focuses profile work/);

		tmux('send-keys', '-t', session, 'P');
		tmux('send-keys', '-t', session, '1');
		const sessions = await waitFor(new RegExp(`^[› ] \\S\\s+${orphan}`, 'm'));
		expect(sessions).toMatch(/2 profiles · work ✗ rollback risk · on work/);
		expect(sessions).not.toContain(quiet);
		expect(rows().every(l => l.length <= columns)).toBe(true);
		tmux('send-keys', '-t', session, 'q');
		await waitFor(/EXIT=0/);
	}, 60_000);
});

describe('--profile on a root with profiles', () => {
	it('narrows to one store: no other profile is counted or followed, no notice', async () => {
		const root = path.join(terminal.dir, 'root-narrow');
		const {work} = await homeRoot(root);
		await writeIncident(work);
		terminal.start(80, 24, `--home ${root} --profile default`);
		const screen = await waitFor(/profile default/);
		expect(screen).not.toMatch(/profiles ·|ROLLBACK RISK|\[work]|stores, showing/);
		tmux('send-keys', '-t', session, 'P');
		await waitFor(/one store is followed/, 5_000);
		tmux('send-keys', '-t', session, 'q');
		await waitFor(/EXIT=0/);
	}, 60_000);
});
