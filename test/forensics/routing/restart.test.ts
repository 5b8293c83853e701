/**
 * What a restart resumes (docs/hermes-rules.md, restart), for both rule sets:
 * 'v30' (current Hermes) and 'legacy-v21' (the older finder).
 */
import {describe, expect, it} from 'vitest';
import {rulesFor} from '../../../source/forensics/generations.js';
import {buildLineage} from '../../../source/forensics/lineage/lineage.js';
import {findOrphans} from '../../../source/forensics/routing/orphans.js';
import {
	type ChatIdentity,
	type Resolution,
	assessRoutingEntry,
	parseSessionKey,
	resolveRestart,
} from '../../../source/forensics/routing/restart.js';
import {type ChatRouting, analyzeRouting} from '../../../source/forensics/routing/routing.js';
import type {RoutingEntry, RuleSet, SessionRecord, Snapshot} from '../../../source/forensics/types.js';
import {T0, dmKey, indexById, routingEntry, session, snapshot} from '../../helpers/records.js';

const RULE_SETS: RuleSet[] = ['v30', 'v25', 'legacy-v21'];
const K = dmKey('42');

/** A telegram row carrying K and the chat tuple (u1, 42, dm). */
function keyed(id: string, partial: Partial<SessionRecord> = {}): SessionRecord {
	return session({id, sessionKey: K, userId: 'u1', chatId: '42', chatType: 'dm', ...partial});
}

/** A row matching the chat tuple (u1, 42, dm, no thread) but not carrying K. */
function tupleRow(id: string, partial: Partial<SessionRecord> = {}): SessionRecord {
	return session({id, userId: 'u1', chatId: '42', chatType: 'dm', ...partial});
}

type ResolveOptions = {
	ruleSet: RuleSet;
	owner?: string | null;
	key?: string;
	/** Defaults to the key's platform and namespace with an unknown chat tuple (no fallback). */
	identity?: Partial<ChatIdentity>;
	entry?: RoutingEntry;
};

const CHAT_42: Partial<ChatIdentity> = {userId: 'u1', chatId: '42', chatType: 'dm', threadId: null};

/**
 * Calls resolveRestart the way a caller does: rows with the key, and rows matching the tuple with COALESCE(x,'')
 * equality.
 */
function resolve(sessions: SessionRecord[], options: ResolveOptions): Resolution {
	const key = options.key ?? K;
	const byId = indexById(sessions);
	const parsed = parseSessionKey(key);
	const identity: ChatIdentity = {
		platform: parsed.platform ?? '',
		namespace: parsed.namespace,
		userId: null,
		chatId: null,
		chatType: null,
		threadId: null,
		...options.identity,
	};
	const same = (a: string | null, b: string | null) => (a ?? '') === (b ?? '');
	return resolveRestart({
		sessionKey: key,
		identity,
		keyed: sessions.filter(s => s.sessionKey === key),
		tupleRows: () =>
			sessions.filter(
				s =>
					s.source === identity.platform &&
					same(s.userId, identity.userId) &&
					same(s.chatId, identity.chatId) &&
					same(s.chatType, identity.chatType) &&
					same(s.threadId, identity.threadId),
			),
		routingEntry: options.entry,
		byId,
		lineage: buildLineage(sessions, byId),
		rules: rulesFor(options.ruleSet),
		owner: options.owner ?? null,
	});
}

function chats(snap: Snapshot): ChatRouting[] {
	const byId = indexById(snap.sessions);
	const lineage = buildLineage(snap.sessions, byId);
	const orphans = findOrphans(snap.sessions, {owner: snap.owner, rules: rulesFor(snap.ruleSet)});
	return analyzeRouting({
		sessions: snap.sessions,
		byId,
		routing: snap.routing,
		lineage,
		orphans,
		rules: rulesFor(snap.ruleSet),
		owner: snap.owner,
	});
}

function chat(snap: Snapshot, key = K): ChatRouting {
	const found = chats(snap).find(c => c.sessionKey === key);
	if (!found) {
		throw new Error(`no chat for ${key}`);
	}

	return found;
}

function verdict(r: Resolution, id: string) {
	return r.candidates.find(c => c.sessionId === id);
}

