/**
 * The sessions pane when a model is drawn after the store has read the next commit (issue #26). The live store's
 * analyses share one index of sessions that each refresh patches in place; React draws a published model a moment
 * later, and a refresh may run in that moment. The screen must still show each session once, at its newest message
 * count: a stale copy of the busy row stayed below the fresh one, frozen at its old count (the bench read it as
 * commit-to-screen stalls of seconds).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {App} from '../../../source/ui/app.js';
import {LiveStore} from '../../../source/live/live.js';
import {T0} from '../../fixtures/scenarios.js';
import {renderAt, settle} from '../../helpers/render.js';
import {WriterProcess} from '../../helpers/writer.js';
import {handedSource} from '../../helpers/handed-source.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-late-model-'));
afterAll(() => fs.rmSync(dir, {recursive: true, force: true}));

describe('the sessions pane behind a moving store', () => {
	it('shows a busy session once, at its newest count, when a model is drawn after the next commit', async () => {
		const db = path.join(dir, 'state.db');
		const w = new WriterProcess(db);
		await w.started();
		// Quiet chats enough that one busy session's commit is analysed incrementally.
		for (let i = 0; i < 12; i++) {
			const quiet = await w.create({source: 'discord', userId: `q${i}`, startedAt: T0 - 1000 + i});
			await w.send({op: 'conversation', id: quiet, count: 2, from: T0 - 900 + i, to: T0 - 800 + i});
		}

		const busy = await w.create({
			source: 'telegram',
			userId: 'u42',
			sessionKey: 'agent:main:telegram:dm:42',
			chatId: '42',
			chatType: 'dm',
			startedAt: T0,
		});
		await w.send({op: 'conversation', id: busy, count: 10, from: T0 + 1, to: T0 + 100});
		const live = LiveStore.open({path: db, owner: 'default', label: 'test'}, {watch: false});
		// The store's models, handed to the screen only when the test says (the store publishes to nobody else).
		const {source, publish} = handedSource(live.model, id => live.detail(id));
		const show = () => publish(live.model);
		const ui = await renderAt(<App live={source} color={false} now={() => T0 + 2000} frameMs={0} />, 140, 30);
		const busyCounts = () =>
			ui
				.lastFrame()
				.split('\n')
				.filter(line => line.includes(busy))
				.map(line => Number(/(?:ago|just now)\s+(\d+)/.exec(line)?.[1]));
		const newest = () => {
			const s = live.model.analysis.byId.get(busy)!;
			return s.messageRows ?? s.messageCountColumn;
		};
		try {
			let at = T0 + 100;
			const commit = () => {
				at += 10;
				return w.send({op: 'conversation', id: busy, count: 3, from: at - 9, to: at});
			};
			for (let round = 0; round < 3; round++) {
				await commit();
				expect(live.refresh()).toBe(true);
				await commit();
				// The model of the first commit goes to the screen; before React draws it, the store reads the second.
				show();
				expect(live.refresh()).toBe(true);
				await settle();
				show();
				await settle();
				await commit();
				expect(live.refresh()).toBe(true);
				show();
				await settle();
				expect(busyCounts(), `round ${round}:\n${ui.lastFrame()}`).toEqual([newest()]);
			}
		} finally {
			ui.unmount();
			live.close();
			await w.kill();
		}
	});
});
