/**
 * Which chats name which sessions (source/forensics/analysis/chat-names.ts): found as a walk of every chat finds them,
 * patched when a chat is judged again or goes, and a copy patched leaves its original as it was. The incremental walk
 * (incremental.test.ts) holds the kept index to the same walk after every random step.
 */
import {describe, expect, it, vi} from 'vitest';
import {analyze} from '../../../source/forensics/analysis/analyze.js';
import {ChatNames, chatTuple} from '../../../source/forensics/analysis/chat-names.js';
import {T0, dmKey, routingEntry, session, snapshot} from '../../helpers/records.js';

const A = dmKey('1');
const B = dmKey('2');

function chats() {
	const rows = [
		session({id: 'a1', sessionKey: A, chatId: '1', userId: 'u1', chatType: 'dm', newestMessageAt: T0 + 10}),
		session({id: 'a2', sessionKey: A, chatId: '1', userId: 'u1', chatType: 'dm', newestMessageAt: T0 + 20}),
		session({id: 'b1', sessionKey: B, chatId: '2', userId: 'u2', chatType: 'dm', newestMessageAt: T0 + 30}),
	];
	return analyze(snapshot(rows, {routing: [routingEntry(A, 'a1'), routingEntry(B, 'b1')]})).routing;
}

const reached = (names: ChatNames, ids: string[], tuples: string[] = []) => {
	const into = new Set<string>();
	names.reached(new Set(ids), new Set(tuples), into);
	return [...into].sort();
};

describe('chat names', () => {
	it('finds the chats naming a session or falling back to a tuple', () => {
		const routing = chats();
		const names = ChatNames.of(routing);
		expect(reached(names, ['a2'])).toEqual([A]);
		expect(reached(names, ['a1', 'b1'])).toEqual([A, B]);
		expect(reached(names, ['nobody'])).toEqual([]);
		expect(reached(names, [], [chatTuple(routing[1]!)])).toEqual([routing[1]!.sessionKey]);
	});

	it('is patched when a chat is judged again or goes; a copy patched leaves the original', () => {
		const [a, b] = chats();
		const names = ChatNames.of([a!, b!]);
		const copy = names.copy();
		copy.replace(a, {...a!, members: ['a2'], restartResolvesTo: 'a2', routingEntry: null});
		copy.replace(b, undefined);
		expect(reached(copy, ['a1'])).toEqual([]);
		expect(reached(copy, ['a2'])).toEqual([A]);
		expect(reached(copy, ['b1'], [chatTuple(b!)])).toEqual([]);
		expect(reached(names, ['a1', 'b1'])).toEqual([A, B]);
	});

	it('writes only what a chat judged again dropped or gained (a Map entry deleted and set again is slow in V8)', () => {
		const [a, b] = chats();
		const names = ChatNames.of([a!, b!]);
		const deletes = vi.spyOn(Map.prototype, 'delete');
		try {
			// A message to the chat: judged again, naming the same sessions.
			names.replace(a, {...a!, newestActivityAt: (a!.newestActivityAt ?? 0) + 1});
			expect(deletes).not.toHaveBeenCalled();
			// It stops naming a1: that name alone is removed.
			names.replace(a, {...a!, members: ['a2'], restartResolvesTo: 'a2', routingEntry: null});
			expect(deletes).toHaveBeenCalledTimes(1);
		} finally {
			deletes.mockRestore();
		}

		expect(reached(names, ['a1'])).toEqual([]);
		expect(reached(names, ['a2', 'b1'])).toEqual([A, B]);
	});
});
