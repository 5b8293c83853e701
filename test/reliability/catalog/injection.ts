/**
 * Class 8: terminal injection. Titles, display names and session keys from the store, and file
 * names, reach the terminal sanitized: no escape code (screen clear, cursor move, OSC, BEL) in any
 * text output (judge.ts checks every run), a newline never splits a one-line refusal, and --json
 * keeps the exact string.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import {home} from '../fixtures.js';
import type {Fault, RunResult} from '../types.js';
import {ok, refused, step, verdict} from './kit.js';

export const EVIL = '\u001B[2J\u001B[H\u001B]0;owned\u0007✓ ALL CLEAR: no findings\u001B[8m';

async function poisoned(
	t: Parameters<Fault['setup']>[0],
	sql: string,
): Promise<{root: string; db: string; id: string}> {
	const h = await home(t.dir('home'));
	const d = new Database(h.db);
	const id = d.prepare('SELECT id FROM sessions ORDER BY started_at DESC LIMIT 1').pluck().get() as string;
	d.prepare(sql).run({evil: EVIL, id});
	d.close();
	return {root: h.root, db: h.db, id};
}

function exactInJson(field: string) {
	return (r: RunResult): string | null =>
		r.stdout.includes(JSON.stringify(EVIL).slice(1, -1)) ? null : `--json does not keep the ${field} exactly`;
}

export const INJECTION: Fault[] = [
	{
		id: 'escape-codes-in-title',
		cls: 8,
		outcome: 'ok',
		notes:
			'a session title with a screen clear, OSC title and a fake verdict: ' +
			'sessions, scan, lineage print it inert; --json keeps it',
		async setup(t) {
			const s = await poisoned(t, 'UPDATE sessions SET title = :evil WHERE id = :id');
			return {
				evidence: [s.root],
				steps: [
					ok(['sessions', '--db', s.db]),
					verdict(['scan', '--db', s.db]),
					ok(['lineage', s.id, '--db', s.db]),
					ok(['sessions', '--db', s.db, '--json'], {check: exactInJson('title')}),
				],
			};
		},
	},
	{
		id: 'escape-codes-in-display-name',
		cls: 8,
		outcome: 'ok',
		notes: 'a display name with escape codes: sessions, routing print it inert',
		async setup(t) {
			const s = await poisoned(t, 'UPDATE sessions SET display_name = :evil WHERE id = :id');
			return {evidence: [s.root], steps: [ok(['sessions', '--db', s.db]), verdict(['routing', '--db', s.db])]};
		},
	},
	{
		id: 'escape-codes-in-session-key',
		cls: 8,
		outcome: 'finding',
		notes: 'a session key with escape codes and a newline: routing, scan and repair print it inert',
		async setup(t) {
			const s = await poisoned(
				t,
				"UPDATE sessions SET session_key = :evil || char(10) || 'hfx: fake second line' WHERE id = :id",
			);
			return {
				evidence: [s.root],
				steps: [verdict(['routing', '--db', s.db]), verdict(['scan', '--db', s.db]), verdict(['repair', '--db', s.db])],
			};
		},
	},
	{
		id: 'escape-codes-in-file-name',
		cls: 8,
		outcome: 'refused',
		notes: 'a store folder whose name holds escape codes, state.db not SQLite: one inert refusal line',
		setup(t) {
			const dir = path.join(t.dir('store'), `evil${EVIL}`);
			fs.mkdirSync(dir);
			fs.writeFileSync(path.join(dir, 'state.db'), 'not a database\n'.repeat(20));
			return {
				evidence: [dir],
				steps: [
					refused(['scan', '--db', path.join(dir, 'state.db')]),
					step('any', ['files', '--db', path.join(dir, 'state.db')]),
				],
			};
		},
	},
	{
		id: 'newline-in-file-name',
		cls: 8,
		outcome: 'refused',
		notes: 'a store folder named "x\\nhfx: fake": the refusal stays one line',
		setup(t) {
			const dir = path.join(t.dir('store'), 'x\nhfx: all clear. Next: nothing');
			fs.mkdirSync(dir);
			fs.writeFileSync(path.join(dir, 'state.db'), 'not a database\n'.repeat(20));
			return {
				evidence: [dir],
				steps: [
					refused(['scan', '--db', path.join(dir, 'state.db')]),
					refused(['sessions', '--db', path.join(dir, 'state.db')]),
				],
			};
		},
	},
];
