/**
 * Issue #24 point 1: hostile files where Hermes keeps turns state.db did not take (diverted
 * `sessions/<id>.jsonl`, the `pending_messages/` spool, `state.db.retired-wal-*` captures), beside
 * a crashed agent's store (scan exits 1 on its incident whatever the places hold). Each must end
 * as the command's contract says, in words, never follow a link, never block on a FIFO, never
 * print a stack trace or a raw escape, and change 0 evidence bytes (a capture is read from a
 * private copy in TMPDIR, which must be empty after the run).
 */
import {spawnSync} from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {crashedStore} from '../fixtures.js';
import type {Fault} from '../types.js';
import {finding, verdict, write} from './kit.js';
import {AS_NOBODY, forNobody} from './stores.js';

/** A capture folder's name for a capture at 2026-08-07 01:00:00Z by pid 4242. */
const CAPTURE = 'state.db.retired-wal-20260807-010000-4242';
const SPOOL = 'pending-0a1b2c3d4e5f40718293a4b5c6d7e8f9.json';

function capDrop(sessionId: string, reason = 'transcript_cap_drop'): string {
	return JSON.stringify({
		session_key: sessionId,
		reason,
		ts: 1_786_100_000,
		seq: 1,
		data: {session_id: sessionId, message: {role: 'user', content: 'dropped', timestamp: 1_786_100_000}},
	});
}

/**
 * scan (finding: the incident) and files (a verdict) in text, then in JSON (exact, unwrapped), where `words` must show.
 */
function scanAndFiles(db: string, words: RegExp, more: {notMatch?: RegExp; wrap?: string[]} = {}) {
	return [
		finding(['scan', '--db', db], more),
		verdict(['files', '--db', db], more),
		finding(['scan', '--db', db, '--json'], {match: words, ...more}),
		verdict(['files', '--db', db, '--json'], {match: words, ...more}),
	];
}

