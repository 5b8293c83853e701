/**
 * The spans of a chat's rows (store/read/chat-timeline.ts), read read-only from a store a second process
 * writes and holds open: a row without a long silence is one span (the GROUP BY), a row with one is
 * split there (the window), a timestamp outside the epoch window is left out, a row not asked about
 * is not read; and both statements read only idx_messages_session (no table scan of messages).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {readMessageSpans} from '../../../source/store/read/chat-timeline.js';
import {ReadOnlyStore} from '../../../source/store/open/open.js';
import {detectSchema} from '../../../source/store/open/schema.js';
import {WriterProcess} from '../../helpers/writer.js';

const T0 = 1_786_060_800;
const HOUR = 3600;
let writer: WriterProcess | undefined;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-chat-spans-'));
afterAll(async () => {
	await writer?.kill();
	fs.rmSync(dir, {recursive: true, force: true});
});

describe('readMessageSpans', () => {
	it(
		'gives one span per row without a silence over the gap, splits a row at ' + 'one, leaves out unusable timestamps',
		async () => {
			const db = path.join(dir, 'state.db');
			writer = new WriterProcess(db);
			await writer.started();
			const quiet = await writer.create({source: 'telegram', sessionKey: 'agent:main:telegram:dm:1', startedAt: T0});
			await writer.send({op: 'conversation', id: quiet, count: 6, from: T0 + 10, to: T0 + 2 * HOUR});
			const split = await writer.create({
				source: 'telegram',
				sessionKey: 'agent:main:telegram:dm:1',
				startedAt: T0 + HOUR,
			});
			await writer.send({op: 'conversation', id: split, count: 4, from: T0 + HOUR, to: T0 + HOUR + 60});
			await writer.send({op: 'conversation', id: split, count: 3, from: T0 + 30 * HOUR, to: T0 + 31 * HOUR});
			await writer.send({
				op: 'exec',
				sql:
					`INSERT INTO messages (session_id, role, content, timestamp) VALUES ` +
					`('${split}', 'user', 'garbage time', 99999999999)`,
			});
			const other = await writer.create({source: 'discord', startedAt: T0});
			await writer.send({op: 'conversation', id: other, count: 5, from: T0, to: T0 + 100});

			const store = ReadOnlyStore.open(db);
			try {
				const schema = detectSchema(store);
				const spans = readMessageSpans(store, schema, [quiet, split], 6 * HOUR).sort((a, b) => a.firstAt - b.firstAt);
				expect(spans).toEqual([
					{sessionId: quiet, firstAt: T0 + 10, lastAt: T0 + 2 * HOUR, messages: 6},
					{sessionId: split, firstAt: T0 + HOUR, lastAt: T0 + HOUR + 60, messages: 4},
					{sessionId: split, firstAt: T0 + 30 * HOUR, lastAt: T0 + 31 * HOUR, messages: 3},
				]);
				// A gap longer than every silence: one span per row.
				expect(readMessageSpans(store, schema, [split], 40 * HOUR)).toEqual([
					{sessionId: split, firstAt: T0 + HOUR, lastAt: T0 + 31 * HOUR, messages: 7},
				]);
				expect(readMessageSpans(store, schema, [], HOUR)).toEqual([]);
			} finally {
				store.close();
			}
		},
	);

	it('reads idx_messages_session only: no plan scans the messages table', async () => {
		const store = ReadOnlyStore.open(path.join(dir, 'state.db'));
		try {
			const {WHOLE_SQL, SPANS_SQL} = await import('../../../source/store/read/chat-timeline.js');
			for (const sql of [WHOLE_SQL, SPANS_SQL]) {
				const plan = (
					store.prepare(`EXPLAIN QUERY PLAN ${sql}`).all({ids: '["a","b"]', gap: 60}) as Array<{detail: string}>
				).map(r => r.detail);
				expect(
					plan.some(d => /SEARCH messages USING COVERING INDEX idx_messages_session/.test(d)),
					plan.join('\n'),
				).toBe(true);
				expect(
					plan.some(d => /SCAN messages/.test(d)),
					plan.join('\n'),
				).toBe(false);
			}
		} finally {
			store.close();
		}
	});
});
