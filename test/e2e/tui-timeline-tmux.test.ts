/**
 * The timeline view (T) in a real terminal (tmux), on the real binary, while a second process
 * writes the store: at 80x24 from the Routing pane a chat at rollback risk says what a restart now
 * would do; the writer then plays the restart (the stale keyed row resumed, turns written into it
 * days later) and the open view turns into the rollback that happened. At 140x40 the same chat is
 * reached from its finding (Findings) and from its keyless row (Sessions), and follows the writer's
 * new turns; Esc returns to the pane it was opened from.
 */
import {describe, expect, it} from 'vitest';
import {T0} from '../fixtures/scenarios.js';
import {screenOf, tmux, tmuxTestFile, waitForScreenOf} from '../helpers/tmux.js';
import {WriterProcess} from '../helpers/writer.js';

let writer: WriterProcess | undefined;
const terminal = tmuxTestFile('timeline', async () => {
	await writer?.kill();
});
const {session} = terminal;

const screen = (): string => screenOf(session, false);
const waitForScreen = async (pattern: RegExp, timeoutMs?: number): Promise<string> =>
	waitForScreenOf(session, pattern, timeoutMs, false);
const keys = (...k: string[]) => tmux('send-keys', '-t', session, ...k);

/** Esc, then the pane again: the tabs stay on screen under the view, so wait for the view's title to go. */
async function closeTimeline(pane: RegExp): Promise<string> {
	keys('Escape');
	const end = Date.now() + 10_000;
	while (Date.now() < end && screen().includes('timeline of')) {
		await new Promise(resolve => setTimeout(resolve, 100));
	}

	const shown = await waitForScreen(pane);
	expect(shown).not.toContain('timeline of');
	return shown;
}

const KEY = 'agent:main:telegram:dm:616161';
const DAY = 86_400;
/** The keyless row the gateway minted for the chat (8-hex suffix) and lost the identity of. */
const ORPHAN = '20260807_001100_abcdef01';

/**
 * Before the restart: the keyed row, then the conversation in a keyless row born 70 s after it fell quiet; another chat
 * beside.
 */
async function beforeTheRestart(db: string): Promise<{keyed: string; other: string}> {
	writer = new WriterProcess(db);
	await writer.started();
	const keyed = await writer.create({
		source: 'telegram',
		userId: 'u-op',
		sessionKey: KEY,
		chatId: '616161',
		chatType: 'dm',
		displayName: 'Operator',
		startedAt: T0,
	});
	await writer.send({op: 'conversation', id: keyed, count: 12, from: T0 + 5, to: T0 + 600});
	await writer.create({id: ORPHAN, source: 'telegram', userId: 'u-op', startedAt: T0 + 660});
	await writer.send({op: 'conversation', id: ORPHAN, count: 30, from: T0 + 670, to: T0 + 5000});
	const other = await writer.create({
		source: 'discord',
		userId: 'u-x',
		sessionKey: 'agent:main:discord:dm:9',
		chatId: '9',
		chatType: 'dm',
		startedAt: T0 + 100,
	});
	await writer.send({op: 'conversation', id: other, count: 4, from: T0 + 110, to: T0 + 400});
	return {keyed, other};
}

/** What the files of the view say at most `columns` wide (the terminal's own width). */
function fits(shown: string, columns: number): void {
	for (const line of shown.split('\n')) {
		expect([...line].length, line).toBeLessThanOrEqual(columns);
	}
}

