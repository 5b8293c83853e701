/**
 * A Hermes home after a deleted-WAL write halt, made the way Hermes makes one (from the repository
 * alone):
 *
 * 1. gateway A (a real second process) writes chat K's baseline and checkpoints it, then three
 *    turns that stay in its WAL;
 * 2. the capture: A's state.db, -wal and -shm copied out from under it into
 *    `state.db.retired-wal-<UTC>-<pidA>/` with a manifest.json (sorted keys), as
 *    capture_retired_wal_generation does; A is then killed (SIGKILL: no checkpoint), and its -wal
 *    and -shm deleted from the home (the second process that deleted the WAL);
 * 3. gateway B (a new generation) writes another chat and closes;
 * 4. A's diverted turns: `sessions/<K>.jsonl` (two lines newer than anything in any store),
 *    legacy transcripts `sessions/<L>.jsonl` of rows already in the store (one last written
 *    before its row's newest message: not even read), and one spool file of
 *    each shape in `pending_messages/` (a cap drop, a shutdown payload with and without a session
 *    id, an agent-history snapshot).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {T0} from '../fixtures/scenarios.js';
import {WriterProcess} from './writer.js';

export const HALT_KEY = 'agent:main:telegram:dm:555001';
export const OTHER_KEY = 'agent:main:telegram:dm:555002';
/** The capture's instant (UTC) and A's committed-but-never-checkpointed turns. */
export const CAPTURE_AT = T0 + 3600;
export const JSONL_NEWEST = CAPTURE_AT + 300;

export type HaltHome = {
	dir: string;
	home: string;
	db: string;
	k: string;
	legacy: string;
	oldLegacy: string;
	captureName: string;
	pidA: number;
	remove: () => void;
};

function compact(at: number): string {
	return new Date(at * 1000).toISOString().slice(0, 19).replace(/[-:]/g, '').replace('T', '-');
}

function messages(from: number, count: number, tag: string) {
	return Array.from({length: count}, (_, i) => ({
		role: (i % 2 === 0 ? 'user' : 'assistant') as 'user' | 'assistant',
		content: `${tag} ${i}`,
		timestamp: from + i * 10,
	}));
}

/** Writes a file the way Hermes' atomic_json_write publishes one (0600, whole). */
function writeJson(file: string, value: unknown, mode = 0o600): void {
	fs.mkdirSync(path.dirname(file), {recursive: true, mode: 0o700});
	fs.writeFileSync(file, JSON.stringify(value), {mode});
}

function manifest(db: string, pid: number, capture: string) {
	const size = (f: string) => fs.statSync(path.join(capture, f)).size;
	// sort_keys=True, as Hermes writes it.
	return {
		captured_at: `${new Date(CAPTURE_AT * 1000).toISOString().slice(0, 19)}Z`,
		database: db,
		main: {mode: 'copied', size: size('state.db')},
		note:
			'Whether they belong on top of the main file now at the path is an ' +
			'operator decision; inspect the copied image with `hermes sessions ' +
			'recover --inspect-only` first.',
		pid,
		python: '3.12.3',
		shm: {size: size('state.db-shm')},
		sqlite: '3.46.1',
		trigger: 'deleted_wal_generation',
		version: 1,
		wal: {size: size('state.db-wal')},
	};
}

async function gatewayA(
	db: string,
	home: string,
): Promise<{k: string; legacy: string; pid: number; captureName: string}> {
	const a = new WriterProcess(db);
	await a.started();
	const k = await a.create({
		source: 'telegram',
		sessionKey: HALT_KEY,
		chatId: '555001',
		chatType: 'dm',
		userId: 'u1',
		startedAt: T0,
	});
	const legacy = await a.create({
		source: 'telegram',
		sessionKey: OTHER_KEY,
		chatId: '555002',
		chatType: 'dm',
		userId: 'u2',
		startedAt: T0 + 5,
	});
	await a.send({op: 'messages', id: k, messages: messages(T0 + 10, 4, 'baseline')});
	await a.send({op: 'messages', id: legacy, messages: messages(T0 + 20, 4, 'older')});
	await a.send({op: 'routing', key: HALT_KEY, id: k, at: T0 + 50});
	await a.send({op: 'routing', key: OTHER_KEY, id: legacy, at: T0 + 50});
	await a.send({op: 'exec', sql: 'PRAGMA wal_checkpoint(TRUNCATE)'});
	await a.send({op: 'exec', sql: 'PRAGMA wal_autocheckpoint = 0'});
	await a.send({op: 'messages', id: k, messages: messages(CAPTURE_AT - 60, 3, 'committed in the retired WAL')});
	const captureName = `state.db.retired-wal-${compact(CAPTURE_AT)}-${a.pid}`;
	const capture = path.join(home, captureName);
	fs.mkdirSync(capture, {mode: 0o700});
	for (const f of ['state.db', 'state.db-wal', 'state.db-shm']) {
		fs.copyFileSync(path.join(home, f), path.join(capture, f));
	}

	writeJson(path.join(capture, 'manifest.json'), manifest(db, a.pid, capture));
	const pid = a.pid;
	await a.kill();
	fs.rmSync(`${db}-wal`);
	fs.rmSync(`${db}-shm`);
	return {k, legacy, pid, captureName};
}

