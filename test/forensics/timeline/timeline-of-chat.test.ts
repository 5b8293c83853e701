/**
 * From an analysis to one chat's timeline (forensics/timeline/timeline-of-chat.ts): which chat a
 * name means (its key, a session id or suffix of one of its rows) or why it means none, with the
 * next step; then the timeline of its rows.
 */
import {describe, expect, it} from 'vitest';
import {analyze} from '../../../source/forensics/analysis/analyze.js';
import {SPAN_GAP_SECONDS} from '../../../source/forensics/timeline/timeline.js';
import {chatNamed, timelineOfChat} from '../../../source/forensics/timeline/timeline-of-chat.js';
import type {SessionRecord} from '../../../source/forensics/types.js';
import {T0, dmKey, routingEntry, session, snapshot} from '../../helpers/records.js';

const K = dmKey('42');
const K_ID = '20231114_221320_aaaabbbb';
const C_ID = '20231114_222000_04c1d6c6';
const keyed = (id: string, partial: Partial<SessionRecord> = {}) =>
	session({id, sessionKey: K, userId: 'u1', chatId: '42', chatType: 'dm', ...partial});

const analysis = analyze(
	snapshot(
		[
			keyed(K_ID, {endReason: 'compression', endedAtRaw: T0 + 100}),
			session({id: C_ID, parentSessionId: K_ID, startedAtRaw: T0 + 110, source: 'cli'}),
			session({id: '20231114_223000_04c1ffff', source: 'cli'}),
			session({id: '20231114_223000_aaaa0000', source: 'cli', startedAtRaw: T0 + 5}),
		],
		{routing: [routingEntry(K, K_ID)]},
	),
);

describe('chatNamed', () => {
	it('a chat by its key, with its rows and the default span gap', () => {
		const named = chatNamed(analysis, K);
		expect(named).toMatchObject({ok: true, sessionKey: K, spanGapSeconds: SPAN_GAP_SECONDS});
		expect(named.ok && named.rows.map(r => r.id)).toEqual([K_ID, C_ID]);
	});

	it("a session id or its suffix names the session's chat, through lineage for a keyless row", () => {
		expect(chatNamed(analysis, '04c1d6c6')).toMatchObject({ok: true, sessionKey: K});
		expect(chatNamed(analysis, K_ID)).toMatchObject({ok: true, sessionKey: K});
	});

	it('a session of no chat, an ambiguous suffix and an unknown name are refused, each with its next step', () => {
		expect(chatNamed(analysis, '04c1ffff')).toEqual({
			ok: false,
			reason:
				'session 20231114_223000_04c1ffff belongs to no chat: it has no session key, and no rollback, adoption ' +
				'or lineage ties it to one',
			next: 'see where it came from with: hfx lineage 20231114_223000_04c1ffff',
		});
		const ambiguous = chatNamed(analysis, '04c1');
		expect(ambiguous).toMatchObject({ok: false, next: 'give more of the id'});
		expect(!ambiguous.ok && ambiguous.reason).toContain('"04c1" names 2 sessions');
		expect(chatNamed(analysis, 'nothing')).toEqual({
			ok: false,
			reason: 'no chat or session "nothing"',
			next: 'list the chats with: hfx routing',
		});
	});

	it("the end of a chat's key is suggested", () => {
		expect(chatNamed(analysis, 'dm:42')).toMatchObject({ok: false, next: `did you mean: hfx timeline ${K}`});
	});
});

describe('timelineOfChat', () => {
	it("builds the named chat's timeline from its rows, spans and the routing", () => {
		const named = chatNamed(analysis, K);
		if (!named.ok) {
			throw new Error(named.reason);
		}

		const t = timelineOfChat(
			analysis,
			named,
			[{sessionId: C_ID, firstAt: T0 + 120, lastAt: T0 + 180, messages: 3}],
			[],
			T0 + 1000,
		);
		expect(t).toMatchObject({sessionKey: K, now: T0 + 1000, spanGapSeconds: SPAN_GAP_SECONDS, rollbacks: []});
		expect(t.rows.map(r => r.id)).toEqual([K_ID, C_ID]);
		expect(t.events.some(e => e.kind === 'messages' && e.sessionId === C_ID && e.messages === 3)).toBe(true);
		expect(t.events.some(e => e.kind === 'routing')).toBe(true);
	});
});
