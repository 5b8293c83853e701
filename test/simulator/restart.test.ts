/**
 * The gateway steps of source/simulator/restart.ts write what hermes-incidents.md §1.1/§2.2 say the
 * gateway writes (issue #23), applied by a second process (test/helpers/post-restart.ts) and read
 * back through a read-only connection: the resumed row reopened and grown, the routing scope
 * rewritten at the restart (one updated_at for every key) and only the chat's key upserted after,
 * the orphan untouched; and the look-alikes (compression, /new, reset at a restart, spool replay).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import {describe, expect, it} from 'vitest';
import {localIso} from '../../source/simulator/session-entry.js';
import {routingScopeOf} from '../../source/store/read/routing-home.js';
import {T0} from '../fixtures/scenarios.js';
import {
	SIM_KEY,
	SIM_OTHER_KEY,
	generationsIncidentAfterRestart,
	simulatedCompressionRotation,
	simulatedIncident,
	simulatedResetNew,
	simulatedResetPromotion,
	simulatedSpoolReplay,
	useBuilt,
	v21IncidentAfterRestart,
} from '../helpers/post-restart.js';
import {dropColumn} from '../helpers/odd-schema.js';
import {WriterProcess} from '../helpers/writer.js';

type Row = Record<string, unknown>;

function read<T>(db: string, body: (c: Database.Database) => T): T {
	const c = new Database(db, {readonly: true, fileMustExist: true});
	try {
		return body(c);
	} finally {
		c.close();
	}
}

const session = (c: Database.Database, id: string) => c.prepare('SELECT * FROM sessions WHERE id = ?').get(id) as Row;
const messages = (c: Database.Database, id: string) =>
	c
		.prepare('SELECT role, content, timestamp, platform_message_id FROM messages WHERE session_id = ? ORDER BY id')
		.all(id) as Row[];
const routing = (c: Database.Database, db: string) =>
	new Map(
		(
			c
				.prepare('SELECT session_key, entry_json, updated_at FROM gateway_routing WHERE scope = ?')
				.all(routingScopeOf(db)) as Row[]
		).map(r => [
			r.session_key as string,
			{entry: JSON.parse(r.entry_json as string) as Row, updatedAt: r.updated_at as number},
		]),
	);

/** The last of the two turns' four messages (twoTurns: +0, +3, +60, +64 from restartAt + 2). */
const lastTurn = (restartAt: number) => restartAt + 66;

describe('resumeAfterRestart on the simulated incident (v30)', () => {
	const before = useBuilt(() => simulatedIncident({restarted: false}));
	const after = useBuilt(() => simulatedIncident());

	it(
		'reopens and grows the zombie: 4 new messages at the turn times, ' + 'message_count and last_activity_at advanced',
		() => {
			const {db, zombie, restartAt} = after.current;
			read(db, c => {
				const k = session(c, zombie);
				expect(k).toMatchObject({
					ended_at: null,
					end_reason: null,
					message_count: 14,
					last_activity_at: lastTurn(restartAt!),
					session_key: SIM_KEY,
					chat_id: '777001',
					source: 'telegram',
				});
				expect(JSON.parse(k.origin_json as string)).toMatchObject({
					platform: 'telegram',
					chat_id: '777001',
					chat_name: 'Teknium',
				});
				expect(k.origin_json as string).toContain('"chat_id": "777001"');
				expect(
					messages(c, zombie)
						.slice(10)
						.map(m => m.timestamp),
				).toEqual([restartAt! + 2, restartAt! + 5, restartAt! + 62, restartAt! + 66]);
			});
		},
	);

	it(
		'rewrites the routing scope at the restart: every key stamped restartAt, ' +
			"then only the chat's key upserted per turn",
		() => {
			const {db, zombie, restartAt} = after.current;
			const was = read(before.current.db, c => routing(c, before.current.db));
			read(db, c => {
				const now = routing(c, db);
				expect([...now.keys()].sort()).toEqual([SIM_OTHER_KEY, SIM_KEY].sort());
				expect(now.get(SIM_OTHER_KEY)!.updatedAt).toBe(restartAt);
				expect(now.get(SIM_OTHER_KEY)!.entry).toEqual(was.get(SIM_OTHER_KEY)!.entry);
				expect(was.get(SIM_OTHER_KEY)!.updatedAt).not.toBe(restartAt);
				const key = now.get(SIM_KEY)!;
				expect(key.updatedAt).toBe(lastTurn(restartAt!));
				expect(key.entry).toMatchObject({
					session_key: SIM_KEY,
					session_id: zombie,
					created_at: localIso(T0),
					updated_at: localIso(lastTurn(restartAt!)),
					platform: 'telegram',
					chat_type: 'dm',
				});
			});
		},
	);

	it('leaves the orphan as it was, and writes nothing of the kind before the restart', () => {
		const {db, orphan, zombie} = after.current;
		read(db, c => {
			expect(session(c, orphan)).toMatchObject({
				session_key: null,
				chat_id: null,
				message_count: 20,
				source: 'telegram',
			});
			expect(messages(c, orphan)).toHaveLength(20);
		});
		read(before.current.db, c => {
			expect(session(c, zombie)).toMatchObject({message_count: 10, last_activity_at: T0 + 600});
			expect(routing(c, before.current.db).get(SIM_KEY)!.entry.session_id).toBe(zombie);
		});
	});
});

