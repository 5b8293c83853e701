/**
 * The incremental analysis must equal the full one, whatever changed: random stores, random
 * sequences of the changes an agent makes (messages, rotations, ends, lost identity, repairs,
 * routing moves, deletions), compared after every step.
 */
import {isDeepStrictEqual} from 'node:util';
import {describe, expect, it} from 'vitest';
import {type Analysis, analyze} from '../../../source/forensics/analysis/analyze.js';
import {analyzeIncremental, chatsReached} from '../../../source/forensics/analysis/incremental.js';
import {chatTuple} from '../../../source/forensics/analysis/chat-names.js';
import type {ChatRouting} from '../../../source/forensics/routing/routing.js';
import type {RoutingEntry, RuleSet, SessionRecord, Snapshot} from '../../../source/forensics/types.js';
import {T0, dmKey, routingEntry, session, snapshot} from '../../helpers/records.js';
import {prng as rng} from '../../helpers/prng.js';
import {resolveBuildRules} from '../../../source/forensics/routing/build-rules.js';

const PLATFORMS = ['telegram', 'discord', 'slack'];
const REAP = 'ws_orphan_reap';
const REASONS = [null, 'compression', 'session_reset', 'agent_close', 'idle', 'superseded_by_repair', 'cli_close'];

function comparable(a: Analysis) {
	return {
		orphans: a.orphans,
		routing: JSON.parse(JSON.stringify(a.routing)) as unknown,
		findings: a.findings,
		reapChurns: a.reapChurns,
		edges: [...a.lineage.parentEdge.entries()].sort(([x], [y]) => (x < y ? -1 : 1)),
		children: [...a.lineage.children.entries()]
			.map(([k, v]) => [k, v.map(e => e.childId).sort()] as const)
			.sort(([x], [y]) => (x < y ? -1 : 1)),
	};
}

/**
 * toEqual of the two, with node's strict deep equality first: 5,400 comparisons, and toEqual is about
 * four times slower. Strictly equal values are toEqual-equal, so the verdict is toEqual's either way.
 */
function expectSame(incremental: Analysis, full: Analysis, where: string): void {
	const [a, b] = [comparable(incremental), comparable(full)];
	if (!isDeepStrictEqual(a, b)) {
		expect(a, where).toEqual(b);
	}
}

/**
 * What puts a row in a §4 signature list (session-signatures.ts): a keyed row losing its chat_id, an explicit close
 * then a message, a phantom 'unknown' row, another profile's key. The incremental analysis reuses the last
 * signature findings when a commit cannot move them: these make commits that can.
 */
function signed(s: SessionRecord, r: () => number): Partial<SessionRecord> {
	const c = r();
	if (c < 0.25) {
		return {chatId: null};
	}

	if (c < 0.5) {
		return {
			endedAtRaw: T0 + 1000,
			endReason: 'cli_close',
			newestMessageAt: T0 + 40_000 + r() * 1e5,
			hasMessageRows: true,
		};
	}

	if (c < 0.75) {
		return {source: 'unknown', sessionKey: null, inputTokens: 10, messageRows: 1};
	}

	return {sessionKey: `agent:work:${s.source}:dm:${Math.floor(r() * 4)}`};
}

/**
 * `reaps`: rows end ws_orphan_reap now and then and hold one turn or two (reap-churn.ts: a reaped row followed by
 * one-turn rows of its key is a churn, which the incremental analysis keeps per key).
 */
