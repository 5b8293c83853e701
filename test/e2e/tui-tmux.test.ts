/**
 * The real binary in a real terminal (tmux), following a store that a second process writes:
 * a new message, a session rotation and the rollback-risk banner must appear on screen, and q
 * must restore the terminal and exit 0. At 80x24 and 140x40: Activity folds the writer's
 * commits into bursts, and no session id on screen is cut.
 */
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {T0} from '../fixtures/scenarios.js';
import {killSession, screenOf, tmux, tmuxTestFile, waitForScreenOf} from '../helpers/tmux.js';
import {WriterProcess} from '../helpers/writer.js';
import stringWidth from 'string-width';

let writer: WriterProcess | undefined;
const terminal = tmuxTestFile('tui', async () => {
	await writer?.kill();
});
const {session} = terminal;

const screen = (): string => screenOf(session);
const waitForScreen = async (pattern: RegExp, timeoutMs?: number): Promise<string> =>
	waitForScreenOf(session, pattern, timeoutMs);

/** The rows of the Sessions list on screen, once `ready` holds for them. */
async function waitForRows(ready: (rows: string[]) => boolean, timeoutMs = 15_000): Promise<string[]> {
	const end = Date.now() + timeoutMs;
	let rows: string[] = [];
	while (Date.now() < end) {
		rows = screen()
			.split('\n')
			.filter(l => /^(› | {2})\S\s+\d{8}_/.test(l));
		if (ready(rows)) {
			return rows;
		}

		await new Promise(resolve => setTimeout(resolve, 100));
	}

	throw new Error(`rows never matched; last rows:\n${rows.join('\n')}`);
}