describe('parseSessionKey', () => {
	it('reads the namespace and platform of agent:<ns>:<platform>:...', () => {
		expect(parseSessionKey('agent:main:discord:group:12345:thread_678')).toEqual({
			namespace: 'main',
			platform: 'discord',
		});
		expect(parseSessionKey('agent:work:telegram:dm:1')).toEqual({namespace: 'work', platform: 'telegram'});
		expect(parseSessionKey('not-a-key')).toEqual({namespace: null, platform: null});
	});

	it("gives split(':')'s parts 1 and 2 (three parts or more, the first 'agent') for every short key", () => {
		const bits = ['agent', 'main', '', 'discord', 'x', 'agent:', ':'];
		const bySplit = (key: string) => {
			const parts = key.split(':');
			return parts.length >= 3 && parts[0] === 'agent'
				? {namespace: parts[1], platform: parts[2]}
				: {namespace: null, platform: null};
		};
		let keys = [''];
		for (let length = 0; length < 4; length++) {
			keys = [...keys, ...keys.flatMap(k => bits.map(b => k + b))];
		}

		for (const key of new Set(keys)) {
			expect(parseSessionKey(key), key).toEqual(bySplit(key));
		}
	});
});

describe.each(RULE_SETS)('exact-key query, %s', ruleSet => {
	it('requires source == the platform parsed from the key', () => {
		const r = resolve([keyed('wrong-source', {source: 'discord'})], {ruleSet});
		expect(r).toMatchObject({sessionId: null, via: 'new-session'});
		expect(verdict(r, 'wrong-source')).toMatchObject({admitted: false, query: 'exact-key'});
		expect(chat(snapshot([keyed('wrong-source', {source: 'discord'})], {ruleSet})).restartResolvesTo).toBeNull();
	});

	it('picks the row of the right source among rows sharing the key', () => {
		const rows = [keyed('discord-row', {source: 'discord', startedAtRaw: T0 + 500}), keyed('telegram-row')];
		expect(resolve(rows, {ruleSet})).toMatchObject({sessionId: 'telegram-row', via: 'exact-key'});
		expect(chat(snapshot(rows, {ruleSet})).restartResolvesTo).toBe('telegram-row');
	});

	it('admits a live row', () => {
		const r = resolve([keyed('live')], {ruleSet});
		expect(r).toMatchObject({sessionId: 'live', via: 'exact-key', ruleSet});
		expect(verdict(r, 'live')?.admitted).toBe(true);
	});

	it('does not admit an ended row with a NULL end_reason', () => {
		expect(resolve([keyed('closed', {endedAtRaw: T0 + 100, endReason: null})], {ruleSet}).sessionId).toBeNull();
	});

	it.each([
		['agent_close', true, true],
		['ws_orphan_reap', true, true],
		['superseded_by_resume', true, false],
		['startup_orphan_reap', true, false],
		['compression', false, false],
		['session_reset', false, false],
		['new_session', false, false],
		['superseded_by_repair', false, false],
		['cli_close', false, false],
		['tui_close', false, false],
		['branched', false, false],
		['tui_shutdown', false, false],
		['idle_timeout', false, false],
	])('end_reason %s: admitted under recency %s, legacy %s', (endReason, recency, legacy) => {
		const expected = ruleSet === 'v30' ? recency : legacy;
		const r = resolve([keyed('ended', {endReason})], {ruleSet});
		expect(verdict(r, 'ended')?.admitted).toBe(expected);
		expect(r.sessionId).toBe(expected ? 'ended' : null);
	});

	it("admits handoff_state 'completed' only under recency", () => {
		const r = resolve([keyed('handed-off', {endReason: 'cli_close', handoffState: 'completed'})], {ruleSet});
		expect(r.sessionId).toBe(ruleSet === 'v30' ? 'handed-off' : null);
		expect(
			resolve([keyed('pending', {endReason: 'cli_close', handoffState: 'pending'})], {ruleSet}).sessionId,
		).toBeNull();
	});
});