function world(seed: number, ruleSet: RuleSet, signs = false, reaps = false) {
	const r = rng(seed);
	const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
	let n = 0;
	const sessions = new Map<string, SessionRecord>();
	let routing: RoutingEntry[] = [];
	const keyOf = (p: string, chat: number) => `agent:main:${p}:dm:${chat}`;
	const newSession = (partial: Partial<SessionRecord> = {}): SessionRecord => {
		const platform = partial.source ?? pick(PLATFORMS);
		const chat = Math.floor(r() * 4);
		const keyed = r() < 0.7;
		const started = T0 + Math.floor(r() * 20_000);
		const s = session({
			id: `s${String(n++).padStart(4, '0')}`,
			source: platform,
			sessionKey: keyed ? keyOf(platform, chat) : null,
			chatId: keyed ? String(chat) : null,
			chatType: keyed ? 'dm' : null,
			userId: r() < 0.8 ? `u${chat}` : null,
			startedAtRaw: started,
			newestMessageAt: started + Math.floor(r() * 3000),
			hasMessageRows: r() < 0.9,
			messageRows: reaps ? 1 + Math.floor(r() * 3) : 3,
			lastActivityAtRaw: ruleSet !== 'legacy-v21' && r() < 0.5 ? started + 100 : null,
			...partial,
		});
		if (!s.hasMessageRows) {
			s.newestMessageAt = null;
			s.messageCountColumn = 0;
		}

		return s;
	};

	for (let i = 0; i < 40; i++) {
		const s = newSession();
		if (r() < 0.25 && sessions.size > 0) {
			s.parentSessionId = pick([...sessions.keys()]);
		}

		sessions.set(s.id, s);
	}

	for (const s of sessions.values()) {
		if (s.sessionKey && r() < 0.3) {
			routing.push(routingEntry(s.sessionKey, s.id, {scope: 'x'}));
		}
	}

	routing = [...new Map(routing.map(e => [e.sessionKey, e])).values()];
	const snap = (): Snapshot => ({
		sessions: [...sessions.values()],
		routing: [...routing],
		owner: 'default',
		ruleSet,
		routingScope: null,
		legacyRouting: [],
	});
	/** The records of the ids the last mutate() changed, as they were (for the shared-index mode). */
	let before = new Map<string, SessionRecord | undefined>();
	/** One change an agent (or hfx's repair) could make; returns the ids it touched. */
	const mutate = (): Set<string> => {
		const changed = new Set<string>();
		before = new Map();
		const originalSet = sessions.set.bind(sessions);
		const originalDelete = sessions.delete.bind(sessions);
		const remember = (id: string) => {
			if (!before.has(id)) {
				before.set(id, sessions.get(id));
			}
		};

		sessions.set = (id: string, value: SessionRecord) => {
			remember(id);
			return originalSet(id, value);
		};

		sessions.delete = (id: string) => {
			remember(id);
			return originalDelete(id);
		};

		try {
			return mutateInner(changed);
		} finally {
			sessions.set = originalSet;
			sessions.delete = originalDelete;
		}
	};

	const mutateInner = (changed: Set<string>): Set<string> => {
		const ids = [...sessions.keys()];
		const id = pick(ids);
		const s = sessions.get(id)!;
		const choice = r();
		const update = (patch: Partial<SessionRecord>) => {
			sessions.set(id, {...s, ...patch});
			changed.add(id);
		};

		if (signs && r() < 0.3) {
			update(signed(s, r));
		} else if (choice < 0.3) {
			update({
				newestMessageAt: (s.newestMessageAt ?? T0) + 500,
				hasMessageRows: true,
				messageCountColumn: s.messageCountColumn + 2,
				messageRows: (s.messageRows ?? 0) + 2,
			});
		} else if (choice < 0.45) {
			update({endedAtRaw: T0 + 30_000, endReason: pick(reaps ? [...REASONS, REAP, REAP] : REASONS)});
		} else if (choice < 0.6) {
			// A rotation: the old row ends, a child starts (with or without the key: the incident).
			update({endedAtRaw: T0 + 25_000, endReason: 'compression'});
			const child = newSession({
				source: s.source,
				parentSessionId: id,
				sessionKey: r() < 0.6 ? s.sessionKey : null,
				startedAtRaw: T0 + 25_001,
			});
			sessions.set(child.id, child);
			changed.add(child.id);
		} else if (choice < 0.7) {
			update({sessionKey: r() < 0.5 ? null : `agent:main:${s.source}:dm:${Math.floor(r() * 4)}`});
		} else if (choice < 0.78) {
			const fresh = newSession();
			sessions.set(fresh.id, fresh);
			changed.add(fresh.id);
		} else if (choice < 0.86) {
			sessions.delete(id);
			changed.add(id);
		} else if (choice < 0.94 && s.sessionKey) {
			routing = [
				...routing.filter(e => e.sessionKey !== s.sessionKey),
				routingEntry(s.sessionKey, r() < 0.8 ? id : 'gone', {scope: 'x'}),
			];
		} else {
			update({delegateFrom: r() < 0.5 ? 'x' : null, branchedFrom: null, userId: r() < 0.5 ? null : 'u9'});
		}

		return changed;
	};

	return {snap, mutate, index: sessions, before: () => before};
}

