/**
 * The rows chatScope keeps must name every keyless row's chat exactly as the whole store does:
 * random stores with cross-source keys, lineage markers across sources, rows v25's repair-routing
 * fails on, routing entries naming other sources' rows, and restart probes for every pair the
 * store would read (deterministic per pair, so the whole store and the scope see the same ones).
 */
import {describe, expect, it} from 'vitest';
import {analyzeChats} from '../../../source/forensics/analysis/analyze.js';
import {chatScope, hitScope, scopeRow} from '../../../source/forensics/rollbacks/chat-scope.js';
import {LOCAL_SURFACES} from '../../../source/forensics/routing/orphans.js';
import {rollbackProbePairs} from '../../../source/forensics/rollbacks/rollback-pairs.js';
import {chatOf, keylessChatsOf, orphanChats} from '../../../source/forensics/search/search-hits.js';
import type {RestartProbe, RoutingEntry, RuleSet, SessionRecord, Snapshot} from '../../../source/forensics/types.js';
import {prng} from '../../helpers/prng.js';
import {T0, routingEntry, session} from '../../helpers/records.js';

const GATEWAYS = ['telegram', 'discord', 'slack'];
const SOURCES = [...GATEWAYS, ...GATEWAYS, 'cli', 'tool'];
const REASONS = [null, null, 'compression', 'session_reset', 'agent_close', 'idle', 'cli_close'];

function pickFrom(r: () => number) {
	return <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
}

function row(r: () => number, n: number, ids: readonly string[]): SessionRecord {
	const pick = pickFrom(r);
	const source = pick(SOURCES);
	// A key usually names the row's own platform; sometimes another (a cross-source key).
	const platform = r() < 0.85 ? source : pick(GATEWAYS);
	const chat = Math.floor(r() * 3);
	const keyed = source !== 'tool' && source !== 'cli' && r() < 0.6;
	const started = T0 + Math.floor(r() * 20_000);
	const link = () => (ids.length > 0 && r() < 0.15 ? pick(ids) : null);
	const reason = pick(REASONS);
	return session({
		id: `s${String(n).padStart(3, '0')}`,
		source,
		sessionKey: keyed ? `agent:main:${platform}:dm:${chat}` : null,
		chatId: keyed || r() < 0.3 ? String(chat) : null,
		chatType: keyed ? 'dm' : null,
		userId: r() < 0.8 ? `u${chat}` : null,
		startedAtRaw: r() < 0.04 ? 'garbage' : started,
		newestMessageAt: started + Math.floor(r() * 3000),
		lastActivityAtRaw: r() < 0.5 ? started + 100 : null,
		endReason: reason,
		parentSessionId: link(),
		branchedFrom: r() < 0.3 ? link() : null,
		resetFrom: r() < 0.3 ? link() : null,
		modelConfigInvalid: r() < 0.03,
		messageRows: 3,
	});
}

/** The probe the store would read for a pair: the same for the same pair whatever else was read. */
function probeFor(orphan: SessionRecord, keyed: SessionRecord, seed: number): RestartProbe {
	const r = prng(
		seed ^ [...`${orphan.id}|${keyed.id}`].reduce((h, c) => Math.imul(h ^ c.charCodeAt(0), 16_777_619), 2_166_136_261),
	);
	const lastAt = orphan.newestMessageAt ?? T0;
	const firstAt = lastAt - 50 - Math.floor(r() * 500);
	const after =
		r() < 0.8
			? {at: lastAt + 10 + Math.floor(r() * 900), lastAt: lastAt + 2000, messages: 4, userTurns: 2, platformId: null}
			: null;
	return {
		orphanId: orphan.id,
		keyedId: keyed.id,
		orphan: {firstAt, lastAt, messages: 5, firstPlatformId: null, lastPlatformId: null},
		before: r() < 0.9 ? {at: firstAt - 1 - Math.floor(r() * 600), messages: 3, platformId: null} : null,
		lastBefore: firstAt - 1,
		inside: r() < 0.85 ? 0 : 1,
		after,
	};
}

