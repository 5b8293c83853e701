/**
 * A Hermes root whose stores, together, hold every kind of finding `hfx scan` reports, made by real
 * code: the real-Hermes generations fixture (default: rollback risks, adoptable and refused
 * orphans; ops: its own repair-routing crashes and an upgrade puts a chat at rollback risk; work),
 * `rolled` (the v21 incident after its restart: a rollback that already happened), `halted` (a
 * home after a deleted-WAL write halt, with spool files Hermes will not replay), `signatures` (a
 * store a second process wrote: the §4 signatures, a corrupt timestamp, a stale routing entry and a
 * reap churn) and `columnless` (a store lacking a rule column). Evidence copies: tests read them.
 */
import fs from 'node:fs';
import path from 'node:path';
import {T0} from '../fixtures/scenarios.js';
import {dropColumn} from './odd-schema.js';
import {postRestartIncident} from './post-restart.js';
import {haltHome} from './write-halt.js';
import {ROOT, WriterProcess} from './writer.js';

function msgs(from: number, count: number) {
	return Array.from({length: count}, (_, i) => ({
		role: (i % 2 === 0 ? 'user' : 'assistant') as 'user' | 'assistant',
		content: `m${i}`,
		timestamp: from + i * 10,
	}));
}

/**
 * The §4 signatures, a corrupt timestamp, a routing entry naming a row that is not there, and a reap followed by
 * one-turn rows.
 */
async function signaturesStore(db: string): Promise<void> {
	const w = new WriterProcess(db);
	await w.started();
	const row = async (session: Parameters<WriterProcess['create']>[0], messages: ReturnType<typeof msgs>) => {
		const id = await w.create(session);
		if (messages.length > 0) {
			await w.send({op: 'messages', id, messages});
		}

		return id;
	};

	await row(
		{source: 'telegram', sessionKey: 'agent:signatures:telegram:dm:42', chatType: 'dm', userId: 'u42', startedAt: T0},
		msgs(T0 + 10, 4),
	);
	const closed = await row({source: 'tui', startedAt: T0 + 2}, msgs(T0 + 30, 2));
	await w.send({op: 'end', id: closed, at: T0 + 100, reason: 'tui_close'});
	await w.send({op: 'messages', id: closed, messages: msgs(T0 + 200, 2)});
	const phantom = await row({source: 'unknown', startedAt: T0 + 4}, []);
	await w.send({
		op: 'exec',
		sql: `UPDATE sessions SET input_tokens = 1200, output_tokens = 300 WHERE id = '${phantom}'`,
	});
	const foreign = await row(
		{
			source: 'telegram',
			sessionKey: 'agent:work:telegram:dm:77',
			chatId: '77',
			chatType: 'dm',
			userId: 'u77',
			profileName: 'work',
			startedAt: T0 + 6,
		},
		msgs(T0 + 60, 2),
	);
	await w.send({op: 'routing', key: 'agent:work:telegram:dm:77', id: foreign, at: T0 + 70});
	const corrupt = await row({source: 'cli', startedAt: T0 + 7}, msgs(T0 + 70, 2));
	await w.send({op: 'exec', sql: `UPDATE sessions SET last_activity_at = 5.49e246 WHERE id = '${corrupt}'`});
	await w.send({op: 'routing', key: 'agent:signatures:discord:dm:5', id: '20260101_000000_00000000', at: T0 + 80});
	const key = 'agent:signatures:telegram:dm:63207';
	const reaped = await row(
		{source: 'telegram', sessionKey: key, chatId: '63207', chatType: 'dm', userId: 'u63207', startedAt: T0 + 100},
		msgs(T0 + 110, 40),
	);
	await w.send({op: 'end', id: reaped, at: T0 + 900, reason: 'ws_orphan_reap'});
	for (let i = 1; i <= 3; i++) {
		await row(
			{
				source: 'telegram',
				sessionKey: key,
				chatId: '63207',
				chatType: 'dm',
				userId: 'u63207',
				startedAt: T0 + 1000 + i * 60,
			},
			msgs(T0 + 1001 + i * 60, 2),
		);
	}

	await w.send({op: 'close'}).catch(() => undefined);
	await w.kill();
}

/** Builds the root in `dir` (which must not exist); returns it. */
export async function findingsRoot(dir: string): Promise<string> {
	fs.cpSync(path.join(ROOT, 'test/fixtures/hermes-generations/root'), dir, {recursive: true});
	const profile = (name: string) => {
		const home = path.join(dir, 'profiles', name);
		fs.mkdirSync(home, {recursive: true});
		return home;
	};

	await postRestartIncident(profile('rolled'));
	const halt = await haltHome();
	fs.cpSync(halt.home, profile('halted'), {recursive: true});
	halt.remove();
	await signaturesStore(path.join(profile('signatures'), 'state.db'));
	const columnless = path.join(profile('columnless'), 'state.db');
	fs.copyFileSync(path.join(ROOT, 'test/fixtures/hermes-generations/root/profiles/work/state.db'), columnless);
	dropColumn(columnless, 'sessions', 'chat_type');
	return dir;
}
