/**
 * What the live view reports between two snapshots (source/forensics/analysis/activity.ts): messages,
 * created / rotated / ended / reopened / removed sessions, session-key and routing-entry moves,
 * and findings that appeared or cleared. Pure analyses in, events out.
 */
import {describe, expect, it} from 'vitest';
import {
	type ActivityEvent,
	BURST_GAP_S,
	type NewMessages,
	changedSessionIds,
	diffActivity,
	foldActivity,
	rowActivity,
} from '../../../source/forensics/analysis/activity.js';
import {type Analysis, analyze} from '../../../source/forensics/analysis/analyze.js';
import type {RoutingEntry, SessionRecord} from '../../../source/forensics/types.js';
import {T0, dmKey, routingEntry, session, snapshot} from '../../helpers/records.js';

const K = dmKey('42');
const K2 = dmKey('43');
const AT = T0 + 99_999;
const NONE: NewMessages = new Map();

/** A telegram row carrying K and the chat tuple (u1, 42, dm). */
function keyed(id: string, partial: Partial<SessionRecord> = {}): SessionRecord {
	return session({id, sessionKey: K, userId: 'u1', chatId: '42', chatType: 'dm', ...partial});
}

function of(sessions: SessionRecord[], routing?: RoutingEntry[]): Analysis {
	return analyze(snapshot(sessions, {routing}));
}

function diff(before: SessionRecord[], after: SessionRecord[], newMessages: NewMessages = NONE): ActivityEvent[] {
	return diffActivity(of(before), of(after), newMessages, AT);
}

function kinds(events: ActivityEvent[]): Array<[string, string, string]> {
	return events.map(e => [e.kind, e.subject, e.text]);
}

/** The ids whose records differ (by identity) between two session lists, in `after` order, then the removed ones. */
function changedIds(before: readonly SessionRecord[], after: readonly SessionRecord[]): Set<string> {
	const was = new Map(before.map(s => [s.id, s]));
	const now = new Set(after.map(s => s.id));
	return new Set([
		...after.filter(s => was.get(s.id) !== s).map(s => s.id),
		...before.filter(s => !now.has(s.id)).map(s => s.id),
	]);
}

describe('messages', () => {
	it("reports each session's new message rows with its label, singular and plural", () => {
		const rows = [keyed('a'), session({id: 'b'}), session({id: 'c', source: ''})];
		const a = of(rows);
		const events = diffActivity(
			a,
			a,
			new Map([
				['a', 1],
				['b', 3],
				['c', 2],
				['ghost', 5],
			]),
			AT,
		);
		expect(kinds(events)).toEqual([
			['messages', 'a', `+1 message in a (${K})`],
			['messages', 'b', '+3 messages in b (telegram (no key))'],
			['messages', 'c', '+2 messages in c (no key)'],
			['messages', 'ghost', '+5 messages in ghost (unknown session)'],
		]);
	});

	it('stamps every event with the time it was seen', () => {
		const events = diff(
			[keyed('a')],
			[keyed('a', {endReason: 'agent_close'}), keyed('b', {startedAtRaw: T0 + 10})],
			new Map([['a', 2]]),
		);
		expect(events.length).toBeGreaterThanOrEqual(3);
		expect(events.every(e => e.at === AT)).toBe(true);
	});

	it('reports nothing when nothing changed (the same analysis, or two of one snapshot)', () => {
		const rows = [
			keyed('zombie', {newestMessageAt: T0 + 100}),
			keyed('current', {startedAtRaw: T0 + 200, newestMessageAt: T0 + 3000}),
			session({id: 'orphan', startedAtRaw: T0 + 3060, newestMessageAt: T0 + 9000}),
		];
		const routing = [routingEntry(K, 'zombie')];
		const a = of(rows, routing);
		expect(a.orphans).toHaveLength(1);
		expect(a.routing.some(r => r.rollbackRisk)).toBe(true);
		expect(diffActivity(a, a, NONE, AT)).toEqual([]);
		expect(diffActivity(a, of(rows, routing), NONE, AT)).toEqual([]);
	});
});