/**
 * One step of a world: its next mutation, the snapshot after it, and the incremental analysis of it from `previous`,
 * with the caller's shared index (the live store's mode) or its own copy.
 */
function advance(
	w: ReturnType<typeof world>,
	previous: Analysis,
	shared: boolean,
): {next: Snapshot; incremental: Analysis} {
	const changed = w.mutate();
	const next = w.snap();
	const incremental = shared
		? analyzeIncremental(previous, next, changed, {}, id => w.index.get(id), {byId: w.index, before: w.before()})
		: analyzeIncremental(previous, next, changed);
	return {next, incremental};
}

describe('analyzeIncremental equals analyze after any sequence of changes', () => {
	for (const ruleSet of ['v30', 'v25', 'legacy-v21'] as const) {
		it.each(Array.from({length: 30}, (_, i) => i + 1))(`${ruleSet}, seed %i: 40 random steps`, seed => {
			const w = world(seed * 7919, ruleSet);
			let previous = analyze(w.snap());
			for (let step = 0; step < 40; step++) {
				const changed = w.mutate();
				const next = w.snap();
				const incremental = analyzeIncremental(previous, next, changed);
				const full = analyze(next);
				expectSame(incremental, full, `seed ${seed * 7919}, step ${step}`);
				previous = incremental;
			}
		});
	}

	for (const ruleSet of ['v30', 'v25', 'legacy-v21'] as const) {
		it.each(Array.from({length: 15}, (_, i) => i + 1))(
			`${ruleSet}, seed %i, the caller's shared index (the live store's mode)`,
			seed => {
				const w = world(seed * 104_729, ruleSet);
				let previous = analyze(w.snap());
				for (let step = 0; step < 40; step++) {
					const {next, incremental} = advance(w, previous, true);
					const full = analyze(next);
					expectSame(incremental, full, `seed ${seed * 104_729}, step ${step}`);
					previous = incremental;
				}
			},
		);
	}

	// The signature findings reused across commits that cannot move them (incremental.ts signaturesAfter).
	for (const shared of [false, true]) {
		it.each(Array.from({length: 20}, (_, i) => i + 1))(
			`v30, seed %i, rows gaining and losing §4 signatures${shared ? ', shared index' : ''}`,
			seed => {
				const w = world(seed * 3571, 'v30', true);
				let previous = analyze(w.snap());
				for (let step = 0; step < 40; step++) {
					const {next, incremental} = advance(w, previous, shared);
					expectSame(incremental, analyze(next), `seed ${seed * 3571}, step ${step}`);
					previous = incremental;
				}
			},
		);
	}

	// Which chats name which sessions (chat-names.ts), kept from step to step: each asked against a walk of every chat.
	for (const shared of [false, true]) {
		it(`keeps which chats name which sessions as a walk of every chat does${shared ? ', shared index' : ''}`, () => {
			const named = (chat: ChatRouting): string[] =>
				[
					...chat.members,
					chat.restartResolvesTo,
					chat.newestActivityIn,
					chat.routingEntry,
					...chat.resolution.candidates.map(c => c.sessionId),
				].filter((id): id is string => id !== null);
			const sorted = (keys: Iterable<string>) => [...keys].sort();
			for (let seed = 1; seed <= 20; seed++) {
				const w = world(seed * 4409, 'v30', seed % 2 === 0);
				let previous = analyze(w.snap());
				for (let step = 0; step < 40; step++) {
					const {incremental} = advance(w, previous, shared);
					const where = `seed ${seed * 4409}, step ${step}`;
					const ids = new Set([...w.index.keys(), ...incremental.routing.flatMap(named)]);
					for (const id of ids) {
						const walk = incremental.routing.filter(c => named(c).includes(id)).map(c => c.sessionKey);
						expect(sorted(chatsReached(incremental, new Set([id]), new Set())), where).toEqual(sorted(walk));
					}

					for (const tuple of new Set(incremental.routing.map(chatTuple))) {
						const walk = incremental.routing.filter(c => chatTuple(c) === tuple).map(c => c.sessionKey);
						expect(sorted(chatsReached(incremental, new Set(), new Set([tuple]))), where).toEqual(sorted(walk));
					}

					previous = incremental;
				}
			}
		});
	}

	// A chat's churn after a reap (reap-churn.ts), kept per key by the incremental analysis.
	for (const shared of [false, true]) {
		it(`v30, rows reaped and one-turn rows after them${shared ? ', shared index' : ''}: 30 seeds of 40 steps`, () => {
			let churned = 0;
			for (let seed = 1; seed <= 30; seed++) {
				const w = world(seed * 2713, 'v30', false, true);
				let previous = analyze(w.snap());
				for (let step = 0; step < 40; step++) {
					const {next, incremental} = advance(w, previous, shared);
					expectSame(incremental, analyze(next), `seed ${seed * 2713}, step ${step}`);
					churned += incremental.reapChurns.length > 0 ? 1 : 0;
					previous = incremental;
				}
			}

			// The walk meets churns (else it proves nothing about them).
			expect(churned).toBeGreaterThan(50);
		});
	}

	// Issue #27: the live view's analysis takes the installed build's rules; a garbage timestamp now and then.
	const builds = {
		'a build before #91543': resolveBuildRules('v30', {
			version: '0.20.5',
			sha: `f31cf971${'0'.repeat(32)}`,
			from: 'test',
		}),
		'an unknown build': resolveBuildRules('v30', null),
	};
	for (const [name, buildRules] of Object.entries(builds)) {
		it.each(Array.from({length: 10}, (_, i) => i + 1))(`v30, ${name}, seed %i: 40 random steps`, seed => {
			const w = world(seed * 6151, 'v30');
			const r = rng(seed);
			let previous = analyze(w.snap(), {buildRules});
			for (let step = 0; step < 40; step++) {
				const changed = w.mutate();
				const id = [...changed].find(x => w.index.has(x));
				if (id !== undefined && r() < 0.15) {
					w.index.set(id, {...w.index.get(id)!, lastActivityAtRaw: r() < 0.5 ? 5.49e246 : T0 + 100});
				}

				const next = w.snap();
				const incremental = analyzeIncremental(previous, next, changed, {buildRules});
				const full = analyze(next, {buildRules});
				const where = `seed ${seed * 6151}, step ${step}`;
				expectSame(incremental, full, where);
				expect([incremental.rulesLabel, incremental.buildAlternative === null], where).toEqual([
					full.rulesLabel,
					full.buildAlternative === null,
				]);
				previous = incremental;
			}
		});
	}

	it('never mutates the previous analysis (a paused view keeps showing it)', () => {
		const w = world(42, 'v30');
		const previous = analyze(w.snap());
		const frozen = JSON.stringify(comparable(previous));
		for (let step = 0; step < 20; step++) {
			analyzeIncremental(previous, w.snap(), w.mutate());
		}

		expect(JSON.stringify(comparable(previous))).toBe(frozen);
	});
});