describe('hfx in a real terminal', () => {
	it('shows a new message, a rotation and the rollback-risk banner as a second process commits', async () => {
		const db = path.join(terminal.dir, 'state.db');
		writer = new WriterProcess(db);
		await writer.started();
		const key = 'agent:main:telegram:dm:424242';
		const identity = {
			source: 'telegram',
			userId: 'u-op',
			sessionKey: key,
			chatId: '424242',
			chatType: 'dm',
			displayName: 'Operator',
		};
		const first = await writer.create({...identity, startedAt: T0});
		await writer.send({op: 'conversation', id: first, count: 12, from: T0 + 5, to: T0 + 600});

		terminal.start(120, 36, `--db ${db}`);
		// Drawn first, then analysed (issue #26): the commits below are followed once the analysis is on screen.
		await waitForScreen(/\[1 Sessions](?![\s\S]*analysing)/);
		expect(screen()).toContain('READ-ONLY');
		expect(screen()).toMatch(new RegExp(`${first}.* 12 +\\d+ live`));

		// A new message: the row's count moves and the Activity pane reports it.
		await writer.send({op: 'conversation', id: first, count: 3, from: T0 + 700, to: T0 + 720});
		await waitForScreen(new RegExp(`${first}.* 15 +\\d+ live`));
		tmux('send-keys', '-t', session, '7');
		await waitForScreen(new RegExp(`\\+3 messages in ${first}`));

		// A session rotation (compression): the old row ends, a continuation starts.
		await writer.send({op: 'end', id: first, at: T0 + 800, reason: 'compression'});
		const tip = await writer.create({...identity, parentSessionId: first, startedAt: T0 + 801});
		await writer.send({op: 'conversation', id: tip, count: 4, from: T0 + 810, to: T0 + 2000});
		await waitForScreen(new RegExp(`▶ ROTATED +${first} → ${tip}`));

		// The incident: a minute after the tip went quiet, the conversation continues in a row
		// without routing identity (the compression parent fell quiet long before: one donor).
		const orphan = await writer.create({source: 'telegram', startedAt: T0 + 2060});
		await writer.send({op: 'conversation', id: orphan, count: 40, from: T0 + 2070, to: T0 + 9000});
		// At 120 columns the banner says it short: the chat, what a restart would skip, the newest row's id whole.
		const banner = await waitForScreen(/ROLLBACK RISK 1 chat: \S*telegram:dm:424242: skips/);
		expect(banner).toContain(`telegram:dm:424242: skips 40 msgs in ${orphan}`);

		tmux('send-keys', '-t', session, '4');
		const routing = await waitForScreen(/✗ RISK\s+agent:main:telegram:dm:424242/);
		expect(routing).toMatch(new RegExp(`newest message\\s+${orphan}`));

		tmux('send-keys', '-t', session, 'q');
		const end = await waitForScreen(/EXIT=0/);
		expect(end).not.toContain('[1 Sessions]');
	});

	it('lays out wide and emoji titles in colour (the bundle builds its text tables on first use)', async () => {
		const db = path.join(terminal.dir, 'wide.db');
		writer = new WriterProcess(db);
		await writer.started();
		const title = '🚀 部署 check';
		const wide = await writer.create({
			source: 'telegram',
			userId: 'u-w',
			sessionKey: 'agent:main:telegram:dm:777',
			chatId: '777',
			chatType: 'dm',
			displayName: 'Wide',
			title,
			startedAt: T0,
		});
		await writer.send({op: 'conversation', id: wide, count: 3, from: T0 + 5, to: T0 + 60});

		terminal.start(140, 30, `--db ${db}`, {FORCE_COLOR: '1'});
		const shown = await waitForScreen(new RegExp(`${wide}.*部署`));
		const lines = shown.split('\n');
		const header = lines.find(l => /\bid\s+source\s+title\s+chat\b/.test(l))!;
		const row = lines.find(l => l.includes(wide))!;
		// The chat column starts at the same terminal column in the header and in the row: the
		// title took exactly its display width (🚀 and each CJK character are two columns).
		const chatAt = header.indexOf('chat');
		const rowChatAt = row.indexOf('dm:777');
		expect(rowChatAt).toBeGreaterThan(0);
		expect(stringWidth(row.slice(0, rowChatAt))).toBe(chatAt);

		tmux('send-keys', '-t', session, 'q');
		await waitForScreen(/EXIT=0/);
	});

	it('draws in colour by default and without any colour under --no-color or --color=false', async () => {
		const db = path.join(terminal.dir, 'mono.db');
		writer = new WriterProcess(db);
		await writer.started();
		const id = await writer.create({
			source: 'telegram',
			userId: 'u-m',
			sessionKey: 'agent:main:telegram:dm:41',
			chatId: '41',
			chatType: 'dm',
			startedAt: T0,
		});
		await writer.send({op: 'conversation', id, count: 3, from: T0 + 5, to: T0 + 60});
		const colours = async (flag: string): Promise<number> => {
			terminal.start(120, 30, `--db ${db} ${flag}`, {FORCE_COLOR: '', NO_COLOR: ''});
			await waitForScreen(/\[1 Sessions]/);
			const escaped = tmux('capture-pane', '-p', '-e', '-t', session);
			tmux('send-keys', '-t', session, 'q');
			await waitForScreen(/EXIT=0/);
			killSession(session);
			return (escaped.match(/\u001B\[(?:3\d|9\d|38;)/g) ?? []).length;
		};

		expect(await colours('')).toBeGreaterThan(0);
		expect(await colours('--no-color')).toBe(0);
		expect(await colours('--color=false')).toBe(0);
	});

	it('opens on the pane --pane names', async () => {
		const db = path.join(terminal.dir, 'pane.db');
		writer = new WriterProcess(db);
		await writer.started();
		const id = await writer.create({
			source: 'telegram',
			userId: 'u-p',
			sessionKey: 'agent:main:telegram:dm:51',
			chatId: '51',
			chatType: 'dm',
			startedAt: T0,
		});
		await writer.send({op: 'conversation', id, count: 3, from: T0 + 5, to: T0 + 60});
		terminal.start(100, 30, `--db ${db} --pane Routing`, {NO_COLOR: '1'});
		// The pane is drawn first; its chats once the first analysis is published (issue #26).
		const shown = await waitForScreen(/\[4 Routing][\s\S]*agent:main:telegram:dm:51/);
		expect(shown).not.toContain('analysing');
		tmux('send-keys', '-t', session, 'q');
		await waitForScreen(/EXIT=0/);
	});

	it(
		'keeps the selection on one session through 20 re-sorts as a second ' + 'process writes, and Enter opens it',
		async () => {
			const db = path.join(terminal.dir, 'sorts.db');
			writer = new WriterProcess(db);
			await writer.started();
			const sources = ['telegram', 'discord', 'slack', 'whatsapp'];
			const ids: string[] = [];
			for (const [i, source] of sources.entries()) {
				ids.push(
					await writer.create({
						source,
						userId: `u-${i}`,
						sessionKey: `agent:main:${source}:dm:6${i}`,
						chatId: `6${i}`,
						chatType: 'dm',
						startedAt: T0 + i,
					}),
				);
				await writer.send({op: 'conversation', id: ids[i]!, count: 2, from: T0 + 10 + i, to: T0 + 20 + i});
			}

			terminal.start(120, 30, `--db ${db}`, {NO_COLOR: '1'});
			await waitForScreen(/\[1 Sessions]/);
			// Newest first: whatsapp, slack, discord, telegram; select discord.
			tmux('send-keys', '-t', session, 'j', 'j');
			const chosen = ids[1]!;
			await waitForScreen(new RegExp(`› \\S\\s+${chosen}`));
			const places = new Set<number>();
			for (let i = 0; i < 20; i++) {
				const written = ids[(i * 3 + 1) % ids.length]!;
				await writer.send({
					op: 'conversation',
					id: written,
					count: 1,
					from: T0 + 1000 * (i + 1),
					to: T0 + 1000 * (i + 1),
				});
				// Once the TUI has the commit the written session is on top; the cursor is still on discord.
				const lines = await waitForRows(rows => rows[0]?.includes(written) ?? false);
				const at = lines.findIndex(l => l.startsWith('› '));
				expect(lines[at], `round ${i}`).toContain(chosen);
				places.add(at);
			}

			expect(places.size).toBeGreaterThanOrEqual(3);
			tmux('send-keys', '-t', session, 'Enter');
			await waitForScreen(new RegExp(`\\[2 Detail][\\s\\S]*${chosen}\\s+\\S+ · discord`));
			tmux('send-keys', '-t', session, 'q');
			await waitForScreen(/EXIT=0/);
		},
	);

	it(
		'exits on a q typed before the first frame (it was read at once, before ' + 'the store started following)',
		async () => {
			const db = path.join(terminal.dir, 'early.db');
			writer = new WriterProcess(db);
			await writer.started();
			const id = await writer.create({
				source: 'telegram',
				userId: 'u-e',
				sessionKey: 'agent:main:telegram:dm:31',
				chatId: '31',
				chatType: 'dm',
				startedAt: T0,
			});
			await writer.send({op: 'conversation', id, count: 3, from: T0 + 5, to: T0 + 60});

			// The q is in the terminal's input before Node has even started.
			terminal.start(120, 36, `--db ${db}`, {NO_COLOR: '1'});
			tmux('send-keys', '-t', session, 'q');
			await waitForScreen(/EXIT=0/, 10_000);
		},
	);

	it.each([
		[80, 24],
		[140, 40],
	] as const)(
		'at %ix%i: Activity folds the commits into bursts and stays short, ' +
			'rotations stand out, no id is cut, the counter keeps off the header',
		async (columns, rows) => {
			const db = path.join(terminal.dir, `small-${columns}.db`);
			writer = new WriterProcess(db);
			await writer.started();
			// More sessions than the table shows, so that it scrolls.
			const ids: string[] = [];
			for (let i = 0; i < rows; i++) {
				ids.push(
					await writer.create({
						source: i % 2 ? 'discord' : 'telegram',
						userId: `u-${i}`,
						sessionKey: `agent:main:${i % 2 ? 'discord' : 'telegram'}:dm:10000000${i}`,
						chatId: `10000000${i}`,
						chatType: 'dm',
						displayName: `Chat number ${i}`,
						title: `a long title for session ${i}`,
						startedAt: T0 + i,
					}),
				);
				await writer.send({op: 'conversation', id: ids[i]!, count: 2, from: T0 + 10 + i, to: T0 + 20 + i});
			}

			terminal.start(columns, rows, `--db ${db}`);
			await waitForScreen(/\[?1 ?Sessions]?/);
			tmux('send-keys', '-t', session, '7');
			await waitForScreen(/activity since hfx started/);
			const seen: string[] = [];
			const look = () => {
				const now = screen();
				seen.push(now);
				return now;
			};

			// 30 commits of a message or two in three chats, a few tens of ms apart: one burst.
			const busy = ids.slice(0, 3);
			for (let i = 0; i < 30; i++) {
				await writer.send({
					op: 'conversation',
					id: busy[i % 3]!,
					count: 1 + (i % 2),
					from: T0 + 1000 + i,
					to: T0 + 1000 + i,
				});
				await new Promise(resolve => setTimeout(resolve, 40));
				if (i % 5 === 0) {
					look();
				}
			}

			const burst = await waitForScreen(/\d\d:\d\d:\d\d–\d\d:\d\d:\d\d +· \+45 messages in 3 sessions/);
			seen.push(burst);
			// A compression rotation of the first chat stands out on its own line.
			const key = `agent:main:telegram:dm:100000000`;
			await writer.send({op: 'end', id: ids[0]!, at: T0 + 1100, reason: 'compression'});
			const tip = await writer.create({
				source: 'telegram',
				userId: 'u-0',
				sessionKey: key,
				chatId: '100000000',
				chatType: 'dm',
				parentSessionId: ids[0]!,
				startedAt: T0 + 1101,
			});
			await writer.send({op: 'conversation', id: tip, count: 3, from: T0 + 1110, to: T0 + 5000});
			ids.push(tip);
			const rotated = await waitForScreen(new RegExp(`▶ ROTATED +${ids[0]} → ${tip}`));
			seen.push(rotated);
			const activityRows = rotated.split('\n').filter(l => /^(› | {2})\d\d:\d\d:\d\d/.test(l));
			// 33 commits: a burst or two and the rotation (its parent's end said by the rotation's line).
			expect(activityRows.length, rotated).toBeLessThanOrEqual(4);
			expect(activityRows.length).toBeGreaterThanOrEqual(2);
			expect(activityRows.filter(l => l.includes('ROTATED'))).toHaveLength(1);

			// The incident, for the banner: the tip falls quiet and a minute later the chat goes on in a
			// keyless row (every other chat fell quiet long before: the tip is its one donor).
			const orphan = await writer.create({source: 'telegram', startedAt: T0 + 5060});
			await writer.send({op: 'conversation', id: orphan, count: 5, from: T0 + 5070, to: T0 + 9000});
			ids.push(orphan);
			seen.push(await waitForScreen(/ROLLBACK RISK/));
			tmux('send-keys', '-t', session, '1');
			const table = await waitForScreen(/\d+–\d+\/\d+ · \d+ sessions/);
			seen.push(table);

			for (const shown of seen) {
				expect(shown).not.toMatch(/data_version|-1 →/);
				for (const [run] of shown.matchAll(/\d{8}_[\d_a-f]*/g)) {
					expect(run, shown).toMatch(/^\d{8}_\d{6}_[0-9a-f]{8}$/);
					expect(ids, shown).toContain(run);
				}
			}

			const lines = table.split('\n');
			const header = lines.find(l => /^\s+id\s+source\s+/.test(l))!;
			expect(header, table).toBeDefined();
			expect(header).not.toMatch(/\d+\/\d+/);
			const banner = lines.find(l => l.includes('ROLLBACK RISK'))!;
			// The worst chat's rows whole at 140 columns; at 80 by their suffix (as hfx repair --only takes them), never a
			// cut id.
			expect(banner).toMatch(columns === 80 ? /skips \d+ msgs in [0-9a-f]{8}\b/ : /\d{8}_\d{6}_[0-9a-f]{8}/);
			if (columns === 80) {
				expect(header).not.toMatch(/title|tokens|started/);
			} else {
				expect(header).toMatch(/title.*started.*tokens/);
			}

			tmux('send-keys', '-t', session, 'q');
			await waitForScreen(/EXIT=0/);
		},
	);

	it(
		'shows no rollback risk at any moment through 5 compression rotations ' +
			'written live (the banner and Findings stay clear)',
		async () => {
			const db = path.join(terminal.dir, 'rotations.db');
			writer = new WriterProcess(db);
			await writer.started();
			const key = 'agent:main:discord:group:9001';
			const identity = {
				source: 'discord',
				userId: 'u-bob',
				sessionKey: key,
				chatId: '9001',
				chatType: 'group',
				displayName: '#ops',
			};
			let current = await writer.create({...identity, startedAt: T0});
			await writer.send({op: 'routing', key, id: current, at: T0});
			await writer.send({op: 'conversation', id: current, count: 6, from: T0 + 5, to: T0 + 60});
			terminal.start(120, 30, `--db ${db}`);
			await waitForScreen(/\[1 Sessions]/);
			// Every screen while the rotations are written, 50 ms apart.
			const screens: string[] = [];
			const watch = setInterval(() => screens.push(screen()), 50);
			try {
				for (let i = 0; i < 5; i++) {
					const at = T0 + 100 * (i + 1);
					await writer.send({op: 'end', id: current, at, reason: 'compression'});
					await new Promise(resolve => setTimeout(resolve, 300));
					const next = await writer.create({...identity, parentSessionId: current, startedAt: at + 1});
					await writer.send({op: 'routing', key, id: next, at: at + 1});
					await writer.send({op: 'conversation', id: next, count: 2, from: at + 10, to: at + 20});
					await waitForScreen(new RegExp(next));
					current = next;
				}
			} finally {
				clearInterval(watch);
			}

			expect(screens.length).toBeGreaterThan(20);
			expect(screens.filter(s => /ROLLBACK RISK|✗ RISK/.test(s))).toEqual([]);
			tmux('send-keys', '-t', session, '5');
			const findings = await waitForScreen(/\[5 Findings/);
			expect(findings).not.toMatch(/ROLLBACK RISK/);
			tmux('send-keys', '-t', session, 'q');
			await waitForScreen(/EXIT=0/);
		},
	);

	it(
		'keeps every key typed right after / while a second process writes (25 ' + 'bursts, each filter read back whole)',
		async () => {
			const db = path.join(terminal.dir, 'filter.db');
			writer = new WriterProcess(db);
			await writer.started();
			const id = await writer.create({
				source: 'telegram',
				userId: 'u-f',
				sessionKey: 'agent:main:telegram:dm:61',
				chatId: '61',
				chatType: 'dm',
				startedAt: T0,
			});
			await writer.send({op: 'conversation', id, count: 3, from: T0 + 5, to: T0 + 60});
			terminal.start(120, 30, `--db ${db}`);
			await waitForScreen(/\[1 Sessions]/);
			let stop = false;
			// The writer commits all along: a message every 20 ms.
			const writing = (async () => {
				for (let n = 0; !stop; n++) {
					await writer!.send({op: 'conversation', id, count: 1, from: T0 + 100 + n, to: T0 + 100 + n});
					await new Promise(resolve => setTimeout(resolve, 20));
				}
			})();
			try {
				for (let i = 0; i < 25; i++) {
					const word = `zq${i}x${'abcdefghij'.slice(0, 3 + (i % 7))}`;
					// One tmux command: '/' and the word reach the terminal back to back.
					tmux('send-keys', '-t', session, '-l', `/${word}`);
					await waitForScreen(new RegExp(` / ${word}\\s+0 match`), 5000);
					tmux('send-keys', '-t', session, 'Escape');
					await waitForScreen(/j\/k move/, 5000);
				}
			} finally {
				stop = true;
				await writing;
			}

			tmux('send-keys', '-t', session, 'q');
			await waitForScreen(/EXIT=0/);
		},
	);

	it(
		'habits of the field and a live header, at 80x24 while a second process ' +
			'writes: the WAL size and dv move, h/l and ←/→ switch panes, p says p ' +
			'resume, y says copied and it fades',
		async () => {
			const db = path.join(terminal.dir, 'habits.db');
			writer = new WriterProcess(db);
			await writer.started();
			const id = await writer.create({
				source: 'telegram',
				userId: 'u-h',
				sessionKey: 'agent:main:telegram:dm:71',
				chatId: '71',
				chatType: 'dm',
				startedAt: T0,
			});
			await writer.send({op: 'conversation', id, count: 3, from: T0 + 5, to: T0 + 60});
			terminal.start(80, 24, `--db ${db}`);
			const first = await waitForScreen(/\[1 ?Sessions]/);
			const header = (text: string) => /dv (\d+) · WAL ([^·]+?) ·/.exec(text.split('\n')[0]!)?.slice(1) ?? [];
			const [dv0, wal0] = header(first);
			expect(dv0, first).toBeDefined();
			// Point 6: the writer commits 200 messages; the header's data_version and WAL size follow.
			await writer.send({op: 'conversation', id, count: 200, from: T0 + 100, to: T0 + 900});
			const moved = await waitForScreen(
				new RegExp(`dv (?!${dv0} )\\d+ · WAL (?!${wal0!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} )`),
			);
			expect(header(moved)[1]).not.toBe(wal0);
			// Point 9: h/l and the arrows switch panes as Tab does.
			tmux('send-keys', '-t', session, 'l');
			await waitForScreen(/\[2 ?Detail]/);
			tmux('send-keys', '-t', session, 'Right');
			await waitForScreen(/\[3 ?Lineage]/);
			tmux('send-keys', '-t', session, 'h');
			await waitForScreen(/\[2 ?Detail]/);
			tmux('send-keys', '-t', session, 'Left');
			await waitForScreen(/\[1 ?Sessions]/);
			tmux('send-keys', '-t', session, 'p');
			await waitForScreen(/PAUSED[\s\S]*p resume/);
			tmux('send-keys', '-t', session, 'p');
			await waitForScreen(/● LIVE[\s\S]*p pause/);
			tmux('send-keys', '-t', session, 'y');
			await waitForScreen(new RegExp(`copied ${id}`));
			await waitForScreen(new RegExp(`^(?![\\s\\S]*copied ${id})`), 10_000);
			tmux('send-keys', '-t', session, 'q');
			await waitForScreen(/EXIT=0/);
		},
	);
});
