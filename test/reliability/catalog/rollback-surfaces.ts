/**
 * Class 9, what already holds, on a store past its restart (issue #23 point 1): the v21 incident
 * moved to its post-restart state by a second process (the simulator's writer, closed: no -wal, no
 * -shm). Each surface that is not scan says the rollback that happened, and reads it with 0
 * evidence bytes changed: `hfx metrics` (hfx_rollback_happened_chats 1), `hfx watch` (one
 * rollback-happened event, stopped by SIGTERM), `hfx sessions` (the resumed row R, the stranded S).
 */
import fs from 'node:fs';
import path from 'node:path';
import {postRestartIncident} from '../../helpers/post-restart.js';
import type {Fault, RunResult, Step} from '../types.js';
import {ok, seen, step} from './kit.js';

const ROLLBACK_EVENT =
	/"event":"rollback-happened","sessionKey":"agent:main:telegram:dm:777001","resumedId":"20260807_050620_46fab954"[^\n]*"skippedId":"20260807_052242_427c496c"/;

/** A string is a failure (run-fault's `check`). */
const expectIn = (text: string, pattern: RegExp, what: string): string | null =>
	pattern.test(text) ? null : `${what}: ${pattern} not found in ${text.slice(0, 400)}`;

function pastRestart(
	id: string,
	outcome: Fault['outcome'],
	notes: string,
	steps: (root: string, db: string, out: string) => Step[],
): Fault {
	return {
		id,
		cls: 9,
		outcome,
		notes,
		async setup(t) {
			const root = t.dir('home');
			const db = await postRestartIncident(root);
			return {evidence: [root], steps: steps(root, db, t.dir('out'))};
		},
	};
}

export const ROLLBACK_SURFACES: Fault[] = [
	pastRestart(
		'rollback-surfaces-metrics',
		'ok',
		'metrics --home on a store past its restart: hfx_rollback_happened_chats 1 in the textfile',
		(root, _db, out) => [
			ok(['metrics', '--home', root, '--textfile', path.join(out, 'hfx.prom')], {
				check: () => {
					const file = path.join(out, 'hfx.prom');
					return expectIn(
						fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '',
						/^hfx_rollback_happened_chats\{profile="default"[^}]*\} 1$/m,
						'the rollback gauge',
					);
				},
			}),
		],
	),
	pastRestart(
		'rollback-surfaces-watch',
		'ok',
		'watch --home on a store past its restart: one rollback-happened event naming the stranded row; stopped by SIGTERM',
		root => [
			// Two readings more after the event: it is said once, not at every reading.
			step('killed', ['watch', '--home', root, '--interval', '1s', '--json-lines'], {
				kill: {signal: 'SIGTERM', when: seen([ROLLBACK_EVENT], 2500), afterMs: 20_000},
				check: (r: RunResult) =>
					expectIn(r.stdout, ROLLBACK_EVENT, 'the rollback event') ??
					(r.stdout.split('"event":"rollback-happened"').length === 2 ? null : 'rollback-happened said more than once'),
			}),
		],
	),
	pastRestart(
		'rollback-surfaces-sessions',
		'ok',
		'sessions --db on a store past its restart: the resumed row R, the stranded row S',
		(_root, db) => [
			ok(['sessions', '--db', db], {
				match: /^R {2}20260807_050620_46fab954 [^\n]*\n[\s\S]*^S {2}20260807_052242_427c496c /m,
			}),
		],
	),
];
