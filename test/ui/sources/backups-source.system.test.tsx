/**
 * The Backups pane on its production source over a real Hermes home: the quick snapshot, the
 * verify and the drill run as real `hfx` child processes (dist/hfx.js), the screen keeps drawing
 * while they run, and the list shows their results.
 */
import fs from 'node:fs';
import path from 'node:path';
import {afterAll, afterEach, describe, expect, it} from 'vitest';
import {
	type PaneBackupsSource,
	backupsPaneSource,
	outcomeLine,
	rootOfStore,
} from '../../../source/ui/sources/backups-source.js';
import {LiveStore} from '../../../source/live/live.js';
import {App} from '../../../source/ui/app.js';
import {hfx} from '../../helpers/cli.js';
import {type Rendered, renderAt} from '../../helpers/render.js';
import {cleanupTemps, liveVolumeTarball, makeHome, tempDir} from '../../backup/helpers.js';

let ui: Rendered | undefined;
let live: LiveStore | undefined;
let source: PaneBackupsSource | undefined;
afterEach(() => {
	ui?.unmount();
	source?.close();
	live?.close();
	ui = undefined;
	source = undefined;
	live = undefined;
});
afterAll(cleanupTemps);

// A record's age is read when its child has exited: "just now" (under 5 s) on an idle machine, some seconds on a busy
// one; never minutes.
const row = (frame: string, name: RegExp): string => frame.split('\n').find(l => name.test(l)) ?? '';

describe('the Backups pane on the real source', () => {
	it('S takes a snapshot, v verifies it and D drills it, each in a child process, and the list updates', async () => {
		const home = makeHome('pane');
		live = LiveStore.open({path: home.db, owner: 'default', label: 'default'}, {watch: false});
		source = backupsPaneSource({root: home.root, profile: 'default'});
		ui = await renderAt(<App live={live} backups={source} color={false} />, 140, 30);
		await ui.press('8');
		// The home holds a Hermes zip and an old snapshot (helpers.ts): both listed, neither verified.
		const first = await ui.waitFor(f => f.includes('hermes-backup-2026-01-01-000000.zip'));
		expect(row(first, /^ {2}20260101-000000 /)).toMatch(/\bno\s+no +(this|\?|OTHER)/);

		await ui.press('S');
		// The screen is not blocked: the busy line is drawn while the child runs.
		expect(ui.lastFrame()).toMatch(/taking a quick snapshot of default/);
		const taken = await ui.waitFor(f => /✓ quick snapshot \S+-tui taken and verified/.test(f), 30_000);
		const id = /✓ quick snapshot (\S+-tui)/.exec(taken)![1]!;
		expect(fs.existsSync(path.join(home.root, 'state-snapshots', id, 'state.db'))).toBe(true);
		expect(row(taken, new RegExp(id))).toMatch(/yes, (?:just now|\d+s ago) \(at write\)\s+no +(this|\?|OTHER)/);

		// The cursor is on the zip (row 1); the newest snapshot is row 2.
		await ui.press('j');
		expect(row(ui.lastFrame(), /^›/)).toContain(id);
		await ui.press('v');
		const verified = await ui.waitFor(f => f.includes(`✓ verified ${id}: sound`), 30_000);
		expect(row(verified, new RegExp(id))).not.toContain('(at write)');
		expect(row(verified, new RegExp(id))).toMatch(/yes, (?:just now|\d+s ago)\s+no +(this|\?|OTHER)/);

		await ui.press('D');
		const drilled = await ui.waitFor(f => f.includes(`✓ drill passed ${id}`), 30_000);
		expect(row(drilled, new RegExp(id))).toMatch(
			/yes, (?:just now|\d+s ago)\s+yes, (?:just now|\d+s ago) +(this|\?|OTHER)/,
		);
	});

	it(
		'v on a tarball of the running volume (seed 004): sound, taken live, ' +
			"with the -wal's commits a restore folds; the row says yes (taken live)",
		async () => {
			const scratch = path.join(tempDir('pane-tgz'), 'hermes-data-20261201-120000.tar.gz');
			const {volume} = await liveVolumeTarball('pane-tgz', scratch);
			fs.copyFileSync(scratch, path.join(volume, 'backups', path.basename(scratch)));
			live = LiveStore.open({path: path.join(volume, 'state.db'), owner: 'default', label: 'default'}, {watch: false});
			source = backupsPaneSource({root: volume, profile: 'default'});
			ui = await renderAt(<App live={live} backups={source} color={false} />, 140, 30);
			await ui.press('8');
			const first = await ui.waitFor(f => f.includes(path.basename(scratch)));
			expect(row(first, /^›/)).toContain(path.basename(scratch));
			await ui.press('v');
			const verified = await ui.waitFor(f => f.includes(`✓ verified ${path.basename(scratch)}: sound`), 30_000);
			expect(verified).toMatch(
				/: sound \(taken live: [1-9]\d* -wal commits? a restore folds; sidecars never restored\)/,
			);
			expect(row(verified, /hermes-data-20261201-120000/)).toMatch(
				/yes, (?:just now|\d+s ago) \(taken live\)\s+no +(this|\?|OTHER)/,
			);
			expect(verified).not.toMatch(/DAMAGED|FAILED/);
		},
	);

	it('runs one action at a time and says so; a verify of a damaged snapshot shows DAMAGED', async () => {
		const home = makeHome('pane-bad');
		live = LiveStore.open({path: home.db, owner: 'default', label: 'default'}, {watch: false});
		source = backupsPaneSource({root: home.root, profile: 'default'});
		ui = await renderAt(<App live={live} backups={source} color={false} />, 140, 30);
		await ui.press('8');
		await ui.press('S');
		await ui.press('S');
		expect(ui.lastFrame()).toMatch(/one at a time: taking a quick snapshot of default/);
		const taken = await ui.waitFor(f => /✓ quick snapshot \S+-tui taken/.test(f), 30_000);
		const id = /✓ quick snapshot (\S+-tui)/.exec(taken)![1]!;
		await ui.press('j');
		expect(fs.readdirSync(path.join(home.root, 'state-snapshots')).filter(n => n.endsWith('-tui'))).toEqual([id]);

		// Damage the snapshot's copy (the snapshot, not the evidence): verify must say so.
		const copy = path.join(home.root, 'state-snapshots', id, 'state.db');
		const fd = fs.openSync(copy, 'r+');
		fs.writeSync(fd, Buffer.alloc(4096, 0xff), 0, 4096, 4096);
		fs.closeSync(fd);
		await ui.press('v');
		const failed = await ui.waitFor(f => f.includes(`✗ verify ${id}: DAMAGED`), 30_000);
		expect(row(failed, new RegExp(id))).toMatch(/CHANGED since|FAILED/);
	});
});