describe('resumeAfterRestart variants', () => {
	const unknown = useBuilt(() => simulatedIncident({orphanSource: 'unknown'}));
	const ids = useBuilt(() => simulatedIncident({platformIds: true}));

	it("an orphan made by the lazy accounting writer carries source 'unknown'", () => {
		read(unknown.current.db, c =>
			expect(session(c, unknown.current.orphan)).toMatchObject({source: 'unknown', session_key: null}),
		);
	});

	it("puts the orphan's platform message ids inside the zombie's gap", () => {
		const {db, zombie, orphan} = ids.current;
		read(db, c => {
			const userIds = (id: string) =>
				messages(c, id)
					.filter(m => m.role === 'user')
					.map(m => Number(m.platform_message_id));
			expect(userIds(zombie)).toEqual([1001, 1002, 1003, 1004, 1005, 1016, 1017]);
			expect(userIds(orphan)).toEqual(Array.from({length: 10}, (_, i) => 1006 + i));
		});
	});

	it(
		'stamps the markerless legacy reset children of a resumed reset-ended ' + 'row before clearing its end stamp',
		async () => {
			const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-reopen-'));
			const db = path.join(dir, 'state.db');
			const w = new WriterProcess(db);
			try {
				const identity = {source: 'telegram', sessionKey: SIM_KEY, chatId: '777001', chatType: 'dm', userId: 'u'};
				const k = await w.create({...identity, startedAt: T0});
				await w.send({op: 'conversation', id: k, count: 2, from: T0 + 1, to: T0 + 2});
				await w.send({op: 'end', id: k, at: T0 + 10, reason: 'session_reset'});
				const child = await w.create({...identity, parentSessionId: k, startedAt: T0 + 11});
				await w.send({op: 'resume-after-restart', step: {sessionKey: SIM_KEY, resumedId: k, restartAt: T0 + 100}});
				await w.send({op: 'close'});
				read(db, c => {
					expect(session(c, k)).toMatchObject({ended_at: null, end_reason: null});
					expect(JSON.parse(session(c, child).model_config as string)).toEqual({_reset_from: k});
				});
			} finally {
				await w.kill();
				fs.rmSync(dir, {recursive: true, force: true});
			}
		},
	);
});