describe('created and rotated sessions', () => {
	it('reports a new keyed session with its key, a keyless one as having no routing identity', () => {
		const events = diff([], [keyed('k'), session({id: 'loose', source: 'discord', hasMessageRows: false})]);
		expect(kinds(events)).toEqual([
			['created', 'k', `k (telegram, ${K})`],
			['created', 'loose', 'loose (discord, no routing identity)'],
		]);
	});

	it('reports a compression child as a rotation, not a creation', () => {
		const parent = keyed('p', {endReason: 'compression'});
		const events = diff([parent], [parent, keyed('c', {parentSessionId: 'p', startedAtRaw: T0 + 121})]);
		// (The chat's rollback risk clears too: a restart now resumes the tip.)
		expect(kinds(events).filter(([k]) => k !== 'resolved')).toEqual([['rotated', 'c', `p → c (compression, ${K})`]]);
	});

	it("says a parent that ended by the rotation in the rotation's line alone; an end seen on its own stays", () => {
		const live = keyed('p');
		const rotated = diff(
			[live],
			[
				keyed('p', {endReason: 'compression', endedAtRaw: T0 + 120}),
				keyed('c', {parentSessionId: 'p', startedAtRaw: T0 + 121}),
			],
		);
		expect(rotated.map(e => e.kind).filter(k => k !== 'resolved')).toEqual(['rotated']);
		const endedOnly = diff([live], [keyed('p', {endReason: 'compression', endedAtRaw: T0 + 120})]);
		expect(kinds(endedOnly).filter(([k]) => k === 'ended')).toEqual([['ended', 'p', 'p: compression']]);
		const otherEnd = diff(
			[live, keyed('q', {sessionKey: K2, chatId: '43'})],
			[
				keyed('p', {endReason: 'compression', endedAtRaw: T0 + 120}),
				keyed('q', {sessionKey: K2, chatId: '43', endReason: 'agent_close'}),
				keyed('c', {parentSessionId: 'p', startedAtRaw: T0 + 121}),
			],
		);
		expect(kinds(otherEnd).filter(([k]) => k === 'ended')).toEqual([['ended', 'q', 'q: agent_close']]);
	});

	it('reports a reset child (model_config._reset_from) as a rotation', () => {
		const parent = keyed('p', {endReason: 'session_reset'});
		const events = diff([parent], [parent, keyed('r', {resetFrom: 'p', startedAtRaw: T0 + 121})]);
		expect(kinds(events)).toEqual([['rotated', 'r', `p → r (reset, ${K})`]]);
	});

	it('reports a child of any other edge (delegate, branch) as a creation', () => {
		const parent = keyed('p');
		const events = diff(
			[parent],
			[
				parent,
				session({id: 'd', source: 'tool', parentSessionId: 'p'}),
				session({id: 'b', branchedFrom: 'p', hasMessageRows: false}),
			],
		);
		expect(events.map(e => [e.kind, e.subject])).toEqual([
			['created', 'd'],
			['created', 'b'],
		]);
	});
});

