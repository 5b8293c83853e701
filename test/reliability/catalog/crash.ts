/**
 * Class 1: after the agent crashed (its -wal and -shm left, no process holding them) every
 * read-only command must leave every byte of the folder as the crash left it, -shm included
 * (SQLite opening the originals would recover the WAL index and rewrite the -shm). Backups write
 * only their own output: the archive outside the home, a quick snapshot in state-snapshots/.
 */
import path from 'node:path';
import {crashedHome, crashedStore} from '../fixtures.js';
import type {Fault, Step, StepExpect} from '../types.js';
import {step} from './kit.js';

function onCrashed(id: string, expect: StepExpect, args: (db: string, ids: {orphan: string}) => string[]): Fault {
	return {
		id,
		cls: 1,
		outcome: expect === 'finding' ? 'finding' : 'ok',
		notes: `hfx ${args('DB', {orphan: 'ID'}).join(' ')} on a crashed agent's store`,
		async setup(t) {
			const s = await crashedStore(t.dir('store'));
			return {evidence: [s.dir], steps: [step(expect, args(s.db, s.ids))]};
		},
	};
}

function backupOfCrashed(id: string, quick: boolean): Fault {
	return {
		id,
		cls: 1,
		outcome: 'ok',
		notes: quick ? 'backup --quick: writes only state-snapshots/' : 'backup -o OUT of a crashed home: writes only OUT',
		async setup(t) {
			const h = await crashedHome(t.dir('home'));
			const out = t.dir('out');
			const steps: Step[] = [
				step('ok', quick ? ['backup', '--quick', '--home', h.root] : ['backup', '--home', h.root, '-o', out]),
			];
			return {evidence: [h.root], steps, mayWrite: [`${path.join(h.root, 'state-snapshots')}/`]};
		},
	};
}

export const CRASH: Fault[] = [
	onCrashed('crashed-scan', 'finding', db => ['scan', '--db', db]),
	onCrashed('crashed-scan-json', 'finding', db => ['scan', '--db', db, '--json']),
	onCrashed('crashed-sessions', 'ok', db => ['sessions', '--db', db]),
	onCrashed('crashed-routing', 'finding', db => ['routing', '--db', db]),
	onCrashed('crashed-lineage', 'ok', (db, ids) => ['lineage', ids.orphan, '--db', db]),
	onCrashed('crashed-repair-dry-run', 'any-verdict', db => ['repair', '--db', db]),
	onCrashed('crashed-files', 'any-verdict', db => ['files', '--db', db]),
	backupOfCrashed('crashed-backup', false),
	backupOfCrashed('crashed-backup-quick', true),
];
