/**
 * hfx timeline (issue #23) against what already holds: the gateway logs it reads beside the store
 * are a FIFO (class 3: no hang), a link to a file elsewhere (class 2: never followed, the target
 * untouched), a crashed agent's store with no holder (class 1: read in place, its -shm read-only, -shm
 * untouched), and an unknown chat (class 7: one line, exit 2). 0 evidence bytes change in each.
 */
import {spawnSync} from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {crashedStore} from '../fixtures.js';
import type {Fault} from '../types.js';
import {finding, refused, write} from './kit.js';

const KEY = 'agent:main:telegram:dm:1';

export const TIMELINE_FAULTS: Fault[] = [
	{
		id: 'timeline-log-fifo',
		cls: 3,
		outcome: 'finding',
		notes: 'logs/gateway.log beside the store is a FIFO: the timeline is told without it (not read, said so), no hang',
		async setup(t) {
			const s = await crashedStore(t.dir('store'));
			fs.mkdirSync(path.join(s.dir, 'logs'));
			if (spawnSync('mkfifo', [path.join(s.dir, 'logs', 'gateway.log')]).status !== 0) {
				throw new Error('mkfifo failed');
			}

			return {
				evidence: [s.dir],
				steps: [finding(['timeline', KEY, '--db', s.db], {match: /gateway\.log: not read \(a FIFO/})],
			};
		},
	},
	{
		id: 'timeline-log-link',
		cls: 2,
		outcome: 'finding',
		notes: 'logs/gateway.log is a link to a log elsewhere: never followed (O_NOFOLLOW), said so, the target untouched',
		async setup(t) {
			const s = await crashedStore(t.dir('store'));
			const elsewhere = t.dir('elsewhere');
			const target = write(
				path.join(elsewhere, 'gateway.log'),
				'2026-08-09 09:40:12,345 INFO gateway.run: Starting Hermes Gateway...\n',
			);
			fs.mkdirSync(path.join(s.dir, 'logs'));
			fs.symlinkSync(target, path.join(s.dir, 'logs', 'gateway.log'));
			return {
				evidence: [s.dir, elsewhere],
				steps: [
					finding(['timeline', KEY, '--db', s.db], {
						match: /gateway\.log: not read/,
						notMatch: /Starting Hermes Gateway/,
					}),
				],
			};
		},
	},
	{
		id: 'timeline-crashed-store',
		cls: 1,
		outcome: 'finding',
		notes:
			"a crashed agent's store (-wal and -shm, no holder): the timeline reads " +
			'it in place, its -shm read-only; text and --json; -shm untouched',
		async setup(t) {
			const s = await crashedStore(t.dir('store'));
			return {
				evidence: [s.dir],
				steps: [
					finding(['timeline', KEY, '--db', s.db], {match: /ROLLBACK RISK: if the gateway restarts now/}),
					finding(['timeline', s.ids.orphan, '--db', s.db, '--json'], {match: /"kind": "fork"/}),
				],
			};
		},
	},
	{
		id: 'timeline-unknown-chat',
		cls: 7,
		outcome: 'refused',
		notes: 'a chat no row carries: one line naming the store and the next step, exit 2',
		async setup(t) {
			const s = await crashedStore(t.dir('store'));
			return {
				evidence: [s.dir],
				steps: [
					refused(
						['timeline', 'agent:main:telegram:dm:404', '--db', s.db],
						/no chat or session .*Next: list the chats with: hfx routing/,
					),
				],
			};
		},
	},
];
