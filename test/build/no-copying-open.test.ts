/**
 * No read may cost a copy of the store (issue #26): ReadOnlyStore.open makes a private copy of a stopped or crashed
 * store, so a read goes through readStore or openInPlace (store/open/immutable-read.ts), which read it in place and
 * call ReadOnlyStore.open only when a copy is the only honest way (a -wal SQLite cannot read through a read-only -shm,
 * a -wal without its -shm, no node:sqlite). A module of source/ or bench/ outside the allow-list below that calls
 * ReadOnlyStore.open fails here, naming the file and the line; an allow-listed file that no longer calls it fails too,
 * so the list only shrinks.
 */
import fs from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {ROOT} from '../helpers/writer.js';

/** `ReadOnlyStore.open` called or passed on (not openImmutable, not a word of a comment). */
const COPYING_OPEN = /\bReadOnlyStore\s*\.\s*open\b(?!\w)/;

/** The modules that may call it (paths from the repository's root), each with why. */
const ALLOWED = new Map<string, string>([
	[
		'source/store/open/immutable-read.ts',
		'readStore: decides when a copy is the only honest way (a -wal SQLite rejects through a read-only -shm, a -wal ' +
			'without its -shm, no node:sqlite, the store changing during every read in place) or the agent is running',
	],
	[
		'source/store/open/live-connection.ts',
		'the live view: the same decision as readStore (openInPlace first), and a running agent read beside it',
	],
	[
		'source/backup/restore/commit.ts',
		'the check of the database a restore just wrote: integrity_check, refused on a read-only connection to a store, ' +
			'so it reads a private copy (not done: a check connection on the restored file)',
	],
	[
		'source/backup/create/sqlite-copy.ts',
		"the backup's copy of a store its agent is running (read beside it, no copy), and readStore's own fallbacks " +
			'(a -wal SQLite rejects through a read-only -shm; the store changing under every copy in place)',
	],
]);

function codeFiles(dir: string): string[] {
	return fs.readdirSync(dir, {withFileTypes: true}).flatMap(e => {
		const p = path.join(dir, e.name);
		return e.isDirectory() ? codeFiles(p) : /\.tsx?$/.test(e.name) ? [p] : [];
	});
}

/** `file:line: text` of every call in `text`, comment lines skipped. */
function copyingOpens(rel: string, text: string): string[] {
	return text.split('\n').flatMap((line, i) => {
		const code = line.replace(/\/\/.*$/, '');
		if (/^\s*(?:\*|\/\*)/.test(line) || !COPYING_OPEN.test(code)) {
			return [];
		}

		return [`${rel}:${i + 1}: ${line.trim()}`];
	});
}

function callsByFile(): Map<string, string[]> {
	const files = ['source', 'bench'].flatMap(d => codeFiles(path.join(ROOT, d)));
	const found = new Map<string, string[]>();
	for (const f of files) {
		const rel = path.relative(ROOT, f);
		const calls = copyingOpens(rel, fs.readFileSync(f, 'utf8'));
		if (calls.length > 0) {
			found.set(rel, calls);
		}
	}

	return found;
}

describe('no read costs a copy of the store', () => {
	it('no module outside the allow-list calls ReadOnlyStore.open (read through readStore or openInPlace)', () => {
		const offenders = [...callsByFile()].filter(([rel]) => !ALLOWED.has(rel)).flatMap(([, calls]) => calls);
		expect(offenders).toEqual([]);
	});

	it('every allow-listed module still calls it (a converted one leaves the list)', () => {
		const found = callsByFile();
		expect([...ALLOWED.keys()].filter(rel => !found.has(rel))).toEqual([]);
	});

	it('the check catches a call and a reference, not openImmutable nor a comment', () => {
		const text = [
			'const store = ReadOnlyStore.open(db);',
			'const open = ReadOnlyStore.open;',
			'ReadOnlyStore.openImmutable(pre, sqlite);',
			' * through ReadOnlyStore.open as before',
			'// ReadOnlyStore.open(db)',
			'f(); // not ReadOnlyStore.open(db)',
		].join('\n');
		expect(copyingOpens('x.ts', text)).toEqual([
			'x.ts:1: const store = ReadOnlyStore.open(db);',
			'x.ts:2: const open = ReadOnlyStore.open;',
		]);
	});
});
