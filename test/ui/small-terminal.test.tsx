/**
 * Small terminals (#14 point 8), on the real Hermes fixture: at 80 columns no session id is cut
 * in any pane (the banner shortens the session key instead), the sessions table drops columns
 * by priority and keeps its scroll counter off the header row, and w wraps the focused pane so
 * a cut line reads whole.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {App} from '../../source/ui/app.js';
import {PANES} from '../../source/ui/pane-names.js';
import {LiveStore} from '../../source/live/live.js';
import {sessionColumns} from '../../source/ui/panes/sessions.js';
import type {SessionRow} from '../../source/ui/views.js';
import type {SessionStatus} from '../../source/forensics/analysis/status.js';
import {type Rendered, renderAt} from '../helpers/render.js';
import {ROOT} from '../helpers/writer.js';

const NOW = 1_786_670_000;
let dir: string;
let live: LiveStore;
let ids: Set<string>;

beforeAll(() => {
	dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-small-'));
	fs.copyFileSync(path.join(ROOT, 'test/fixtures/hermes-v21-incident/state.db'), path.join(dir, 'state.db'));
	live = LiveStore.open({path: path.join(dir, 'state.db'), owner: 'default', label: 'fixture'}, {watch: false});
	ids = new Set(live.model.analysis.byId.keys());
});
afterAll(() => {
	live.close();
	fs.rmSync(dir, {recursive: true, force: true});
});

/** Every id-looking run on screen (the date, time and hex of a session id, or a cut part of one). */
function idRuns(frame: string): string[] {
	return [...frame.matchAll(/\d{8}_[\d_a-f]*/g)].map(m => m[0]);
}

async function app(columns: number, rows: number): Promise<Rendered> {
	return renderAt(<App live={live} color={false} now={() => NOW} />, columns, rows);
}

describe.each([
	[80, 24],
	[140, 40],
] as const)('every pane at %ix%i', (columns, rows) => {
	it.each(PANES.map((p, i) => [p, i] as const))('the %s pane shows every session id whole', async (pane, index) => {
		const ui = await app(columns, rows);
		try {
			// Detail and Lineage follow the incident's orphan (its card names its donor and chat).
			await ui.press('/');
			for (const ch of '427c496c') {
				await ui.press(ch);
			}

			await ui.press('\r');
			await ui.press(String(index + 1));
			const runs = idRuns(ui.lastFrame());
			// Files, Activity and Backups name no session of this still store (the banner names the worst chat's rows by
			// their suffix).
			if (!['files', 'activity', 'backups'].includes(pane)) {
				expect(runs.length).toBeGreaterThan(0);
			}

			for (const run of runs) {
				expect(ids.has(run), `${run} in\n${ui.lastFrame()}`).toBe(true);
			}
		} finally {
			ui.unmount();
		}
	});
});

describe('at 80x24', () => {
	it(
		'the banner counts the chats at risk, names the worst (most messages ' +
			'skipped) and shortens its key, keeping platform and chat id',
		async () => {
			const ui = await app(80, 24);
			try {
				const banner = ui
					.lastFrame()
					.split('\n')
					.find(l => l.includes('ROLLBACK RISK'))!;
				expect(banner.length).toBeLessThanOrEqual(80);
				expect(banner).toBe(' ✗ ROLLBACK RISK 2 chats, worst …telegram:dm:777001: skips 798 msgs in 427c496c');
				expect(banner).not.toContain('agent:main:telegram:dm:777001');
			} finally {
				ui.unmount();
			}
		},
	);

	it(
		'the sessions table keeps status, id, chat and last activity, drops ' +
			'title, tokens and start first, and puts its counter on the status line',
		async () => {
			const ui = await app(80, 24);
			try {
				const lines = ui.lastFrame().split('\n');
				const header = lines.find(l => /^\s+id\s+/.test(l))!;
				expect(header).toMatch(/id\s+source\s+chat\s+active\s+msgs\s+end reason$/);
				expect(header).not.toMatch(/title|tokens|started|\d+\/\d+/);
				const rows = lines.filter(l => /^(› | {2})\S\s+\d{8}_/.test(l));
				expect(rows.length).toBeGreaterThan(5);
				for (const row of rows) {
					expect(ids.has(row.slice(5, 29).trim()), row).toBe(true);
					expect(row).toMatch(/(ago|now)\s+\d+ \S+$/);
				}

				expect(lines.find(l => /\d+–\d+\/\d+/.test(l))).toMatch(/^ {2}1–\d+\/26 · 26 sessions/);
			} finally {
				ui.unmount();
			}
		},
	);

	it(
		'the detail under a list wraps by default at 80 columns; w wraps the ' +
			'list so a cut row reads whole, and w again cuts it',
		async () => {
			const ui = await app(80, 24);
			try {
				await ui.press('5');
				await ui.press('j');
				await ui.press('j');
				// The orphan's finding: its evidence reads whole, wrapped; its list row is cut.
				const cut = ui.lastFrame();
				expect(cut).toContain('88s before it)');
				expect(
					cut
						.split('\n')
						.filter(l => l.startsWith(' evidence') || l.startsWith(' next:'))
						.every(l => !l.endsWith('…')),
				).toBe(true);
				expect(cut).toContain('adoptable into telegram:…7001');
				await ui.press('w');
				const wrapped = ui.lastFrame();
				expect(wrapped.split('\n').every(l => l.length <= 80)).toBe(true);
				// Wrapped: the finding's key on the row's next line.
				expect(wrapped).toMatch(/adoptable into\n {4}agent:main:telegram:dm:777001\n/);
				await ui.press('w');
				expect(ui.lastFrame()).toBe(cut);
			} finally {
				ui.unmount();
			}
		},
	);
});

describe('the sessions column model', () => {
	it('keeps every column at 140 and drops by priority as the terminal narrows', () => {
		const keys = (w: number) => sessionColumns(w).map(c => c.key);
		expect(keys(140)).toEqual(['status', 'id', 'source', 'title', 'chat', 'started', 'last', 'msgs', 'tokens', 'end']);
		expect(keys(100)).not.toContain('title');
		expect(keys(80)).toEqual(['status', 'id', 'source', 'chat', 'last', 'msgs', 'end']);
		expect(keys(60)).toEqual(['status', 'id', 'chat', 'last', 'msgs']);
		for (const w of [60, 80, 100, 120, 140, 200]) {
			const cols = sessionColumns(w);
			expect(cols.reduce((n, c) => n + c.width, 0) + cols.length - 1, String(w)).toBeLessThanOrEqual(w - 4);
		}
	});

	it('writes a message count that does not fit its column as 746k, not cut (it was "7460…" at 80)', () => {
		const msgs = (w: number, count: number) => {
			const col = sessionColumns(w).find(c => c.key === 'msgs')!;
			const session = {messageRows: count, messageCountColumn: count} as SessionRow['session'];
			return col.value({session, lastActive: null}, 0, 'live' as SessionStatus, col.width);
		};
		expect(msgs(80, 746_012)).toBe('746k');
		expect(msgs(80, 12_345)).toBe('12345');
		expect(msgs(140, 746_012)).toBe('746012');
		expect(msgs(140, 1_234_567)).toBe('1.2M');
	});
});
