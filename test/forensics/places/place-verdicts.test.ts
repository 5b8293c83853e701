/**
 * What each place beside the store means (forensics/places/place-verdicts.ts, hermes-incidents §2,
 * §7): a `.jsonl` diverted or legacy, a spool file replayed or not and why, a retired capture's
 * turns, and every file's turns the live store lacks, newest first.
 */
import {describe, expect, it} from 'vitest';
import type {JsonlFile, Places, RetiredCapture, SpoolFile} from '../../../source/forensics/places.js';
import {
	judgeCapture,
	judgeJsonl,
	judgePlaces,
	judgeSpool,
	shapeWords,
} from '../../../source/forensics/places/place-verdicts.js';
import {T0, indexById, session} from '../../helpers/records.js';

const jsonl = (partial: Partial<JsonlFile>): JsonlFile => ({
	path: '/h/sessions/k.jsonl',
	sessionId: 'k',
	size: 100,
	mtimeMs: (T0 + 500) * 1000,
	lines: 3,
	invalidLines: 0,
	incompleteLast: false,
	timestamps: [T0 + 10, T0 + 60, T0 + 90],
	problem: null,
	olderThanRow: false,
	...partial,
});

const spool = (partial: Partial<SpoolFile>): SpoolFile => ({
	path: '/h/pending_messages/pending-1.json',
	name: 'pending-1.json',
	size: 100,
	mtimeMs: (T0 + 500) * 1000,
	shape: 'shutdown',
	reason: 'shutdown',
	sessionKey: 'agent:main:telegram:dm:42',
	sessionId: 'k',
	ts: T0 + 400,
	messages: 1,
	newestAt: T0 + 400,
	problem: null,
	damaged: false,
	...partial,
});

const capture = (partial: Partial<RetiredCapture>): RetiredCapture => ({
	path: '/h/state.db.retired-wal-20231114-221320-77',
	name: 'state.db.retired-wal-20231114-221320-77',
	partial: false,
	nameAt: T0,
	namePid: 77,
	manifest: null,
	manifestProblem: null,
	files: [],
	turns: null,
	imageProblem: null,
	...partial,
});

describe('judgeJsonl', () => {
	it("counts the lines newer than the row's newest message (a hair newer is the same message)", () => {
		const row = session({id: 'k', newestMessageAt: T0 + 60});
		expect(judgeJsonl(jsonl({timestamps: [T0 + 10, T0 + 60.0005, T0 + 90, T0 + 70]}), row)).toMatchObject({
			kind: 'diverted',
			turns: 2,
			newestAt: T0 + 90,
			firstAt: T0 + 70,
			why: "2 lines are newer than the row's newest message",
		});
	});

	it('every line at or before the newest message is a legacy transcript; so is one not read as older', () => {
		const row = session({id: 'k', newestMessageAt: T0 + 90});
		expect(judgeJsonl(jsonl({}), row)).toMatchObject({kind: 'legacy', turns: 0, newestAt: T0 + 90});
		expect(judgeJsonl(jsonl({olderThanRow: true}), undefined)).toMatchObject({kind: 'legacy', turns: 0});
	});

	it('a session absent from the store: every line is a turn; a row without messages: every timed line', () => {
		expect(judgeJsonl(jsonl({}), undefined)).toMatchObject({kind: 'diverted', turns: 3, firstAt: T0 + 10});
		const empty = session({id: 'k', hasMessageRows: false});
		expect(judgeJsonl(jsonl({timestamps: [T0, null, T0 + 5]}), empty)).toMatchObject({
			kind: 'diverted',
			turns: 2,
			why: 'the row holds no message; these lines are its turns',
		});
	});

	it('no JSON line, or no timestamp on a row in the store: unknown, with the reason', () => {
		const row = session({id: 'k'});
		expect(judgeJsonl(jsonl({lines: 0, problem: 'a FIFO'}), row)).toMatchObject({kind: 'unknown', why: 'a FIFO'});
		expect(judgeJsonl(jsonl({lines: 0}), row).why).toBe('no line is a JSON object');
		expect(judgeJsonl(jsonl({timestamps: [null, null, null]}), row)).toMatchObject({kind: 'unknown', turns: 0});
	});
});

