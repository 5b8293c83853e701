/**
 * A rollback that already happened in the TUI's parts (issue #23 point 1), on the v21 incident
 * fixture moved to its post-restart state by a second process: the banner's ROLLED BACK line at
 * every width (ids whole, never "do not restart"), above the risk line, the body a row shorter for
 * it; the resumed and stranded rows' statuses; the Routing pane's ✗ ROLLED; the Activity pane says
 * ROLLED BACK, not "cleared".
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {analyze} from '../../source/forensics/analysis/analyze.js';
import {diffActivity} from '../../source/forensics/analysis/activity.js';
import {STATUS_GLYPH, statusIndex} from '../../source/forensics/analysis/status.js';
import {LiveStore} from '../../source/live/live.js';
import {loadStore} from '../../source/store/read/load.js';
import {App} from '../../source/ui/app.js';
import {bannerRows, rolledBackLine} from '../../source/ui/components/banner.js';
import {activityLine} from '../../source/ui/panes/activity.js';
import {renderAt} from '../helpers/render.js';
import {
	INCIDENT_CHAT,
	INCIDENT_ORPHAN,
	INCIDENT_STORE,
	INCIDENT_ZOMBIE,
	postRestartIncident,
} from '../helpers/post-restart.js';

const NOW = 1_786_670_000;
let dir: string;
let live: LiveStore;

beforeAll(async () => {
	dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-rolled-back-'));
	live = LiveStore.open({path: await postRestartIncident(dir), owner: 'default', label: 'fixture'}, {watch: false});
});
afterAll(() => {
	live.close();
	fs.rmSync(dir, {recursive: true, force: true});
});

describe('the banner after a restart', () => {
	it(
		'says ROLLED BACK first, whole ids, in every width the TUI draws (60 ' +
			'columns and up), and never "do not restart"',
		() => {
			const {rollbacks} = live.model.analysis;
			expect(rollbacks.map(r => [r.sessionKey, r.resumedId, r.skipped.id])).toEqual([
				[INCIDENT_CHAT, INCIDENT_ZOMBIE, INCIDENT_ORPHAN],
			]);
			expect(rolledBackLine(rollbacks, 160)).toBe(
				' ✗ ROLLED BACK agent:main:telegram:dm:777001: a restart resumed ' +
					'46fab954, a context 4.7 days old; 798 messages stranded in 427c496c · 5 ' +
					'Findings ',
			);
			expect(rolledBackLine(rollbacks, 140)).toBe(
				' ✗ ROLLED BACK agent:main:telegram:dm:777001: a restart resumed ' +
					'46fab954, a context 4.7 days old; 798 messages stranded in 427c496c',
			);
			expect(rolledBackLine(rollbacks, 80)).toBe(
				' ✗ ROLLED BACK …telegram:dm:777001 4.7 days; 798 messages stranded in 427c496c',
			);
			for (let width = 60; width <= 160; width++) {
				const line = rolledBackLine(rollbacks, width);
				expect(line.length, line).toBeLessThanOrEqual(width);
				expect(line).toMatch(/^ ✗ ROLLED BACK \S*7001[: ].*4\.7 days/);
				// An id is shown whole or not at all.
				expect(line.match(/[0-9a-f]*(?:427c|496c)[0-9a-f]*/g) ?? ['427c496c']).toEqual(['427c496c']);
				expect(line).not.toMatch(/do not restart|RISK/);
			}
		},
	);

	it('at 80x24 takes two rows, ROLLED BACK above the rollback risk, and the screen still fits', async () => {
		expect(bannerRows(live.model)).toBe(2);
		const ui = await renderAt(<App live={live} color={false} now={() => NOW} />, 80, 24);
		try {
			const lines = ui.lastFrame().split('\n');
			expect(lines[2]).toBe(' ✗ ROLLED BACK …telegram:dm:777001 4.7 days; 798 messages stranded in 427c496c');
			expect(lines[3]).toBe(' ✗ ROLLBACK RISK 1 chat: …discord:group:9001: skips 20 msgs in 14665640');
			expect(lines.length).toBeLessThanOrEqual(23);
			expect(lines.every(l => l.length <= 80)).toBe(true);
		} finally {
			ui.unmount();
		}
	});
});

