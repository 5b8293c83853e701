/**
 * Issue #24 point 1, the §4 signatures through the real binary, each beside its look-alike, on a
 * store written by a real second process: a keyed gateway row with NULL chat_id (#59527) and one
 * with its chat_id; a stale explicit-close stamp with messages after it (#106459) and a close
 * after the last message; a phantom source='unknown' row with accounting totals and no message
 * (#111999), an 'unknown' row with no totals and one that carries a whole conversation; another profile's chats in
 * the default store (#66887) and the default profile's own `agent:main:` keys.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {T0} from '../fixtures/scenarios.js';
import {hfx, hfxJson} from '../helpers/cli.js';
import {folderHashes} from '../helpers/folder-hashes.js';
import {WriterProcess} from '../helpers/writer.js';

let dir = '';
let db = '';
const ids: Record<string, string> = {};
let before: Record<string, string>;

function msgs(from: number, count: number) {
	return Array.from({length: count}, (_, i) => ({
		role: (i % 2 === 0 ? 'user' : 'assistant') as 'user' | 'assistant',
		content: `m${i}`,
		timestamp: from + i * 10,
	}));
}

beforeAll(async () => {
	dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-signatures-'));
	db = path.join(dir, 'state.db');
	const w = new WriterProcess(db);
	await w.started();
	const row = async (
		name: string,
		session: Parameters<WriterProcess['create']>[0],
		messages: ReturnType<typeof msgs>,
	) => {
		ids[name] = await w.create(session);
		if (messages.length > 0) {
			await w.send({op: 'messages', id: ids[name]!, messages});
		}
	};

	await row(
		'nullChat',
		{source: 'telegram', sessionKey: 'agent:main:telegram:dm:42', chatType: 'dm', userId: 'u42', startedAt: T0},
		msgs(T0 + 10, 4),
	);
	await row(
		'withChat',
		{
			source: 'telegram',
			sessionKey: 'agent:main:telegram:dm:43',
			chatId: '43',
			chatType: 'dm',
			userId: 'u43',
			startedAt: T0 + 1,
		},
		msgs(T0 + 20, 4),
	);
	await row('staleClose', {source: 'tui', startedAt: T0 + 2}, msgs(T0 + 30, 2));
	await w.send({op: 'end', id: ids.staleClose!, at: T0 + 100, reason: 'tui_close'});
	await w.send({op: 'messages', id: ids.staleClose!, messages: msgs(T0 + 200, 2)});
	await row('closedAfter', {source: 'tui', startedAt: T0 + 3}, msgs(T0 + 40, 2));
	await w.send({op: 'end', id: ids.closedAfter!, at: T0 + 300, reason: 'cli_close'});
	await row('phantom', {source: 'unknown', startedAt: T0 + 4}, []);
	await w.send({
		op: 'exec',
		sql: `UPDATE sessions SET input_tokens = 1200, output_tokens = 300 WHERE id = '${ids.phantom}'`,
	});
	await row('noTotals', {source: 'unknown', startedAt: T0 + 4}, []);
	await row('wholeConversation', {source: 'unknown', startedAt: T0 + 5}, msgs(T0 + 50, 12));
	await w.send({
		op: 'exec',
		sql: `UPDATE sessions SET input_tokens = 9000, output_tokens = 3000 WHERE id = '${ids.wholeConversation}'`,
	});
	await row(
		'foreign',
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
	await w.send({op: 'routing', key: 'agent:work:telegram:dm:77', id: ids.foreign!, at: T0 + 70});
	await w.send({op: 'close'}).catch(() => undefined);
	await w.kill();
	before = folderHashes(dir);
}, 60_000);

afterAll(() => fs.rmSync(dir, {recursive: true, force: true}));

function findingsOf(kind: string): string[] {
	const {json} = hfxJson(['scan', '--db', db]);
	return json.findings.filter((f: {kind: string}) => f.kind === kind).map((f: {subject: string}) => f.subject);
}

describe('the session signatures of hermes-incidents §4, each beside its look-alike', () => {
	it('a keyed gateway row with NULL chat_id is found (not /resume-able); one with its chat_id is not', () => {
		expect(findingsOf('keyed-null-chat-id')).toEqual([ids.nullChat]);
	});

	it('a stale explicit-close stamp with messages after it is found; a close after the last message is not', () => {
		expect(findingsOf('stale-explicit-close')).toEqual([ids.staleClose]);
	});

	it(
		'a phantom source=unknown row with accounting totals and no message is ' +
			'found; an unknown row with no totals, or with a whole conversation, is not',
		() => {
			expect(findingsOf('phantom-unknown-row')).toEqual([ids.phantom]);
		},
	);

	it("another profile's chats in the default store are found; the default profile's agent:main: keys are not", () => {
		expect(findingsOf('foreign-profile-chats')).toEqual(['work']);
	});

	it('hfx scan says each in words, exits 1, and changes no evidence byte', () => {
		const r = hfx(['scan', '--db', db]);
		expect(r.code).toBe(1);
		expect(r.stdout).toContain(`keyed row ${ids.nullChat} has no chat_id: /resume refuses it`);
		expect(r.stdout).toContain(`stale tui_close stamp on ${ids.staleClose}: it cannot be compressed`);
		expect(r.stdout).toContain(`phantom source='unknown' row ${ids.phantom}`);
		expect(r.stdout).toContain("a row of profile work's chats in this store");
		expect(folderHashes(dir)).toEqual(before);
	});
});
