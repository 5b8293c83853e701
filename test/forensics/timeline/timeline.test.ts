/**
 * hfx timeline's builder on plain data (issue #23 point 3): the rows of a chat with why each
 * belongs, and its events on one time axis: a compression rotation, a /new, a reset by marker, a
 * rollback (fork, inferred restart dated by a log line or a routing rewrite, resume), a chat at
 * rollback risk (what a restart now would do), and the order by timestamps where lineage says
 * otherwise (after an adoption, lineage reads K → O although K holds the later turns).
 */
import {describe, expect, it} from 'vitest';
import {analyze} from '../../../source/forensics/analysis/analyze.js';
import {parseLogLine} from '../../../source/forensics/timeline/gateway-log-lines.js';
import {chatNamed, timelineOfChat} from '../../../source/forensics/timeline/timeline-of-chat.js';
import {SPAN_GAP_SECONDS, spanGapFor} from '../../../source/forensics/timeline/timeline.js';
import type {MessageSpan, TimedLogLine, Timeline} from '../../../source/forensics/timeline/timeline-types.js';
import type {RestartProbe, SessionRecord, Snapshot} from '../../../source/forensics/types.js';
import {T0, dmKey, routingEntry, session, snapshot} from '../../helpers/records.js';

const K = dmKey('42');
const DAY = 86_400;
const keyed = (id: string, partial: Partial<SessionRecord> = {}) =>
	session({id, sessionKey: K, userId: 'u1', chatId: '42', chatType: 'dm', ...partial});
const span = (sessionId: string, firstAt: number, lastAt: number, messages: number): MessageSpan => ({
	sessionId,
	firstAt,
	lastAt,
	messages,
});

function timelineOf(
	snap: Snapshot,
	name: string,
	spans: MessageSpan[],
	logs: TimedLogLine[] = [],
	now = T0 + 30 * DAY,
): Timeline {
	const a = analyze(snap);
	const named = chatNamed(a, name);
	if (!named.ok) {
		throw new Error(named.reason);
	}

	return timelineOfChat(a, named, spans, logs, now);
}

const kinds = (t: Timeline) => t.events.map(e => e.kind);

describe('rotations', () => {
	it(
		'a compression rotation: the parent ended compression, its continuation ' +
			'carries parent_session_id (certain); no rollback, no risk',
		() => {
			const p = keyed('p', {endReason: 'compression', endedAtRaw: T0 + 200, newestMessageAt: T0 + 150});
			const c = keyed('c', {parentSessionId: 'p', startedAtRaw: T0 + 201, newestMessageAt: T0 + 400});
			const t = timelineOf(snapshot([p, c], {routing: [routingEntry(K, 'c', {updatedAt: T0 + 400})]}), K, [
				span('p', T0 + 10, T0 + 150, 12),
				span('c', T0 + 210, T0 + 400, 6),
			]);
			const rotation = t.events.find(e => e.kind === 'rotation')!;
			expect(rotation.text).toBe('compression rotation: p → c');
			expect(rotation.certainty).toBe('certain');
			expect(rotation.at).toBe(T0 + 201);
			expect(rotation.evidence.join(' ')).toMatch(/parent_session_id = p/);
			// The parent's end is told by the rotation, not again on its own.
			expect(kinds(t)).not.toContain('ended');
			expect(kinds(t)).not.toContain('resume');
			expect(t.restartNow).toBeNull();
			expect(t.rows.map(r => [r.id, r.messages, r.routedNow])).toEqual([
				['p', 12, false],
				['c', 6, true],
			]);
		},
	);

	it(
		'a /new: the old row ended new_session and the next keyed row began ' +
			'then, with no lineage link (strong, from the times)',
		() => {
			const p = keyed('p', {endReason: 'new_session', endedAtRaw: T0 + 200, newestMessageAt: T0 + 150});
			const c = keyed('c', {startedAtRaw: T0 + 202, newestMessageAt: T0 + 500});
			const t = timelineOf(snapshot([p, c]), K, [span('p', T0, T0 + 150, 4), span('c', T0 + 300, T0 + 500, 2)]);
			const rotation = t.events.find(e => e.kind === 'rotation')!;
			expect(rotation.text).toBe('/new: p → c');
			expect(rotation.certainty).toBe('strong');
			expect(rotation.evidence.join(' ')).toMatch(/no lineage link/);
		},
	);

	it('a reset by model_config._reset_from: a reset rotation, certain', () => {
		const p = keyed('p', {endReason: 'session_reset', endedAtRaw: T0 + 200});
		const c = keyed('c', {parentSessionId: 'p', resetFrom: 'p', startedAtRaw: T0 + 200, newestMessageAt: T0 + 500});
		const t = timelineOf(snapshot([p, c]), K, [span('p', T0, T0 + 60, 2), span('c', T0 + 300, T0 + 500, 2)]);
		const rotation = t.events.find(e => e.kind === 'rotation')!;
		expect(rotation.text).toBe('reset (session_reset): p → c');
		expect(rotation.certainty).toBe('certain');
	});
});

