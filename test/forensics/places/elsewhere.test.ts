/**
 * The analysis beyond state.db's own verdicts (forensics/places/elsewhere.ts): the places judged,
 * each chat's newest message elsewhere, and the findings of both and of the session signatures;
 * nothing of the places when the store read none.
 */
import {describe, expect, it} from 'vitest';
import {analyze} from '../../../source/forensics/analysis/analyze.js';
import type {Places} from '../../../source/forensics/places.js';
import {ELSEWHERE_ACTION_KINDS, elsewhereOf} from '../../../source/forensics/places/elsewhere.js';
import type {Snapshot} from '../../../source/forensics/types.js';
import {T0, dmKey, routingEntry, session, snapshot} from '../../helpers/records.js';

const K = dmKey('42');

function storeWith(places?: Places): Snapshot {
	const keyed = session({id: 'k', sessionKey: K, userId: 'u1', chatId: '42', chatType: 'dm', newestMessageAt: T0 + 60});
	const noChat = session({id: 'n', sessionKey: dmKey('9'), startedAtRaw: T0 + 5});
	return {...snapshot([keyed, noChat], {routing: [routingEntry(K, 'k')]}), places};
}

function elsewhere(snap: Snapshot) {
	const a = analyze({...snap, places: undefined});
	return elsewhereOf(snap, {byId: a.byId, lineage: a.lineage, routing: a.routing});
}

const transcript = {
	path: '/h/sessions/k.jsonl',
	sessionId: 'k',
	size: 10,
	mtimeMs: 0,
	lines: 2,
	invalidLines: 0,
	incompleteLast: false,
	timestamps: [T0 + 30, T0 + 120],
	problem: null,
	olderThanRow: false,
};

describe('elsewhereOf', () => {
	it('a store read without its places: no verdicts, no chat elsewhere, the signatures still found', () => {
		const e = elsewhere(storeWith());
		expect(e.places).toBeNull();
		expect(e.newestElsewhere).toEqual([]);
		expect(e.findings.map(f => [f.kind, f.subject])).toEqual([['keyed-null-chat-id', 'n']]);
	});

	it("the places judged: a diverted transcript's turns in the chat, the halt first, then the signatures", () => {
		const places: Places = {
			home: '/h',
			gatewayStart: null,
			diverted: [transcript],
			spool: [],
			captures: [],
			before: [],
			notes: [],
		};
		const e = elsewhere(storeWith(places));
		expect(e.places?.diverted.map(d => [d.kind, d.turns])).toEqual([['diverted', 1]]);
		expect(e.newestElsewhere).toMatchObject([
			{sessionKey: K, turns: 1, newestAt: T0 + 120, newestFile: '/h/sessions/k.jsonl', newerThanStore: true},
		]);
		expect(e.findings.map(f => f.kind)).toEqual(['write-halt', 'keyed-null-chat-id']);
	});

	it('the phantom row alone does not make a scan exit 1', () => {
		expect(ELSEWHERE_ACTION_KINDS.has('phantom-unknown-row')).toBe(false);
		expect(ELSEWHERE_ACTION_KINDS.has('write-halt')).toBe(true);
		expect(ELSEWHERE_ACTION_KINDS.has('foreign-profile-chats')).toBe(true);
	});
});