describe('reset fence (recency only)', () => {
	/** A live candidate whose COALESCE(last_activity_at, started_at) is T0 + 100. */
	const candidate = (partial: Partial<SessionRecord> = {}) =>
		keyed('candidate', {lastActivityAtRaw: T0 + 100, ...partial});
	const resetSibling = (endedAtRaw: number, endReason = 'session_reset', partial: Partial<SessionRecord> = {}) =>
		keyed('reset', {startedAtRaw: T0 - 5000, endReason, endedAtRaw, ...partial});

	it.each(['session_reset', 'session_switch', 'idle', 'daily', 'suspended', 'resume_pending_expired'])(
		"a sibling ended %s after the candidate's last activity hides it",
		reason => {
			const r = resolve([candidate(), resetSibling(T0 + 101, reason)], {ruleSet: 'v30'});
			expect(r.sessionId).toBeNull();
			expect(verdict(r, 'candidate')).toMatchObject({admitted: false});
			expect(verdict(r, 'candidate')?.rule).toContain('reset fence');
		},
	);

	it('does not apply under legacy-v21', () => {
		expect(resolve([candidate(), resetSibling(T0 + 101)], {ruleSet: 'legacy-v21'}).sessionId).toBe('candidate');
	});

	it('does not fence on equal time (strictly later only)', () => {
		expect(resolve([candidate(), resetSibling(T0 + 100)], {ruleSet: 'v30'}).sessionId).toBe('candidate');
	});

	it('does not fence on new_session (a boundary reason, not a reset reason)', () => {
		expect(resolve([candidate(), resetSibling(T0 + 5000, 'new_session')], {ruleSet: 'v30'}).sessionId).toBe(
			'candidate',
		);
	});

	it('does not fence on a non-reset end reason', () => {
		expect(resolve([candidate(), resetSibling(T0 + 5000, 'cli_close')], {ruleSet: 'v30'}).sessionId).toBe('candidate');
	});

	it('only counts siblings of the same source', () => {
		expect(
			resolve([candidate(), resetSibling(T0 + 5000, 'session_reset', {source: 'discord'})], {ruleSet: 'v30'}).sessionId,
		).toBe('candidate');
	});

	it('measures the candidate by COALESCE(last_activity_at, started_at)', () => {
		// started T0, active until T0+200: a reset at T0+150 came before its last activity.
		expect(
			resolve([candidate({lastActivityAtRaw: T0 + 200}), resetSibling(T0 + 150)], {ruleSet: 'v30'}).sessionId,
		).toBe('candidate');
		// no activity column: started_at T0 is the measure, so a reset at T0+1 fences it.
		expect(
			resolve([candidate({lastActivityAtRaw: null}), resetSibling(T0 + 1)], {ruleSet: 'v30'}).sessionId,
		).toBeNull();
	});

	it('lets the empty post-reset row win over the fenced older conversation', () => {
		const rows = [candidate(), resetSibling(T0 + 200), keyed('fresh', {startedAtRaw: T0 + 300, hasMessageRows: false})];
		expect(resolve(rows, {ruleSet: 'v30'}).sessionId).toBe('fresh');
		expect(resolve(rows, {ruleSet: 'legacy-v21'}).sessionId).toBe('candidate');
	});
});

