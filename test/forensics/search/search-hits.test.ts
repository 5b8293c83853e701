/**
 * What a search hit is to an operator (forensics/search/search-hits.ts): its chat in the words of
 * `hfx sessions` (the key, "keyless: orphan of K", "keyless: cli"), the orphans the analysis names,
 * and one store's hits merged newest first, each message once.
 */
import {describe, expect, it} from 'vitest';
import type {Analysis} from '../../../source/forensics/analysis/analyze.js';
import {
	type StoreHit,
	chatOf,
	chatOfRow,
	keylessChatsOf,
	mergeHits,
	orphanChats,
} from '../../../source/forensics/search/search-hits.js';
import {T0, dmKey, routingEntry, session, snapshot} from '../../helpers/records.js';

const K = dmKey('42');

const hit = (messageId: number, via: StoreHit['via'] = 'fts'): StoreHit => ({
	messageId,
	sessionId: 's',
	role: 'user',
	timestamp: T0 + messageId,
	inactive: false,
	snippet: [],
	via,
});

describe('chatOf', () => {
	const orphans = new Map<string, string | null>([
		['o1', K],
		['o2', null],
	]);

	it('a keyed row is its key; a missing row is said so', () => {
		expect(chatOf(session({id: 'k', sessionKey: K}), orphans)).toEqual({
			kind: 'keyed',
			label: K,
			sessionKey: K,
			belongsTo: null,
		});
		expect(chatOf(undefined, orphans)).toMatchObject({kind: 'unknown-session', label: 'no sessions row'});
	});

	it('a keyless row the analysis names is the orphan of its chat, or an orphan of none', () => {
		expect(chatOf(session({id: 'o1'}), orphans)).toMatchObject({
			kind: 'orphan',
			label: `keyless: orphan of ${K}`,
			belongsTo: K,
		});
		expect(chatOf(session({id: 'o2', source: 'cli'}), orphans)).toMatchObject({
			kind: 'orphan',
			label: 'keyless: orphan',
		});
	});

	it('a keyless gateway row with messages is an orphan even unnamed; a local surface, tool or empty row is not', () => {
		expect(chatOf(session({id: 'x'}), orphans).kind).toBe('orphan');
		expect(chatOf(session({id: 'c', source: 'cli'}), orphans).label).toBe('keyless: cli');
		expect(chatOf(session({id: 't', source: 'tool'}), orphans).label).toBe('keyless: tool');
		expect(chatOf(session({id: 'e', hasMessageRows: false}), orphans).label).toBe('keyless: telegram');
		expect(chatOf(session({id: 'n', source: '', hasMessageRows: false}), orphans).label).toBe('keyless: no source');
	});
});

describe('chatOfRow', () => {
	it('tells a keyed row and a local surface alone; a keyless gateway row needs the analysis (null)', () => {
		expect(chatOfRow({source: 'telegram', sessionKey: K})).toMatchObject({kind: 'keyed', label: K});
		expect(chatOfRow({source: 'tui', sessionKey: null})).toMatchObject({kind: 'keyless', label: 'keyless: tui'});
		expect(chatOfRow({source: 'telegram', sessionKey: null})).toBeNull();
		expect(chatOfRow(undefined)).toMatchObject({kind: 'unknown-session'});
	});
});

describe('orphanChats', () => {
	it("repair-routing's orphans with their donor's key; a rollback's skipped rows belong to its chat", () => {
		const chats = orphanChats({
			orphans: [
				{orphanId: 'o1', sessionKey: null},
				{orphanId: 'o2', sessionKey: dmKey('7')},
			],
			rollbacks: [{sessionKey: K, skipped: {id: 'o1', kind: 'keyless'}, alsoSkipped: [{id: 'o3'}]}],
		} as unknown as Pick<Analysis, 'orphans' | 'rollbacks'>);
		expect(Object.fromEntries(chats)).toEqual({o1: K, o2: dmKey('7'), o3: K});
	});

	it('a same-key row a rollback passed over is not an orphan', () => {
		const chats = orphanChats({
			orphans: [],
			rollbacks: [{sessionKey: K, skipped: {id: 'n', kind: 'same-key'}, alsoSkipped: []}],
		} as unknown as Pick<Analysis, 'orphans' | 'rollbacks'>);
		expect(chats.size).toBe(0);
	});
});

describe('keylessChatsOf', () => {
	it('names the chat of an orphan repair-routing would adopt, from the store alone', () => {
		const keyed = session({
			id: 'k',
			sessionKey: K,
			userId: 'u1',
			chatId: '42',
			chatType: 'dm',
			newestMessageAt: T0 + 60,
		});
		const orphan = session({id: 'o', userId: 'u1', chatId: '42', chatType: 'dm', startedAtRaw: T0 + 120});
		const {byId, chats} = keylessChatsOf(snapshot([keyed, orphan], {routing: [routingEntry(K, 'k')]}));
		expect([...byId.keys()]).toEqual(['k', 'o']);
		expect(Object.fromEntries(chats)).toEqual({o: K});
	});
});

describe('mergeHits', () => {
	it('keeps each message once (the index first), newest first, at most limit', () => {
		const merged = mergeHits([hit(3), hit(9)], [hit(9, 'scan'), hit(5, 'scan'), hit(1, 'scan')], 3);
		expect(merged.map(h => [h.messageId, h.via])).toEqual([
			[9, 'fts'],
			[5, 'scan'],
			[3, 'fts'],
		]);
	});
});
