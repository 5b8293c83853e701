/**
 * The reach of a change (source/forensics/analysis/change-reach.ts): which chats a few changed rows can move, and
 * what their verdicts may name. The incremental analysis's property test (incremental.test.ts) holds the whole step
 * equal to a full analysis; these pin each way a change reaches a chat on its own.
 */
import {describe, expect, it} from 'vitest';
import {type ChangeFacts, reachOf} from '../../../source/forensics/analysis/change-reach.js';
import type {OrphanVerdict} from '../../../source/forensics/routing/orphans.js';
import type {SessionRecord} from '../../../source/forensics/types.js';
import {dmKey, indexById, routingEntry, session} from '../../helpers/records.js';

const K1 = dmKey('1');
const K2 = dmKey('2');
const K3 = dmKey('3');

function orphan(partial: Partial<OrphanVerdict> & {orphanId: string}): OrphanVerdict {
	return {
		source: 'telegram',
		messageCount: 3,
		startedAt: null,
		lastActive: null,
		verdict: 'adoptable',
		evidence: 'lineage',
		donorId: null,
		sessionKey: null,
		reasonKind: null,
		reason: '',
		candidateDonors: [],
		profileOwner: null,
		localSurface: false,
		...partial,
	};
}

/** Facts of a change: `before` and `after` the rows, the orphan lists and routing as given (unmoved by default). */
function facts(before: SessionRecord[], after: SessionRecord[], rest: Partial<ChangeFacts> = {}): ChangeFacts {
	const old = indexById(before);
	const changed = new Set(
		[...before, ...after].filter(s => old.get(s.id) !== after.find(a => a.id === s.id)).map(s => s.id),
	);
	const listed: OrphanVerdict[] = [];
	return {
		changed,
		old: id => old.get(id),
		byId: indexById(after),
		listedBefore: listed,
		listed,
		routing: null,
		entriesNow: [],
		...rest,
	};
}

describe('reachOf', () => {
	it('a row whose key changed reaches both keys; its parent is touched; its tuples before and after are named', () => {
		const was = session({id: 'a', sessionKey: K1, chatId: '1', parentSessionId: 'p'});
		const now = {...was, sessionKey: K2, chatId: '2'};
		const quiet = session({id: 'q', sessionKey: K3});
		const reach = reachOf(facts([was, quiet], [now, quiet]));
		expect([...reach.affected]).toEqual([K1, K2]);
		expect([...reach.rowKeys]).toEqual([K1, K2]);
		expect([...reach.touched].sort()).toEqual(['a', 'p']);
		expect(reach.tuples.size).toBe(2);
	});

	it('a row with an empty key reaches no chat; the empty key is among the keys whose rows changed', () => {
		const was = session({id: 'a', sessionKey: ''});
		const reach = reachOf(facts([was], [{...was, messageCountColumn: 9}]));
		expect([...reach.affected]).toEqual([]);
		expect([...reach.rowKeys]).toEqual(['']);
	});

	it('the same orphan list: an orphan among the changed rows reaches its key (and a unanimous donors key)', () => {
		const row = session({id: 'o', sessionKey: null});
		const d1 = session({id: 'd1', sessionKey: K3});
		const d2 = session({id: 'd2', sessionKey: K3});
		const list = [
			orphan({orphanId: 'o', sessionKey: K1}),
			orphan({orphanId: 'o', reasonKind: 'ambiguous_predecessor', candidateDonors: ['d1', 'd2']}),
			orphan({orphanId: 'other', sessionKey: K2}),
		];
		const reach = reachOf(
			facts([row, d1, d2], [{...row, messageCountColumn: 5}, d1, d2], {listedBefore: list, listed: list}),
		);
		expect([...reach.affected]).toEqual([K1, K3]);
	});

	it('a new orphan list: orphans added, dropped or changed reach their keys, unchanged ones do not', () => {
		const before = [
			orphan({orphanId: 'kept', sessionKey: K1}),
			orphan({orphanId: 'gone', sessionKey: K2}),
			orphan({orphanId: 'moved', sessionKey: K3, verdict: 'adoptable'}),
		];
		const after = [
			orphan({orphanId: 'kept', sessionKey: K1}),
			orphan({orphanId: 'moved', sessionKey: K3, verdict: 'refused'}),
			orphan({orphanId: 'new', sessionKey: dmKey('4')}),
		];
		const reach = reachOf(facts([], [], {listedBefore: before, listed: after}));
		expect([...reach.affected].sort()).toEqual([K2, K3, dmKey('4')].sort());
	});

	it('routing that moved: an entry added, changed or removed reaches its key; an unchanged one does not', () => {
		const before = [routingEntry(K1, 'a'), routingEntry(K2, 'b'), routingEntry(K3, 'c')];
		const now = [routingEntry(K1, 'a'), routingEntry(K2, 'b2'), routingEntry(dmKey('4'), 'd')];
		const reach = reachOf(facts([], [], {routing: {before, now}, entriesNow: now}));
		expect([...reach.affected].sort()).toEqual([K2, K3, dmKey('4')].sort());
	});

	it('an entry that routes to a touched row (a changed row or its parent) reaches its chat', () => {
		const parent = session({id: 'p', sessionKey: null});
		const child = session({id: 'c', sessionKey: null, parentSessionId: 'p'});
		const entries = [routingEntry(K1, 'p'), routingEntry(K2, 'x')];
		const reach = reachOf(facts([parent], [parent, child], {entriesNow: entries}));
		expect([...reach.affected]).toEqual([K1]);
	});
});
