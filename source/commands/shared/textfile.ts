/**
 * The textfile node_exporter's textfile collector reads: replaced atomically (a temp file in the
 * same folder, then rename), so a scrape never sees half a file. The temp name does not end in
 * .prom (the collector ignores it). Refused, before anything is written: a name that does not end in
 * .prom (the collector would never read it), a folder that holds a store (evidence: nothing is
 * ever created beside a store), and a link at the textfile's name (ground/safe-create.ts: the temp is
 * `.<name>.<random>.tmp`, created O_EXCL|O_NOFOLLOW, and a planted link is never followed).
 */
import fs from 'node:fs';
import path from 'node:path';
import {FailClosed, errorMessage, isFailClosed} from '../../ground/errors.js';
import {assertReplaceable, replaceFile} from '../../ground/safe-create.js';
import type {StoreLocation} from '../../store/locate.js';

function realDir(p: string): string {
	try {
		return fs.realpathSync(p);
	} catch {
		return path.resolve(p);
	}
}

/** Throws FailClosed when `target` is not a textfile hfx may write. Returns its absolute path. */
export function checkTextfile(target: string, stores: readonly StoreLocation[]): string {
	const file = path.resolve(target);
	if (!file.endsWith('.prom')) {
		throw new FailClosed({
			file,
			kind: 'textfile-name',
			reason: "node_exporter's textfile collector reads only files ending in .prom",
			next: 'name the file e.g. /var/lib/prometheus/node-exporter/hfx.prom',
		});
	}

	const dir = realDir(path.dirname(file));
	if (stores.some(s => realDir(path.dirname(s.path)) === dir)) {
		throw new FailClosed({
			file,
			kind: 'textfile-beside-store',
			reason: 'this folder holds a Hermes store, and hfx never creates files beside a store',
			next: "write the textfile into node_exporter's --collector.textfile.directory instead",
		});
	}

	// A link at the textfile's name (dangling or not) is refused before any store is read.
	assertReplaceable(file, 'the metrics textfile');
	return file;
}

/** Writes `text` to `file` atomically. A failure removes the temp file and throws one FailClosed. */
export function writeTextfile(file: string, text: string): void {
	try {
		replaceFile(file, text, {mode: 0o644, what: 'the metrics textfile'});
	} catch (error) {
		if (isFailClosed(error)) {
			throw error;
		}

		throw new FailClosed({
			file,
			kind: 'textfile-unwritable',
			reason: `could not write the metrics: ${errorMessage(error)}`,
			next: "check that the folder exists and that this user may write it (the textfile collector's folder)",
			cause: error,
		});
	}
}