describe('ordering of exact-key candidates', () => {
	it('recency ranks rows with messages before empty rows, however recent', () => {
		const rows = [
			keyed('talked', {lastActivityAtRaw: T0 + 100}),
			keyed('empty', {hasMessageRows: false, lastActivityAtRaw: T0 + 9000}),
		];
		expect(resolve(rows, {ruleSet: 'v30'}).sessionId).toBe('talked');
	});

	it('recency orders by COALESCE(last_activity_at, started_at), legacy by started_at: they pick different rows', () => {
		const rows = [
			keyed('started-later', {startedAtRaw: T0 + 500, lastActivityAtRaw: null}),
			keyed('active-later', {startedAtRaw: T0, lastActivityAtRaw: T0 + 900}),
		];
		expect(resolve(rows, {ruleSet: 'v30'}).sessionId).toBe('active-later');
		expect(resolve(rows, {ruleSet: 'legacy-v21'}).sessionId).toBe('started-later');
		expect(chat(snapshot(rows, {ruleSet: 'v30'})).restartResolvesTo).toBe('active-later');
		expect(chat(snapshot(rows, {ruleSet: 'legacy-v21'})).restartResolvesTo).toBe('started-later');
	});

	it('recency orders on the raw cell, with no epoch window (TEXT sorts above every number)', () => {
		const rows = [keyed('garbage', {lastActivityAtRaw: 'not a time'}), keyed('sane', {lastActivityAtRaw: T0 + 900})];
		expect(resolve(rows, {ruleSet: 'v30'}).sessionId).toBe('garbage');
	});

	it('recency admits an empty row when nothing else qualifies; legacy requires messages', () => {
		const rows = [keyed('empty', {hasMessageRows: false})];
		expect(resolve(rows, {ruleSet: 'v30'}).sessionId).toBe('empty');
		const legacy = resolve(rows, {ruleSet: 'legacy-v21'});
		expect(legacy.sessionId).toBeNull();
		expect(verdict(legacy, 'empty')).toMatchObject({admitted: false, hasMessages: false});
	});

	it('counts a positive message_count column as having messages', () => {
		const rows = [
			keyed('counted', {hasMessageRows: false, messageCountColumn: 3, lastActivityAtRaw: T0 + 900}),
			keyed('rows', {lastActivityAtRaw: T0 + 100}),
		];
		expect(resolve([rows[0]!], {ruleSet: 'legacy-v21'}).sessionId).toBe('counted');
		expect(resolve(rows, {ruleSet: 'v30'}).sessionId).toBe('counted');
	});
});