describe('judgeSpool', () => {
	it('replays a shutdown payload and a cap drop at the next start, each said so', () => {
		expect(judgeSpool(spool({}))).toMatchObject({replay: 'will'});
		expect(judgeSpool(spool({shape: 'transcript_cap_drop'})).why).toContain('next successful flush');
		expect(shapeWords(spool({shape: 'transcript_cap_drop'}))).toContain('dropped while state.db refused writes');
	});

	it('will not replay an agent-history snapshot, one naming no session, or one older than the running gateway', () => {
		expect(judgeSpool(spool({shape: 'agent_history'})).replay).toBe('will-not');
		expect(judgeSpool(spool({sessionId: null})).why).toContain('no session_id');
		const started = judgeSpool(spool({}), {pid: 9, at: T0 + 501});
		expect(started.replay).toBe('will-not');
		expect(started.why).toContain('after the gateway (pid 9) started at 2023-11-14 22:21:41Z');
		expect(judgeSpool(spool({}), {pid: 9, at: T0 + 500}).replay).toBe('will');
	});

	it('an unreadable file: damaged will not be replayed, one not read is unknown', () => {
		expect(judgeSpool(spool({shape: 'unreadable', damaged: true, problem: 'not JSON'}))).toMatchObject({
			replay: 'will-not',
			why: 'not JSON: Hermes cannot parse it either, and keeps it',
		});
		expect(judgeSpool(spool({shape: 'unreadable', problem: 'a link'}))).toMatchObject({
			replay: 'unknown',
			why: 'a link: hfx cannot tell what it holds',
		});
	});
});

describe('judgeCapture', () => {
	it("sums the image's turns, takes the newest, and prefers the manifest's time and pid to the name's", () => {
		const turns = [
			{sessionId: 'a', turns: 2, newestAt: T0 + 5, inLiveStore: true},
			{sessionId: 'b', turns: 3, newestAt: null, inLiveStore: false},
			{sessionId: 'c', turns: 1, newestAt: T0 + 9, inLiveStore: true},
		];
		expect(judgeCapture(capture({turns}))).toMatchObject({at: T0, pid: 77, turns: 6, newestAt: T0 + 9, sessions: 3});
		const manifest = {pid: 5, capturedAt: T0 + 1, trigger: null, database: null, mainMode: null, walBytes: null};
		expect(judgeCapture(capture({manifest}))).toMatchObject({at: T0 + 1, pid: 5, turns: 0, newestAt: null});
	});
});

describe('judgePlaces', () => {
	it("lists every file's turns the store lacks, newest first; a spool file's key only for a shutdown payload", () => {
		const places: Places = {
			home: '/h',
			gatewayStart: null,
			diverted: [jsonl({}), jsonl({path: '/h/sessions/old.jsonl', sessionId: 'old', olderThanRow: true})],
			spool: [spool({}), spool({path: '/h/p2', shape: 'transcript_cap_drop', newestAt: T0 + 1}), spool({messages: 0})],
			captures: [capture({turns: [{sessionId: 'z', turns: 4, newestAt: T0 + 200, inLiveStore: false}]})],
			before: [],
			notes: ['a note'],
		};
		const v = judgePlaces(places, indexById([session({id: 'k', newestMessageAt: T0 + 20})]));
		expect(v.elsewhere.map(e => [e.kind, e.file, e.turns, e.newestAt, e.sessionKey])).toEqual([
			['spool', '/h/pending_messages/pending-1.json', 1, T0 + 400, 'agent:main:telegram:dm:42'],
			['capture', '/h/state.db.retired-wal-20231114-221320-77', 4, T0 + 200, null],
			['diverted', '/h/sessions/k.jsonl', 2, T0 + 90, null],
			['spool', '/h/p2', 1, T0 + 1, null],
		]);
		expect(v.diverted.map(d => d.kind)).toEqual(['diverted', 'legacy']);
		expect(v.notes).toEqual(['a note']);
	});
});
