/**
 * Each chat's turns outside state.db (forensics/places/newest-elsewhere.ts): the files that hold
 * turns of its sessions or its routing key, how many, the newest one, and whether it is newer
 * than the chat's newest message in the store.
 */
import {describe, expect, it} from 'vitest';
import type {TurnsElsewhere} from '../../../source/forensics/places/place-verdicts.js';
import {newestElsewhere, newestElsewhereOf} from '../../../source/forensics/places/newest-elsewhere.js';
import type {ChatRouting} from '../../../source/forensics/routing/routing.js';
import {T0, dmKey} from '../../helpers/records.js';

const K = dmKey('42');

function chat(partial: Partial<ChatRouting> = {}): ChatRouting {
	return {
		sessionKey: K,
		members: ['k1'],
		routingEntry: 'k1',
		restartResolvesTo: 'k1',
		newestActivityIn: 'k1',
		newestActivityAt: T0 + 100,
		adoptableOrphans: [],
		...partial,
	} as ChatRouting;
}

const turns = (partial: Partial<TurnsElsewhere>): TurnsElsewhere => ({
	file: '/h/sessions/x.jsonl',
	kind: 'diverted',
	sessionId: null,
	sessionKey: null,
	turns: 1,
	newestAt: T0,
	...partial,
});

describe('newestElsewhereOf', () => {
	it("adds the turns of the chat's sessions and its key over every file; the first (newest) names the file", () => {
		const found = newestElsewhereOf(chat({adoptableOrphans: ['o']}), [
			turns({file: '/h/pending/p1.json', kind: 'spool', sessionKey: K, turns: 1, newestAt: T0 + 300}),
			turns({file: '/h/sessions/o.jsonl', sessionId: 'o', turns: 4, newestAt: T0 + 200}),
			turns({file: '/h/sessions/other.jsonl', sessionId: 'other', turns: 9, newestAt: T0 + 150}),
			turns({file: '/h/sessions/o.jsonl', sessionId: 'o', turns: 2, newestAt: T0 + 50}),
		]);
		expect(found).toEqual({
			sessionKey: K,
			turns: 7,
			files: ['/h/pending/p1.json', '/h/sessions/o.jsonl'],
			newestAt: T0 + 300,
			newestFile: '/h/pending/p1.json',
			newestKind: 'spool',
			newestSessionId: null,
			newerThanStore: true,
		});
	});

	it('is newer than the store only past its newest message, or when the chat has none; null turns are not', () => {
		const at = (newestAt: number | null, newestActivityAt: number | null) =>
			newestElsewhereOf(chat({newestActivityAt}), [turns({sessionId: 'k1', newestAt})])!.newerThanStore;
		expect(at(T0 + 100, T0 + 100)).toBe(false);
		expect(at(T0 + 101, T0 + 100)).toBe(true);
		expect(at(T0, null)).toBe(true);
		expect(at(null, null)).toBe(false);
	});

	it('is null for a chat none of whose sessions or key the files name', () => {
		expect(newestElsewhereOf(chat(), [turns({sessionId: 'other', sessionKey: dmKey('7')})])).toBeNull();
	});
});

describe('newestElsewhere', () => {
	it('lists only chats with turns elsewhere, in the routing order', () => {
		const a = chat({sessionKey: dmKey('1'), members: ['a'], routingEntry: null, restartResolvesTo: null});
		const b = chat({sessionKey: dmKey('2'), members: ['b'], routingEntry: null, restartResolvesTo: null});
		const c = chat({sessionKey: dmKey('3'), members: ['c'], routingEntry: null, restartResolvesTo: null});
		const found = newestElsewhere([a, b, c], [turns({sessionId: 'c'}), turns({sessionId: 'a'})]);
		expect(found.map(f => f.sessionKey)).toEqual([dmKey('1'), dmKey('3')]);
		expect(newestElsewhere([a, b, c], [])).toEqual([]);
	});
});
