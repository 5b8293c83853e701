/**
 * `hfx search` labels a hit in a keyless gateway row from the rows that decide its chat, asked of
 * SQLite (store/read/chat-scope-where.ts), never more than it must and never otherwise than the
 * whole store would (issue #24): each kind searches two copies of the R1 home, one whose read
 * keeps the rows that decide the orphan's chat and one with rows added that make it read every row
 * (a BLOB source, a source of '', a BLOB parent), and the orphan's label must be the same; with
 * rows v25's repair-routing fails on (a model_config that is not JSON, a TEXT started_at) too.
 * Class 9 (bad stores that must still be read); every evidence byte unchanged.
 */
import Database from 'better-sqlite3';
import {home} from '../fixtures.js';
import type {Fault, RunResult} from '../types.js';
import {ok} from './kit.js';

const PHRASE = 'the scope of this orphan';

/** The R1 home with PHRASE in its keyless orphan's newest message, and `then`'s rows added. */
async function orphanHome(
	t: Parameters<Fault['setup']>[0],
	tag: string,
	then = '',
): Promise<{root: string; db: string}> {
	const h = await home(t.dir(tag));
	const d = new Database(h.db);
	try {
		const id = d
			.prepare(
				"SELECT id FROM sessions WHERE session_key IS NULL AND source = 'telegram' ORDER BY started_at DESC LIMIT 1",
			)
			.pluck()
			.get() as string | undefined;
		if (id === undefined) {
			throw new Error('the R1 home holds no keyless telegram row');
		}

		const at = d.prepare('SELECT max(timestamp) FROM messages WHERE session_id = ?').pluck().get(id) as number;
		d.prepare("INSERT INTO messages (session_id, role, content, timestamp) VALUES (?, 'user', ?, ?)").run(
			id,
			`what about ${PHRASE}?`,
			at + 1,
		);
		d.exec(`PRAGMA foreign_keys = OFF; ${then}`);
	} finally {
		d.close();
	}

	return {root: h.root, db: h.db};
}

/** The first hit's chat label of a `--json` answer. */
function labelOf(r: RunResult): string | null {
	try {
		const json = JSON.parse(r.stdout) as {stores: Array<{hits: Array<{chat: {label: string}}>}>};
		return json.stores[0]?.hits[0]?.chat.label ?? null;
	} catch {
		return null;
	}
}

/**
 * A search of PHRASE on a home with `rows` added (its label read from the rows chatScope keeps), then on one with
 * `rows` and WIDENING (a read of every row: the whole store's label): the same orphan label both times.
 */
function sameLabel(id: string, notes: string, rows: string, label: RegExp): Fault {
	return {
		id,
		cls: 9,
		outcome: 'ok',
		notes,
		async setup(t) {
			const narrowed = await orphanHome(t, 'narrowed', rows);
			const whole = await orphanHome(t, 'whole', `${rows} ${WIDENING}`);
			let first: string | null = null;
			return {
				evidence: [narrowed.root, whole.root],
				steps: [
					ok(['search', PHRASE, '--db', narrowed.db, '--json'], {
						check: r => {
							first = labelOf(r);
							return first !== null && label.test(first) ? null : `labelled ${first}`;
						},
					}),
					ok(['search', PHRASE, '--db', whole.db, '--json'], {
						check: r =>
							labelOf(r) === first ? null : `labelled ${labelOf(r)} from every row, ${first} from the scope`,
					}),
				],
			};
		},
	};
}

const WIDENING =
	"INSERT INTO sessions (id, source, session_key, started_at) VALUES ('odd-blob', X'736c61636b', " +
	"'agent:main:slack:dm:1', 1786060800), ('odd-empty', '', 'agent:main:x:dm:1', 1786060800); " +
	"INSERT INTO sessions (id, source, session_key, parent_session_id, started_at) VALUES ('odd-parent', 'discord', " +
	"'agent:main:discord:dm:1', CAST('odd-blob' AS BLOB), 1786060800);";

const FAILING =
	"INSERT INTO sessions (id, source, model_config, started_at) VALUES ('odd-config', 'discord', '{not json', " +
	"1786060800), ('odd-start', 'slack', NULL, 'soon'); INSERT INTO messages (session_id, role, content, timestamp) " +
	"VALUES ('odd-start', 'user', 'hello', 1786060900);";

export const SEARCH_SCOPE: Fault[] = [
	sameLabel(
		'search-scope-widened',
		"the orphan's label from the rows that decide it, and from every row (a BLOB source, a source of '' and " +
			'a BLOB parent make the read take every row): the same, "keyless: orphan of KEY"',
		'',
		/^keyless: orphan of /,
	),
	sameLabel(
		'search-scope-failing-rows',
		"rows of other sources v25's repair-routing fails on (a model_config that is not JSON, a TEXT " +
			"started_at): kept in the rows read, the orphan's label the one every row gives",
		FAILING,
		/^keyless: orphan/,
	),
];
