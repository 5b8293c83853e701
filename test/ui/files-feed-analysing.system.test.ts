/**
 * The Files pane's probe waits for the first analysis (issue #26: the findings first): on a live store opened from a
 * preview, with the pane hidden, no probe runs (it scans /proc for the holders) until the analysis is published, then
 * one runs, a moment after the analysis's frame; shown meanwhile, it runs at once. Hidden after that, it does not run
 * at all (it ran every 15 s); shown again, at once. On a copy of the v21 incident store held open by a writer process.
 */
import path from 'node:path';
import {afterEach, describe, expect, it, vi} from 'vitest';
import {LiveStore} from '../../source/live/live.js';
import {FilesProbe} from '../../source/store/files/files-probe.js';
import {startFilesProbe} from '../../source/ui/sources/files-feed.js';
import {copyIncident, incidentWriter} from '../helpers/post-restart.js';
import {scratch} from '../helpers/scratch.js';

const {dir, cleanups} = scratch('hfx-files-analysing-');
afterEach(() => vi.restoreAllMocks());

let n = 0;
async function previewed(): Promise<LiveStore> {
	const db = copyIncident(path.join(dir, `s${n++}`));
	const writer = await incidentWriter(db);
	cleanups.push(() => writer.kill());
	const live = LiveStore.openPreview({path: db, owner: 'default', label: 'files'}, {watch: false}, 5);
	cleanups.push(() => live.close());
	return live;
}

/** Every timer due by now has run (the first poll's is due at once). */
const timersRun = () => new Promise(resolve => setTimeout(resolve, 20));

describe('the files probe during the first analysis', () => {
	it('does not run with the pane hidden until the analysis is published, then runs', async () => {
		const live = await previewed();
		const read = vi.spyOn(FilesProbe.prototype, 'read');
		const files = startFilesProbe(live, {firstPollMs: 0});
		cleanups.push(() => files.close());
		await timersRun();
		expect(live.model.analysing).toBeDefined();
		expect(read).not.toHaveBeenCalled();
		await live.analyseFirst();
		expect(live.model.analysing).toBeUndefined();
		// Not in the analysis's own frame (a key pressed then is answered first): a moment after it.
		await timersRun();
		expect(read).not.toHaveBeenCalled();
		await new Promise(resolve => setTimeout(resolve, 400));
		expect(read).toHaveBeenCalledTimes(1);
	});

	it('runs at once when the pane is shown during the analysis', async () => {
		const live = await previewed();
		const read = vi.spyOn(FilesProbe.prototype, 'read');
		const files = startFilesProbe(live, {firstPollMs: 0});
		cleanups.push(() => files.close());
		files.setVisible?.(true);
		expect(live.model.analysing).toBeDefined();
		expect(read).toHaveBeenCalledTimes(1);
	});
});

describe('the files probe with the pane hidden', () => {
	it('does not run after its first probe until the pane is shown, then runs at once', async () => {
		const live = await previewed();
		await live.analyseFirst();
		const read = vi.spyOn(FilesProbe.prototype, 'read');
		// The feed's cadence is a setInterval checked against Date.now(): both faked, a minute passes at once.
		vi.useFakeTimers({toFake: ['setInterval', 'Date']});
		cleanups.push(() => {
			vi.useRealTimers();
		});
		const files = startFilesProbe(live, {firstPollMs: 0});
		cleanups.push(() => files.close());
		for (let i = 0; i < 250 && read.mock.calls.length === 0; i++) {
			await timersRun();
		}

		expect(read).toHaveBeenCalledTimes(1);
		await read.mock.results[0]!.value;
		for (let second = 0; second < 60; second++) {
			vi.advanceTimersByTime(1000);
			await timersRun();
		}

		expect(read).toHaveBeenCalledTimes(1);
		files.setVisible?.(true);
		expect(read).toHaveBeenCalledTimes(2);
	});
});