describe('analyzeIncremental after a message to one chat', () => {
	it('walks no list of every listed row, chat or routing entry, and reads no other chat: indexes are kept', () => {
		const rows: SessionRecord[] = [];
		const routing: RoutingEntry[] = [];
		for (let c = 0; c < 60; c++) {
			const id = `k${String(c).padStart(3, '0')}`;
			rows.push(session({id, sessionKey: dmKey(String(c)), chatId: String(c), chatType: 'dm', startedAtRaw: T0 + c}));
			routing.push(routingEntry(dmKey(String(c)), id));
		}

		// Keyless rows long before any chat's activity: repair-routing lists them (none moves with the commits).
		for (let i = 0; i < 300; i++) {
			rows.push(session({id: `o${String(i).padStart(3, '0')}`, userId: `x${i}`, startedAtRaw: T0 - 90_000 - i * 60}));
		}

		const index = new Map(rows.map(s => [s.id, s]));
		const snap = () => snapshot([...index.values()], {routing});
		const commit = (previous: Analysis): Analysis => {
			const was = index.get('k007')!;
			index.set('k007', {
				...was,
				messageCountColumn: was.messageCountColumn! + 1,
				newestMessageAt: was.newestMessageAt! + 1,
			});
			const before = new Map([['k007', was]]);
			return analyzeIncremental(previous, snap(), new Set(['k007']), {}, id => index.get(id), {byId: index, before});
		};

		// The first commit builds what is kept; the walks of the second are counted.
		const previous = commit(analyze(snap()));
		expect(previous.listed.length).toBeGreaterThan(250);
		let walked = 0;
		for (const list of [previous.listed, previous.routing, routing] as unknown[][]) {
			Object.defineProperty(list, Symbol.iterator, {
				*value() {
					for (const item of Array.prototype.values.call(list)) {
						walked++;
						yield item;
					}
				},
			});
		}

		// Nor is a chat the commit does not reach read (the routing findings come from the chats that make one).
		let read = 0;
		const chats = previous.routing as ChatRouting[];
		for (let i = 0; i < chats.length; i++) {
			if (chats[i]!.sessionKey !== dmKey('7')) {
				chats[i] = new Proxy(chats[i]!, {
					get: (chat, field, receiver) => {
						read++;
						return Reflect.get(chat, field, receiver) as unknown;
					},
				});
			}
		}

		const next = commit(previous);
		expect(walked).toBeLessThan(10);
		expect(read).toBe(0);
		expectSame(next, analyze(snap()), 'the second commit');
	});
});

