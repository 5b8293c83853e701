/**
 * The repair preview in a real terminal of 80x24 (tmux), on a store a second process is writing:
 * every after value and every precondition can be read whole by scrolling, apply stays disabled
 * while the writer holds the store, and once it stopped the typed confirmation applies the plan;
 * the title then says it is applied and undoable, and the header's data_version moved.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import {describe, expect, it} from 'vitest';
import {SCENARIOS, T0, buildScenario} from '../fixtures/scenarios.js';
import {screenOf, tmux, tmuxTestFile, waitForScreenOf} from '../helpers/tmux.js';
import {WriterProcess} from '../helpers/writer.js';

let writer: WriterProcess | undefined;
const terminal = tmuxTestFile('repair', async () => {
	await writer?.kill();
});
const {session} = terminal;

const screen = (): string => screenOf(session, false);
const waitForScreen = async (pattern: RegExp, timeoutMs?: number): Promise<string> =>
	waitForScreenOf(session, pattern, timeoutMs, false);

const INDICATOR = /lines (\d+)–(\d+) of (\d+)/;

/** The flow's body, line by line, read by pressing j from its top: each window placed by its indicator. */
async function readWhole(): Promise<string[]> {
	tmux('send-keys', '-t', session, 'g');
	await waitForScreen(/lines 1–/);
	const body: string[] = [];
	for (let i = 0; i < 100; i++) {
		const shown = screen();
		const [first, last, total] = INDICATOR.exec(shown)!.slice(1).map(Number) as [number, number, number];
		const lines = shown.split('\n');
		const top = lines.findIndex(l => l.startsWith(' Repair '));
		lines.slice(top + 1, top + 2 + last - first).forEach((l, j) => {
			body[first - 1 + j] = l.trimEnd();
		});
		if (last === total) {
			return body;
		}

		tmux('send-keys', '-t', session, 'j');
		await waitForScreen(new RegExp(`lines ${first + 1}–`));
	}

	throw new Error('the indicator never reached the last line');
}

const ORIGIN = JSON.stringify({
	platform: 'telegram',
	chat_id: '515151',
	chat_type: 'dm',
	user_id: 'u-op',
	thread_id: null,
	note: 'an origin wider than any after cell of an 80-column terminal',
});

