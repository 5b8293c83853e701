/**
 * The selection follows the session, not the row number: on a store a second process writes,
 * the Sessions list re-sorts by activity 20 times and the cursor stays on the session chosen;
 * Enter and y act on it. The Activity list keeps its event as new ones arrive on top.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {App} from '../../source/ui/app.js';
import {LiveStore} from '../../source/live/live.js';
import {T0} from '../fixtures/scenarios.js';
import {type Rendered, renderAt} from '../helpers/render.js';
import {WriterProcess} from '../helpers/writer.js';

const NOW = T0 + 100_000;
const SOURCES = ['telegram', 'discord', 'slack', 'whatsapp'] as const;
let dir: string;
let writer: WriterProcess;
let live: LiveStore;
const ids: Record<string, string> = {};
/** The live store's clock: the Activity test moves it on, so each write is a burst of its own. */
let clock = NOW;

beforeAll(async () => {
	dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-selection-'));
	const db = path.join(dir, 'state.db');
	writer = new WriterProcess(db);
	await writer.started();
	for (const [i, source] of SOURCES.entries()) {
		ids[source] = await writer.create({
			source,
			userId: `u-${i}`,
			sessionKey: `agent:main:${source}:dm:${i}`,
			chatId: String(i),
			chatType: 'dm',
			startedAt: T0 + i,
		});
		await writer.send({op: 'conversation', id: ids[source]!, count: 2, from: T0 + 10 + i, to: T0 + 20 + i});
	}

	live = LiveStore.open({path: db, owner: 'default', label: 'selection'}, {watch: false, now: () => clock});
});
afterAll(async () => {
	live?.close();
	await writer?.kill();
	fs.rmSync(dir, {recursive: true, force: true});
});

/** The selected row of the frame, and its place among the rows. */
function selected(frame: string): {line: string; index: number} {
	const rows = frame.split('\n').filter(l => /^(› | {2})(\S\s+\d{8}_|\d\d:\d\d:\d\d[ –])/.test(l));
	const index = rows.findIndex(l => l.startsWith('› '));
	return {line: rows[index] ?? '', index};
}

async function write(ui: Rendered, id: string, at: number): Promise<void> {
	await writer.send({op: 'conversation', id, count: 1, from: at, to: at});
	const before = ui.lastFrame();
	expect(live.refresh(true)).toBe(true);
	// The frame of the new model (every commit changes a count on screen).
	await ui.waitFor(f => f !== before);
}

describe('the selection in a live list', () => {
	it('stays on one session through 20 re-sorts by activity, and Enter and y act on it', async () => {
		let yanked: string[] = [];
		const ui = await renderAt(
			<App
				live={live}
				color={false}
				now={() => NOW}
				onExit={y => {
					yanked = y;
				}}
			/>,
			120,
			30,
		);
		try {
			// Newest first: whatsapp, slack, discord, telegram. Select discord.
			await ui.press('jj');
			expect(selected(ui.lastFrame()).line).toContain(ids.discord);
			const places = new Set<number>();
			for (let i = 0; i < 20; i++) {
				// Every round another session becomes the newest (discord itself every fourth).
				const source = SOURCES[(i * 3 + 1) % SOURCES.length]!;
				await write(ui, ids[source]!, T0 + 1000 * (i + 1));
				const now = selected(ui.lastFrame());
				expect(now.line, `round ${i}: ${source} written`).toContain(ids.discord);
				places.add(now.index);
			}

			// The list did re-sort under the cursor: discord was on several rows in turn.
			expect(places.size).toBeGreaterThanOrEqual(3);
			await ui.press('y');
			expect(ui.lastFrame()).toContain(`copied ${ids.discord}`);
			await ui.press('\r');
			expect(ui.lastFrame()).toContain('[2 Detail]');
			expect(ui.lastFrame()).toMatch(new RegExp(`${ids.discord}\\s+\\S+ · discord`));
			await ui.press('q');
			expect(yanked).toEqual([ids.discord]);
		} finally {
			ui.unmount();
		}
	});

	it(
		'pins the row shown selected before any key: a newer session arriving on ' + 'top does not take the cursor',
		async () => {
			const ui = await renderAt(<App live={live} color={false} now={() => NOW} />, 120, 30);
			try {
				const first = selected(ui.lastFrame());
				expect(first.index).toBe(0);
				const top = SOURCES.find(source => !first.line.includes(ids[source]!))!;
				await write(ui, ids[top]!, T0 + 60_000);
				const now = selected(ui.lastFrame());
				expect(now.line.slice(0, 40)).toBe(first.line.slice(0, 40));
				expect(now.index).toBe(1);
			} finally {
				ui.unmount();
			}
		},
	);

	it('keeps the Activity cursor on its event while newer events arrive on top', async () => {
		const ui = await renderAt(<App live={live} color={false} now={() => NOW} initialPane="activity" />, 120, 30);
		try {
			await ui.press('j');
			const chosen = selected(ui.lastFrame());
			expect(chosen.line).toMatch(/^› \d\d:\d\d:\d\d\S* +\S/);
			for (let i = 0; i < 3; i++) {
				// A minute later: a new burst on top (messages within seconds fold into one line).
				clock += 60;
				await write(ui, ids.slack!, T0 + 50_000 + i);
				const now = selected(ui.lastFrame());
				expect(now.line).toBe(chosen.line);
				expect(now.index).toBeGreaterThan(chosen.index);
			}
		} finally {
			ui.unmount();
		}
	});
});