describe('resumeAfterRestart on real-Hermes fixtures', () => {
	const v21 = useBuilt(v21IncidentAfterRestart);
	const gen = useBuilt(generationsIncidentAfterRestart);

	it(
		'v21 (no last_activity_at, empty gateway_routing): the zombie grows, the ' +
			'routing gains the key, DELETE journal kept',
		() => {
			const {db, zombie, orphan, restartAt} = v21.current;
			expect(fs.readdirSync(v21.current.dir).sort()).toEqual(['state.db']);
			read(db, c => {
				expect(c.pragma('journal_mode', {simple: true})).toBe('delete');
				expect(session(c, zombie)).toMatchObject({ended_at: null, message_count: 34, user_id: 'u-teknium'});
				expect(session(c, orphan)).toMatchObject({message_count: 798, session_key: null});
				expect(
					messages(c, zombie)
						.slice(-4)
						.map(m => m.timestamp),
				).toEqual([restartAt! + 2, restartAt! + 5, restartAt! + 62, restartAt! + 66]);
				const r = routing(c, db);
				expect([...r.keys()]).toEqual(['agent:main:telegram:dm:777001']);
				expect(r.get('agent:main:telegram:dm:777001')).toMatchObject({
					updatedAt: lastTurn(restartAt!),
					entry: {session_id: zombie},
				});
			});
		},
	);

	it('v25 generations root: profiles copied, DELETE journal kept, last_activity_at advanced', () => {
		const {db, home, zombie, orphan, restartAt} = gen.current;
		expect(
			fs.existsSync(path.join(home, 'profiles/work/state.db')) &&
				fs.existsSync(path.join(home, 'profiles/ops/state.db')),
		).toBe(true);
		expect(fs.readdirSync(home).sort()).toEqual(['profiles', 'state.db']);
		read(db, c => {
			expect(c.pragma('journal_mode', {simple: true})).toBe('delete');
			expect(session(c, zombie)).toMatchObject({
				ended_at: null,
				message_count: 16,
				last_activity_at: lastTurn(restartAt!),
			});
			expect(session(c, orphan)).toMatchObject({message_count: 40, session_key: null});
			expect(routing(c, db).get('agent:main:telegram:dm:880042')!.entry).toMatchObject({
				session_id: zombie,
				created_at: localIso(1_788_249_600),
			});
		});
	});
});

describe('the look-alikes', () => {
	const compression = useBuilt(simulatedCompressionRotation);
	const resetNew = useBuilt(simulatedResetNew);
	const promotion = useBuilt(simulatedResetPromotion);
	const spool = useBuilt(simulatedSpoolReplay);

	it('compression: parent ended compression, keyed child with its identity and lineage, route and turns there', () => {
		const {db, previous, routed} = compression.current;
		read(db, c => {
			expect(session(c, previous)).toMatchObject({ended_at: T0 + 700, end_reason: 'compression', message_count: 10});
			expect(session(c, routed)).toMatchObject({
				session_key: SIM_KEY,
				chat_id: '777001',
				user_id: 'u-teknium',
				parent_session_id: previous,
				started_at: T0 + 700,
				model_config: null,
				message_count: 4,
			});
			const r = routing(c, db);
			expect(r.get(SIM_OTHER_KEY)!.updatedAt).toBe(T0 + 700);
			expect(r.get(SIM_KEY)).toMatchObject({updatedAt: T0 + 705 + 64, entry: {session_id: routed}});
		});
	});

	it('/new: old row session_reset (generation bumped), new keyed row with _reset_from and parent, route there', () => {
		const {db, previous, routed} = resetNew.current;
		const at = T0 + 600 + 86_400;
		read(db, c => {
			expect(session(c, previous)).toMatchObject({ended_at: at, end_reason: 'session_reset'});
			expect(session(c, routed)).toMatchObject({
				session_key: SIM_KEY,
				parent_session_id: previous,
				started_at: at,
				message_count: 4,
			});
			expect(JSON.parse(session(c, routed).model_config as string)).toEqual({_reset_from: previous});
			expect(routed).toMatch(/^\d{8}_\d{6}_[0-9a-f]{8}$/);
			expect(
				c
					.prepare('SELECT generation FROM conversation_generations WHERE source = ? AND session_key = ?')
					.get('telegram', SIM_KEY),
			).toEqual({generation: 1});
			expect(routing(c, db).get(SIM_KEY)!.entry).toMatchObject({session_id: routed, is_fresh_reset: true});
		});
	});

	it(
		'reset at the restart: recovered row promoted idle at restartAt, fresh ' +
			'row started there and routed, every other key stamped restartAt',
		() => {
			const {db, previous, routed, restartAt} = promotion.current;
			read(db, c => {
				expect(session(c, previous)).toMatchObject({ended_at: restartAt, end_reason: 'idle', message_count: 10});
				expect(session(c, routed)).toMatchObject({
					parent_session_id: previous,
					started_at: restartAt,
					session_key: SIM_KEY,
					message_count: 4,
				});
				expect(JSON.parse(session(c, routed).model_config as string)).toEqual({_reset_from: previous});
				const r = routing(c, db);
				expect(r.get(SIM_OTHER_KEY)!.updatedAt).toBe(restartAt);
				expect(r.get(SIM_KEY)!.entry).toMatchObject({
					session_id: routed,
					was_auto_reset: true,
					auto_reset_reason: 'idle',
					prev_session_id: previous,
				});
			});
		},
	);

	it(
		'spool replay: user rows appended after the new turns with their ' + 'original older ts; activity not moved back',
		() => {
			const {db, routed, restartAt} = spool.current;
			read(db, c => {
				const tail = messages(c, routed).slice(-6);
				expect(tail.map(m => [m.role, m.timestamp])).toEqual([
					['user', restartAt! + 2],
					['assistant', restartAt! + 5],
					['user', restartAt! + 62],
					['assistant', restartAt! + 66],
					['user', T0 + 900],
					['user', T0 + 905],
				]);
				expect(session(c, routed)).toMatchObject({message_count: 16, last_activity_at: lastTurn(restartAt!)});
			});
		},
	);
});

