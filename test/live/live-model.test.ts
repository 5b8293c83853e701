/**
 * The live model (source/live/live-model.ts), in process on plain snapshots: the first model, a
 * commit analysed and published with its activity and data_version counted on, the reopen said
 * once, pausing (the model kept, the commits waiting counted by signature), errors published once.
 */
import {compareNewestFirst} from '../../source/forensics/analysis/newest-first.js';
import {describe, expect, it} from 'vitest';
import type {Snapshot} from '../../source/forensics/types.js';
import {type CommitRead, type FactsOf, type LiveModel, LiveModelFeed} from '../../source/live/live-model.js';
import type {DatabaseFacts} from '../../source/store/read/load.js';
import {SessionIndex} from '../../source/store/read/session-index.js';
import type {SnapshotMeta} from '../../source/store/read/read-snapshot.js';
import {T0, dmKey, routingEntry, session, snapshot} from '../helpers/records.js';

const K = dmKey('42');
const NOW = T0 + 1000;

const meta = (dataVersion: number): SnapshotMeta => ({
	dataVersion,
	messageHighWater: 10,
	sessionHighWater: null,
	readMs: 7,
	consistentSnapshot: true,
	transactions: 1,
});

/** The facts as the store would read them: here, only the data_version the feed shows. */
const facts: FactsOf = (_snap, m) => ({dataVersion: m.dataVersion}) as unknown as DatabaseFacts;
const versionOf = (model: LiveModel) => (model.facts as unknown as {dataVersion: number}).dataVersion;

function storeOf(newest = T0 + 60): Snapshot {
	const keyed = session({id: 'k', sessionKey: K, userId: 'u1', chatId: '42', chatType: 'dm', newestMessageAt: newest});
	return snapshot([keyed], {routing: [routingEntry(K, 'k')]});
}

function feedOf(signature: string | null = 'sig-0') {
	const index = new SessionIndex();
	const first = storeOf();
	index.replace(first.sessions);
	const feed = new LiveModelFeed(
		{maxGapSeconds: undefined, now: () => NOW, activityLimit: 50},
		{snapshot: first, meta: meta(40)},
		index,
		facts,
		signature,
	);
	const seen: LiveModel[] = [];
	feed.subscribe(m => seen.push(m));
	return {feed, index, seen};
}

function commitOf(index: SessionIndex, signature: string | null, label = 'test'): CommitRead {
	const next = storeOf(T0 + 120);
	index.replace(next.sessions);
	return {
		delta: {newMessages: new Map([['k', 3]]), changed: null, dataVersion: 0, snapshot: next},
		signature,
		index,
		label,
		messageHighWater: 13,
		started: performance.now(),
		facts,
	};
}