describe.each(RULE_SETS)('tuple fallback, %s', ruleSet => {
	/** The keyed row is closed for good, so the exact-key query finds nothing. */
	const closed = keyed('closed', {endReason: 'cli_close'});

	it('runs when the exact-key query finds nothing and the chat tuple is known', () => {
		const r = resolve([closed, tupleRow('pre-key')], {ruleSet, identity: CHAT_42});
		expect(r).toMatchObject({sessionId: 'pre-key', via: 'tuple-fallback'});
		expect(verdict(r, 'pre-key')).toMatchObject({query: 'tuple-fallback', admitted: true});
	});

	it('does not run when the exact-key query finds a row', () => {
		const r = resolve([keyed('live'), tupleRow('pre-key', {startedAtRaw: T0 + 500, lastActivityAtRaw: T0 + 900})], {
			ruleSet,
			identity: CHAT_42,
		});
		expect(r).toMatchObject({sessionId: 'live', via: 'exact-key'});
		expect(r.candidates.some(c => c.query === 'tuple-fallback')).toBe(false);
	});

	it.each([
		['chat_id', {chatId: null}],
		['chat_type', {chatType: null}],
	] as Array<[string, Partial<ChatIdentity>]>)('is skipped when %s is unknown', (_what, unknown) => {
		const r = resolve([closed, tupleRow('pre-key')], {ruleSet, identity: {...CHAT_42, ...unknown}});
		expect(r).toMatchObject({sessionId: null, via: 'new-session'});
		expect(r.notes.join('\n')).toContain('tuple fallback skipped');
	});

	it('runs with an empty-string chat_id (Python `is None`, not falsiness)', () => {
		const r = resolve([closed, tupleRow('no-chat-id', {chatId: null})], {ruleSet, identity: {...CHAT_42, chatId: ''}});
		expect(r.sessionId).toBe('no-chat-id');
	});

	it('matches an empty-string chat_id with rows whose chat_id is NULL or empty, in a full analysis too', () => {
		const rows = [
			keyed('closed', {endReason: 'cli_close', chatId: ''}),
			tupleRow('null-chat', {chatId: null, startedAtRaw: T0 + 500, lastActivityAtRaw: T0 + 900}),
			tupleRow('empty-chat', {chatId: '', startedAtRaw: T0 + 100, lastActivityAtRaw: T0 + 200}),
			tupleRow('chat-42', {startedAtRaw: T0 + 1000, lastActivityAtRaw: T0 + 2000}),
		];
		const c = chat(snapshot(rows, {ruleSet}));
		expect(c.identity.chatId).toBe('');
		expect(c.resolution.candidates.filter(v => v.query === 'tuple-fallback').map(v => v.sessionId)).toEqual([
			'closed',
			'empty-chat',
			'null-chat',
		]);
		expect(c.resolution.via).toBe('tuple-fallback');
		expect(c.restartResolvesTo).toBe('null-chat');
	});

	it('requires messages', () => {
		const r = resolve([closed, tupleRow('empty', {hasMessageRows: false})], {ruleSet, identity: CHAT_42});
		expect(r.sessionId).toBeNull();
		expect(verdict(r, 'empty')).toMatchObject({query: 'tuple-fallback', admitted: false});
	});

	it('applies the same recoverability rule', () => {
		expect(
			resolve([closed, tupleRow('compressed', {endReason: 'compression'})], {ruleSet, identity: CHAT_42}).sessionId,
		).toBeNull();
		expect(
			resolve([closed, tupleRow('reaped', {endReason: 'ws_orphan_reap'})], {ruleSet, identity: CHAT_42}).sessionId,
		).toBe('reaped');
	});

	it("matches user, chat, type and thread with COALESCE(x, '') equality", () => {
		const rows = [
			keyed('closed', {endReason: 'cli_close', threadId: null}),
			tupleRow('blank-thread', {threadId: '', lastActivityAtRaw: T0 + 100}),
			tupleRow('other-thread', {threadId: 't1', startedAtRaw: T0 + 500, lastActivityAtRaw: T0 + 900}),
			tupleRow('other-user', {userId: 'u2', startedAtRaw: T0 + 500, lastActivityAtRaw: T0 + 900}),
			tupleRow('other-type', {chatType: 'group', startedAtRaw: T0 + 500, lastActivityAtRaw: T0 + 900}),
			tupleRow('other-source', {source: 'discord', startedAtRaw: T0 + 500, lastActivityAtRaw: T0 + 900}),
		];
		const c = chat(snapshot(rows, {ruleSet}));
		expect(c.resolution.via).toBe('tuple-fallback');
		expect(c.restartResolvesTo).toBe('blank-thread');
	});

	it('orders by COALESCE(last_activity_at, started_at) under recency, by started_at under legacy', () => {
		const rows = [
			closed,
			tupleRow('started-later', {startedAtRaw: T0 + 500}),
			tupleRow('active-later', {lastActivityAtRaw: T0 + 900}),
		];
		expect(resolve(rows, {ruleSet, identity: CHAT_42}).sessionId).toBe(
			ruleSet !== 'legacy-v21' ? 'active-later' : 'started-later',
		);
	});

	it('has the profile fence under recency only', () => {
		const rows = [closed, tupleRow('work', {profileName: 'work'})];
		const r = resolve(rows, {ruleSet, owner: 'default', identity: CHAT_42});
		expect(r.sessionId).toBe(ruleSet === 'v30' ? null : 'work');
		expect(resolve(rows, {ruleSet, owner: 'work', identity: CHAT_42}).sessionId).toBe('work');
		expect(resolve(rows, {ruleSet, owner: null, identity: CHAT_42}).sessionId).toBe('work');
		expect(
			resolve([closed, tupleRow('unprofiled', {profileName: null})], {ruleSet, owner: 'default', identity: CHAT_42})
				.sessionId,
		).toBe('unprofiled');
	});

	it('has the reset fence under recency only', () => {
		const rows = [
			closed,
			tupleRow('old', {lastActivityAtRaw: T0 + 100}),
			tupleRow('reset', {startedAtRaw: T0 - 5000, endReason: 'idle', endedAtRaw: T0 + 200}),
		];
		expect(resolve(rows, {ruleSet, identity: CHAT_42}).sessionId).toBe(ruleSet !== 'legacy-v21' ? null : 'old');
	});

	it(
		'is skipped for slack by current Hermes; the v25 and v21 trees run it ' + 'for every platform (their real code)',
		() => {
			const slackKey = dmKey('42', 'slack');
			const rows = [
				keyed('closed', {source: 'slack', sessionKey: slackKey, endReason: 'cli_close'}),
				tupleRow('pre-key', {source: 'slack'}),
			];
			const r = resolve(rows, {ruleSet, key: slackKey, identity: CHAT_42});
			if (ruleSet !== 'v30') {
				expect(r).toMatchObject({sessionId: 'pre-key', via: 'tuple-fallback'});
				return;
			}

			expect(r).toMatchObject({sessionId: null, via: 'new-session'});
			expect(r.notes.join('\n')).toContain('Slack');
		},
	);

	describe('namespace post-filter', () => {
		it('rejects a winner whose key has another agent:<ns>', () => {
			const r = resolve([closed, tupleRow('foreign', {sessionKey: dmKey('42', 'telegram', 'work')})], {
				ruleSet,
				identity: CHAT_42,
			});
			expect(r).toMatchObject({sessionId: null, via: 'new-session'});
			expect(r.notes.join('\n')).toContain('agent:work');
		});

		it('passes a winner of the same namespace, and a keyless winner', () => {
			expect(
				resolve([closed, tupleRow('same-ns', {sessionKey: 'agent:main:telegram:dm:42:old'})], {
					ruleSet,
					identity: CHAT_42,
				}).sessionId,
			).toBe('same-ns');
			expect(resolve([closed, tupleRow('keyless')], {ruleSet, identity: CHAT_42}).sessionId).toBe('keyless');
		});

		it("single-profile (agent:main keys): takes only rows of the active profile, the store's owner", () => {
			const other = tupleRow('main-other-key', {sessionKey: 'agent:main:telegram:dm:42:old'});
			expect(resolve([closed, other], {ruleSet, owner: 'work', identity: CHAT_42}).sessionId).toBeNull();
			expect(
				resolve([closed, tupleRow('work-key', {sessionKey: 'agent:work:telegram:dm:42:old'})], {
					ruleSet,
					owner: 'work',
					identity: CHAT_42,
				}).sessionId,
			).toBe('work-key');
		});

		it(
			"multiplexed (agent:<profile> keys): another profile's row is taken by " +
				'v25 and older, rejected by v30 (hermes-agree-edges, multiplexed-tuple)',
			() => {
				const key = dmKey('42', 'telegram', 'work');
				const closedWork = keyed('closed', {sessionKey: key, endReason: 'cli_close'});
				const r = resolve([closedWork, tupleRow('foreign', {sessionKey: dmKey('42', 'telegram', 'other')})], {
					ruleSet,
					key,
					owner: 'work',
					identity: CHAT_42,
				});
				expect(r.sessionId).toBe(ruleSet === 'v30' ? null : 'foreign');
				expect(
					resolve([closedWork, tupleRow('default-ns', {sessionKey: 'agent:default:telegram:dm:42:x'})], {
						ruleSet,
						key: 'agent:main:telegram:dm:42',
						owner: 'default',
						identity: CHAT_42,
					}).sessionId,
				).toBe('default-ns');
			},
		);

		it('filters the single winner (LIMIT 1): an older eligible row does not take its place', () => {
			const rows = [
				closed,
				tupleRow('foreign', {sessionKey: dmKey('42', 'telegram', 'work'), startedAtRaw: T0 + 500}),
				tupleRow('keyless'),
			];
			expect(resolve(rows, {ruleSet, identity: CHAT_42}).sessionId).toBeNull();
		});
	});
});

