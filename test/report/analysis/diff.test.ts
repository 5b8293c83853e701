/**
 * `hfx diff A B` in words and as JSON (report/analysis/diff.ts), on a diff forensics/analysis/diff.ts decides
 * from plain records: both sides, a rollback between them, each changed chat A then B, sessions
 * added / removed / changed, gateway_routing moves, "nothing changed", and a restore's per-chat preview.
 */
import {describe, expect, it} from 'vitest';
import {analyze} from '../../../source/forensics/analysis/analyze.js';
import {type DiffSide, diffStores} from '../../../source/forensics/analysis/diff.js';
import type {Rollback} from '../../../source/forensics/rollbacks/rollbacks.js';
import type {SessionRecord, Snapshot} from '../../../source/forensics/types.js';
import {
	type DiffSideInfo,
	chatDiffLines,
	diffJson,
	diffLines,
	restorePreviewLines,
	routingMoveLines,
	sessionDiffLines,
} from '../../../source/report/analysis/diff.js';
import {rollbackJson, rollbackLines} from '../../../source/report/analysis/rollbacks.js';
import {T0, dmKey, routingEntry, session, snapshot} from '../../helpers/records.js';

const K = dmKey('42');
const keyed = (id: string, partial: Partial<SessionRecord> = {}) =>
	session({id, sessionKey: K, userId: 'u1', chatId: '42', chatType: 'dm', ...partial});

function side(snap: Snapshot, counts: Record<string, number>, rollbacks: Rollback[] = []): DiffSide {
	const a = analyze(snap);
	return {analysis: {...a, rollbacks: [...a.rollbacks, ...rollbacks]}, messageCounts: new Map(Object.entries(counts))};
}

const before = snapshot(
	[
		keyed('old', {startedAtRaw: T0, newestMessageAt: T0 + 100}),
		session({id: 'gone', source: 'cli', startedAtRaw: T0 - 50, newestMessageAt: T0 - 40}),
	],
	{routing: [routingEntry(K, 'old')]},
);
const after = snapshot(
	[
		keyed('old', {startedAtRaw: T0, newestMessageAt: T0 + 100, endedAtRaw: T0 + 500, endReason: 'session_reset'}),
		keyed('new', {startedAtRaw: T0 + 500, newestMessageAt: T0 + 600, parentSessionId: 'old'}),
	],
	{routing: [routingEntry(K, 'new')]},
);

const ROLLBACK: Rollback = {
	sessionKey: K,
	resumedId: 'old',
	jumpedFrom: T0,
	resumedAt: T0 + 90_000,
	after: {messages: 2, userTurns: 1, lastAt: T0 + 90_060},
	skipped: {
		id: 'orphan-1',
		kind: 'keyless',
		messages: 3,
		firstAt: T0 + 60,
		lastAt: T0 + 600,
		forkSeconds: 60,
		certainty: 'strong',
		evidence: [],
	},
	alsoSkipped: [],
	certainty: 'strong',
	routedTo: 'old',
	routingRewriteAt: null,
};

function info(partial: Partial<DiffSideInfo> = {}): DiffSideInfo {
	return {
		kind: 'store',
		path: '/h/state.db',
		member: null,
		takenAt: null,
		routingScope: null,
		sessions: 2,
		messages: 6,
		schemaVersion: 30,
		openMode: 'in-place',
		...partial,
	};
}

const diff = diffStores(side(before, {old: 4, gone: 2}), side(after, {old: 4, new: 2}));

describe('diffLines', () => {
	it('says both sides, then each changed chat, the sessions and the routing moves', () => {
		const sides = {a: info(), b: info({kind: 'archive', path: '/b/a.zip', member: 'state.db', takenAt: T0})};
		expect([...diffLines(sides, diff)]).toEqual([
			'A  store  /h/state.db',
			'   2 sessions, 6 messages, schema 30',
			'B  archive  /b/a.zip',
			'   taken 2023-11-14 22:13 UTC; state.db: 2 sessions, 6 messages, schema 30',
			'',
			'Chats: 1, 1 changed',
			...chatDiffLines(diff.chats[0]!),
			'',
			'Sessions: 1 added, 1 removed, 1 changed, 0 unchanged',
			`  + new  ${K}`,
			'      2 messages, newest 2023-11-14 22:23 UTC',
			'  - gone  (keyless, cli)',
			'      2 messages, newest 2023-11-14 22:12 UTC',
			...sessionDiffLines(diff.sessions.changed[0]!),
			'',
			'gateway_routing: 1 move',
			`  ~ ${K}`,
			'      repointed old → new',
		]);
	});

	it('says nothing changed between two equal sides', () => {
		const same = diffStores(side(before, {old: 4, gone: 2}), side(before, {old: 4, gone: 2}));
		const lines = [...diffLines({a: info(), b: info()}, same)];
		expect(lines.slice(4, 7)).toEqual([
			'',
			'Nothing changed between A and B: the same sessions, message counts, end stamps',
			'and identity columns, the same gateway_routing.',
		]);
		expect(lines).toContain('Sessions: 0 added, 0 removed, 0 changed, 2 unchanged');
		expect(lines).toContain('gateway_routing: 0 moves');
	});

	it('tells a rollback between A and B, and that its next step is for the store an image was taken of', () => {
		const rolled = diffStores(side(before, {old: 4, gone: 2}), side(before, {old: 4, gone: 2}, [ROLLBACK]));
		const lines = [...diffLines({a: info(), b: info({kind: 'quick-snapshot'})}, rolled)];
		const story = rollbackLines(ROLLBACK).filter(l => l !== '');
		expect(lines.slice(4, 7 + story.length)).toEqual([
			'',
			'A rollback happened between A and B (in B, not in A):',
			'(B is a quick snapshot: its next step is for the store it was taken of)',
			...story,
		]);
		expect(lines).not.toContain('Nothing changed between A and B: the same sessions, message counts, end stamps');
		const back = diffStores(side(before, {old: 4, gone: 2}, [ROLLBACK]), side(before, {old: 4, gone: 2}));
		expect([...diffLines({a: info(), b: info()}, back)]).toContain(
			`In A, not in B: 1 rollback (${K}): A is the later moment, or B was repaired`,
		);
	});
});