describe('ended, reopened, re-keyed and removed sessions', () => {
	it('reports a session that ended, with its reason or "(no reason)"', () => {
		const events = diff(
			[keyed('a'), keyed('b', {sessionKey: K2, chatId: '43'})],
			[keyed('a', {endReason: 'agent_close'}), keyed('b', {sessionKey: K2, chatId: '43', endedAtRaw: T0 + 500})],
		);
		expect(kinds(events).filter(([k]) => k === 'ended')).toEqual([
			['ended', 'a', 'a: agent_close'],
			['ended', 'b', 'b: (no reason)'],
		]);
	});

	it('reports a session that was reopened, with what it was', () => {
		const events = diff(
			[keyed('a', {endReason: 'agent_close'}), keyed('b', {sessionKey: K2, chatId: '43', endedAtRaw: T0 + 500})],
			[keyed('a'), keyed('b', {sessionKey: K2, chatId: '43'})],
		);
		expect(kinds(events).filter(([k]) => k === 'ended')).toEqual([
			['ended', 'a', 'a reopened (was agent_close)'],
			['ended', 'b', 'b reopened (was ended)'],
		]);
	});

	it('does not report an end reason or ended_at that changed on a row that stays ended', () => {
		expect(
			diff([keyed('a', {endReason: 'agent_close'})], [keyed('a', {endReason: 'idle', endedAtRaw: T0 + 999})]),
		).toEqual([]);
	});

	it('reports a session key that was set, changed or cleared', () => {
		const before = [
			session({id: 'a', hasMessageRows: false}),
			keyed('b', {startedAtRaw: T0 + 1}),
			keyed('c', {startedAtRaw: T0 + 2, hasMessageRows: false}),
		];
		const after = [
			keyed('a', {hasMessageRows: false}),
			keyed('b', {startedAtRaw: T0 + 1, sessionKey: K2, chatId: '43'}),
			session({id: 'c', startedAtRaw: T0 + 2, hasMessageRows: false}),
		];
		expect(kinds(diff(before, after)).filter(([k]) => k === 'routing')).toEqual([
			['routing', 'a', `a got session key ${K}`],
			['routing', 'b', `b session key ${K} → ${K2}`],
			['routing', 'c', `c lost its session key ${K}`],
		]);
	});

	it('reports a session that is gone from the store', () => {
		expect(kinds(diff([keyed('a'), keyed('b', {startedAtRaw: T0 + 1})], [keyed('a')]))).toEqual([
			['removed', 'b', 'b is gone from the store'],
		]);
	});
});

describe('routing entries', () => {
	const rows = [keyed('a'), keyed('b', {startedAtRaw: T0 + 1})];

	it('reports an entry that appeared, moved or became unusable', () => {
		const before = of(rows, [routingEntry(K, 'a')]);
		const after = of(rows, [
			routingEntry(K, 'b'),
			routingEntry(K2, 'a'),
			routingEntry('agent:main:telegram:dm:44', null, {problem: 'entry_json is not valid JSON'}),
		]);
		expect(kinds(diffActivity(before, after, NONE, AT)).filter(([k]) => k === 'routing')).toEqual([
			['routing', K, `routing entry ${K}: a → b`],
			['routing', K2, `routing entry ${K2}: (none) → a`],
			['routing', 'agent:main:telegram:dm:44', 'routing entry agent:main:telegram:dm:44: (none) → (unusable)'],
		]);
	});

	it('tells entries of one key apart by scope', () => {
		const before = of(rows, [routingEntry(K, 'a', {scope: '/x'})]);
		const after = of(rows, [routingEntry(K, 'a', {scope: '/x'}), routingEntry(K, 'a', {scope: '/y'})]);
		expect(kinds(diffActivity(before, after, NONE, AT)).filter(([k]) => k === 'routing')).toEqual([
			['routing', K, `routing entry ${K}: (none) → a`],
		]);
	});

	it('reports nothing for an unchanged entry list, a dropped entry, or the very same array', () => {
		expect(diffActivity(of(rows, [routingEntry(K, 'a')]), of(rows, [routingEntry(K, 'a')]), NONE, AT)).toEqual([]);
		expect(
			diffActivity(of(rows, [routingEntry(K, 'a')]), of(rows, []), NONE, AT).filter(e => e.kind === 'routing'),
		).toEqual([]);
		// The same array object is taken as "nothing moved", whatever its contents say.
		const shared = [routingEntry(K, 'a')];
		const before = of(rows, shared);
		const after = of(rows, shared);
		shared[0] = routingEntry(K, 'b');
		expect(diffActivity(before, after, NONE, AT)).toEqual([]);
	});
});

