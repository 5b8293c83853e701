/**
 * The debris of killed runs on the backup side, beside its outputs and restore targets: the temp
 * names that the sweep recognises, and the sweep of what SIGKILLed runs left behind (the registry
 * that removes temps on exit and on signals is source/ground/temps.ts, the project's one policy).
 */
import fs from 'node:fs';
import path from 'node:path';
import {randomHex} from '../ground/crypto.js';
import {isPidAlive} from '../ground/liveness.js';

/**
 * Removes debris of earlier runs that were killed with SIGKILL: `.hfx-*` temp names that embed
 * the pid of a process that no longer runs. Returns the removed names.
 */
export function sweepDebris(dir: string): string[] {
	let names: string[];
	try {
		names = fs.readdirSync(dir);
	} catch {
		return [];
	}

	const removed: string[] = [];
	for (const name of names) {
		const m = /^\.hfx-.*?[.-]p(\d+)[.-]/.exec(name) ?? /^\..*\.hfx-p(\d+)(?:\.[0-9a-f]{16})?\.partial$/.exec(name);
		if (!m || !name.endsWith('.partial')) {
			continue;
		}

		const pid = Number(m[1]);
		if (pid === process.pid || isPidAlive(pid)) {
			continue;
		}

		fs.rmSync(path.join(dir, name), {recursive: true, force: true});
		removed.push(name);
	}

	return removed;
}

/** A temp name in `dir` that sweepDebris recognises: `.hfx-<what>.p<pid>.<rand>.partial`. */
export function tempPath(dir: string, what: string): string {
	return path.join(dir, `.hfx-${what}.p${process.pid}.${randomHex(4)}.partial`);
}

/**
 * A restore's staged file beside its destination: `.<name>.hfx-p<pid>.<16 hex>.partial` (restore/stage.ts; the random
 * part makes it unguessable).
 */
const RESTORE_PARTIAL = /^\..+\.hfx-p(\d+)(?:\.[0-9a-f]{16})?\.partial$/;

/**
 * Before a restore stages into `dirs` (the folders of its destinations): removes the staged files
 * of earlier restores that were SIGKILLed (our partial names only, regular files only, whose pid is
 * dead). Nothing else in the target is touched. Returns the removed paths.
 */
export function sweepRestorePartials(dirs: Iterable<string>): string[] {
	const removed: string[] = [];
	for (const dir of new Set(dirs)) {
		let names: string[];
		try {
			names = fs.readdirSync(dir);
		} catch {
			continue;
		}

		for (const name of names) {
			const pid = Number(RESTORE_PARTIAL.exec(name)?.[1] ?? 0);
			const p = path.join(dir, name);
			if (pid > 0 && pid !== process.pid && !isPidAlive(pid) && fs.lstatSync(p, {throwIfNoEntry: false})?.isFile()) {
				fs.rmSync(p, {force: true});
				removed.push(p);
			}
		}
	}

	return removed;
}
