/**
 * Our temp artefacts, one policy for every command: each is named recognisably
 * (`hfx-<kind>-<pid>-<rand>`), registered for removal on exit and on SIGINT/SIGTERM/SIGHUP
 * (through ground/interrupts.ts), and what a SIGKILLed run left is swept by the next run of any command:
 * only names of this form, owned by this user, whose pid no longer runs. Nothing else is touched.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {FailClosed, errorCode} from './errors.js';
import {onInterruptOrExit} from './interrupts.js';
import {isPidAlive} from './liveness.js';
import {testPause} from './test-pause.js';

/** `hfx-<kind>-<pid>-<8 hex>`: the kind is lowercase letters. */
export const OWN_TEMP = /^hfx-([a-z]+)-(\d+)-[0-9a-f]{8}$/;

const temps = new Set<string>();
let hooked = false;

function cleanupTemps(): void {
	for (const p of [...temps]) {
		try {
			fs.rmSync(p, {recursive: true, force: true});
		} catch {
			// best effort on the way out: the next run sweeps what is left
		}
	}

	temps.clear();
}

/** Removed on exit and on SIGINT/SIGTERM/SIGHUP (never on SIGKILL: the next run sweeps it). */
export function registerTemp(p: string): void {
	hookOnce();
	temps.add(p);
}

/**
 * The clean-up hook, installed before a temp exists (a signal between the mkdir and the add would otherwise find none).
 */
function hookOnce(): void {
	if (!hooked) {
		hooked = true;
		onInterruptOrExit(cleanupTemps);
	}
}

export function unregisterTemp(p: string): void {
	temps.delete(p);
}

export function removeTemp(p: string): void {
	fs.rmSync(p, {recursive: true, force: true});
	temps.delete(p);
}

/** The temp folder itself is unusable (missing, not a folder, not writable): one line naming it and TMPDIR. */
function tempFolderFailure(parent: string, error: unknown): unknown {
	const code = errorCode(error);
	if (code !== 'ENOENT' && code !== 'ENOTDIR' && code !== 'EACCES' && code !== 'EPERM' && code !== 'EROFS') {
		return error;
	}

	const why =
		code === 'ENOENT' ? 'does not exist' : code === 'ENOTDIR' ? 'is not a folder' : `is not writable (${code})`;
	return new FailClosed({
		file: parent,
		kind: 'temp-folder',
		reason:
			`the temp folder ${why}; hfx makes its working folders (private read ` +
			`copies, extractions, drills) there and nowhere else`,
		next: 'point TMPDIR at a folder this user can write (e.g. TMPDIR=/var/tmp), then run again',
		cause: error,
	});
}

/** A new private folder (0700) `hfx-<kind>-<pid>-<rand>` in `parent` (the temp folder), registered for removal. */
export function ownTempDir(kind: string, parent = os.tmpdir()): string {
	if (!/^[a-z]+$/.test(kind)) {
		throw new Error(`temp kind must be lowercase letters: ${kind}`);
	}

	// The signal handlers first: a Ctrl-C from the moment the folder exists finds it registered
	// (Node runs the handler only between two pieces of JavaScript, and the mkdir and the add are one).
	hookOnce();
	for (let attempt = 0; ; attempt++) {
		const dir = path.join(parent, `hfx-${kind}-${process.pid}-${crypto.randomBytes(4).toString('hex')}`);
		try {
			fs.mkdirSync(dir, {mode: 0o700});
			registerTemp(dir);
			testPause(`temp-${kind}`);
			return dir;
		} catch (error) {
			if (errorCode(error) !== 'EEXIST' || attempt >= 3) {
				throw tempFolderFailure(parent, error);
			}
		}
	}
}

/** Bytes free for this user in the folder (null when the file system does not say). */
export function freeBytes(dir: string): number | null {
	try {
		const st = fs.statfsSync(dir);
		return Number(st.bavail) * Number(st.bsize);
	} catch {
		return null;
	}
}

/**
 * Removes our own debris from `dir` (the temp folder): `hfx-<kind>-<pid>-<rand>` entries owned by
 * this user whose pid is dead. A link is never followed (only an entry that is a real folder or
 * file qualifies). Returns the removed names; a removal that fails is left for the next run.
 */
export function sweepOwnTemps(dir = os.tmpdir()): string[] {
	let names: string[];
	try {
		names = fs.readdirSync(dir);
	} catch {
		return [];
	}

	const uid = process.getuid?.();
	const removed: string[] = [];
	for (const name of names) {
		const m = OWN_TEMP.exec(name);
		const pid = Number(m?.[2]);
		if (!m || pid === process.pid || pid <= 0 || isPidAlive(pid)) {
			continue;
		}

		const p = path.join(dir, name);
		try {
			const st = fs.lstatSync(p);
			if ((st.isDirectory() || st.isFile()) && (uid === undefined || st.uid === uid)) {
				fs.rmSync(p, {recursive: true, force: true});
				removed.push(name);
			}
		} catch {
			// gone meanwhile, or not ours to remove: left as it is
		}
	}

	return removed;
}