function world(seed: number, ruleSet: RuleSet): Snapshot {
	const r = prng(seed);
	const sessions: SessionRecord[] = [];
	for (let n = 0; n < 45; n++) {
		sessions.push(
			row(
				r,
				n,
				sessions.map(s => s.id),
			),
		);
	}

	const routing: RoutingEntry[] = [];
	for (const s of sessions) {
		if (s.sessionKey && r() < 0.4) {
			// Usually the key's own row; sometimes any row (of another source too).
			routing.push(
				routingEntry(s.sessionKey, r() < 0.7 ? s.id : sessions[Math.floor(r() * sessions.length)]!.id, {scope: 'x'}),
			);
		}
	}

	return {
		sessions,
		routing: [...new Map(routing.map(e => [e.sessionKey, e])).values()],
		owner: 'default',
		ruleSet,
		routingScope: null,
		legacyRouting: [],
	};
}

function withProbes(snapshot: Snapshot, seed: number): Snapshot {
	const restartProbes = rollbackProbePairs(snapshot.sessions, LOCAL_SURFACES).map(p =>
		probeFor(p.orphan, p.keyed, seed),
	);
	return {...snapshot, restartProbes};
}

/** The chat every keyless row of `source` is labelled with, as hfx search labels it (keylessChatsOf). */
function labels(snapshot: Snapshot, source: string): Record<string, string> {
	const {byId, chats} = keylessChatsOf(snapshot);
	const out: Record<string, string> = {};
	for (const s of snapshot.sessions) {
		if (s.source === source && s.sessionKey === null) {
			out[s.id] = chatOf(byId.get(s.id), chats).label;
		}
	}

	return out;
}

describe('chatScope', () => {
	it('labels every keyless row of a source as the whole store does (random stores, three generations)', () => {
		let compared = 0;
		let named = 0;
		let rolled = 0;
		for (let seed = 1; seed <= 150; seed++) {
			for (const ruleSet of ['legacy-v21', 'v25', 'v30'] as const) {
				const whole = withProbes(world(seed, ruleSet), seed);
				const analysis = analyzeChats(whole);
				rolled += analysis.rollbacks.length;
				// The labels' own analysis names the same chats as the whole analysis.
				expect(keylessChatsOf(whole).chats, `seed ${seed} ${ruleSet}`).toEqual(orphanChats(analysis));
				for (const source of GATEWAYS) {
					const scope = chatScope(whole.sessions.map(scopeRow), new Set([source]));
					expect(scope, `seed ${seed}`).not.toBeNull();
					const part = withProbes({...whole, sessions: whole.sessions.filter(s => scope!.has(s.id))}, seed);
					const expected = labels(whole, source);
					expect(labels(part, source), `seed ${seed} ${ruleSet} ${source}`).toEqual(expected);
					compared += Object.keys(expected).length;
					named += Object.values(expected).filter(l => l.startsWith('keyless: orphan of')).length;
				}
			}
		}

		// The worlds exercise what the scope must keep: many rows, many of them named orphans.
		expect(compared).toBeGreaterThan(5000);
		expect(named).toBeGreaterThan(800);
		expect(rolled).toBeGreaterThan(500);
	});

	it('reads everything when a row may pair with any source', () => {
		const rows = [session({id: 'a', source: 'telegram'}), session({id: 'b', source: 'unknown'})];
		expect(chatScope(rows.map(scopeRow), new Set(['telegram']))).toBeNull();
		expect(chatScope([scopeRow(session({id: 'a', source: 'telegram'}))], new Set(['unknown']))).toBeNull();
	});

	it(
		"keeps the rows of the sources, their keyless rows' parents and the rows " +
			'repair-routing fails on, and leaves the rest',
		() => {
			const rows = [
				session({id: 'o', source: 'telegram', parentSessionId: 'p'}),
				session({id: 'k', source: 'telegram', sessionKey: 'agent:main:telegram:dm:1'}),
				session({id: 'p', source: 'slack', sessionKey: 'agent:main:slack:dm:1'}),
				session({id: 'c', source: 'cli', modelConfigInvalid: true}),
				session({id: 't', source: 'discord', startedAtRaw: 'soon'}),
				session({id: 'x', source: 'discord', sessionKey: 'agent:main:discord:dm:1'}),
				session({id: 'y', source: 'tool', modelConfigInvalid: true}),
			];
			expect([...chatScope(rows.map(scopeRow), new Set(['telegram']))!].sort()).toEqual(['c', 'k', 'o', 'p', 't']);
		},
	);
});