function divertedFiles(home: string, k: string, legacy: string): void {
	const sessions = path.join(home, 'sessions');
	fs.mkdirSync(sessions, {recursive: true});
	const line = (m: object) => `${JSON.stringify(m)}\n`;
	fs.writeFileSync(
		path.join(sessions, `${k}.jsonl`),
		line({role: 'user', content: 'did the deploy finish?', timestamp: JSONL_NEWEST - 30}) +
			line({role: 'assistant', content: 'Yes, at 10:04.', timestamp: JSONL_NEWEST, tool_calls: null}),
	);
	fs.writeFileSync(
		path.join(sessions, `${legacy}.jsonl`),
		messages(T0 + 20, 4, 'older')
			.map(m => line(m))
			.join(''),
	);
	const spool = path.join(home, 'pending_messages');
	writeJson(path.join(spool, 'pending-0a1b2c3d4e5f40718293a4b5c6d7e8f9.json'), {
		session_key: k,
		reason: 'transcript_cap_drop',
		ts: CAPTURE_AT + 120,
		seq: 1,
		data: {session_id: k, message: {role: 'user', content: 'dropped from the queue', timestamp: CAPTURE_AT + 120}},
	});
	writeJson(path.join(spool, 'pending-1a1b2c3d4e5f40718293a4b5c6d7e8f9.json'), {
		session_key: HALT_KEY,
		reason: 'shutdown',
		ts: CAPTURE_AT + 200,
		data: {text: 'are you there?', session_id: k, platform: 'telegram'},
	});
	writeJson(path.join(spool, 'pending-2a1b2c3d4e5f40718293a4b5c6d7e8f9.json'), {
		session_key: OTHER_KEY,
		reason: 'shutdown',
		ts: CAPTURE_AT + 210,
		data: {text: 'hello?'},
	});
	writeJson(path.join(spool, 'pending-3a1b2c3d4e5f40718293a4b5c6d7e8f9.json'), {
		reason: 'shutdown-with-unpersisted-agent-history',
		issue: '#72680',
		session_id: k,
		count: 2,
		messages: messages(CAPTURE_AT + 220, 2, 'agent history'),
	});
}

export async function haltHome(): Promise<HaltHome> {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-halt-'));
	const home = path.join(dir, '.hermes');
	fs.mkdirSync(home);
	const db = path.join(home, 'state.db');
	const {k, legacy, pid, captureName} = await gatewayA(db, home);
	const b = new WriterProcess(db);
	await b.started();
	const other = await b.create({source: 'cli', startedAt: CAPTURE_AT + 30});
	await b.send({op: 'messages', id: other, messages: messages(CAPTURE_AT + 30, 2, 'new generation')});
	await b.send({op: 'close'}).catch(() => undefined);
	await b.kill();
	divertedFiles(home, k, legacy);
	// A legacy transcript as a pre-SQLite Hermes left it: last written before its row's newest message.
	const old = path.join(home, 'sessions', `${other}.jsonl`);
	fs.writeFileSync(
		old,
		messages(CAPTURE_AT + 30, 2, 'new generation')
			.map(m => `${JSON.stringify(m)}\n`)
			.join(''),
	);
	fs.utimesSync(old, CAPTURE_AT, CAPTURE_AT);
	return {
		dir,
		home,
		db,
		k,
		legacy,
		oldLegacy: other,
		captureName,
		pidA: pid,
		remove: () => fs.rmSync(dir, {recursive: true, force: true}),
	};
}
