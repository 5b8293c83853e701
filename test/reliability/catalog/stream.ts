/**
 * `hfx scan --json` streamed (issue #26): on a store of 3,000 keyless rows (a 1.5 MB document),
 * written by a second process SIGKILLed while it held the store (-wal and -shm left, no holder),
 * the document goes out in pieces as it is made. Class 7: a reader that closes the pipe after 100
 * bytes (`| head -c 100`) ends hfx quietly with the exit it had (1, findings), no line on stderr.
 * Class 9: the streamed bytes are exactly the whole-document string (`safeJson(doc, 2)` and a
 * newline). Both change no byte of the folder.
 */
import path from 'node:path';
import {safeJson} from '../../../source/text/sanitize.js';
import {WriterProcess} from '../../helpers/writer.js';
import type {Fault, RunResult, Scene, TempSpace} from '../types.js';
import {finding} from './kit.js';

const ROWS = 3000;
/** hfx's stdout read by `head -c 100`, which then closes the pipe; bash's $PIPESTATUS (first element) is hfx's exit. */
const CLOSED_PIPE = ['bash', '-c', '"$@" | head -c 100 >/dev/null; exit $PIPESTATUS', 'hfx'];

/** 3,000 keyless rows with a message each (300 telegram orphans, 2,700 local-surface rows), the writer SIGKILLed. */
async function keylessStore(dir: string): Promise<string> {
	const db = path.join(dir, 'state.db');
	const writer = new WriterProcess(db, {shape: 'v30'});
	try {
		await writer.started();
		await writer.send({
			op: 'exec',
			sql:
				`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${ROWS}) ` +
				'INSERT INTO sessions (id, source, session_key, started_at, last_activity_at, message_count) ' +
				"SELECT printf('20260801_%06d_keyless', i), CASE WHEN i % 10 = 0 THEN 'telegram' ELSE 'cli' END, NULL, " +
				'1786000000 + i * 60, 1786000000 + i * 60 + 30, 1 FROM n',
		});
		await writer.send({
			op: 'exec',
			sql:
				"INSERT INTO messages (session_id, role, content, timestamp) SELECT id, 'user', 'hello ' || id, " +
				'started_at + 5 FROM sessions',
		});
	} finally {
		await writer.kill();
	}

	return db;
}

function kind(id: string, cls: 7 | 9, notes: string, scene: (db: string, dir: string) => Scene): Fault {
	return {
		id,
		cls,
		outcome: 'finding',
		notes,
		async setup(t: TempSpace) {
			const dir = t.dir('store');
			return scene(await keylessStore(dir), dir);
		},
	};
}

/** stdout is the whole-document string of the document it parses to, and lists every keyless row. */
function wholeDocument(run: RunResult): string | null {
	let doc: {summary?: {orphans?: number; listedRefusedLocal?: number}};
	try {
		doc = JSON.parse(run.stdout) as typeof doc;
	} catch {
		return `stdout is not one JSON document: ${JSON.stringify(run.stdout.slice(0, 200))}`;
	}

	if ((doc.summary?.orphans ?? 0) + (doc.summary?.listedRefusedLocal ?? 0) !== ROWS) {
		return `the document lists ${doc.summary?.orphans} orphans and ${doc.summary?.listedRefusedLocal} local rows`;
	}

	return run.stdout === `${safeJson(doc, 2)}\n` ? null : 'the streamed bytes differ from safeJson(doc, 2)';
}

export const STREAM: Fault[] = [
	kind(
		'stream-scan-json-closed-pipe',
		7,
		'`scan --json | head -c 100` on a 1.5 MB document: exit 1 as without the pipe, nothing on stderr',
		(db, dir) => ({
			evidence: [dir],
			steps: [
				finding(['scan', '--db', db, '--json'], {
					wrap: CLOSED_PIPE,
					check: run => (run.stderr === '' ? null : `stderr: ${run.stderr.slice(0, 200)}`),
				}),
			],
		}),
	),
	kind(
		'stream-scan-json-whole-bytes',
		9,
		'`scan --json` streamed in pieces is byte for byte safeJson(doc, 2) on a crashed store of 3,000 keyless rows',
		(db, dir) => ({
			evidence: [dir],
			steps: [finding(['scan', '--db', db, '--json'], {check: wholeDocument})],
		}),
	),
];