describe("analyzeIncremental keeps the order a full analysis meets a key's rows in", () => {
	it("a row updated under the same key keeps its place: a key without a platform keeps its first row's source", () => {
		// 'legacy:7' names no platform: the chat takes the source of its first row (telegram). A message to that row
		// moved it to the end of the key's rows, and the chat to discord, until a full analysis.
		const first = session({id: 'a', sessionKey: 'legacy:7', source: 'telegram', startedAtRaw: T0, chatId: '7'});
		const second = session({id: 'b', sessionKey: 'legacy:7', source: 'discord', startedAtRaw: T0 + 10, chatId: '7'});
		const filler = Array.from({length: 20}, (_, i) => session({id: `f${i}`, sessionKey: dmKey(String(100 + i))}));
		const before = analyze(snapshot([first, second, ...filler]));
		expect(before.routing.find(r => r.sessionKey === 'legacy:7')!.platform).toBe('telegram');
		const updated = {...first, newestMessageAt: T0 + 500, messageCountColumn: 9};
		const after = snapshot([updated, second, ...filler]);
		const incremental = analyzeIncremental(before, after, new Set(['a']));
		expect(incremental.routing.find(r => r.sessionKey === 'legacy:7')!.platform).toBe('telegram');
		expectSame(incremental, analyze(after), 'after a message to the first row');
	});
});