/** The chat `hfx search` names for each of `ids` (keylessChatsOf, then chatOf). */
function labelsOf(snapshot: Snapshot, ids: readonly string[]): Record<string, string> {
	const {byId, chats} = keylessChatsOf(snapshot);
	return Object.fromEntries(ids.map(id => [id, chatOf(byId.get(id), chats).label]));
}

/** world's rows, some users made '' (no user, as NULL is) so both ways of having none are met. */
function worldWithEmptyUsers(seed: number, ruleSet: RuleSet): Snapshot {
	const r = prng(seed * 7919);
	const whole = world(seed, ruleSet);
	return {...whole, sessions: whole.sessions.map(s => (s.userId !== null && r() < 0.1 ? {...s, userId: ''} : s))};
}

describe('hitScope', () => {
	it('labels each keyless gateway row, alone and a few together, as the whole store does (random stores)', () => {
		let compared = 0;
		let named = 0;
		let narrower = 0;
		for (let seed = 1; seed <= 150; seed++) {
			for (const ruleSet of ['legacy-v21', 'v25', 'v30'] as const) {
				const whole = withProbes(worldWithEmptyUsers(seed, ruleSet), seed);
				const keyless = whole.sessions.filter(s => s.sessionKey === null && GATEWAYS.includes(s.source)).map(s => s.id);
				const sets = [...keyless.map(id => [id]), keyless.filter((_, i) => i % 3 === seed % 3)];
				for (const hits of sets) {
					const scope = hitScope(whole.sessions.map(scopeRow), new Set(hits));
					expect(scope, `seed ${seed}`).not.toBeNull();
					const part = withProbes({...whole, sessions: whole.sessions.filter(s => scope!.has(s.id))}, seed);
					const expected = labelsOf(whole, hits);
					expect(labelsOf(part, hits), `seed ${seed} ${ruleSet} ${hits.join(',')}`).toEqual(expected);
					compared += hits.length;
					named += Object.values(expected).filter(l => l.startsWith('keyless: orphan of')).length;
					narrower +=
						scope!.size < chatScope(whole.sessions.map(scopeRow), new Set(['telegram', 'discord', 'slack']))!.size
							? 1
							: 0;
				}
			}
		}

		expect(compared).toBeGreaterThan(5000);
		expect(named).toBeGreaterThan(1000);
		expect(narrower).toBeGreaterThan(1000);
	});

	it("keeps the hit, its parent, its source's keyed rows of a user that may be its, and failing rows", () => {
		const rows = [
			session({id: 'o', source: 'telegram', userId: 'u1', parentSessionId: 'p'}),
			session({id: 'k', source: 'telegram', userId: 'u1', sessionKey: 'agent:main:telegram:dm:1'}),
			session({id: 'n', source: 'telegram', userId: null, sessionKey: 'agent:main:telegram:dm:2'}),
			session({id: 'e', source: 'telegram', userId: '', sessionKey: 'agent:main:telegram:dm:3'}),
			session({id: 'u', source: 'telegram', userId: 'u2', sessionKey: 'agent:main:telegram:dm:4'}),
			session({id: 'o2', source: 'telegram', userId: 'u1'}),
			session({id: 'p', source: 'slack', sessionKey: 'agent:main:slack:dm:1'}),
			session({id: 'c', source: 'cli', modelConfigInvalid: true}),
			session({id: 'x', source: 'discord', userId: 'u1', sessionKey: 'agent:main:discord:dm:1'}),
		];
		expect([...hitScope(rows.map(scopeRow), new Set(['o']))!].sort()).toEqual(['c', 'e', 'k', 'n', 'o', 'p']);
		// A hit with no user may match every user.
		const none = rows.map(r => (r.id === 'o' ? {...r, userId: null} : r));
		expect([...hitScope(none.map(scopeRow), new Set(['o']))!].sort()).toEqual(['c', 'e', 'k', 'n', 'o', 'p', 'u']);
		expect(hitScope([...rows, session({id: 'z', source: 'unknown'})].map(scopeRow), new Set(['o']))).toBeNull();
	});
});