/**
 * The #82616 shape after the restart: K resumed 3 days after its last message; O (keyless, 8-hex) holds the skipped
 * conversation.
 */
const KID = '20231114_221320_0000000a';
const OID = '20231114_222000_0000000b';
function rolledBack(
	routing = [routingEntry(K, KID, {updatedAt: T0 + 3 * DAY + 600})],
	extra: SessionRecord[] = [],
): Snapshot {
	const k = keyed(KID, {newestMessageAt: T0 + 3 * DAY + 600, lastActivityAtRaw: T0 + 3 * DAY + 600});
	const o = session({id: OID, startedAtRaw: T0 + 400, newestMessageAt: T0 + DAY, userId: 'u1'});
	const probe: RestartProbe = {
		orphanId: OID,
		keyedId: KID,
		orphan: {firstAt: T0 + 410, lastAt: T0 + DAY, messages: 500, firstPlatformId: null, lastPlatformId: null},
		before: {at: T0 + 300, messages: 20, platformId: null},
		lastBefore: T0 + 300,
		inside: 0,
		after: {at: T0 + 3 * DAY, lastAt: T0 + 3 * DAY + 600, messages: 4, userTurns: 2, platformId: null},
	};
	return {...snapshot([k, o, ...extra], {routing}), restartProbes: [probe]};
}

const rolledBackSpans = [
	span(KID, T0, T0 + 300, 20),
	span(OID, T0 + 410, T0 + DAY, 500),
	span(KID, T0 + 3 * DAY, T0 + 3 * DAY + 600, 4),
];

function logLine(text: string, at: number): TimedLogLine {
	return {...parseLogLine(text)!, at, file: 'gateway.log', lineNumber: 7, offset: '+00:00'};
}