describe('resumeAfterRestart is schema-aware', () => {
	const bare = useBuilt(() => simulatedIncident({restarted: false}));
	const unscoped = useBuilt(() => simulatedIncident({restarted: false}));

	/**
	 * The resume with turns carrying platform ids, by a second process (a v21-shaped writer: no last_activity_at
	 * assumed).
	 */
	async function resume(db: string, zombie: string, restartAt: number): Promise<void> {
		const w = new WriterProcess(db, {shape: 'v21'});
		try {
			await w.send({
				op: 'resume-after-restart',
				step: {
					sessionKey: SIM_KEY,
					resumedId: zombie,
					restartAt,
					turns: [
						{role: 'user', content: 'hi', at: restartAt + 1, platformMessageId: '77'},
						{role: 'assistant', content: 'hello', at: restartAt + 2},
					],
				},
			});
			await w.send({op: 'close'});
		} finally {
			await w.kill();
		}
	}

	it(
		'without gateway_routing, messages.platform_message_id or ' +
			'sessions.last_activity_at: the rows written, the routing steps skipped',
		async () => {
			const {db, zombie} = bare.current;
			const c = new Database(db);
			c.exec('DROP TABLE gateway_routing');
			c.close();
			dropColumn(db, 'messages', 'platform_message_id');
			dropColumn(db, 'sessions', 'last_activity_at');
			await resume(db, zombie, T0 + 10 * 86_400);
			read(db, c => {
				expect(session(c, zombie)).toMatchObject({message_count: 12, ended_at: null});
				expect(
					(
						c
							.prepare('SELECT timestamp FROM messages WHERE session_id = ? ORDER BY id DESC LIMIT 2')
							.all(zombie) as Row[]
					).map(m => m.timestamp),
				).toEqual([T0 + 10 * 86_400 + 2, T0 + 10 * 86_400 + 1]);
			});
		},
	);

	it(
		'an early gateway_routing without scope: every key rewritten at the ' + "restart, the chat's key upserted after",
		async () => {
			const {db, zombie} = unscoped.current;
			const c = new Database(db);
			c.exec(
				`CREATE TABLE routing_old AS SELECT session_key, entry_json, updated_at FROM ` +
					`gateway_routing; DROP TABLE gateway_routing;
			CREATE TABLE gateway_routing (session_key TEXT PRIMARY KEY, entry_json TEXT NOT NULL, updated_at REAL NOT NULL);
			INSERT INTO gateway_routing SELECT * FROM routing_old; DROP TABLE routing_old`,
			);
			c.close();
			const restartAt = T0 + 10 * 86_400;
			await resume(db, zombie, restartAt);
			read(db, c => {
				const rows = new Map(
					(c.prepare('SELECT session_key, entry_json, updated_at FROM gateway_routing').all() as Row[]).map(r => [
						r.session_key,
						r,
					]),
				);
				expect(rows.get(SIM_OTHER_KEY)!.updated_at).toBe(restartAt);
				expect(rows.get(SIM_KEY)!.updated_at).toBe(restartAt + 2);
				expect(JSON.parse(rows.get(SIM_KEY)!.entry_json as string)).toMatchObject({session_id: zombie});
				expect(messages(c, zombie).at(-2)).toMatchObject({platform_message_id: '77'});
			});
		},
	);
});