describe('the timeline view', () => {
	it(
		'80x24, from Routing: a chat at risk says what a restart now does; the ' +
			'writer restarts it and the open view tells the rollback',
		async () => {
			const db = `${terminal.dir}/narrow.db`;
			const {keyed, other} = await beforeTheRestart(db);
			terminal.start(80, 24, `--db ${db}`);
			await waitForScreen(/\[1 ?Sessions]/);
			keys('4');
			await waitForScreen(/\[4 ?Routing]/);
			// The chat at risk is listed first.
			keys('T');
			const risk = await waitForScreen(/timeline of agent:main:telegram:dm:616161/);
			expect(risk).toMatch(/! ROLLBACK RISK: if the gateway restarts now: it resumes \w+ \(via/);
			expect(risk).toMatch(/left out: abcdef01's 30 messages/);
			expect(risk).toMatch(/Esc back .*lines 1–\d+ of \d+/);
			fits(risk, 80);

			// The restart: the gateway resumed the keyed row and wrote two turns into it three days later.
			await writer!.send({op: 'conversation', id: keyed, count: 4, from: T0 + 3 * DAY, to: T0 + 3 * DAY + 60});
			await writer!.send({op: 'conversation', id: other, count: 2, from: T0 + 3 * DAY, to: T0 + 3 * DAY + 5});
			const after = await waitForScreen(/! ROLLED BACK: the chat resumed \w+, a context 3\.0 days old/, 20_000);
			expect(after).not.toContain('ROLLBACK RISK: if the gateway');
			fits(after, 80);
			// The events are further down: scrolled to, the fork and the resume are in time order.
			keys('G');
			await waitForScreen(/lines \d+–(\d+) of \1/);
			const lines: string[] = [];
			keys('g');
			await waitForScreen(/lines 1–/);
			for (let i = 0; i < 12 && !/lines \d+–(\d+) of \1/.test(screen()); i++) {
				lines.push(screen());
				keys('C-d');
				await new Promise(resolve => setTimeout(resolve, 200));
			}

			lines.push(screen());
			const whole = lines.join('\n');
			expect(whole).toMatch(/FORK {5}keyless abcdef01 born/);
			expect(whole.indexOf('FORK')).toBeLessThan(whole.indexOf('RESUME'));

			expect(await closeTimeline(/\[4 ?Routing]/)).toMatch(/chats \(2\)/);
			keys('q');
			await waitForScreen(/EXIT=0/);
		},
	);

	it('140x40, from the finding and from the keyless row in Sessions; follows the writer; Esc returns', async () => {
		const db = `${terminal.dir}/wide.db`;
		const {keyed} = await beforeTheRestart(db);
		await writer!.send({op: 'conversation', id: keyed, count: 4, from: T0 + 3 * DAY, to: T0 + 3 * DAY + 60});
		terminal.start(140, 40, `--db ${db}`);
		await waitForScreen(/\[1 ?Sessions]/);
		keys('5');
		await waitForScreen(/\[5 ?Findings/);
		// The rollback that happened is the first finding: its subject is the chat.
		keys('T');
		const shown = await waitForScreen(/timeline of agent:main:telegram:dm:616161/);
		expect(shown).toMatch(/! ROLLED BACK: the chat resumed \w+, a context 3\.0 days old; 2 user turns \(4 messages\)/);
		expect(shown).toMatch(/20260807_001100_abcdef01 {2}keyless {2}telegram/);
		expect(shown).toMatch(/belongs \(strong; by rollback\)/);
		fits(shown, 140);
		// New turns while the view is open: it follows.
		await writer!.send({op: 'conversation', id: keyed, count: 4, from: T0 + 3 * DAY + 100, to: T0 + 3 * DAY + 160});
		await waitForScreen(/4 user turns \(8 messages\)/, 20_000);
		await closeTimeline(/\[5 ?Findings/);

		// From the keyless row itself: the orphan names its chat.
		keys('1');
		await waitForScreen(/\[1 ?Sessions]/);
		keys('/');
		tmux('send-keys', '-t', session, '-l', 'abcdef01');
		keys('Enter');
		await waitForScreen(/abcdef01/);
		keys('T');
		await waitForScreen(/timeline of agent:main:telegram:dm:616161/);
		await closeTimeline(/\[1 ?Sessions]/);
		keys('q');
		await waitForScreen(/EXIT=0/);
	});
});