describe('LiveModelFeed', () => {
	it('the first model: the analysis of the first read, its facts, revision 1, no commit yet', () => {
		const {feed} = feedOf();
		expect(feed.current).toMatchObject({commits: 0, revision: 1, refreshMs: 7, refreshedAt: NOW, error: null});
		expect(versionOf(feed.current)).toBe(40);
		expect(feed.current.analysis.routing.map(c => c.restartResolvesTo)).toEqual(['k']);
		expect(feed.lastSignature).toBe('sig-0');
	});

	it('a commit: analysed, counted, its messages an activity event and a highlight, data_version counted on', () => {
		const {feed, index, seen} = feedOf();
		feed.publishCommit(commitOf(index, 'sig-1'));
		expect(feed.current).toMatchObject({commits: 1, revision: 2, error: null});
		expect(versionOf(feed.current)).toBe(41);
		expect(feed.current.activity.map(e => [e.kind, e.subject, e.burst?.messages])).toEqual([['messages', 'k', 3]]);
		expect(feed.current.changedAt.get('k')).toBe(NOW);
		expect(feed.current.analysis.byId.get('k')!.newestMessageAt).toBe(T0 + 120);
		expect(feed.lastSignature).toBe('sig-1');
		expect(seen).toHaveLength(1);
		feed.publishCommit(commitOf(index, 'sig-2'));
		expect(versionOf(feed.current)).toBe(42);
	});

	it('a preview completed in steps: nothing published until its last step, then the whole analysis once', () => {
		const index = new SessionIndex();
		const first = storeOf();
		index.replace(first.sessions);
		const preview = {snapshot: snapshot([]), meta: meta(40)};
		const feed = new LiveModelFeed(
			{maxGapSeconds: undefined, now: () => NOW, activityLimit: 50},
			preview,
			index,
			facts,
			'sig-0',
			1,
		);
		const seen: LiveModel[] = [];
		feed.subscribe(m => seen.push(m));
		const steps = feed.completeFirstSteps({snapshot: first, meta: meta(41)}, index, facts(first, meta(41)));
		let yields = 0;
		while (!steps.next().done) {
			yields++;
			expect([yields, seen.length, feed.current.analysing]).toEqual([yields, 0, {shown: 0, total: 1}]);
		}

		// The places and the build's rules, then the analysis's own steps (forensics/analysis/analyze.ts analyzeSteps).
		expect(yields).toBeGreaterThanOrEqual(6);
		expect(seen).toHaveLength(1);
		expect(feed.current.analysing).toBeUndefined();
		expect(feed.current.analysis.routing.map(r => r.sessionKey)).toEqual([K]);
		expect(versionOf(feed.current)).toBe(41);
		// Sorted for the sessions pane in its steps (the redraw that shows it does not sort).
		expect(feed.current.analysis.newestFirst?.map(s => s.id)).toEqual(
			[...first.sessions].sort(compareNewestFirst).map(s => s.id),
		);
	});

	it('a reopen is said once, first, by the store label, and the signature forgotten until the next read', () => {
		const {feed, index} = feedOf();
		feed.noteReopened({why: 'the store was replaced', sameFile: false});
		expect(feed.lastSignature).toBeNull();
		feed.publishCommit(commitOf(index, 'sig-1', 'profile work'));
		expect(feed.current.activity[0]).toEqual({
			at: NOW,
			kind: 'reopened',
			subject: 'profile work',
			text: 'the store was replaced',
		});
		feed.publishCommit(commitOf(index, 'sig-2', 'profile work'));
		expect(feed.current.activity.filter(e => e.kind === 'reopened')).toHaveLength(1);
	});

	it('a reopen of the same file (a writer came, went or committed) is marked so; another file is not', () => {
		const {feed, index} = feedOf();
		feed.noteReopened({why: 'the store file changed while no agent held it', sameFile: true});
		feed.publishCommit(commitOf(index, 'sig-1', 'profile work'));
		feed.noteReopened({why: 'the store was replaced', sameFile: false});
		feed.publishCommit(commitOf(index, 'sig-2', 'profile work'));
		// A same-file reason noted after another file's (a retried read) does not hide it.
		feed.noteReopened({why: 'the store was replaced again', sameFile: false});
		feed.noteReopened({why: 'the store changed while it was read in place', sameFile: true});
		feed.publishCommit(commitOf(index, 'sig-3', 'profile work'));
		const notices = feed.current.activity.filter(e => e.kind === 'reopened');
		expect(notices.map(e => [e.text, 'sameFile' in e ? e.sameFile : 'absent'])).toEqual([
			['the store file changed while no agent held it', true],
			['the store was replaced', 'absent'],
			['the store was replaced again', 'absent'],
		]);
	});

	it('paused: the model stays; a new signature counts one waiting, the same one never twice, an unknown always', () => {
		const {feed, seen} = feedOf('sig-0');
		const analysis = feed.current.analysis;
		feed.pause();
		expect(feed.current).toMatchObject({paused: true, waiting: 0, revision: 2});
		feed.noteWhilePaused('sig-0');
		expect(feed.current.waiting).toBe(0);
		feed.noteWhilePaused('sig-1');
		feed.noteWhilePaused('sig-1');
		feed.noteWhilePaused('sig-2');
		feed.noteWhilePaused(null);
		expect(feed.current.waiting).toBe(3);
		expect(feed.current.analysis).toBe(analysis);
		expect(feed.resume()).toBe(3);
		expect(feed.current).toMatchObject({paused: false, waiting: 0});
		expect(seen.map(m => m.waiting)).toEqual([0, 1, 2, 3]);
		// After a reopen nothing is known of the store's signature: an unknown one still counts.
		const unknown = feedOf(null).feed;
		unknown.pause();
		unknown.noteWhilePaused(null);
		expect(unknown.current.waiting).toBe(1);
	});

	it('an error is published once however often it repeats, and the next commit clears it', () => {
		const {feed, index, seen} = feedOf();
		expect(feed.publishError('database is locked')).toBe(false);
		feed.publishError('database is locked');
		expect(seen.map(m => m.error)).toEqual(['database is locked']);
		feed.publishCommit(commitOf(index, 'sig-1'));
		expect(feed.current.error).toBeNull();
	});

	it('a listener unsubscribed, or all of them dropped, hears nothing more', () => {
		const {feed, seen} = feedOf();
		const other: LiveModel[] = [];
		const off = feed.subscribe(m => other.push(m));
		off();
		feed.unsubscribeAll();
		feed.publishError('x');
		expect([seen.length, other.length]).toEqual([0, 0]);
	});
});
