/**
 * The header is live: as a second process commits, its WAL size follows the -wal file (as the
 * Files pane's does) and its data_version moves; neither stays as at start-up.
 */
import fs from 'node:fs';
import {describe, expect, it} from 'vitest';
import {App} from '../../source/ui/app.js';
import {LiveStore} from '../../source/live/live.js';
import {bytes} from '../../source/text/format.js';
import {T0} from '../fixtures/scenarios.js';
import {renderAt} from '../helpers/render.js';
import {writtenStore} from '../helpers/writer.js';

const store = writtenStore('header');

const header = (frame: string) => frame.split('\n')[0]!;
const walOf = (line: string) => /WAL ([\d.]+ \S+)/.exec(line)?.[1];
const dvOf = (line: string) => Number(/dv (\d+)/.exec(line)?.[1]);

describe('the header', () => {
	it('shows the WAL size and data_version of each commit, not of the start-up', async () => {
		const id = await store.writer.create({
			source: 'telegram',
			userId: 'u',
			sessionKey: 'agent:main:telegram:dm:1',
			chatId: '1',
			chatType: 'dm',
			startedAt: T0,
		});
		await store.writer.send({op: 'conversation', id, count: 2, from: T0 + 1, to: T0 + 2});
		const live = LiveStore.open({path: store.db, owner: 'default', label: 'header'}, {watch: false});
		const ui = await renderAt(<App live={live} color={false} now={() => T0 + 1000} />, 200, 30);
		try {
			const before = header(ui.lastFrame());
			expect(walOf(before)).toBe(bytes(fs.statSync(`${store.db}-wal`).size));
			for (let round = 0; round < 2; round++) {
				const last = header(ui.lastFrame());
				await store.writer.send({
					op: 'conversation',
					id,
					count: 400,
					from: T0 + 10 + round * 500,
					to: T0 + 400 + round * 500,
				});
				const wal = bytes(fs.statSync(`${store.db}-wal`).size);
				expect(wal).not.toBe(walOf(last));
				expect(live.refresh(true)).toBe(true);
				const now = header(await ui.waitFor(f => header(f) !== last));
				expect(walOf(now), now).toBe(wal);
				expect(dvOf(now)).toBeGreaterThan(dvOf(last));
			}
		} finally {
			ui.unmount();
			live.close();
		}
	});
});
