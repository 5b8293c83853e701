/**
 * Class 7 (truthful words), issue #28 point 7: `hfx repair --undo` while an hfx live view (the
 * real TUI, on a pseudo-terminal) is inside one of its reads of the store, its connection open.
 * The undo is refused in one line that names the hfx live view and its pid (quit it with q),
 * never the gateway; nothing of the store changes and no undo is recorded.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import {SCENARIOS, buildScenario} from '../../fixtures/scenarios.js';
import {findHolders} from '../../../source/store/files/holders.js';
import type {Fault, TempSpace} from '../types.js';
import {ok, refused, repairWrites, step} from './kit.js';

/** The incident store, in rollback-journal mode: a live view reads it in place, a connection open for each read. */
function journalStore(t: TempSpace): string {
	const {dbPath} = buildScenario(SCENARIOS.find(s => s.id === 'R1')!, 'v30', {dir: t.dir('store')});
	const db = new Database(dbPath);
	db.pragma('journal_mode = DELETE');
	db.close();
	return dbPath;
}

/** Waits (10 s at most) until a live view of the real binary holds the store. */
function liveViewHolding(db: string): () => Promise<void> {
	return async () => {
		for (let i = 0; i < 100; i++) {
			if (findHolders(db).holders.some(h => /\bhfx\.js\b/.test(h.cmdline))) {
				return;
			}

			await new Promise(resolve => setTimeout(resolve, 100));
		}
	};
}

export const UNDO_TUI: Fault[] = [
	{
		id: 'undo-tui-held-by-live-view',
		cls: 7,
		outcome: 'refused',
		notes:
			'`repair --undo` while the real hfx live view is inside a read of the ' +
			'store (rollback journal: read in place): refused in one line naming the ' +
			'hfx live view and its pid, never the gateway; no undo recorded',
		needs: ['script'],
		setup(t) {
			const db = journalStore(t);
			const audit = path.join(path.dirname(db), 'hfx-audit.jsonl');
			return {
				evidence: [path.dirname(db)],
				mayWrite: repairWrites(db),
				measureFrom: 2,
				steps: [
					ok(['repair', '--db', db, '--apply', '--yes']),
					// C-l re-reads the store now; the read stops 8 s with its connection open; the live view is stopped after.
					step('killed', ['--db', db], {
						pty: true,
						concurrent: true,
						input: '\u000C',
						env: {HFX_TEST_PAUSE_AT: 'live-read', HFX_TEST_PAUSE_MS: '8000'},
						kill: {signal: 'SIGTERM', afterMs: 12_000},
					}),
					refused(
						['repair', '--db', db, '--undo', '2', '--yes'],
						/pid (\d+) \(hfx live view: .*quit hfx \(pid \1: the hfx live view, with q\)/,
						{
							before: liveViewHolding(db),
							notMatch: /gateway/,
							check: () => (fs.readFileSync(audit, 'utf8').includes('"mode":"undo"') ? 'an undo was recorded' : null),
						},
					),
				],
			};
		},
	},
];