export const PLACES: Fault[] = [
	{
		id: 'places-jsonl-link',
		cls: 2,
		outcome: 'finding',
		notes: 'sessions/<id>.jsonl is a symbolic link to a file outside the home: named, never followed',
		async setup(t) {
			const s = await crashedStore(t.dir('store'));
			const outside = write(
				path.join(t.dir('outside'), 'secret.jsonl'),
				`${JSON.stringify({role: 'user', content: 'OUTSIDE-SECRET', timestamp: 1_786_200_000})}\n`,
			);
			fs.mkdirSync(path.join(s.dir, 'sessions'));
			fs.symlinkSync(outside, path.join(s.dir, 'sessions', `${s.ids.zombie}.jsonl`));
			return {
				evidence: [s.dir, path.dirname(outside)],
				steps: scanAndFiles(s.db, /a symbolic link \(to [^"]*\): not followed/, {notMatch: /OUTSIDE-SECRET/}),
			};
		},
	},
	{
		id: 'places-spool-link',
		cls: 2,
		outcome: 'finding',
		notes:
			'a pending_messages spool file and the pending_messages folder itself as symbolic links: not followed, said so',
		async setup(t) {
			const s = await crashedStore(t.dir('store'));
			const outside = t.dir('outside');
			write(path.join(outside, SPOOL), capDrop(s.ids.zombie));
			fs.mkdirSync(path.join(s.dir, 'pending_messages'));
			fs.symlinkSync(path.join(outside, SPOOL), path.join(s.dir, 'pending_messages', SPOOL));
			const second = t.dir('store2');
			const s2 = await crashedStore(second);
			fs.symlinkSync(outside, path.join(s2.dir, 'pending_messages'));
			return {
				evidence: [s.dir, s2.dir, outside],
				steps: [
					...scanAndFiles(s.db, /"replay": "unknown",\s+"why": "a symbolic link \(to [^"]*\): not followed/),
					...scanAndFiles(s2.db, /pending_messages is a symbolic link: not followed/),
				],
			};
		},
	},
	{
		id: 'places-capture-link',
		cls: 2,
		outcome: 'finding',
		notes:
			'a retired-WAL capture folder that is a symbolic link to a real capture ' +
			'elsewhere: not followed, its image not copied',
		async setup(t) {
			const s = await crashedStore(t.dir('store'));
			const elsewhere = t.dir('elsewhere');
			for (const f of ['state.db', 'state.db-wal']) {
				fs.copyFileSync(path.join(s.dir, f), path.join(elsewhere, f));
			}

			fs.symlinkSync(elsewhere, path.join(s.dir, CAPTURE));
			return {
				evidence: [s.dir, elsewhere],
				steps: scanAndFiles(
					s.db,
					/retired-wal-20260807-010000-4242",\s+"at": 1786064400,\s+"pid": 4242,[\s\S]*"imageProblem": "a symbolic link: not followed"/,
				),
			};
		},
	},
	{
		id: 'places-jsonl-huge-line',
		cls: 9,
		outcome: 'finding',
		notes:
			'a diverted transcript with one 24 MB line, then a newer line and an ' +
			'incomplete last line: read whole, counted, no hang',
		async setup(t) {
			const s = await crashedStore(t.dir('store'));
			const big = JSON.stringify({role: 'tool', content: 'x'.repeat(24 * 1024 * 1024), timestamp: 1_786_200_000});
			write(
				path.join(s.dir, 'sessions', `${s.ids.zombie}.jsonl`),
				`${big}\n${JSON.stringify({role: 'user', content: 'after', timestamp: 1_786_200_100})}\n{"role": "assi`,
			);
			return {
				evidence: [s.dir],
				steps: scanAndFiles(
					s.db,
					/"kind": "diverted",\s+"why": "2 lines are newer than the row's newest message",\s+"turns": 2,\s+"newestAt": 1786200100,\s+"lines": 2,\s+"invalidLines": 1,\s+"incompleteLast": true/,
				),
			};
		},
	},
	{
		id: 'places-jsonl-million-lines',
		cls: 9,
		outcome: 'finding',
		notes: 'a diverted transcript of 1.2 million short lines (33 MB): counted without a stack overflow, no hang',
		async setup(t) {
			const s = await crashedStore(t.dir('store'));
			write(path.join(s.dir, 'sessions', `${s.ids.zombie}.jsonl`), '{"timestamp": 1786200000}\n'.repeat(1_200_000));
			return {evidence: [s.dir], steps: scanAndFiles(s.db, /"turns": 1200000/)};
		},
	},
	{
		id: 'places-spool-invalid-json',
		cls: 9,
		outcome: 'finding',
		notes:
			'spool files that are not JSON, a JSON array, binary bytes: damage (a ' +
			'spool file is written whole), named as turns Hermes will not replay',
		async setup(t) {
			const s = await crashedStore(t.dir('store'));
			const spool = path.join(s.dir, 'pending_messages');
			write(path.join(spool, 'pending-00000000000000000000000000000001.json'), '{"reason": "shutdown", "ts": 17');
			write(path.join(spool, 'pending-00000000000000000000000000000002.json'), '[1, 2, 3]');
			write(
				path.join(spool, 'pending-00000000000000000000000000000003.json'),
				Buffer.from([0, 1, 2, 0xff, 0xfe, 0x1b, 0x5b, 0x32, 0x4a]),
			);
			return {
				evidence: [s.dir],
				steps: scanAndFiles(
					s.db,
					/"kind": "unreplayed-turns"[\s\S]*(not valid JSON[\s\S]*){3}|"shape": "unreadable"[\s\S]*"replay": "will-not"/,
				),
			};
		},
	},
	{
		id: 'places-escape-codes',
		cls: 8,
		outcome: 'finding',
		notes: "escape codes in a spool file's reason and session id and in a transcript's name: printed safely",
		async setup(t) {
			const s = await crashedStore(t.dir('store'));
			write(
				path.join(s.dir, 'pending_messages', SPOOL),
				JSON.stringify({
					session_key: '\u001b]0;pwned\u0007',
					reason: 'shutdown\u001b[2J',
					ts: 1_786_100_000,
					data: {text: 'hi', session_id: 'x\u001b[31mred'},
				}),
			);
			write(
				path.join(s.dir, 'sessions', '\u001b[31mred.jsonl'),
				`${JSON.stringify({role: 'user', content: 'hi', timestamp: 1_786_100_000})}\n`,
			);
			return {evidence: [s.dir], steps: scanAndFiles(s.db, /"sessionId": "x\\u001b\[31mred"/)};
		},
	},
	{
		id: 'places-fifo',
		cls: 3,
		outcome: 'finding',
		notes:
			"a FIFO as a spool file, as a diverted transcript and as a capture's " +
			'manifest.json and state.db: never opened for a blocking read',
		async setup(t) {
			const s = await crashedStore(t.dir('store'));
			const capture = path.join(s.dir, CAPTURE);
			for (const dir of ['pending_messages', 'sessions', CAPTURE]) {
				fs.mkdirSync(path.join(s.dir, dir));
			}

			for (const f of [
				path.join(s.dir, 'pending_messages', SPOOL),
				path.join(s.dir, 'sessions', `${s.ids.zombie}.jsonl`),
				path.join(capture, 'manifest.json'),
				path.join(capture, 'state.db'),
			]) {
				if (spawnSync('mkfifo', [f]).status !== 0) {
					throw new Error(`mkfifo ${f} failed`);
				}
			}

			return {evidence: [s.dir], steps: scanAndFiles(s.db, /FIFO/)};
		},
	},
	{
		id: 'places-capture-garbage',
		cls: 9,
		outcome: 'finding',
		notes:
			'a retired capture whose state.db is not a database, whose manifest is ' +
			'not JSON, and a .partial capture with only a header: each said in words',
		async setup(t) {
			const s = await crashedStore(t.dir('store'));
			write(path.join(s.dir, CAPTURE, 'state.db'), Buffer.alloc(8192, 0x41));
			write(path.join(s.dir, CAPTURE, 'state.db-wal'), Buffer.alloc(4096, 0x42));
			write(path.join(s.dir, CAPTURE, 'manifest.json'), '{"pid": 4242,');
			write(path.join(s.dir, `${CAPTURE}-1.partial`, 'state.db.header'), Buffer.alloc(100));
			return {
				evidence: [s.dir],
				steps: scanAndFiles(
					s.db,
					/^(?=[\s\S]*"imageProblem": "only the main file's header was kept)(?=[\s\S]*manifest\.json is not valid JSON)(?=[\s\S]*"imageProblem": "its copied image cannot be read \(SQLITE_NOTADB)/,
				),
			};
		},
	},
	{
		id: 'places-unreadable',
		cls: 9,
		outcome: 'finding',
		needs: ['root'],
		notes:
			'a spool file, a transcript and a capture folder mode 000, hfx run as ' +
			'nobody: each named unreadable, the scan still judged',
		async setup(t) {
			const s = await crashedStore(t.dir('store'));
			write(path.join(s.dir, 'pending_messages', SPOOL), capDrop(s.ids.zombie));
			write(
				path.join(s.dir, 'sessions', `${s.ids.zombie}.jsonl`),
				`${JSON.stringify({role: 'user', content: 'hi', timestamp: 1_786_200_000})}\n`,
			);
			fs.mkdirSync(path.join(s.dir, CAPTURE));
			for (const f of [
				path.join(s.dir, 'pending_messages', SPOOL),
				path.join(s.dir, 'sessions', `${s.ids.zombie}.jsonl`),
				path.join(s.dir, CAPTURE),
			]) {
				fs.chmodSync(f, 0o000);
			}

			for (const d of [s.dir, path.join(s.dir, 'pending_messages'), path.join(s.dir, 'sessions')]) {
				fs.chmodSync(d, 0o755);
			}

			for (const f of fs.readdirSync(s.dir)) {
				if (f.startsWith('state.db') && !f.includes('retired')) {
					fs.chmodSync(path.join(s.dir, f), 0o644);
				}
			}

			forNobody(t, [s.dir]);
			return {
				evidence: [s.dir],
				steps: scanAndFiles(
					s.db,
					/^(?=[\s\S]*cannot be listed \(EACCES\))(?=[\s\S]*not readable by this user \(EACCES\))/,
					{wrap: AS_NOBODY},
				),
			};
		},
	},
];