describe('findings that appeared or cleared', () => {
	const donor = keyed('donor', {startedAtRaw: T0 - 3600, newestMessageAt: T0 - 60});
	const orphan = session({id: 'orphan', startedAtRaw: T0 + 60, newestMessageAt: T0 + 86_400});

	it('reports a new adoptable orphan with its key, and the rollback risk it makes', () => {
		const events = diff([donor], [donor, orphan]);
		expect(kinds(events)).toEqual([
			['created', 'orphan', 'orphan (telegram, no routing identity)'],
			['orphan', 'orphan', `orphan orphan (telegram, no routing identity): adoptable into ${K}`],
			['rollback-risk', K, `${K}: a restart would resume donor, newest message in orphan`],
		]);
	});

	it('reports a new refused orphan with its reason kind', () => {
		const lost = session({id: 'lost', source: 'discord', parentSessionId: 'gone'});
		expect(kinds(diff([donor], [donor, lost])).filter(([k]) => k === 'orphan')).toEqual([
			['orphan', 'lost', 'orphan lost (discord, no routing identity): refused (parent_not_keyed)'],
		]);
	});

	it('does not report an orphan again that was already one', () => {
		const events = diff([donor, orphan], [donor, orphan], new Map([['orphan', 4]]));
		expect(events.map(e => e.kind)).toEqual(['messages']);
	});

	it('reports a rollback risk that was cleared by the adoption', () => {
		const adopted = session({
			...orphan,
			sessionKey: K,
			userId: 'u1',
			chatId: '42',
			chatType: 'dm',
			parentSessionId: 'donor',
		});
		const retired = keyed('donor', {
			startedAtRaw: T0 - 3600,
			newestMessageAt: T0 - 60,
			endReason: 'superseded_by_repair',
			endedAtRaw: T0 + 90_000,
		});
		const before = of([donor, orphan]);
		const after = of([retired, adopted]);
		expect(before.routing[0]!.rollbackRisk).toBe(true);
		expect(after.routing[0]!.rollbackRisk).toBe(false);
		expect(kinds(diffActivity(before, after, NONE, AT))).toEqual([
			['repaired', 'orphan', `repaired: orphan took over ${K} from donor (superseded_by_repair)`],
			['routing', 'orphan', `orphan got session key ${K}`],
			['resolved', 'orphan', `orphan orphan cleared: it carries ${K} now`],
			['resolved', K, `rollback risk cleared for ${K}: a restart resumes its newest conversation`],
		]);
	});

	it('reports a rollback risk raised by a routing entry that moved back to a zombie', () => {
		const rows = [
			keyed('zombie', {newestMessageAt: T0 + 100}),
			keyed('current', {startedAtRaw: T0 + 200, newestMessageAt: T0 + 3000}),
		];
		const events = diffActivity(
			of(rows, [routingEntry(K, 'current')]),
			of(rows, [routingEntry(K, 'zombie')]),
			NONE,
			AT,
		);
		expect(kinds(events)).toEqual([
			['routing', K, `routing entry ${K}: current → zombie`],
			['rollback-risk', K, `${K}: a restart would resume zombie, newest message in current`],
		]);
	});
});

describe('rollback risks of a commit', () => {
	it('are looked for in the chats that are not the same object, when both lists hold the same chats in place', () => {
		// Two chats; the second re-judged (a new object in its place), a routing entry now on its zombie.
		const rows = [
			keyed('a1'),
			keyed('zombie', {sessionKey: K2, chatId: '43', newestMessageAt: T0 + 100}),
			keyed('current', {sessionKey: K2, chatId: '43', startedAtRaw: T0 + 200, newestMessageAt: T0 + 3000}),
		];
		const before = of(rows, [routingEntry(K2, 'current')]);
		const moved = of(rows, [routingEntry(K2, 'zombie')]);
		let reads = 0;
		const kept = new Proxy(before.routing[0]!, {
			get: (chat, field, receiver) => {
				reads++;
				return Reflect.get(chat, field, receiver) as unknown;
			},
		});
		const events = diffActivity(
			{...before, routing: [kept, before.routing[1]!]},
			{...moved, routing: [kept, moved.routing[1]!]},
			NONE,
			AT,
		);
		expect(kinds(events).filter(([kind]) => kind === 'rollback-risk')).toEqual([
			['rollback-risk', K2, `${K2}: a restart would resume zombie, newest message in current`],
		]);
		// The chat the commit did not re-judge is not read (three walks of every chat read each before).
		expect(reads).toBe(0);
	});
});

