/**
 * `hfx search` against hostile queries and stores (issue #24 point 3): FTS5 syntax in the text,
 * a huge text, control characters, a store without FTS tables, an index marked stale, an
 * external-content index whose source view is gone, message text full of escape codes. Each
 * answers with a verdict (hits or none) or one refusal line, falls back to a bounded scan where
 * the index cannot be trusted, and changes no evidence byte. Classes: 8 (what reaches the
 * terminal), 9 (bad stores that must still be read).
 */
import {execFileSync} from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import {ftsRebuildSql, ftsSql} from '../../../source/simulator/hermes-fts.js';
import {home} from '../fixtures.js';
import type {Fault, RunResult} from '../types.js';
import {ok, refused, step, verdict} from './kit.js';
import {EVIL} from './injection.js';

const PHRASE = 'the PR that got merged';

/**
 * A copy of the home whose store gets Hermes' v23+ FTS (indexed), a message with PHRASE (and `content`), and `then`'s
 * change.
 */
async function searchHome(
	t: Parameters<Fault['setup']>[0],
	options: {fts: boolean; content?: string; then?: string},
): Promise<{root: string; db: string}> {
	const h = await home(t.dir('home'));
	const d = new Database(h.db);
	try {
		if (options.fts) {
			d.exec(ftsSql('external'));
			d.exec(ftsRebuildSql('external'));
		}

		const id = d
			.prepare('SELECT id FROM sessions WHERE session_key IS NULL ORDER BY started_at DESC LIMIT 1')
			.pluck()
			.get() as string;
		const at = d.prepare('SELECT max(timestamp) FROM messages').pluck().get() as number;
		d.prepare("INSERT INTO messages (session_id, role, content, timestamp) VALUES (?, 'user', ?, ?)").run(
			id,
			options.content ?? `what about ${PHRASE}?`,
			at + 1,
		);
		if (options.then) {
			d.exec(options.then);
		}
	} finally {
		d.close();
	}

	return {root: h.root, db: h.db};
}

const says =
	(pattern: RegExp, what: string) =>
	(r: RunResult): string | null =>
		pattern.test(r.stdout) ? null : `the output does not say ${what}`;

/**
 * A home whose sessions/ holds a FIFO, a link out of the home and a 1 MB line named .jsonl, and whose spool holds a
 * damaged payload: each is skipped or bounded.
 */
async function hostilePlaces(t: Parameters<Fault['setup']>[0]): Promise<{root: string; db: string}> {
	const s = await searchHome(t, {fts: true});
	const sessions = path.join(path.dirname(s.db), 'sessions');
	const spool = path.join(path.dirname(s.db), 'pending_messages');
	fs.mkdirSync(sessions, {recursive: true});
	fs.mkdirSync(spool, {recursive: true});
	execFileSync('mkfifo', [path.join(sessions, 'fifo.jsonl')]);
	fs.symlinkSync('/etc/passwd', path.join(sessions, 'link.jsonl'));
	fs.writeFileSync(
		path.join(sessions, 'big.jsonl'),
		`${JSON.stringify({role: 'user', content: `merged ${'y'.repeat(1_000_000)}`})}\n` +
			`${JSON.stringify({role: 'user', content: `${EVIL} merged`})}\n{"cut`,
	);
	fs.writeFileSync(
		path.join(spool, 'pending-00000000000000000000000000000000.json'),
		'{"reason": "shutdown", "data": {"text": "merged',
	);
	return s;
}

