/**
 * The repair flow in the TUI, on a real store held by a real "gateway" process: the apply key
 * stays disabled while the gateway holds the files, the checklist turns green when it stops, a
 * typed confirmation applies exactly the previewed plan, and the result shows the new routing.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import React from 'react';
import Database from 'better-sqlite3';
import {afterAll, describe, expect, it} from 'vitest';
import {App} from '../../source/ui/app.js';
import {repairServiceFor} from '../../source/ui/repair-service.js';
import {LiveStore} from '../../source/store/live.js';
import {SCENARIOS, buildScenario} from '../fixtures/scenarios.js';
import {renderAt} from '../helpers/render.js';
import {WriterProcess} from '../helpers/writer.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-tui-repair-'));
afterAll(() => fs.rmSync(dir, {recursive: true, force: true}));

describe('repair from the Findings pane', () => {
	it('previews, waits for the gateway to stop, asks for the typed confirmation, applies and shows the new routing', async () => {
		const {dbPath, ids} = buildScenario(SCENARIOS[0]!, 'v30', {dir});
		const gateway = new WriterProcess(dbPath);
		await gateway.started();
		await gateway.send({op: 'ping'});
		const live = LiveStore.open({path: dbPath, owner: 'default', label: 'test'}, {watch: false});
		const ui = await renderAt(<App live={live} repair={repairServiceFor({dbPath, owner: 'default', maxGapSeconds: 900})} color={false} now={() => Date.now() / 1000} />, 140, 40);
		try {
			await ui.press('5');
			// r on the chat's ROLLBACK RISK finding opens the repair of the orphan holding its newest message.
			await ui.press('r');
			let frame = await ui.waitFor(f => f.includes(`→ adopt ${ids.orphan}`));
			expect(frame).toContain('preview: nothing is written');
			expect(frame).toMatch(/session_key\s+NULL\s+agent:main:telegram:dm:777001/);
			frame = await ui.waitFor(f => f.includes('✗ no other process holds state.db'));
			expect(frame).toContain(`pid ${gateway.pid}`);
			expect(frame).toContain('a apply (disabled)');
			await ui.press('a');
			expect(ui.lastFrame()).toContain('apply is disabled until every precondition holds');
			expect(ui.lastFrame()).not.toContain('type the random suffix');

			await gateway.kill();
			await ui.waitFor(f => f.includes('✓ no other process holds state.db'), 5000);
			await ui.press('a');
			await ui.waitFor(f => f.includes(`to adopt, type the random suffix (${ids.orphan!.split('_').at(-1)}) of ${ids.orphan}:`));
			// The first 8 characters are the orphan's start date, shared with its donor: no longer enough.
			for (const ch of ids.orphan!.slice(0, 8)) {
				await ui.press(ch);
			}

			await ui.press('\r');
			await ui.waitFor(f => f.includes('the confirmation did not match: nothing was written'));
			await ui.press('a');
			await ui.waitFor(f => f.includes('type the random suffix'));
			for (const ch of ids.orphan!.split('_').at(-1)!) {
				await ui.press(ch);
			}

			await ui.press('\r');
			frame = await ui.waitFor(f => f.includes('now owns'), 15_000);
			expect(frame).toContain(`✓ ${ids.orphan} now owns agent:main:telegram:dm:777001; after a restart the gateway resumes ${ids.orphan}`);
			expect(frame).toMatch(/undo with: hfx repair --undo \d+/);
			const check = new Database(dbPath, {readonly: true});
			expect(check.prepare('SELECT session_key FROM sessions WHERE id = ?').pluck().get(ids.orphan)).toBe('agent:main:telegram:dm:777001');
			check.close();
			await ui.press('\u001B');
			frame = await ui.waitFor(f => f.includes('[5 Findings'));
			expect(frame).not.toContain('ROLLBACK RISK');
		} finally {
			ui.unmount();
			live.close();
			await gateway.kill();
		}
	});
});