describe('the incremental form (changed ids and their old records) equals the full comparison', () => {
	const base = [
		keyed('donor', {startedAtRaw: T0 - 3600, newestMessageAt: T0 - 60}),
		keyed('other', {startedAtRaw: T0 - 7200, sessionKey: K2, chatId: '43', newestMessageAt: T0 - 5000}),
		keyed('gone', {source: 'discord', sessionKey: dmKey('9', 'discord'), chatId: '9', startedAtRaw: T0 - 100}),
		keyed('parent', {source: 'slack', sessionKey: dmKey('7', 'slack'), chatId: '7', startedAtRaw: T0 - 50}),
	];
	const changes: Array<[string, (rows: SessionRecord[]) => SessionRecord[]]> = [
		[
			'an end, a re-key and a removal',
			rows =>
				rows
					.filter(s => s.id !== 'gone')
					.map(s =>
						s.id === 'donor'
							? {...s, endReason: 'agent_close', endedAtRaw: T0}
							: s.id === 'other'
								? {...s, sessionKey: null}
								: s,
					),
		],
		[
			'a new orphan and a rotation',
			rows => [
				...rows.map(s => (s.id === 'parent' ? {...s, endReason: 'compression', endedAtRaw: T0 + 70} : s)),
				session({id: 'orphan', startedAtRaw: T0 + 60, newestMessageAt: T0 + 86_400}),
				keyed('child', {
					source: 'slack',
					sessionKey: dmKey('7', 'slack'),
					chatId: '7',
					parentSessionId: 'parent',
					startedAtRaw: T0 + 71,
				}),
			],
		],
		[
			'a reopening and a creation',
			rows => [
				...rows.map(s => (s.id === 'gone' ? {...s, endReason: null, endedAtRaw: null} : s)),
				keyed('fresh', {startedAtRaw: T0 + 5}),
			],
		],
	];
	const start = base.map(s => (s.id === 'gone' ? {...s, endReason: 'agent_close', endedAtRaw: T0} : s));

	it.each(changes)('%s', (_name, change) => {
		const beforeRows = start;
		const afterRows = change(start);
		const before = of(beforeRows);
		const after = of(afterRows);
		const changed = changedIds(beforeRows, afterRows);
		const newMessages = new Map([[afterRows[0]!.id, 2]]);
		const full = diffActivity(before, after, newMessages, AT);
		expect(full.filter(e => e.kind !== 'messages').length).toBeGreaterThanOrEqual(2);
		const incremental = diffActivity(before, after, newMessages, AT, changed, id => before.byId.get(id));
		const order = (events: ActivityEvent[]) =>
			[...events].sort((x, y) => (x.kind + x.subject < y.kind + y.subject ? -1 : 1));
		expect(order(incremental)).toEqual(order(full));
	});

	it('compares only the changed ids: a change outside them is not reported', () => {
		const afterRows = start.map(s => (s.id === 'donor' ? {...s, endReason: 'agent_close', endedAtRaw: T0} : s));
		const before = of(start);
		const after = of(afterRows);
		expect(diffActivity(before, after, NONE, AT).map(e => e.kind)).toEqual(['ended']);
		expect(diffActivity(before, after, NONE, AT, new Set(), id => before.byId.get(id))).toEqual([]);
		expect(
			diffActivity(before, after, NONE, AT, new Set(['donor']), id => before.byId.get(id)).map(e => e.subject),
		).toEqual(['donor']);
	});

	it('changedSessionIds agrees: the ids with new messages or a changed row', () => {
		const afterRows = start.map(s =>
			s.id === 'donor'
				? {...s, endReason: 'agent_close', endedAtRaw: T0}
				: s.id === 'other'
					? {...s, title: 'renamed'}
					: s,
		);
		const before = of(start);
		const after = of(afterRows);
		expect([...changedSessionIds(before, after, new Map([['parent', 1]]))].sort()).toEqual([
			'donor',
			'other',
			'parent',
		]);
		expect([...changedSessionIds(before, after, NONE, new Set(['donor']), id => before.byId.get(id))]).toEqual([
			'donor',
		]);
	});
});