describe('statuses, routing and activity after a restart', () => {
	it(
		'the Routing pane marks the chat ✗ ROLLED (not ✓) and its detail says ' +
			'how far back and where the conversation is',
		async () => {
			const ui = await renderAt(<App live={live} color={false} now={() => NOW} />, 80, 24);
			try {
				await ui.press('4');
				await ui.press('/');
				for (const ch of '777001') {
					await ui.press(ch);
				}

				await ui.press('\r');
				const frame = ui.lastFrame();
				expect(frame).toMatch(/^› ✗ ROLLED agent:main:telegram:dm:777001 +→ 20260807_050620_46fab954$/m);
				// The chat's detail wraps at 80 columns: read whole.
				expect(frame).toMatch(
					/^ ✗ ROLLED BACK 4\.7 days: a restart resumed 20260807_050620_46fab954 at\n {3}2026-08-11 21:13 UTC; the 798 messages it skipped are stranded in\n {3}20260807_052242_427c496c \(5 Findings\)$/m,
				);
			} finally {
				ui.unmount();
			}
		},
	);

	it.each([
		[
			INCIDENT_ZOMBIE,
			/^20260807_050620_46fab954 {2}RESUMED-STALE · telegram$[\s\S]*^RESUMED STALE: a restart resumed this row of agent:main:telegram:dm:777001 at 2026-08-11 21:13 UTC, 4\.7 days after/m,
		],
		[
			INCIDENT_ORPHAN,
			/^20260807_052242_427c496c {2}STRANDED · telegram$[\s\S]*^STRANDED: the conversation of agent:main:telegram:dm:777001 a restart skipped at 2026-08-11 21:13 UTC \(strong\); preview its adoption with: hfx repair --only 427c496c --donor 46fab954$/m,
		],
	])('the Detail card of %s says what the restart made of it', async (id, said) => {
		const ui = await renderAt(<App live={live} color={false} now={() => NOW} />, 200, 40);
		try {
			await ui.press('/');
			for (const ch of id.slice(-8)) {
				await ui.press(ch);
			}

			await ui.press('\r');
			await ui.press('\r');
			expect(
				ui
					.lastFrame()
					.split('\n')
					.map(l => l.trim())
					.join('\n'),
			).toMatch(said);
		} finally {
			ui.unmount();
		}
	});

	it('the resumed row is R (resumed stale), the stranded one S, above zombie and orphan', () => {
		const index = statusIndex(live.model.analysis);
		expect([index.get(INCIDENT_ZOMBIE), index.get(INCIDENT_ORPHAN)]).toEqual(['resumed-stale', 'stranded']);
		expect([STATUS_GLYPH['resumed-stale'], STATUS_GLYPH.stranded]).toEqual(['R', 'S']);
	});

	it('the Activity pane: the restart is ROLLED BACK, and the risk it ended is not "cleared"', () => {
		const before = analyze(
			loadStore({path: INCIDENT_STORE, owner: 'default', label: 'before'}, {columns: 'lean'}).snapshot,
		);
		const events = diffActivity(before, live.model.analysis, new Map(), NOW);
		const rolled = events.filter(e => e.kind === 'rolled-back');
		expect(rolled.map(activityLine)).toEqual([
			expect.stringMatching(
				/✗ ROLLED BACK +agent:main:telegram:dm:777001: a restart resumed 20260807_050620_46fab954, a context 4\.7 days old; the 798 messages it skipped are stranded in 20260807_052242_427c496c$/,
			),
		]);
		expect(events.filter(e => e.kind === 'resolved' && e.subject === INCIDENT_CHAT)).toEqual([]);
	});
});