describe('the pieces', () => {
	it('reads the list again on its own: an archive made by another process appears', async () => {
		const home = makeHome('pane-reread');
		source = backupsPaneSource({root: home.root, profile: 'default', rereadMs: 100});
		const seen: string[][] = [];
		source.subscribe(m => seen.push(m.entries.map(e => e.name)));
		expect(source.model!.entries.some(e => e.kind === 'hfx-archive')).toBe(false);
		const made = hfx(['backup', '--home', home.root]);
		expect(made.code).toBe(0);
		const end = Date.now() + 5000;
		while (!source.model!.entries.some(e => e.kind === 'hfx-archive') && Date.now() < end) {
			await new Promise(resolve => setTimeout(resolve, 50));
		}

		expect(source.model!.entries.filter(e => e.kind === 'hfx-archive')).toHaveLength(1);
		// A re-read that finds nothing new does not redraw.
		const updates = seen.length;
		await new Promise(resolve => setTimeout(resolve, 350));
		expect(seen.length).toBe(updates);
	});

	it('finds the Hermes root of a profile store and of the default one', () => {
		expect(rootOfStore('/h/profiles/work/state.db', 'work')).toBe('/h');
		expect(rootOfStore('/h/state.db', 'default')).toBe('/h');
		expect(rootOfStore('/x/profiles/work/state.db', 'default')).toBe('/x/profiles/work');
	});

	it('says a child that printed no JSON did not finish, with its last line', () => {
		expect(outcomeLine('verify', 'a.zip', {code: 2, json: null, stderr: ['hfx verify: a.zip: no such file']})).toBe(
			'✗ verify a.zip did not finish (exit 2): hfx verify: a.zip: no such file',
		);
	});
});