describe('a restart that resumes nothing', () => {
	it('is said as a fresh session, never "resume null"', () => {
		const K = dmKey('77');
		const before = analyze(snapshot([session({id: 'a', sessionKey: K, chatId: '77', chatType: 'dm'})]));
		const after = analyze(
			snapshot([session({id: 'a', sessionKey: K, chatId: '77', chatType: 'dm', endReason: 'cli_close'})]),
		);
		const risk = diffActivity(before, after, new Map(), T0).find(e => e.kind === 'rollback-risk');
		expect(risk?.text).toContain('a restart would start a fresh, empty session');
		expect(risk?.text).not.toContain('null');
	});
});

describe('folding routine commits into bursts (foldActivity)', () => {
	const msg = (at: number, subject: string, count: number): ActivityEvent => ({
		at,
		kind: 'messages',
		subject,
		count,
		label: 'telegram (no key)',
		text: `+${count} messages in ${subject} (telegram (no key))`,
	});
	const rotation = (at: number): ActivityEvent => ({at, kind: 'rotated', subject: 'c', text: 'p → c (compression, k)'});
	/** Folds events one commit at a time, as the live model does. */
	const foldEach = (events: ActivityEvent[]) =>
		events.reduce<ActivityEvent[]>((timeline, e) => foldActivity(timeline, [e]), []);

	it('folds messages of several sessions close in time into one line that sums them', () => {
		const timeline = foldEach([msg(100, 'a', 3), msg(102, 'b', 30), msg(105, 'a', 2), msg(108, 'c', 2)]);
		expect(timeline).toHaveLength(1);
		expect(timeline[0]).toMatchObject({
			at: 100,
			kind: 'messages',
			subject: 'c',
			burst: {until: 108, messages: 37, sessions: ['b', 'a', 'c']},
		});
		expect(timeline[0]!.text).toBe('+37 messages in 3 sessions');
	});

	it('names the session of a one-session burst, with its label', () => {
		expect(foldEach([msg(100, 'a', 1), msg(101, 'a', 2)]).map(e => e.text)).toEqual([
			'+3 messages in a (telegram (no key))',
		]);
		expect(foldEach([msg(100, 'a', 1)]).map(e => e.text)).toEqual(['+1 message in a (telegram (no key))']);
	});

	it('updates the burst in place: the timeline does not grow, the burst entry is a new object', () => {
		const first = foldActivity([], [msg(100, 'a', 1)]);
		const second = foldActivity(first, [msg(103, 'b', 1)]);
		expect(second).toHaveLength(1);
		expect(second[0]).not.toBe(first[0]);
		expect(first[0]!.burst!.messages).toBe(1);
		expect(second[0]!.burst!.messages).toBe(2);
	});

	it(`starts a new burst after a quiet gap of more than ${BURST_GAP_S} s`, () => {
		const timeline = foldEach([
			msg(100, 'a', 1),
			msg(100 + BURST_GAP_S, 'a', 1),
			msg(100 + 2 * BURST_GAP_S + 1, 'a', 5),
		]);
		expect(timeline.map(e => [e.at, e.burst!.until, e.burst!.messages])).toEqual([
			[100, 100 + BURST_GAP_S, 2],
			[100 + 2 * BURST_GAP_S + 1, 100 + 2 * BURST_GAP_S + 1, 5],
		]);
	});

	it('lets a rotation stand out on its own line, ending the burst before it', () => {
		const timeline = foldEach([msg(100, 'a', 1), msg(101, 'a', 1), rotation(102), msg(103, 'c', 4)]);
		expect(timeline.map(e => [e.kind, e.burst?.messages ?? null])).toEqual([
			['messages', 2],
			['rotated', null],
			['messages', 4],
		]);
	});

	it('keeps every signal event as it is, and folds the messages of one commit together', () => {
		const risk: ActivityEvent = {at: 200, kind: 'rollback-risk', subject: K, text: `${K}: …`};
		const timeline = foldActivity([], [msg(200, 'a', 1), msg(200, 'b', 1), risk, msg(200, 'c', 1)]);
		expect(timeline.map(e => e.kind)).toEqual(['messages', 'rollback-risk', 'messages']);
		expect(timeline[1]).toBe(risk);
		expect(timeline[0]!.text).toBe('+2 messages in 2 sessions');
	});

	const reopen = (at: number, text = 'the store file changed while no agent held it: read again in place') =>
		({at, kind: 'reopened', subject: 'default', text}) as ActivityEvent;

	const sameFile = (at: number, text?: string): ActivityEvent => ({...reopen(at, text), sameFile: true});
	const opened = (at: number) => sameFile(at, 'the agent opened the store (-wal and -shm appeared)');

	it('counts a reopen seen again on its first line, the messages between them in one burst', () => {
		// A writer that holds nothing (the sqlite3 CLI): every commit reopens the store and adds a message.
		const commits = [100, 101, 102, 103].flatMap(at => [sameFile(at), msg(at, 'a', 1)]);
		const timeline = foldEach(commits);
		expect(timeline.map(e => [e.kind, e.at, e.repeated ?? e.burst?.messages])).toEqual([
			['reopened', 100, {times: 4, until: 103}],
			['messages', 100, 4],
		]);
		expect(timeline[0]!.text).toBe(reopen(100).text);
	});

	it('folds a reopen only into the same notice, last seen within the gap, with nothing but a burst between', () => {
		const other = reopen(101, 'another file is behind the path now');
		expect(foldEach([reopen(100), other]).map(e => e.repeated?.times ?? 1)).toEqual([1, 1]);
		expect(foldEach([reopen(100), reopen(101 + BURST_GAP_S)])).toHaveLength(2);
		expect(foldEach([reopen(100), rotation(101), reopen(102)]).map(e => e.kind)).toEqual([
			'reopened',
			'rotated',
			'reopened',
		]);
		expect(foldEach([reopen(100), msg(100, 'a', 1), msg(115, 'a', 1), reopen(116)]).map(e => e.kind)).toEqual([
			'reopened',
			'messages',
			'messages',
			'reopened',
		]);
	});

	it('folds two reasons of the same file that alternate, each on its own line, the messages in one burst', () => {
		// A writer that holds nothing, sampled once while its -wal was there (CI, 2026-12-04: the burst broke in two).
		const commits = [100, 101, 102].flatMap(at => [sameFile(at), msg(at, 'a', 1)]);
		const flap = [opened(103), msg(103, 'a', 1), sameFile(104), msg(104, 'a', 1), opened(105), msg(105, 'a', 1)];
		const timeline = foldEach([...commits, ...flap]);
		expect(timeline.map(e => [e.kind, e.at, e.repeated ?? e.burst?.messages])).toEqual([
			['reopened', 100, {times: 4, until: 104}],
			['messages', 100, 6],
			['reopened', 103, {times: 2, until: 105}],
		]);
		expect(timeline.map(e => e.burst?.until)).toEqual([undefined, 105, undefined]);
	});

	it('lets another file behind the path end the burst, as any signal does', () => {
		const swapped = reopen(101, 'state.db was replaced on disk (a new inode)');
		const timeline = foldEach([sameFile(100), msg(100, 'a', 1), swapped, msg(102, 'a', 1), sameFile(103)]);
		expect(timeline.map(e => [e.kind, e.repeated?.times ?? e.burst?.messages ?? 1])).toEqual([
			['reopened', 1],
			['messages', 1],
			['reopened', 1],
			['messages', 1],
			['reopened', 1],
		]);
	});

	it('counts another file behind the path again only with nothing between: after a burst, a line of its own', () => {
		const swapped = (at: number) => reopen(at, 'state.db was replaced on disk (a new inode)');
		expect(foldEach([swapped(100), swapped(101)]).map(e => e.repeated?.times ?? 1)).toEqual([2]);
		const timeline = foldEach([swapped(100), msg(100, 'a', 1), swapped(101), msg(101, 'a', 1)]);
		expect(timeline.map(e => [e.kind, e.repeated?.times ?? e.burst?.messages ?? 1])).toEqual([
			['reopened', 1],
			['messages', 1],
			['reopened', 1],
			['messages', 1],
		]);
	});

	it('never folds a notice of another file into the same words said of the same file, nor the reverse', () => {
		const other = {...opened(101), sameFile: undefined};
		expect(foldEach([opened(100), msg(100, 'a', 1), other, msg(101, 'a', 1)]).map(e => e.kind)).toEqual([
			'reopened',
			'messages',
			'reopened',
			'messages',
		]);
		expect(foldEach([other, opened(101)])).toHaveLength(2);
	});

	it('passes at most one burst: an older notice past two bursts is not folded into', () => {
		const timeline = foldEach([sameFile(100), msg(100, 'a', 1), opened(101), msg(112, 'a', 1), sameFile(113)]);
		expect(timeline.map(e => e.kind)).toEqual(['reopened', 'messages', 'reopened', 'messages', 'reopened']);
	});

	it('keeps the gap from the last time the notice was seen, not the first', () => {
		const times = [0, 8, 16, 24].map(d => 100 + d);
		expect(foldEach(times.map(at => reopen(at)))).toEqual([{...reopen(100), repeated: {times: 4, until: 124}}]);
	});

	it('folds no other kind of signal, however alike', () => {
		const risk = (at: number): ActivityEvent => ({at, kind: 'rollback-risk', subject: K, text: `${K}: …`});
		expect(foldEach([risk(100), risk(101)])).toHaveLength(2);
	});

	it('adds nothing for a commit that changed nothing shown', () => {
		const timeline = foldEach([msg(100, 'a', 1)]);
		expect(foldActivity(timeline, [])).toEqual(timeline);
	});

	it('the live diff carries no internal values: no data_version, no raw NULL', () => {
		const before = [session({id: 'a', hasMessageRows: false})];
		const after = [keyed('a', {hasMessageRows: false, endReason: 'agent_close'})];
		const texts = diff(before, after, new Map([['a', 2]]))
			.map(e => e.text)
			.join('\n');
		expect(texts).toContain('a got session key');
		expect(texts).not.toMatch(/data_version|NULL|-1 →/);
	});
});

