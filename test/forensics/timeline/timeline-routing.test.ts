/**
 * The routing entry's moves on a chat's time axis (forensics/timeline/timeline-routing.ts): the
 * entry's last upsert, the scope's last full rewrite, a sessions.json mirror naming another row,
 * and a chat with no entry at all.
 */
import {describe, expect, it} from 'vitest';
import {lastFullRewrite, routingEvents} from '../../../source/forensics/timeline/timeline-routing.js';
import {T0, dmKey, routingEntry} from '../../helpers/records.js';

const K = dmKey('42');
const SCOPE = '/home/u/.hermes/sessions';
const NOW = T0 + 10_000;
const K_ID = '20231114_221320_aaaabbbb';
const O_ID = '20231114_222000_04c1d6c6';

const brief = (events: ReturnType<typeof routingEvents>) => events.map(e => [e.at, e.certainty, e.text]);

describe('lastFullRewrite', () => {
	it('is the newest updated_at two or more rows of the scope share; other scopes and lone rows do not count', () => {
		const rows = [
			routingEntry(dmKey('1'), 'a', {updatedAt: T0}),
			routingEntry(dmKey('2'), 'b', {updatedAt: T0}),
			routingEntry(dmKey('3'), 'c', {updatedAt: T0 + 50}),
			routingEntry(dmKey('4'), 'd', {updatedAt: T0 + 90, scope: '/x'}),
			routingEntry(dmKey('5'), 'e', {updatedAt: T0 + 90, scope: '/x'}),
			routingEntry(dmKey('6'), 'f', {updatedAt: null}),
			routingEntry(dmKey('7'), 'g', {updatedAt: null}),
		];
		expect(lastFullRewrite(rows, SCOPE)).toEqual({at: T0, entries: 2});
		expect(lastFullRewrite(rows, '/x')).toEqual({at: T0 + 90, entries: 2});
		expect(lastFullRewrite(rows.slice(2, 3), SCOPE)).toBeNull();
	});
});

describe('routingEvents', () => {
	const facts = (
		routing = [routingEntry(K, K_ID, {updatedAt: T0 + 500})],
		legacyRouting = [routingEntry(K, K_ID)],
	) => ({
		sessionKey: K,
		routing,
		routingScope: SCOPE,
		legacyRouting,
		now: NOW,
	});

	it('an entry upserted by a turn is certain, with the suffix of the row it names', () => {
		expect(brief(routingEvents(facts()))).toEqual([
			[T0 + 500, 'certain', "routing entry upserted: it names aaaabbbb (the chat's last turn, or close to it)"],
		]);
	});

	it('an entry last written by a full rewrite says so; a later upsert shows the rewrite before it', () => {
		const rewrite = [routingEntry(K, K_ID, {updatedAt: T0}), routingEntry(dmKey('1'), 'x', {updatedAt: T0})];
		expect(brief(routingEvents(facts(rewrite)))).toEqual([
			[T0, 'strong', "routing index rewritten in full; this chat's entry names aaaabbbb"],
		]);
		const since = [
			routingEntry(K, K_ID, {updatedAt: T0 + 9}),
			...rewrite.slice(1),
			routingEntry(dmKey('2'), 'y', {updatedAt: T0}),
		];
		expect(brief(routingEvents(facts(since)))).toEqual([
			[T0 + 9, 'certain', "routing entry upserted: it names aaaabbbb (the chat's last turn, or close to it)"],
			[T0, 'strong', 'routing index rewritten in full (the last structural save)'],
		]);
	});

	it('a mirror naming another row, an unusable entry, and another scope ignored', () => {
		const routing = [
			routingEntry(K, null, {updatedAt: T0 + 5, problem: 'entry_json is not valid JSON'}),
			routingEntry(K, 'zzz', {updatedAt: T0 + 6, scope: '/other'}),
		];
		expect(brief(routingEvents(facts(routing)))).toEqual([
			[
				T0 + 5,
				'certain',
				"routing entry upserted: it is unusable (entry_json is not valid JSON) (the chat's last turn, or close to it)",
			],
		]);
		const moved = routingEvents(facts(undefined, [routingEntry(K, O_ID)]));
		expect(brief(moved).at(-1)).toEqual([
			NOW,
			'strong',
			'sessions.json still names 04c1d6c6, gateway_routing aaaabbbb',
		]);
	});

	it('no entry: the mirror if it names one, else a restart recovers the chat from the rows', () => {
		expect(brief(routingEvents(facts([], [routingEntry(K, O_ID)])))).toEqual([
			[NOW, 'certain', 'no gateway_routing entry; sessions.json names 04c1d6c6'],
		]);
		expect(brief(routingEvents(facts([], [])))).toEqual([
			[NOW, 'certain', 'no routing entry for this chat: a restart recovers it from the rows'],
		]);
	});
});
