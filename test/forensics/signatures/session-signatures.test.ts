/**
 * Session-level problems by their column signatures (forensics/signatures/session-signatures.ts,
 * hermes-incidents §4): a keyed gateway row without chat_id, a stale explicit close, a phantom
 * source='unknown' row, another profile's chats; each capped at 20 findings plus one count.
 */
import {describe, expect, it, vi} from 'vitest';
import {buildLineage} from '../../../source/forensics/lineage/lineage.js';
import {
	isKeyedWithoutChatId,
	isPhantomUnknown,
	isStaleExplicitClose,
	keyProfile,
	signatureFindings,
	signsOf,
} from '../../../source/forensics/signatures/session-signatures.js';
import type {SessionRecord} from '../../../source/forensics/types.js';
import {T0, dmKey, indexById, routingEntry, session} from '../../helpers/records.js';

function findings(sessions: SessionRecord[], owner = 'default', routing = [routingEntry(dmKey(), 'x')]) {
	const byId = indexById(sessions);
	return signatureFindings(sessions, {byId, lineage: buildLineage(sessions, byId), routing, owner});
}

describe('the signatures', () => {
	it("a key's profile is parsed once, however many rows carry the key", () => {
		const rows = Array.from({length: 30}, (_, i) =>
			session({id: `p${i}`, sessionKey: dmKey(String(i % 3), 'telegram', 'parsed-once'), chatId: String(i % 3)}),
		);
		// A parse begins with `key.startsWith('agent:')` (restart.ts parseSessionKey): counted on these rows' keys.
		const starts = vi.spyOn(String.prototype, 'startsWith');
		let found: ReturnType<typeof findings>;
		let parses: unknown[];
		try {
			found = findings(rows);
			parses = starts.mock.contexts.filter(
				(key, i) => String(key).includes(':parsed-once:') && starts.mock.calls[i]![0] === 'agent:',
			);
		} finally {
			starts.mockRestore();
		}

		expect(found.map(f => f.kind)).toContain('foreign-profile-chats');
		expect(parses).toHaveLength(3);
	});

	it('#59527: a keyed gateway row with chat_id NULL or empty; not a local surface nor an unknown source', () => {
		expect(isKeyedWithoutChatId(session({id: 'a', sessionKey: dmKey()}))).toBe(true);
		expect(isKeyedWithoutChatId(session({id: 'a', sessionKey: dmKey(), chatId: ''}))).toBe(true);
		expect(isKeyedWithoutChatId(session({id: 'a', sessionKey: dmKey(), chatId: '42'}))).toBe(false);
		expect(isKeyedWithoutChatId(session({id: 'a', sessionKey: dmKey(), source: 'cli'}))).toBe(false);
		expect(isKeyedWithoutChatId(session({id: 'a', sessionKey: dmKey(), source: 'unknown'}))).toBe(false);
		expect(isKeyedWithoutChatId(session({id: 'a'}))).toBe(false);
	});

	it('#106459: an explicit close written to after it, unless a compression child continues it', () => {
		const closed = session({id: 'c', endReason: 'tui_close', endedAtRaw: T0 + 100, newestMessageAt: T0 + 200});
		const lineage = buildLineage([closed]);
		expect(isStaleExplicitClose(closed, lineage)).toBe(true);
		expect(isStaleExplicitClose({...closed, newestMessageAt: T0 + 100}, lineage)).toBe(false);
		expect(isStaleExplicitClose({...closed, endReason: 'agent_close'}, lineage)).toBe(false);
		expect(isStaleExplicitClose({...closed, endReason: 'compression'}, lineage)).toBe(false);
		const child = session({id: 'd', parentSessionId: 'c', startedAtRaw: T0 + 150});
		const compressed = {...closed, endReason: 'compression'};
		expect(isStaleExplicitClose(compressed, buildLineage([compressed, child]))).toBe(false);
	});

	it('#111999: source unknown, keyless, tokens accounted, at most two messages', () => {
		const phantom = session({id: 'p', source: 'unknown', inputTokens: 10, messageCountColumn: 2, messageRows: null});
		expect(isPhantomUnknown(phantom)).toBe(true);
		expect(isPhantomUnknown({...phantom, messageRows: 3})).toBe(false);
		expect(isPhantomUnknown({...phantom, inputTokens: 0})).toBe(false);
		expect(isPhantomUnknown({...phantom, sessionKey: dmKey()})).toBe(false);
	});

	it("reads a key's profile: main is the default profile, main~ a profile named main", () => {
		expect(keyProfile(dmKey('1', 'telegram', 'main'))).toBe('default');
		expect(keyProfile(dmKey('1', 'telegram', 'main~'))).toBe('main');
		expect(keyProfile(dmKey('1', 'telegram', 'work'))).toBe('work');
		expect(keyProfile('telegram:42')).toBeNull();
	});
});