describe('a rollback that already happened', () => {
	it(
		'tells the fork, the inferred restart and the resume in time order, the ' +
			'keyless row attributed with its evidence',
		() => {
			const t = timelineOf(rolledBack(), K, rolledBackSpans);
			expect(t.rows.find(r => r.id === OID)).toMatchObject({
				keyed: false,
				via: ['skipped'],
				certainty: 'strong',
				messages: 500,
			});
			expect(kinds(t)).toEqual(['created', 'messages', 'fork', 'messages', 'restart', 'resume', 'messages', 'routing']);
			const fork = t.events.find(e => e.kind === 'fork')!;
			expect(fork).toMatchObject({at: T0 + 400, sessionId: OID, certainty: 'strong'});
			expect(fork.evidence.join(' ')).toMatch(/8-hex suffix/);
			const resume = t.events.find(e => e.kind === 'resume')!;
			expect(resume).toMatchObject({at: T0 + 3 * DAY, certainty: 'strong'});
			expect(resume.text).toMatch(/2 user turns \(4 messages\)/);
			// No log line and no routing rewrite: the restart is only bounded.
			expect(t.events.find(e => e.kind === 'restart')).toMatchObject({at: T0 + 3 * DAY, certainty: 'weak'});
		},
	);

	it(
		'dates the restart at the last "Starting Hermes Gateway..." logged ' +
			'inside the bounds, and matches the repoint line naming the key',
		() => {
			const logs = [
				logLine('2023-11-17 22:00:00,000 INFO gateway.run: Starting Hermes Gateway...', T0 + 3 * DAY - 800),
				logLine(
					`2023-11-17 22:00:01,500 WARNING gateway.session: gateway.session: ` +
						`repointing stale sessions.json entry '${K}' from ended ${OID} ` +
						`(end_reason='agent_close') to recovered ${KID}`,
					T0 + 3 * DAY - 799,
				),
				logLine('2023-11-10 22:00:00,000 INFO gateway.run: Starting Hermes Gateway...', T0 - 20 * DAY),
			];
			const t = timelineOf(rolledBack(), K, rolledBackSpans, logs);
			const restart = t.events.find(e => e.kind === 'restart')!;
			expect(restart).toMatchObject({at: T0 + 3 * DAY - 800, certainty: 'strong'});
			expect(restart.evidence.join(' ')).toMatch(
				/gateway\.log:7 logged "Starting Hermes Gateway\.\.\." at 2023-11-17 22:00:00,000 \(local, read as UTC\+00:00\)/,
			);
			// The repoint line naming the key is evidence of the recovery too.
			expect(restart.evidence.join(' ')).toMatch(
				/gateway\.log:7 at 2023-11-17 22:00:01,500 .*repointing stale sessions\.json entry/,
			);
			const logged = t.events.filter(e => e.kind === 'log');
			// The start long before the chat began is not this chat's.
			expect(logged.map(e => e.text)).toEqual([
				expect.stringMatching(/Starting Hermes Gateway/),
				expect.stringMatching(/repointing stale/),
			]);
		},
	);

	it(
		"dates the restart at the routing rewrite block when the scope's rows " + 'share one updated_at inside the bounds',
		() => {
			const at = T0 + 3 * DAY - 30;
			const routing = [routingEntry(K, KID, {updatedAt: at}), routingEntry(dmKey('43'), 'x', {updatedAt: at})];
			const t = timelineOf(rolledBack(routing, [keyed('x', {sessionKey: dmKey('43')})]), K, rolledBackSpans);
			expect(t.events.find(e => e.kind === 'restart')).toMatchObject({at, certainty: 'strong'});
			expect(t.events.find(e => e.kind === 'routing')!.text).toMatch(/rewritten in full/);
		},
	);

	it(
		"names the chat from the skipped row's id suffix, and lowers the span " + 'gap so the jump back is a span boundary',
		() => {
			const a = analyze(rolledBack());
			const named = chatNamed(a, '0000000b');
			expect(named).toMatchObject({ok: true, sessionKey: K, spanGapSeconds: SPAN_GAP_SECONDS});
			expect(spanGapFor([{jumpedFrom: T0, resumedAt: T0 + 3600}])).toBe(3599);
			expect(spanGapFor([{jumpedFrom: T0, resumedAt: T0 + 60}])).toBe(600);
			expect(chatNamed(a, 'nope')).toMatchObject({ok: false, reason: 'no chat or session "nope"'});
		},
	);
});

