/**
 * Which routing entry the gateway loads for a chat (forensics/routing/routing-entries.ts): its own
 * scope's newest usable row, else the sessions.json mirror; rows of other scopes only explain.
 */
import {describe, expect, it} from 'vitest';
import {
	chooseEntry,
	entriesByKey,
	otherScopeNotes,
	ownsKey,
} from '../../../source/forensics/routing/routing-entries.js';
import {T0, dmKey, routingEntry} from '../../helpers/records.js';

const OWN = '/home/u/.hermes/sessions';
const A = dmKey('1');
const B = dmKey('2');

describe('entriesByKey', () => {
	it("splits each key's entries into its own scope, the mirror and other scopes; only limits the keys", () => {
		const routing = [routingEntry(A, 'a1'), routingEntry(A, 'x', {scope: '/other/sessions'}), routingEntry(B, 'b1')];
		const mirror = [routingEntry(A, 'm', {scope: 'sessions.json'})];
		const byKey = entriesByKey(routing, mirror, OWN);
		expect(byKey.get(A)).toEqual({own: [routing[0]], mirror: [mirror[0]], otherScopes: [routing[1]]});
		expect([...entriesByKey(routing, mirror, OWN, new Set([B])).keys()]).toEqual([B]);
	});

	it('with no scope column every row is its own; a key only another scope names is not its chat', () => {
		const routing = [routingEntry(A, 'a', {scope: '/x'}), routingEntry(B, 'b', {scope: '/y'})];
		expect(entriesByKey(routing, [], null).get(B)!.own).toHaveLength(1);
		const scoped = entriesByKey(routing, [], OWN);
		expect(ownsKey(scoped.get(A)!)).toBe(false);
		expect(ownsKey({own: [], mirror: [routingEntry(A, 'm')], otherScopes: []})).toBe(true);
	});
});

describe('chooseEntry', () => {
	it('the newest usable row of its own scope wins over the mirror', () => {
		const older = routingEntry(A, 'old', {updatedAt: T0});
		const newer = routingEntry(A, 'new', {updatedAt: T0 + 5});
		const chosen = chooseEntry({own: [newer, older], mirror: [routingEntry(A, 'm')], otherScopes: []});
		expect(chosen).toEqual({entry: newer, source: 'gateway_routing', notes: []});
	});

	it('a broken own row is skipped for the mirror, and said so', () => {
		const broken = routingEntry(A, null, {problem: 'entry_json is not valid JSON'});
		const mirror = routingEntry(A, 'm');
		expect(chooseEntry({own: [broken], mirror: [mirror], otherScopes: []})).toEqual({
			entry: mirror,
			source: 'sessions.json',
			notes: [
				"gateway_routing's entry is skipped by the gateway (entry_json is not valid JSON); sessions.json fills the key",
			],
		});
	});

	it('a broken own row and no usable mirror: the broken row, said so; no entry at all: none', () => {
		const broken = routingEntry(A, null, {problem: 'names no session'});
		expect(chooseEntry({own: [broken], mirror: [], otherScopes: []})).toEqual({
			entry: broken,
			source: 'gateway_routing',
			notes: ["gateway_routing's entry is skipped by the gateway (names no session)"],
		});
		expect(chooseEntry(undefined)).toEqual({entry: undefined, source: null, notes: []});
		expect(chooseEntry({own: [], mirror: [], otherScopes: []})).toEqual({entry: undefined, source: null, notes: []});
	});
});

describe('otherScopeNotes', () => {
	it("counts another gateway's entries for the key and names their scopes once each", () => {
		const others = [
			routingEntry(A, 'x', {scope: '/b'}),
			routingEntry(A, 'y', {scope: '/b'}),
			routingEntry(A, 'z', {scope: ''}),
		];
		expect(otherScopeNotes({own: [], mirror: [], otherScopes: others})).toEqual([
			"gateway_routing also has 3 entries for this key in another scope (/b, ''): " +
				"another gateway's, not loaded by this one",
		]);
		expect(otherScopeNotes({own: [], mirror: [], otherScopes: others.slice(0, 1)})[0]).toContain('has an entry for');
		expect(otherScopeNotes(undefined)).toEqual([]);
	});
});
