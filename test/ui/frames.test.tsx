/**
 * Golden frames of every pane at 80x24 and 140x40, colours off, on the real Hermes fixture.
 * The frames are committed under snapshots/ and double as the screenshots of the README.
 */
import fs from 'node:fs';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {App} from '../../source/ui/app.js';
import {PANES} from '../../source/ui/pane-names.js';
import {LiveStore} from '../../source/live/live.js';
import {FilesProbe} from '../../source/store/files/files-probe.js';
import {describeFiles} from '../../source/report/files/files-text.js';
import type {FilesModel, FilesSource} from '../../source/ui/sources/files-model.js';
import type {BackupsSource} from '../../source/ui/sources/backups-model.js';
import {renderAt} from '../helpers/render.js';
import {ROOT} from '../helpers/writer.js';

/** A fixed path: it appears in the header of every frame. */
const GOLDEN_DIR = '/tmp/hfx-golden-frames';
const GOLDEN_NOW = 1_786_670_000;

let live: LiveStore;
let files: FilesSource;
const backups: BackupsSource = {
	model: {entries: [], busy: null, last: null, root: GOLDEN_DIR},
	subscribe: () => () => {},
	verify() {},
	drill() {},
	snapshot() {},
};

beforeAll(async () => {
	fs.rmSync(GOLDEN_DIR, {recursive: true, force: true});
	fs.mkdirSync(GOLDEN_DIR, {recursive: true});
	fs.copyFileSync(path.join(ROOT, 'test/fixtures/hermes-v21-incident/state.db'), path.join(GOLDEN_DIR, 'state.db'));
	live = LiveStore.open({path: path.join(GOLDEN_DIR, 'state.db'), owner: 'default', label: 'fixture'}, {watch: false});
	const probe = new FilesProbe(path.join(GOLDEN_DIR, 'state.db'), {holdersEveryMs: 0});
	const report = await probe.read();
	await probe.close();
	const model: FilesModel = {lines: describeFiles(report, 'wal'), holders: report.holders, updatedAt: report.readAt};
	files = {model, subscribe: () => () => {}};
});
afterAll(() => {
	live.close();
	fs.rmSync(GOLDEN_DIR, {recursive: true, force: true});
});

const SIZES = [
	[80, 24],
	[140, 40],
] as const;

describe.each(SIZES)('golden frames at %ix%i', (columns, rows) => {
	it.each(PANES.map((p, i) => [p, i] as const))('%s pane', async (pane, index) => {
		const ui = await renderAt(
			<App live={live} files={files} backups={backups} color={false} now={() => GOLDEN_NOW} />,
			columns,
			rows,
		);
		try {
			// The Detail and Lineage panes follow the selected session: select the incident's orphan.
			if (pane === 'detail' || pane === 'lineage') {
				await ui.press('/');
				for (const ch of '427c496c') {
					await ui.press(ch);
				}

				await ui.press('\r');
			}

			await ui.press(String(index + 1));
			const frame = ui.lastFrame();
			const lines = frame.split('\n');
			expect(lines.length).toBeLessThanOrEqual(rows - 1);
			for (const line of lines) {
				expect(line.length, line).toBeLessThanOrEqual(columns);
			}

			await expect(`${frame}\n`).toMatchFileSnapshot(path.join(ROOT, 'snapshots', `${pane}-${columns}x${rows}.txt`));
		} finally {
			ui.unmount();
		}
	});
});