describe('signatureFindings', () => {
	it('a keyed row without chat_id names its compression parent that did not pass the chat on', () => {
		const parent = session({id: 'p', sessionKey: dmKey(), chatId: '42', endReason: 'compression'});
		const child = session({id: 'c', sessionKey: dmKey(), parentSessionId: 'p', startedAtRaw: T0 + 200});
		const [f] = findings([parent, child]);
		expect(f).toMatchObject({kind: 'keyed-null-chat-id', subject: 'c', severity: 'warning'});
		expect(f!.detail).toContain('it is the compression child of p, which did not pass its chat on');
	});

	it('caps a signature at 20 findings and counts the rest in one', () => {
		const rows = Array.from({length: 23}, (_, i) => session({id: `k${i}`, sessionKey: dmKey(String(i))}));
		const found = findings(rows).filter(f => f.kind === 'keyed-null-chat-id');
		expect(found).toHaveLength(21);
		expect(found[20]).toMatchObject({subject: '3 more', title: '3 more keyed rows without chat_id'});
	});

	it("another profile's keys in this store, and a row labelled another profile than its key's", () => {
		const rows = [
			session({id: 'w', sessionKey: dmKey('1', 'telegram', 'work'), chatId: '1'}),
			session({id: 'm', sessionKey: dmKey('2'), chatId: '2', profileName: 'work'}),
			session({id: 'ok', sessionKey: dmKey('3'), chatId: '3', profileName: 'main'}),
		];
		const found = findings(rows, 'default', [routingEntry(dmKey('1', 'telegram', 'work'), 'w')]);
		expect(found.map(f => [f.kind, f.subject, f.title])).toEqual([
			['foreign-profile-chats', 'work', "a row of profile work's chats in this store"],
			['foreign-profile-chats', 'default', 'a row keyed for profile default labelled another profile'],
		]);
		expect(found[0]!.detail).toContain('with 1 gateway_routing row for those keys');
	});

	it('a phantom row is information only; a store of plain rows has no finding', () => {
		const phantom = session({id: 'p', source: 'unknown', outputTokens: 5, messageCountColumn: 0});
		expect(findings([phantom]).map(f => [f.kind, f.severity])).toEqual([['phantom-unknown-row', 'info']]);
		expect(findings([session({id: 'a', sessionKey: dmKey(), chatId: '42'})])).toEqual([]);
	});

	it('rows whose columns say the same share one signs object; a different answer gets its own (issue #26)', () => {
		const rows = Array.from({length: 50}, (_, i) => session({id: `s${i}`, sessionKey: dmKey(String(i)), chatId: '1'}));
		const first = signsOf(rows[0]!);
		expect(new Set(rows.map(signsOf)).size).toBe(1);
		expect(first).toEqual({
			nullChat: false,
			closedThenWritten: false,
			phantom: false,
			profile: 'default',
			labelled: false,
		});
		const work = signsOf(session({id: 'w', sessionKey: dmKey('1', 'telegram', 'work'), chatId: '1'}));
		expect(work).not.toBe(first);
		expect(work.profile).toBe('work');
		const nullChat = signsOf(session({id: 'n', sessionKey: dmKey('2')}));
		expect(nullChat).not.toBe(first);
		expect(nullChat.nullChat).toBe(true);
		expect(signsOf(session({id: 'n2', sessionKey: dmKey('3')}))).toBe(nullChat);
	});
});