describe('rowActivity: what the rows gained since a partial read (the live view drawn from a preview)', () => {
	const donor = keyed('donor', {startedAtRaw: T0 - 3600, newestMessageAt: T0 - 60});
	const orphan = session({id: 'orphan', startedAtRaw: T0 + 60, newestMessageAt: T0 + 86_400});

	it('says the rows created, ended and gone and the messages, and no finding (there was no analysis before)', () => {
		const was = new Map([
			['donor', donor],
			['old', keyed('old', {sessionKey: K2, chatId: '43'})],
		]);
		const after = of([keyed('donor', {...donor, endReason: 'agent_close', endedAtRaw: T0 + 100}), orphan]);
		expect(after.findings.length).toBeGreaterThan(0);
		const events = rowActivity(after, new Map([['orphan', 3]]), AT, new Set(['donor', 'old', 'orphan']), id =>
			was.get(id),
		);
		expect(kinds(events)).toEqual([
			['messages', 'orphan', '+3 messages in orphan (telegram (no key))'],
			['ended', 'donor', 'donor: agent_close'],
			['created', 'orphan', 'orphan (telegram, no routing identity)'],
			['removed', 'old', 'old is gone from the store'],
		]);
	});

	it('says nothing of rows that did not change', () => {
		const after = of([donor]);
		expect(rowActivity(after, NONE, AT, new Set(['donor']), id => (id === 'donor' ? donor : undefined))).toEqual([]);
	});
});