describe('chatDiffLines, sessionDiffLines, routingMoveLines', () => {
	it('says what a restart resumes and where the newest message is, A then B', () => {
		expect(chatDiffLines(diff.chats[0]!)).toEqual([
			`✗ ${K}`,
			'    restart target changed, newest message moved',
			'    restart resumes    A old',
			'                       B new',
			'    newest message in  A old  2023-11-14 22:15 UTC',
			'                       B new  2023-11-14 22:23 UTC',
			'    rollback risk      A no, B no',
		]);
	});

	it("says a session's end stamps and identity columns that changed", () => {
		const d = diff.sessions.changed[0]!;
		expect(sessionDiffLines(d)).toEqual([`  ~ old  ${K}`, '      ended open → 2023-11-14 22:21 UTC (session_reset)']);
		expect(
			sessionDiffLines({
				...d,
				messages: {a: 4, b: 1},
				newestAt: {a: T0, b: T0 + 60},
				identity: [{column: 'chat_id', a: '42', b: null}],
				ended: null,
			}),
		).toEqual([
			`  ~ old  ${K}`,
			'      messages 4 → 1 (-3)',
			'      newest message 2023-11-14 22:13 → 2023-11-14 22:14 UTC',
			'      chat_id 42 → (null)',
		]);
	});

	it('says a routing entry added, removed and re-stamped', () => {
		const a = {sessionId: 'x', updatedAt: T0};
		const b = {sessionId: 'x', updatedAt: T0 + 60};
		expect(routingMoveLines({scope: 's', kind: 'added', sessionKey: K, a: null, b})).toEqual([
			`  + ${K}`,
			'      added → x',
		]);
		expect(routingMoveLines({scope: 's', kind: 'removed', sessionKey: K, a, b: null})).toEqual([
			`  - ${K}`,
			'      removed (it named x)',
		]);
		expect(routingMoveLines({scope: 's', kind: 'restamped', sessionKey: K, a, b})).toEqual([
			`  ~ ${K}`,
			'      re-stamped 2023-11-14 22:13 → 2023-11-14 22:14 UTC (the same session)',
		]);
	});
});

describe('restorePreviewLines', () => {
	it('says the same sessions resume after the restore, or each chat that changes', () => {
		const same = diffStores(side(before, {old: 4, gone: 2}), side(before, {old: 4, gone: 2}));
		expect(restorePreviewLines(same.chats)).toEqual([
			'  per chat (1 chat): after the restore a restart resumes the same sessions as now',
		]);
		expect(restorePreviewLines(diff.chats)).toEqual([
			'  per chat, A the live store now and B after the restore (1 of 1 chat change):',
			...chatDiffLines(diff.chats[0]!).map(l => `  ${l}`),
		]);
	});
});

describe('diffJson', () => {
	it('carries both sides, the rollbacks as scan shows them, the diff and its summary', () => {
		const rolled = diffStores(side(before, {old: 4, gone: 2}), side(after, {old: 4, new: 2}, [ROLLBACK]));
		const doc = diffJson({a: info(), b: info()}, rolled);
		expect(doc.rollbacks).toEqual({inBOnly: [rollbackJson(ROLLBACK)], inAOnly: []});
		expect(doc.summary).toEqual({
			chatsChanged: 1,
			restartTargetChanged: [K],
			rolledBackBetween: [K],
			sessionsAdded: 1,
			sessionsRemoved: 1,
			sessionsChanged: 1,
			routingMoves: 1,
		});
		expect(doc.chats).toBe(rolled.chats);
	});
});
