/**
 * Terminal injection in the TUI (issue #17, class 8): every pane and the repair flow on a store
 * whose titles, names, ids, keys and source hold CSI/OSC/DCS escapes, CR/LF, a bidi override and
 * a C1 CSI, in a folder whose name holds some too, held by a process whose command line does, with
 * a backup whose name and failure do. No frame holds a raw ESC, C0 (but the row breaks) or C1
 * character, a bidi control or an invisible format character; rows are never split; the data is
 * there, escaped. Colours off: hfx adds no escape of its own, so any would be the data's.
 */
import {type ChildProcess, spawn} from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {App} from '../../source/ui/app.js';
import {PANES} from '../../source/ui/pane-names.js';
import {repairServiceFor} from '../../source/ui/repair/repair-service.js';
import {LiveStore} from '../../source/live/live.js';
import {FilesProbe} from '../../source/store/files/files-probe.js';
import {describeFiles} from '../../source/report/files/files-text.js';
import type {BackupsSource} from '../../source/ui/sources/backups-model.js';
import type {FilesSource} from '../../source/ui/sources/files-model.js';
import {EVIL, type HostileStore, buildHostileStore} from '../helpers/hostile-store.js';
import {renderAt} from '../helpers/render.js';

const RAW = /[\u0000-\u0009\u000B-\u001F\u007F-\u009F\u2028\u2029\u200B\u200E\u200F\u202A-\u202E\u2066-\u2069\uFEFF]/u;
const NOW = 1_786_670_000;

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-tui-injection-'));
const home = path.join(tmp, 'home\u001B]0;x\u0007\u202E');
let store: HostileStore;
let live: LiveStore;
let files: FilesSource;
let holder: ChildProcess;
let backups: BackupsSource;

beforeAll(async () => {
	fs.mkdirSync(home);
	store = buildHostileStore(home);
	holder = spawn(
		process.execPath,
		[
			'-e',
			'require("fs").openSync(process.argv[1], "r"); setTimeout(() => {}, 60000); console.log("open")',
			store.dbPath,
			EVIL,
		],
		{argv0: `evil${EVIL}`, stdio: ['ignore', 'pipe', 'inherit']},
	);
	await new Promise<void>((resolve, reject) => {
		const timer = setTimeout(() => reject(new Error('holder did not start')), 10_000);
		holder.stdout!.once('data', () => {
			clearTimeout(timer);
			resolve();
		});
	});
	live = LiveStore.open({path: store.dbPath, owner: 'default', label: `label${EVIL}`}, {watch: false});
	const probe = new FilesProbe(store.dbPath, {holdersEveryMs: 0});
	const report = await probe.read();
	await probe.close();
	expect(report.holders.holders.map(h => h.pid)).toContain(holder.pid);
	files = {
		model: {lines: describeFiles(report, 'wal'), holders: report.holders, updatedAt: report.readAt},
		subscribe: () => () => {},
	};
	const entry = {
		path: path.join(home, `backups/b${EVIL}.zip`),
		name: `b${EVIL}.zip`,
		kind: 'hfx-archive' as const,
		profile: null,
		createdAt: NOW - 60,
		ageSeconds: 60,
		size: 1234,
		verified: null,
		drilled: null,
		lastFailure: {at: NOW - 30, event: 'verify', summary: `damaged ${EVIL}`},
		complete: true,
		changedSinceRecorded: false,
		seal: null,
		home: `${home}${EVIL}`,
		owner: 'other' as const,
	};
	backups = {
		model: {entries: [entry], busy: `verifying b${EVIL}.zip`, last: `verify failed: ${EVIL}`, root: home},
		subscribe: () => () => {},
		verify() {},
		drill() {},
		snapshot() {},
	};
});
afterAll(() => {
	holder?.kill('SIGKILL');
	live?.close();
	fs.rmSync(tmp, {recursive: true, force: true});
});

function expectSafeFrame(frame: string, what: string, columns: number, rows: number): void {
	expect(RAW.exec(frame)?.[0], `${what}: ${JSON.stringify(frame.slice(0, 300))}`).toBeUndefined();
	const lines = frame.split('\n');
	expect(lines.length, what).toBeLessThanOrEqual(rows - 1);
	for (const line of lines) {
		expect(line.length, `${what}: ${line}`).toBeLessThanOrEqual(columns);
	}
}

describe.each([
	[80, 24],
	[140, 40],
] as const)('the TUI at %ix%i', (columns, rows) => {
	it('no pane shows a raw escape from the data, and each shows the data escaped', async () => {
		const ui = await renderAt(
			<App live={live} files={files} backups={backups} color={false} now={() => NOW} />,
			columns,
			rows,
		);
		try {
			let escaped = 0;
			for (const [index, pane] of PANES.entries()) {
				if (pane === 'detail' || pane === 'lineage') {
					await ui.press('1');
					await ui.press('/');
					for (const ch of store.zombie.slice(-8)) {
						await ui.press(ch);
					}

					await ui.press('\r');
				}

				await ui.press(String(index + 1));
				const frame = ui.lastFrame();
				expectSafeFrame(frame, pane, columns, rows);
				escaped += frame.includes('\\x1b') ? 1 : 0;
				if (pane === 'detail') {
					// A message's text: its newline folded to a space as before, its escapes shown.
					expect(frame).toContain('hi \\x1b[2J');
				}
			}

			// Every pane that lists a store's strings, a holder's command line or a backup's name shows them escaped.
			expect(escaped).toBeGreaterThanOrEqual(6);
			for (const frame of ui.frames()) {
				expect(RAW.exec(frame.replaceAll('\n', ''))?.[0]).toBeUndefined();
			}
		} finally {
			ui.unmount();
		}
	});
});

describe('the repair flow', () => {
	it("shows the hostile key, values and the holder's command line escaped", async () => {
		const ui = await renderAt(
			<App
				live={live}
				files={files}
				backups={backups}
				repair={repairServiceFor({dbPath: store.dbPath, owner: 'default', maxGapSeconds: 900})}
				color={false}
				now={() => NOW}
			/>,
			140,
			40,
		);
		try {
			await ui.press('5');
			await ui.press('r');
			const frame = await ui.waitFor(f => f.includes(`→ adopt ${store.orphan}`) && f.includes(`pid ${holder.pid}`));
			expectSafeFrame(frame, 'repair flow', 140, 40);
			expect(frame).toContain('agent:main:telegram:dm:77\\x1b[2J');
			expect(frame).toMatch(/evil\\x1b\[2J/);
		} finally {
			ui.unmount();
		}
	});
});
