/**
 * Class 3: hangs. A FIFO where hfx expects a file it did not create (-wal, -shm, the archive,
 * sessions.json) must end the command in one line (or a finding), never block: the suite's hard
 * timeout (30 s) kills the process group and reports a hang. Nothing may be written, and the FIFO
 * must not be opened for writing (a writer would unblock a reader).
 */
import {spawnSync} from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {crashedStore, home} from '../fixtures.js';
import type {Fault, Step} from '../types.js';
import {refused, step} from './kit.js';

function fifo(file: string): void {
	fs.rmSync(file, {force: true, recursive: true});
	if (spawnSync('mkfifo', [file]).status !== 0) {
		throw new Error(`mkfifo ${file} failed`);
	}
}

function fifoSidecar(id: string, sidecar: '-wal' | '-shm'): Fault {
	return {
		id,
		cls: 3,
		outcome: 'refused',
		notes: `state.db${sidecar} is a FIFO: files, scan and backup --quick end, one line`,
		async setup(t) {
			const s = await crashedStore(t.dir('store'));
			fifo(`${s.db}${sidecar}`);
			const steps: Step[] = [
				step('unsound', ['files', '--db', s.db]),
				refused(['scan', '--db', s.db], /FIFO|pipe|not a regular file/i),
				step('unsound', ['backup', '--quick', '--db', s.db], {match: /FIFO|pipe|not a regular file/i}),
			];
			return {evidence: [s.dir], steps, mayWrite: [`${path.join(s.dir, 'state-snapshots')}/`]};
		},
	};
}

function fifoArchive(id: string, command: 'verify' | 'restore'): Fault {
	return {
		id,
		cls: 3,
		outcome: 'refused',
		notes: `a FIFO given to ${command} as the archive`,
		setup(t) {
			const dir = t.dir('archives');
			const a = path.join(dir, 'hfx-backup-2026-01-01T000000Z.zip');
			fifo(a);
			const target = path.join(t.dir('target'), 'home');
			const args = command === 'verify' ? ['verify', a] : ['restore', a, '--to', target, '--yes'];
			return {evidence: [dir], steps: [refused(args, /FIFO|pipe|not a regular file/i)]};
		},
	};
}

export const HANGS: Fault[] = [
	fifoSidecar('fifo-as-wal', '-wal'),
	fifoSidecar('fifo-as-shm', '-shm'),
	{
		id: 'fifo-as-wal-tui',
		cls: 3,
		outcome: 'refused',
		needs: ['script'],
		notes:
			'the TUI on a pseudo-terminal with a FIFO as state.db-wal: ends (one line) or quits on q, never needs kill -9',
		async setup(t) {
			const s = await crashedStore(t.dir('store'));
			fifo(`${s.db}-wal`);
			return {evidence: [s.dir], steps: [step('any', ['--db', s.db], {pty: true, input: 'q'})]};
		},
	},
	{
		id: 'tui-quits-on-q-crashed',
		cls: 1,
		outcome: 'ok',
		needs: ['script'],
		notes:
			"the TUI on a pseudo-terminal over a crashed agent's store, q typed: exit 0, 0 bytes changed (-shm included)",
		async setup(t) {
			const s = await crashedStore(t.dir('store'));
			return {evidence: [s.dir], steps: [step('ok', ['--db', s.db], {pty: true, input: 'q'})]};
		},
	},
	fifoArchive('fifo-as-archive-verify', 'verify'),
	fifoArchive('fifo-as-archive-restore', 'restore'),
	{
		id: 'fifo-as-sessions-json',
		cls: 3,
		outcome: 'finding',
		notes: 'sessions/sessions.json (the legacy routing mirror) is a FIFO: scan ends, says so',
		async setup(t) {
			const h = await home(t.dir('home'));
			fs.mkdirSync(path.join(h.root, 'sessions'), {recursive: true});
			fifo(path.join(h.root, 'sessions/sessions.json'));
			return {
				evidence: [h.root],
				steps: [step('unsound', ['scan', '--db', h.db]), step('any', ['routing', '--db', h.db])],
			};
		},
	},
	{
		id: 'fifo-in-home-backup',
		cls: 3,
		outcome: 'ok',
		notes: "a FIFO among the home's files (memories/pipe): backup skips it (exit 0 or 1), never blocks",
		async setup(t) {
			const h = await home(t.dir('home'));
			fifo(path.join(h.root, 'memories/pipe'));
			return {evidence: [h.root], steps: [step('any-verdict', ['backup', '--home', h.root, '-o', t.dir('out')])]};
		},
	},
];