describe.each(RULE_SETS)('routing entry, %s', ruleSet => {
	it('is honoured when its row is live, over a fresher exact-key candidate', () => {
		const rows = [
			keyed('routed', {lastActivityAtRaw: T0 + 10}),
			keyed('fresher', {startedAtRaw: T0 + 500, lastActivityAtRaw: T0 + 900}),
		];
		const r = resolve(rows, {ruleSet, entry: routingEntry(K, 'routed')});
		expect(r).toMatchObject({sessionId: 'routed', via: 'routing-entry', candidates: []});
		const c = chat(snapshot(rows, {ruleSet, routing: [routingEntry(K, 'routed')]}));
		expect(c).toMatchObject({routingEntry: 'routed', routingEntryStale: false, restartResolvesTo: 'routed'});
	});

	it('is healed along compression to the tip (chain of 3)', () => {
		const rows = [
			keyed('a', {endReason: 'compression'}),
			keyed('b', {parentSessionId: 'a', startedAtRaw: T0 + 200, endReason: 'compression'}),
			keyed('c', {parentSessionId: 'b', startedAtRaw: T0 + 400}),
		];
		const r = resolve(rows, {ruleSet, entry: routingEntry(K, 'a')});
		expect(r).toMatchObject({sessionId: 'c', via: 'routing-entry'});
		expect(r.notes.join('\n')).toContain('healed along compression to c');
	});

	it('is dropped (stale) when its row ended, and recovery runs instead', () => {
		const rows = [keyed('routed', {endReason: 'cli_close'}), keyed('other', {startedAtRaw: T0 + 200})];
		const r = resolve(rows, {ruleSet, entry: routingEntry(K, 'routed')});
		expect(r).toMatchObject({sessionId: 'other', via: 'exact-key'});
		expect(r.notes.join('\n')).toContain('stale routing self-heal');
		expect(chat(snapshot(rows, {ruleSet, routing: [routingEntry(K, 'routed')]})).routingEntryStale).toBe(true);
	});

	it('is dropped when its row ended recoverably, and the exact-key query then reopens that row', () => {
		const r = resolve([keyed('routed', {endReason: 'agent_close'})], {ruleSet, entry: routingEntry(K, 'routed')});
		expect(r).toMatchObject({sessionId: 'routed', via: 'exact-key'});
	});

	it('is dropped when its compression tip ended otherwise', () => {
		const rows = [
			keyed('a', {endReason: 'compression'}),
			keyed('b', {parentSessionId: 'a', startedAtRaw: T0 + 200, endReason: 'session_reset'}),
		];
		const assessment = assessRoutingEntry(routingEntry(K, 'a'), indexById(rows), buildLineage(rows));
		expect(assessment).toMatchObject({honoured: false, stale: true, healedTo: 'b'});
		expect(resolve(rows, {ruleSet, entry: routingEntry(K, 'a')}).via).not.toBe('routing-entry');
	});

	it('naming a missing row is honoured (the gateway re-creates it) but stale', () => {
		const r = resolve([keyed('other')], {ruleSet, entry: routingEntry(K, 'ghost')});
		expect(r).toMatchObject({sessionId: 'ghost', via: 'routing-entry'});
		const c = chat(snapshot([keyed('other')], {ruleSet, routing: [routingEntry(K, 'ghost')]}));
		expect(c).toMatchObject({routingEntry: 'ghost', routingEntryStale: true, restartResolvesTo: 'ghost'});
	});

	it('is ignored when unusable (bad entry_json)', () => {
		const r = resolve([keyed('live')], {
			ruleSet,
			entry: routingEntry(K, null, {problem: 'entry_json is not valid JSON'}),
		});
		expect(r).toMatchObject({sessionId: 'live', via: 'exact-key'});
	});

	it('makes a key with no rows a chat of its own', () => {
		const c = chat(snapshot([], {ruleSet, routing: [routingEntry(K, 'ghost')]}));
		expect(c).toMatchObject({platform: 'telegram', restartResolvesTo: 'ghost', members: []});
	});

	it('uses the newest of several entries for one key', () => {
		const rows = [keyed('x'), keyed('y')];
		const routing = [
			routingEntry(K, 'x', {scope: '/a', updatedAt: T0}),
			routingEntry(K, 'y', {scope: '/b', updatedAt: T0 + 10}),
		];
		const c = chat(snapshot(rows, {ruleSet, routing}));
		expect(c).toMatchObject({routingEntry: 'y', routingEntryScope: '/b', restartResolvesTo: 'y'});
	});
});

