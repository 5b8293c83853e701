/**
 * The private folders of one run: its scratch folders, its TMPDIR and HOME, its tmpfs mounts and
 * what must be stopped after it. All of it is removed when the run ends.
 */
import {spawnSync} from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type {TempSpace} from './types.js';

export type OwnedSpace = TempSpace & {base: string; home: string; dispose: () => Promise<void>};

function unlock(dir: string): void {
	// Restore permissions a fault took away, so the folder can be removed.
	spawnSync('chmod', ['-R', 'u+rwx', dir]);
}

export function tempSpace(tag: string): OwnedSpace {
	const base = fs.mkdtempSync(path.join(os.tmpdir(), `hfx-rel-${tag.replaceAll(/[^\w-]/g, '_').slice(0, 40)}-`));
	const tmpdir = path.join(base, 'tmp');
	const home = path.join(base, 'user-home');
	fs.mkdirSync(tmpdir);
	fs.mkdirSync(home);
	const cleanups: Array<() => void | Promise<void>> = [];
	let n = 0;
	const space: OwnedSpace = {
		base,
		home,
		tmpdir,
		dir(t) {
			const d = path.join(base, `${++n}-${t}`);
			fs.mkdirSync(d, {recursive: true});
			return d;
		},
		tmpfs(options) {
			if (process.getuid?.() !== 0) {
				return null;
			}

			const d = space.dir('tmpfs');
			if (spawnSync('mount', ['-t', 'tmpfs', '-o', options, 'tmpfs', d]).status !== 0) {
				return null;
			}

			cleanups.push(() => {
				spawnSync('umount', ['-l', d]);
			});
			return d;
		},
		onCleanup(fn) {
			cleanups.push(fn);
		},
		async dispose() {
			for (const fn of cleanups.splice(0).reverse()) {
				await fn();
			}

			unlock(base);
			fs.rmSync(base, {recursive: true, force: true});
		},
	};
	return space;
}

/** Every name left under a folder (recursive), for "nothing left in the temp folder". */
export function leftIn(dir: string): string[] {
	try {
		return fs.readdirSync(dir, {recursive: true}).map(String).sort();
	} catch {
		return [];
	}
}
