/**
 * Reading the files Hermes keeps beside a store without following a link, blocking on a FIFO or
 * reading without bound: a folder's entries (lstat: a link is named, never followed) and a file's
 * bytes (store/foreign-file.ts: a regular file only, O_NOFOLLOW). Problems come back as words.
 */
import fs from 'node:fs';
import path from 'node:path';
import {FailClosed, errorCode} from '../../ground/errors.js';
import {readForeign} from '../foreign-file.js';

/** At most this many entries of one folder are considered (a spool is a handful of files). */
export const MAX_ENTRIES = 10_000;

export type Entry = {name: string; path: string; st: fs.Stats};

/** The entries of `dir` whose name matches, sorted; a missing folder is none, a linked one is a note. */
export function entriesOf(dir: string, match: (name: string) => boolean, notes: string[]): Entry[] {
	let st: fs.Stats;
	try {
		st = fs.lstatSync(dir);
	} catch {
		return [];
	}

	if (st.isSymbolicLink() || !st.isDirectory()) {
		notes.push(
			`${dir} is ${st.isSymbolicLink() ? 'a symbolic link' : 'not a folder'}: not followed, its files are not read`,
		);
		return [];
	}

	let names: string[];
	try {
		names = fs.readdirSync(dir).filter(match).sort();
	} catch (error) {
		notes.push(`${dir} cannot be listed (${errorCode(error) ?? 'error'}): its files are not read`);
		return [];
	}

	if (names.length > MAX_ENTRIES) {
		notes.push(`${dir} holds ${names.length} such files: only the first ${MAX_ENTRIES} are read`);
		names = names.slice(0, MAX_ENTRIES);
	}

	const out: Entry[] = [];
	for (const name of names) {
		try {
			out.push({name, path: path.join(dir, name), st: fs.lstatSync(path.join(dir, name))});
		} catch {
			// gone meanwhile (a starting gateway deletes replayed spool files): not there
		}
	}

	return out;
}

/** Why a file cannot be read, in words (a link, a FIFO, permissions). */
function readProblem(error: unknown): string {
	if (error instanceof FailClosed) {
		return error.reason;
	}

	const code = errorCode(error);
	return code === 'ELOOP'
		? 'a symbolic link: not followed'
		: code === 'EACCES' || code === 'EPERM'
			? `not readable by this user (${code})`
			: `cannot be read (${code ?? 'error'})`;
}

/** A file's text (at most maxBytes), or why not; `truncated` when there was more. Null text = gone. */
export function readText(
	entry: Entry,
	maxBytes: number,
): {text: string | null; truncated: boolean; problem: string | null} {
	if (entry.st.isSymbolicLink()) {
		return {text: null, truncated: false, problem: `a symbolic link (to ${safeLink(entry.path)}): not followed`};
	}

	try {
		const read = readForeign(entry.path, {maxBytes, noFollow: true, what: 'it as a file Hermes wrote'});
		return {text: read.bytes.toString('utf8'), truncated: read.truncated, problem: null};
	} catch (error) {
		if (errorCode(error) === 'ENOENT') {
			return {text: null, truncated: false, problem: null};
		}

		return {text: null, truncated: false, problem: readProblem(error)};
	}
}

function safeLink(p: string): string {
	try {
		return fs.readlinkSync(p);
	} catch {
		return '?';
	}
}