describe('rows and routing moves', () => {
	it(
		"takes a keyless row carrying the chat's peer tuple, and says when " +
			'sessions.json names another row than gateway_routing',
		() => {
			const k = keyed('k', {newestMessageAt: T0 + 60});
			const tuple = session({
				id: 't',
				userId: 'u1',
				chatId: '42',
				chatType: 'dm',
				startedAtRaw: T0 - 5000,
				newestMessageAt: T0 - 4000,
			});
			const stranger = session({id: 's', userId: 'u2', chatId: '42', chatType: 'dm', startedAtRaw: T0 - 5000});
			const snap = snapshot([k, tuple, stranger], {
				routing: [routingEntry(K, 'k', {updatedAt: T0 + 60})],
				legacyRouting: [routingEntry(K, 't', {updatedAt: null})],
			});
			const t = timelineOf(snap, K, [span('k', T0, T0 + 60, 3), span('t', T0 - 4990, T0 - 4000, 2)]);
			expect(t.rows.map(r => [r.id, r.via, r.certainty])).toEqual([
				['t', ['peer-tuple'], 'strong'],
				['k', ['key'], 'certain'],
			]);
			const routing = t.events.filter(e => e.kind === 'routing').map(e => e.text);
			expect(routing).toEqual([
				"routing entry upserted: it names k (the chat's last turn, or close to it)",
				'sessions.json still names t, gateway_routing k',
			]);
		},
	);
});

describe('a chat at rollback risk (point 4)', () => {
	it('ends with what a restart now resumes, how old it is, and what it leaves out', () => {
		const k = keyed('k', {newestMessageAt: T0 + 60});
		const o = session({id: 'o', startedAtRaw: T0 + 100, newestMessageAt: T0 + 5000, userId: 'u1', messageRows: 40});
		const now = T0 + 10 * DAY;
		const t = timelineOf(snapshot([k, o]), K, [span('k', T0, T0 + 60, 3), span('o', T0 + 110, T0 + 5000, 40)], [], now);
		expect(t.restartNow).toMatchObject({
			resumes: 'k',
			ageSeconds: 10 * DAY - 60,
			leftOut: {sessionId: 'o', messages: 40, lastAt: T0 + 5000},
		});
		const last = t.events.at(-1)!;
		expect(last).toMatchObject({kind: 'if-restart-now', at: now, certainty: 'strong'});
		expect(last.text).toMatch(
			/^if the gateway restarts now: it resumes k \(via exact-key\), whose last message is 10\.0 days old; left out: o's 40 messages/,
		);
		expect(t.rows.find(r => r.id === 'o')!.via).toEqual(['adoptable']);
		// The keyless row's birth is the fork, even before any restart.
		expect(t.events.find(e => e.kind === 'fork')).toMatchObject({
			at: T0 + 100,
			sessionId: 'o',
			certainty: 'weak',
			text: "keyless o born 40 seconds after k's last message; the chat went on in it",
		});
	});
});

describe('the time axis', () => {
	it(
		'orders by message timestamps where lineage says otherwise: after an ' +
			"adoption K → O, K's post-restart span comes after O's",
		() => {
			const k = keyed('k', {
				endReason: 'superseded_by_repair',
				endedAtRaw: T0 + 9 * DAY,
				newestMessageAt: T0 + 3 * DAY + 60,
			});
			const o = keyed('o', {parentSessionId: 'k', startedAtRaw: T0 + 400, newestMessageAt: T0 + DAY});
			const t = timelineOf(snapshot([k, o]), K, [
				span('k', T0, T0 + 300, 20),
				span('o', T0 + 410, T0 + DAY, 500),
				span('k', T0 + 3 * DAY, T0 + 3 * DAY + 60, 2),
			]);
			const messages = t.events.filter(e => e.kind === 'messages').map(e => [e.sessionId, e.at]);
			expect(messages).toEqual([
				['k', T0],
				['o', T0 + 410],
				['k', T0 + 3 * DAY],
			]);
			const times = t.events.map(e => e.at);
			expect(times).toEqual([...times].sort((x, y) => x - y));
			// The adoption is told when it happened (the donor's retirement), not at the orphan's birth.
			expect(kinds(t)).not.toContain('rotation');
			expect(t.events.find(e => e.kind === 'ended')).toMatchObject({
				kind: 'ended',
				at: T0 + 9 * DAY,
				text:
					'k ended superseded_by_repair: o was adopted into its chat (lineage now ' +
					'reads k → o, though the time axis says otherwise)',
			});
		},
	);
});