describe('the repair preview in an 80x24 terminal', () => {
	it('reads whole by scrolling while a second process writes, then applies and the header moves', async () => {
		const db = path.join(terminal.dir, 'state.db');
		writer = new WriterProcess(db);
		await writer.started();
		const key = 'agent:main:telegram:dm:515151';
		const donor = await writer.create({
			source: 'telegram',
			userId: 'u-op',
			sessionKey: key,
			chatId: '515151',
			chatType: 'dm',
			displayName: 'Operator',
			originJson: ORIGIN,
			startedAt: T0,
		});
		await writer.send({op: 'conversation', id: donor, count: 12, from: T0 + 5, to: T0 + 600});
		const orphan = await writer.create({source: 'telegram', startedAt: T0 + 660});
		await writer.send({op: 'conversation', id: orphan, count: 30, from: T0 + 670, to: T0 + 5000});
		const other = await writer.create({
			source: 'discord',
			userId: 'u-x',
			sessionKey: 'agent:main:discord:dm:9',
			chatId: '9',
			chatType: 'dm',
			startedAt: T0 + 100,
		});

		terminal.start(80, 24, `--db ${db}`);
		await waitForScreen(/\[1 ?Sessions]/);
		tmux('send-keys', '-t', session, '5');
		await waitForScreen(/\[5 ?Findings\(2\)]/);
		tmux('send-keys', '-t', session, 'r');
		await waitForScreen(/a apply \(disabled\).*lines 1–\d+ of \d+/);
		// The second process keeps writing another chat while the preview is open: it re-plans, still whole.
		for (let i = 0; i < 5; i++) {
			await writer.send({op: 'conversation', id: other, count: 2, from: T0 + 200 + i * 10, to: T0 + 205 + i * 10});
		}

		const body = await readWhole();
		for (const line of body) {
			expect(line.length, line).toBeLessThanOrEqual(80);
			expect(line, line).not.toMatch(/…$/);
		}

		const head = body.findIndex(l => /^ {3}column\s+before\s+after$/.test(l));
		const afterAt = body[head]!.indexOf('after');
		const start = body.findIndex(l => l.includes(' origin_json '));
		const cell = [body[start]!.slice(afterAt)];
		for (let i = start + 1; body[i]!.slice(0, afterAt).trim() === ''; i++) {
			cell.push(body[i]!.slice(afterAt));
		}

		expect(cell.join('')).toBe(ORIGIN);
		for (const [column, after] of [
			['session_key', key],
			['chat_id', '515151'],
			['user_id', 'u-op'],
			['display_name', 'Operator'],
			['parent_session_id', donor],
			['end_reason', 'superseded_by_repair'],
		]) {
			expect(
				body.some(l => new RegExp(`^ {5}${column}\\s+NULL\\s+${after}$`).test(l)),
				column,
			).toBe(true);
		}

		const flat = body.join('').replace(/\s+/g, '');
		expect(flat).toContain('✗nootherprocessholdsstate.db,-walor-shm');
		expect(flat).toContain(
			`stopthegatewayandeveryotherHermesprocessusingthisstore(pids${writer.pid})`.replace(/\s+/g, ''),
		);
		expect(flat).toContain('✓noprocessholdsadeleted-walofthisdatabase');
		expect(flat).toContain('averifiedsnapshotistaken');

		const dvBefore = /dv (\d+)/.exec(screen())?.[1];
		expect(dvBefore).toBeDefined();
		await writer.kill();
		await waitForScreen(/a apply {2}Esc back/, 10_000);
		tmux('send-keys', '-t', session, 'a');
		await waitForScreen(new RegExp(`to adopt, type its random suffix \\(${orphan.split('_').at(-1)!}\\):`));
		// Typed and submitted at once, as a paste: Enter submits what was typed, however fast it follows.
		tmux('send-keys', '-t', session, '-l', orphan.split('_').at(-1)!);
		tmux('send-keys', '-t', session, 'Enter');
		const done = await waitForScreen(
			new RegExp(`Repair ${orphan} applied · undo available: hfx repair --undo \\d+`),
			20_000,
		);
		expect(done).toContain('Esc close');
		expect(done).not.toContain('a apply');
		const moved = await waitForScreen(new RegExp(`dv (?!${dvBefore} )\\d+ `), 5000);
		expect(/dv (\d+)/.exec(moved)?.[1]).not.toBe(dvBefore);
		const check = new Database(db, {readonly: true});
		expect(check.prepare('SELECT session_key FROM sessions WHERE id = ?').pluck().get(orphan)).toBe(key);
		check.close();

		tmux('send-keys', '-t', session, 'Escape');
		await waitForScreen(/\[5 ?Findings]/);
		tmux('send-keys', '-t', session, 'q');
		await waitForScreen(/EXIT=0/);
	});

	it(
		'adopts a refused orphan from a candidate donor the operator picks in ' +
			'Findings (d), asking for both suffixes, in 80x24',
		async () => {
			const {dbPath, ids} = buildScenario(SCENARIOS.find(s => s.id === 'R1-tip')!, 'v30', {
				dir: fs.mkdtempSync(path.join(terminal.dir, 'donor-')),
			});
			const suffix = (id: string) => id.split('_').at(-1)!;
			terminal.start(80, 24, `--db ${dbPath}`);
			await waitForScreen(/\[1 ?Sessions]/);
			tmux('send-keys', '-t', session, '5');
			await waitForScreen(/\[5 ?Findings/);
			// The refused orphan's finding, found by its id: its candidates and the d hint under the list.
			for (let i = 0; i < 12 && !/ candidate /.test(screen()); i++) {
				tmux('send-keys', '-t', session, 'j');
				await new Promise(resolve => setTimeout(resolve, 150));
			}

			// At 80 columns the short form: `candidate ID: quiet 60 seconds before it started`.
			expect(screen()).toContain(`candidate ${ids.tip}: quiet 60 seconds before it started`);
			tmux('send-keys', '-t', session, 'd');
			await waitForScreen(new RegExp(`your choice of donor ${ids.tip}`));
			await waitForScreen(/a apply/);
			tmux('send-keys', '-t', session, 'a');
			// Below 120 columns the question is short: both suffixes, the orphan's first.
			await waitForScreen(new RegExp(`then the donor's suffix \\(${suffix(ids.orphan!)} ${suffix(ids.tip!)}\\):`));
			tmux('send-keys', '-t', session, '-l', `${suffix(ids.orphan!)} ${suffix(ids.tip!)}`);
			tmux('send-keys', '-t', session, 'Enter');
			await waitForScreen(/now owns/, 20_000);
			const check = new Database(dbPath, {readonly: true});
			try {
				expect(
					check.prepare('SELECT session_key, parent_session_id FROM sessions WHERE id = ?').get(ids.orphan),
				).toEqual({session_key: 'agent:main:telegram:dm:777001', parent_session_id: ids.tip});
				expect(check.prepare('SELECT end_reason FROM sessions WHERE id = ?').pluck().get(ids.tip)).toBe(
					'superseded_by_repair',
				);
			} finally {
				check.close();
			}

			tmux('send-keys', '-t', session, 'Escape');
			// Not at once: ESC and q back to back reach the program as Meta-q.
			await waitForScreen(/q quit/);
			tmux('send-keys', '-t', session, 'q');
			await waitForScreen(/EXIT=0/);
		},
	);
});