describe.each(RULE_SETS)('rollback risk (analyzeRouting), %s', ruleSet => {
	it('is raised when a restart resumes a row other than the one holding the newest message', () => {
		const rows = [
			keyed('zombie', {newestMessageAt: T0 + 100}),
			keyed('current', {startedAtRaw: T0 + 200, newestMessageAt: T0 + 3000}),
		];
		const c = chat(snapshot(rows, {ruleSet, routing: [routingEntry(K, 'zombie')]}));
		expect(c).toMatchObject({
			restartResolvesTo: 'zombie',
			newestActivityIn: 'current',
			newestActivityAt: T0 + 3000,
			resolvesToActivityAt: T0 + 100,
			rollbackRisk: true,
		});
	});

	it('is not raised when the resumed row holds the newest message', () => {
		const rows = [
			keyed('old', {newestMessageAt: T0 + 100}),
			keyed('current', {startedAtRaw: T0 + 200, newestMessageAt: T0 + 3000}),
		];
		const c = chat(snapshot(rows, {ruleSet}));
		expect(c).toMatchObject({restartResolvesTo: 'current', newestActivityIn: 'current', rollbackRisk: false});
	});

	it('is not raised on a tie, whichever row comes first', () => {
		const resumed = keyed('resumed', {newestMessageAt: T0 + 500});
		const twin = keyed('twin', {startedAtRaw: T0 + 1, newestMessageAt: T0 + 500});
		for (const rows of [
			[resumed, twin],
			[twin, resumed],
		]) {
			const c = chat(snapshot(rows, {ruleSet, routing: [routingEntry(K, 'resumed')]}));
			expect(c).toMatchObject({restartResolvesTo: 'resumed', newestActivityIn: 'resumed', rollbackRisk: false});
		}
	});

	it("counts an adoptable orphan in its donor's chat", () => {
		const rows = [
			keyed('donor', {newestMessageAt: T0 - 60}),
			session({id: 'orphan', startedAtRaw: T0 + 60, newestMessageAt: T0 + 86_400}),
		];
		const c = chat(snapshot(rows, {ruleSet}));
		expect(c).toMatchObject({
			restartResolvesTo: 'donor',
			newestActivityIn: 'orphan',
			rollbackRisk: true,
			adoptableOrphans: ['orphan'],
			members: ['donor', 'orphan'],
		});
	});

	it('does not count a refused orphan', () => {
		const rows = [
			keyed('donor', {newestMessageAt: T0 - 60}),
			session({id: 'orphan', parentSessionId: 'gone', startedAtRaw: T0 + 60, newestMessageAt: T0 + 86_400}),
		];
		const c = chat(snapshot(rows, {ruleSet}));
		expect(c).toMatchObject({
			restartResolvesTo: 'donor',
			newestActivityIn: 'donor',
			rollbackRisk: false,
			adoptableOrphans: [],
			members: ['donor'],
		});
	});

	it("does not count contested orphans, though they keep the donor's key", () => {
		const rows = [
			keyed('donor', {startedAtRaw: T0 - 3600, newestMessageAt: T0 - 60}),
			session({id: 'o1', startedAtRaw: T0 + 60, newestMessageAt: T0 + 86_400}),
			session({id: 'o2', startedAtRaw: T0 + 90, newestMessageAt: T0 + 90_000}),
		];
		const orphans = findOrphans(rows, {owner: null});
		expect(orphans.map(o => [o.orphanId, o.reasonKind, o.sessionKey])).toEqual([
			['o1', 'contested_donor', K],
			['o2', 'contested_donor', K],
		]);
		const c = chat(snapshot(rows, {ruleSet}));
		expect(c).toMatchObject({
			restartResolvesTo: 'donor',
			newestActivityIn: 'donor',
			rollbackRisk: false,
			adoptableOrphans: [],
			members: ['donor'],
		});
	});

	it('never takes an empty session as the newest, however recent', () => {
		const rows = [
			keyed('talked', {newestMessageAt: T0 + 60}),
			keyed('empty', {hasMessageRows: false, startedAtRaw: T0 + 5000, lastActivityAtRaw: T0 + 9000}),
		];
		const c = chat(snapshot(rows, {ruleSet, routing: [routingEntry(K, 'talked')]}));
		expect(c).toMatchObject({restartResolvesTo: 'talked', newestActivityIn: 'talked', rollbackRisk: false});
	});

	it("only counts keyed rows of the key's platform as members", () => {
		const rows = [
			keyed('telegram-row', {newestMessageAt: T0 + 60}),
			keyed('discord-row', {source: 'discord', newestMessageAt: T0 + 9000}),
		];
		const c = chat(snapshot(rows, {ruleSet}));
		expect(c).toMatchObject({members: ['telegram-row'], newestActivityIn: 'telegram-row', rollbackRisk: false});
	});

	it('is not raised when a restart starts a new session (nothing is resumed)', () => {
		// Engine choice: rollbackRisk needs a resumed row; a deliberate reset leaves none.
		const rows = [keyed('reset', {endReason: 'session_reset', newestMessageAt: T0 + 60})];
		const c = chat(snapshot(rows, {ruleSet}));
		expect(c).toMatchObject({restartResolvesTo: null, newestActivityIn: 'reset', rollbackRisk: false});
	});
});
