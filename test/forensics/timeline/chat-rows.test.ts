/**
 * Which rows hold one chat's conversation, and why (forensics/timeline/chat-rows.ts): by key
 * (certain), by the peer tuple (strong), by lineage (strong continuations, weak branches, never a
 * delegate nor another key's row), attributed keyless rows; and which chat a session id names.
 */
import {describe, expect, it} from 'vitest';
import {analyze} from '../../../source/forensics/analysis/analyze.js';
import type {OrphanVerdict} from '../../../source/forensics/routing/orphans.js';
import type {Rollback} from '../../../source/forensics/rollbacks/rollbacks.js';
import {type ChatRowsInput, chatOfSession, chatRows} from '../../../source/forensics/timeline/chat-rows.js';
import type {SessionRecord} from '../../../source/forensics/types.js';
import {T0, dmKey, routingEntry, session, snapshot} from '../../helpers/records.js';

const K = dmKey('42');
const OTHER = dmKey('7');
const keyed = (id: string, partial: Partial<SessionRecord> = {}) =>
	session({id, sessionKey: K, userId: 'u1', chatId: '42', chatType: 'dm', ...partial});

function inputOf(sessions: SessionRecord[], extra: Partial<ChatRowsInput> = {}): ChatRowsInput {
	const a = analyze(snapshot(sessions, {routing: [routingEntry(K, 'k')]}));
	return {
		sessionKey: K,
		chat: a.routing.find(c => c.sessionKey === K),
		sessions,
		byId: a.byId,
		lineage: a.lineage,
		rollbacks: [],
		orphans: [],
		...extra,
	};
}

const rowsOf = (input: ChatRowsInput) => chatRows(input).map(r => [r.id, r.via.join('+'), r.certainty]);

describe('chatRows', () => {
	it('keyed rows are certain; a compression parent of another key is not the chat', () => {
		const rows = [
			keyed('k', {parentSessionId: 'p', startedAtRaw: T0 + 200}),
			keyed('p', {endReason: 'compression', endedAtRaw: T0 + 150}),
			session({id: 'x', sessionKey: OTHER, chatId: '7', parentSessionId: 'k', startedAtRaw: T0 + 300}),
		];
		expect(rowsOf(inputOf(rows))).toEqual([
			['k', 'key', 'certain'],
			['p', 'key', 'certain'],
		]);
	});

	it('lineage: a keyless /branch child is weak, a keyless compression child strong, a delegate never', () => {
		const rows = [
			keyed('k', {endReason: 'compression', endedAtRaw: T0 + 100}),
			session({id: 'b', branchedFrom: 'k', parentSessionId: 'k', startedAtRaw: T0 + 50, source: 'cli'}),
			session({id: 'c', parentSessionId: 'k', startedAtRaw: T0 + 110, source: 'cli'}),
			session({id: 'd', delegateFrom: 'k', parentSessionId: 'k', startedAtRaw: T0 + 60, source: 'cli'}),
		];
		const input = inputOf(rows);
		expect(rowsOf(input)).toEqual([
			['b', 'lineage', 'weak'],
			['c', 'lineage', 'strong'],
			['k', 'key', 'certain'],
		]);
		expect(chatRows(input).find(r => r.id === 'c')!.evidence).toEqual(['compression child of k (parent_session_id)']);
	});

	it("a keyless row with the chat's whole peer tuple is strong; one differing in the thread is not", () => {
		const rows = [
			keyed('k'),
			session({id: 't', userId: 'u1', chatId: '42', chatType: 'dm', source: 'telegram', hasMessageRows: false}),
			session({id: 'u', userId: 'u1', chatId: '42', chatType: 'dm', threadId: '9', hasMessageRows: false}),
		];
		const [, t] = chatRows(inputOf(rows));
		expect(rowsOf(inputOf(rows))).toEqual([
			['k', 'key', 'certain'],
			['t', 'peer-tuple', 'strong'],
		]);
		expect(t!.evidence[0]).toContain("the chat's peer tuple (telegram, u1, 42, dm, —)");
	});

	it("attributed rows: a rollback's skipped rows, adoptable orphans; the strongest reason wins", () => {
		const rows = [keyed('k'), session({id: 's', source: 'cli'}), session({id: 'o', source: 'cli'})];
		const rollback = {
			sessionKey: K,
			resumedId: 'k',
			skipped: {id: 's', certainty: 'strong', evidence: ['fork close']},
			alsoSkipped: [{id: 'o'}],
		} as Rollback;
		const orphan = {
			orphanId: 'o',
			verdict: 'adoptable',
			sessionKey: K,
			evidence: 'lineage',
			donorId: 'k',
		} as OrphanVerdict;
		const other = {...orphan, orphanId: 's', sessionKey: OTHER} as OrphanVerdict;
		const rowsFound = chatRows(inputOf(rows, {rollbacks: [rollback], orphans: [orphan, other]}));
		expect(rowsFound.map(r => [r.id, r.via.join('+'), r.certainty])).toEqual([
			['k', 'key', 'certain'],
			['o', 'skipped+adoptable', 'strong'],
			['s', 'skipped', 'strong'],
		]);
		expect(rowsFound[1]!.evidence).toEqual([
			'an older keyless row inside the same gap of k',
			'repair-routing adopts it into this chat by lineage: donor k',
		]);
	});
});

describe('chatOfSession', () => {
	it("a row's own key, else a rollback or adoption naming it, else its nearest keyed ancestor but a delegate's", () => {
		const rows = [
			keyed('k', {endReason: 'compression', endedAtRaw: T0 + 100}),
			session({id: 'c', parentSessionId: 'k', startedAtRaw: T0 + 110, source: 'cli'}),
			session({id: 'g', parentSessionId: 'c', startedAtRaw: T0 + 120, source: 'cli', branchedFrom: 'c'}),
			session({id: 'd', delegateFrom: 'k', parentSessionId: 'k', startedAtRaw: T0 + 60, source: 'cli'}),
			session({id: 'o', source: 'cli'}),
			session({id: 'lone', source: 'cli'}),
		];
		const input = inputOf(rows);
		const orphan = {orphanId: 'o', verdict: 'adoptable', sessionKey: OTHER} as OrphanVerdict;
		const of = (id: string) => chatOfSession(id, {...input, orphans: [orphan], routing: []});
		expect(['k', 'c', 'g', 'd', 'o', 'lone'].map(of)).toEqual([K, K, K, null, OTHER, null]);
	});
});