export const SEARCH: Fault[] = [
	{
		id: 'search-hostile-places',
		cls: 8,
		outcome: 'ok',
		notes:
			'beside the store: a FIFO and a link named .jsonl (never opened or ' +
			'followed), a 1 MB line, escape codes and a cut last line, a damaged ' +
			'spool file: hits bounded and inert, no hang',
		async setup(t) {
			const s = await hostilePlaces(t);
			const bounded = (r: RunResult) => (r.stdout.length < 8000 ? null : `${r.stdout.length} characters of output`);
			return {
				evidence: [s.root],
				steps: [
					ok(['search', 'merged', '--db', s.db], {check: bounded}),
					ok(['search', 'merged', '--db', s.db, '--json']),
					step('finding', ['search', 'root:x:0', '--db', s.db, '--json'], {
						check: r => (JSON.parse(r.stdout).hits === 0 ? null : 'a hit from behind the link: it was followed'),
					}),
				],
			};
		},
	},
	{
		id: 'search-fts-syntax',
		cls: 8,
		outcome: 'ok',
		notes:
			'FTS5 syntax in the search text (NEAR(, column filters, AND/OR/NOT, *, ' +
			'^, stray quotes): a verdict, never an FTS error',
		async setup(t) {
			const s = await searchHome(t, {fts: true});
			const texts = [
				'NEAR(merged got',
				'content:merged OR',
				'AND NOT "',
				'***',
				'^merged*',
				'a"b"c',
				'tool_calls : {x}',
			];
			return {
				evidence: [s.root],
				steps: [ok(['search', PHRASE, '--db', s.db]), ...texts.map(text => verdict(['search', text, '--db', s.db]))],
			};
		},
	},
	{
		id: 'search-huge-query',
		cls: 8,
		outcome: 'refused',
		notes: 'a search text of 100,000 characters: one refusal line naming TEXT, nothing read',
		async setup(t) {
			const s = await searchHome(t, {fts: true});
			return {
				evidence: [s.root],
				steps: [
					refused(['search', 'merged '.repeat(14_300), '--db', s.db], /^hfx: TEXT: .*at most 1000/),
					refused(['search', 'x'.repeat(100_000), '--db', s.db, '--json']),
				],
			};
		},
	},
	{
		id: 'search-control-characters',
		cls: 8,
		outcome: 'ok',
		notes:
			'escape codes, BEL, a C1 CSI, a bidi override and a newline in the ' +
			'search text (argv cannot hold NUL): searched as spaces, echoed inert',
		async setup(t) {
			const s = await searchHome(t, {fts: true});
			return {
				evidence: [s.root],
				steps: [
					ok(['search', `\u001B[2J${PHRASE}\u0007\u009B\u202E\n`, '--db', s.db]),
					refused(['search', '\u001B\u0007\n\u009B', '--db', s.db]),
				],
			};
		},
	},
	{
		id: 'search-hostile-content',
		cls: 8,
		outcome: 'ok',
		notes:
			'a message of escape codes, a fake verdict and 50,000 characters on one line: found, shown inert and bounded',
		async setup(t) {
			const s = await searchHome(t, {fts: true, content: `merged ${EVIL}${'z'.repeat(50_000)}`});
			const bounded = (r: RunResult) =>
				r.stdout.length < 4000 ? null : `${r.stdout.length} characters of output for one hit`;
			return {
				evidence: [s.root],
				steps: [
					ok(['search', 'merged', '--db', s.db], {check: bounded}),
					ok(['search', 'merged', '--db', s.db, '--json']),
				],
			};
		},
	},
	{
		id: 'search-store-without-fts',
		cls: 9,
		outcome: 'ok',
		notes: 'a store with no FTS tables: said so, found by a bounded scan',
		async setup(t) {
			const s = await searchHome(t, {fts: false});
			return {
				evidence: [s.root],
				steps: [
					ok(['search', PHRASE, '--db', s.db], {check: says(/no full-text index/, 'that the store has no index')}),
				],
			};
		},
	},
	{
		id: 'search-fts-stale',
		cls: 9,
		outcome: 'ok',
		notes: 'state_meta.fts_stale = 1 and a row the index never got: not trusted, the scan finds the row',
		async setup(t) {
			const s = await searchHome(t, {
				fts: true,
				// biome-ignore lint/suspicious/noThenProperty: searchHome's option (SQL run after), never awaited
				then:
					"INSERT OR REPLACE INTO state_meta(key, value) VALUES ('fts_stale', " +
					"'1'); INSERT INTO messages_fts(messages_fts) VALUES ('delete-all');",
			});
			return {
				evidence: [s.root],
				steps: [ok(['search', PHRASE, '--db', s.db], {check: says(/fts_stale/, 'that the index is stale')})],
			};
		},
	},
	{
		id: 'search-fts-source-view-gone',
		cls: 9,
		outcome: 'ok',
		notes:
			'external-content FTS whose messages_fts_src view was dropped: MATCH fails inside SQLite, hfx says so and scans',
		async setup(t) {
			const s = await searchHome(t, {
				fts: true,
				// biome-ignore lint/suspicious/noThenProperty: searchHome's option (SQL run after), never awaited
				then: 'DROP VIEW messages_fts_src; DROP TRIGGER messages_fts_insert; DROP TRIGGER messages_fts_delete;',
			});
			return {
				evidence: [s.root],
				steps: [
					ok(['search', PHRASE, '--db', s.db], {check: says(/could not be read/, 'that the index could not be read')}),
				],
			};
		},
	},
];
