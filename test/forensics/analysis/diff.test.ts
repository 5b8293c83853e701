/**
 * The pure diff of two moments (forensics/analysis/diff.ts) on plain data: a chat whose restart target
 * changed, its newest message moved, sessions added / removed / changed (messages, end stamps,
 * identity columns), gateway_routing moves, a rollback in B and not in A.
 */
import {describe, expect, it} from 'vitest';
import {analyze} from '../../../source/forensics/analysis/analyze.js';
import {type DiffSide, diffHasFindings, diffRouting, diffStores} from '../../../source/forensics/analysis/diff.js';
import type {Rollback} from '../../../source/forensics/rollbacks/rollbacks.js';
import type {SessionRecord, Snapshot} from '../../../source/forensics/types.js';
import {T0, dmKey, routingEntry, session, snapshot} from '../../helpers/records.js';

const K = dmKey('42');
const keyed = (id: string, partial: Partial<SessionRecord> = {}) =>
	session({id, sessionKey: K, userId: 'u1', chatId: '42', chatType: 'dm', ...partial});

function side(snap: Snapshot, counts: Record<string, number>, rollbacks: Rollback[] = []): DiffSide {
	const a = analyze(snap);
	return {analysis: {...a, rollbacks: [...a.rollbacks, ...rollbacks]}, messageCounts: new Map(Object.entries(counts))};
}

const before = snapshot(
	[
		keyed('old', {startedAtRaw: T0, newestMessageAt: T0 + 100}),
		session({id: 'gone', source: 'cli', startedAtRaw: T0 - 50, newestMessageAt: T0 - 40}),
	],
	{routing: [routingEntry(K, 'old')]},
);
const after = snapshot(
	[
		keyed('old', {
			startedAtRaw: T0,
			newestMessageAt: T0 + 100,
			endedAtRaw: T0 + 500,
			endReason: 'session_reset',
			chatId: null,
		}),
		keyed('new', {startedAtRaw: T0 + 500, newestMessageAt: T0 + 600, parentSessionId: 'old'}),
	],
	{routing: [routingEntry(K, 'new')]},
);

describe('diffStores', () => {
	it('names the chat whose restart target changed and where its newest message went', () => {
		const d = diffStores(side(before, {old: 4, gone: 2}), side(after, {old: 4, new: 2}));
		const chat = d.chats.find(c => c.sessionKey === K)!;
		expect(chat).toMatchObject({targetChanged: true, newestMoved: true, rolledBack: false, changed: true});
		expect(chat.a).toMatchObject({restartResumes: 'old', newestIn: 'old', routingEntry: 'old'});
		expect(chat.b).toMatchObject({restartResumes: 'new', newestIn: 'new', newestAt: T0 + 600});
		expect(diffHasFindings(d)).toBe(true);
	});

	it('lists sessions added and removed, and what moved in the others: end stamps and identity columns', () => {
		const d = diffStores(side(before, {old: 4, gone: 2}), side(after, {old: 4, new: 2}));
		expect(d.sessions.added.map(s => [s.id, s.messages])).toEqual([['new', 2]]);
		expect(d.sessions.removed.map(s => [s.id, s.messages])).toEqual([['gone', 2]]);
		expect(d.sessions.changed).toEqual([
			{
				id: 'old',
				sessionKey: K,
				messages: {a: 4, b: 4},
				newestAt: {a: T0 + 100, b: T0 + 100},
				ended: {a: null, b: T0 + 500, reasonA: null, reasonB: 'session_reset'},
				identity: [{column: 'chat_id', a: '42', b: null}],
			},
		]);
	});

	it('counts messages added to a session, and leaves an unchanged one out', () => {
		const grown = snapshot(
			[
				keyed('old', {startedAtRaw: T0, newestMessageAt: T0 + 900}),
				session({id: 'gone', source: 'cli', startedAtRaw: T0 - 50, newestMessageAt: T0 - 40}),
			],
			{routing: [routingEntry(K, 'old')]},
		);
		const d = diffStores(side(before, {old: 4, gone: 2}), side(grown, {old: 9, gone: 2}));
		expect(d.sessions.changed.map(s => [s.id, s.messages, s.newestAt, s.ended, s.identity])).toEqual([
			['old', {a: 4, b: 9}, {a: T0 + 100, b: T0 + 900}, null, []],
		]);
		expect(d.sessions.unchanged).toBe(1);
		expect(d.chats[0]).toMatchObject({targetChanged: false, newestMoved: true});
		expect(diffHasFindings(d)).toBe(false);
	});

	it('reports a rollback of B that A lacks, and one of A that B lacks the other way', () => {
		const r = {sessionKey: K, resumedId: 'old', skipped: {id: 'o1'}} as Rollback;
		const d = diffStores(side(before, {}), side(before, {}, [r]));
		expect(d.rollbacks.inBOnly).toEqual([r]);
		expect(d.chats.find(c => c.sessionKey === K)).toMatchObject({
			rolledBack: true,
			changed: true,
			targetChanged: false,
		});
		expect(diffHasFindings(d)).toBe(true);
		const back = diffStores(side(before, {}, [r]), side(before, {}));
		expect(back.rollbacks).toEqual({inBOnly: [], inAOnly: [r]});
		expect(diffHasFindings(back)).toBe(false);
	});
});

describe('diffRouting', () => {
	it('tells added, removed, repointed and re-stamped entries apart, scope by scope', () => {
		const a = [
			routingEntry('k1', 's1', {updatedAt: 1}),
			routingEntry('k2', 's2', {updatedAt: 1}),
			routingEntry('k3', 's3', {updatedAt: 1}),
		];
		const b = [
			routingEntry('k1', 's1', {updatedAt: 2}),
			routingEntry('k2', 's9', {updatedAt: 2}),
			routingEntry('k4', 's4', {updatedAt: 2}),
			{...routingEntry('k1', 's1', {updatedAt: 1}), scope: '/other/sessions'},
		];
		expect(
			diffRouting(a, b).map(m => `${m.kind} ${m.scope === '/other/sessions' ? 'other:' : ''}${m.sessionKey}`),
		).toEqual(['restamped k1', 'repointed k2', 'removed k3', 'added k4', 'added other:k1']);
	});
});
