/**
 * Temp paths of the backup side: a registry of them removed on any exit, including Ctrl-C and
 * SIGTERM (never on SIGKILL: the next run sweeps), the temp names that sweep recognises, and the
 * sweep of debris that killed runs left behind.
 */
import fs from 'node:fs';
import path from 'node:path';
import {randomHex} from '../crypto.js';
import {onInterruptOrExit} from '../interrupts.js';
import {isPidAlive} from './liveness.js';

// Temp paths removed on exit and on SIGINT/SIGTERM/SIGHUP, through the project's one signal
// policy (source/interrupts.ts: a signal inside a critical section waits for it to end).

const temps = new Set<string>();
let hooked = false;

function cleanupTemps(): void {
	for (const p of [...temps]) {
		try {
			fs.rmSync(p, {recursive: true, force: true});
		} catch {
			// best effort on the way out
		}
	}

	temps.clear();
}

function installHooks(): void {
	if (!hooked) {
		hooked = true;
		onInterruptOrExit(cleanupTemps);
	}
}

export function registerTemp(p: string): void {
	installHooks();
	temps.add(p);
}

export function unregisterTemp(p: string): void {
	temps.delete(p);
}

/** A hook run on exit/signal (e.g. releasing a lock file). Returns the remover. */
export function onExit(hook: () => void): () => void {
	return onInterruptOrExit(hook);
}

export function removeTemp(p: string): void {
	fs.rmSync(p, {recursive: true, force: true});
	temps.delete(p);
}

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
		const m = /^\.hfx-.*?[.-]p(\d+)[.-]/.exec(name) ?? /^\..*\.hfx-p(\d+)\.partial$/.exec(name);
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
