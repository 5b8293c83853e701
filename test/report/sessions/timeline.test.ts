/**
 * A chat's timeline as text and JSON (report/sessions/timeline.ts), on a timeline built from plain records: the
 * title and how it was read, the risk (or that there is none), the rows with why each belongs, the
 * events with their word, certainty (none for the plain kinds) and evidence, "now" for what a restart
 * now would do, every line within the width; the logs read; the JSON documents.
 */
import {describe, expect, it} from 'vitest';
import {analyze} from '../../../source/forensics/analysis/analyze.js';
import {chatNamed, timelineOfChat} from '../../../source/forensics/timeline/timeline-of-chat.js';
import type {MessageSpan, Timeline} from '../../../source/forensics/timeline/timeline-types.js';
import type {SessionRecord} from '../../../source/forensics/types.js';
import {
	EVENT_WORD,
	eventLines,
	logNote,
	timelineJson,
	timelineLines,
	timelineReportJson,
} from '../../../source/report/sessions/timeline.js';
import {databaseFacts} from '../../helpers/database-facts.js';
import {T0, dmKey, routingEntry, session, snapshot} from '../../helpers/records.js';

const K = dmKey('42');
const NOW = T0 + 100_000;
const ZOMBIE = session({
	id: 'zombie-0001',
	sessionKey: K,
	userId: 'u1',
	chatId: '42',
	chatType: 'dm',
	startedAtRaw: T0 - 3600,
	newestMessageAt: T0,
});
const ORPHAN = session({id: 'orphan-0001', startedAtRaw: T0 + 60, newestMessageAt: T0 + 86_400, messageRows: 12});
const SPANS: MessageSpan[] = [
	{sessionId: 'zombie-0001', firstAt: T0 - 3600, lastAt: T0, messages: 4},
	{sessionId: 'orphan-0001', firstAt: T0 + 60, lastAt: T0 + 86_400, messages: 12},
];

function timelineOf(sessions: SessionRecord[], spans: MessageSpan[]): Timeline {
	const a = analyze(snapshot(sessions, {routing: [routingEntry(K, 'zombie-0001')]}));
	const named = chatNamed(a, K);
	if (!named.ok) {
		throw new Error(named.reason);
	}

	return timelineOfChat(a, named, spans, [], NOW);
}

const atRisk = timelineOf([ZOMBIE, ORPHAN], SPANS);

describe('timelineLines', () => {
	it('leads with the chat, how it was read and the risk, then its rows with why each belongs', () => {
		const lines = timelineLines(atRisk);
		expect(lines.slice(0, 16)).toEqual([
			`timeline of ${K}`,
			'times UTC · read at 2023-11-16 02:00 · messages in spans split at silences over',
			'  6.0 hours · ordered by time, not lineage',
			'! ROLLBACK RISK: if the gateway restarts now: it resumes zombie-0001 (via',
			"  routing-entry), whose last message is 27.8 hours old; left out: orphan-0001's",
			'  12 messages, the last at 2023-11-15 22:13',
			'',
			'rows of the chat (2)',
			'  zombie-0001  keyed  telegram  ◀ routing entry',
			'      created 2023-11-14 21:13 · quiet since 2023-11-14 22:13 · 4 messages in 1',
			'      span · live',
			`      belongs (certain; by key): session_key = ${K}`,
			'  orphan-0001  keyless  telegram',
			'      created 2023-11-14 22:14 · quiet since 2023-11-15 22:13 · 12 messages in',
			'      1 span · live',
			'      belongs (weak; by adoption): repair-routing adopts it into this chat by',
		]);
		expect(lines).toContain(`events (${atRisk.events.length})`);
	});

	it('dates each event, says the certainty of the inferred ones only, and "now" for a restart now', () => {
		const lines = timelineLines(atRisk);
		expect(lines).toContain('2023-11-14 21:13  created  keyed row zombie-0001 created  [certain]');
		expect(lines).toContain('2023-11-14 21:13  messages zombie-0001: 4 messages until 2023-11-14 22:13 (60');
		expect(lines.find(l => l.startsWith('now               IF NOW   '))).toBeDefined();
		expect(lines.filter(l => l.includes('[strong]'))).toHaveLength(1);
	});

	it('keeps every line within the width asked', () => {
		for (const width of [80, 60]) {
			for (const line of timelineLines(atRisk, width)) {
				expect(line.length, line).toBeLessThanOrEqual(width);
			}
		}
	});

	it('says there is no rollback and none at risk for a chat that resumes its newest conversation', () => {
		const lines = timelineLines(timelineOf([ZOMBIE], SPANS.slice(0, 1)));
		expect(lines.slice(3, 5)).toEqual([
			'no rollback found and none at risk: a restart now resumes the newest',
			'  conversation',
		]);
		expect(lines).toContain('rows of the chat (1)');
	});
});

describe('eventLines and EVENT_WORD', () => {
	it('gives every kind a word that fits its column', () => {
		for (const word of Object.values(EVENT_WORD)) {
			expect(word.length).toBeLessThan(9);
		}
	});

	it('writes the evidence under the text, indented past the time and the word', () => {
		const fork = atRisk.events.find(e => e.kind === 'fork')!;
		expect(eventLines(fork, 200, NOW)).toEqual([
			`2023-11-14 22:14  FORK     ${fork.text}  [${fork.certainty}]`,
			...fork.evidence.map(f => `${' '.repeat(27)}· ${f}`),
		]);
		expect(eventLines({...fork, at: NOW}, 200, NOW)[0]).toMatch(/^now {15}FORK {5}/);
		const messages = atRisk.events.find(e => e.kind === 'messages')!;
		expect(eventLines(messages, 200, NOW)).toEqual([
			'2023-11-14 21:13  messages zombie-0001: 4 messages until 2023-11-14 22:13 (60 minutes)',
		]);
	});
});

describe('logNote', () => {
	it('says no logs were read and that restarts are placed from the store alone, or which were read', () => {
		expect(logNote({dir: '/h/logs', files: [], notes: []})).toBe(
			'no gateway logs read beside the store (/h/logs): restarts are placed from the store alone',
		);
		expect(logNote({dir: '/h/logs', files: ['gateway.log', 'gateway.log.1'], notes: ['one line unreadable']})).toBe(
			'logs read: gateway.log, gateway.log.1 (asctime read as local time of this machine); one line unreadable',
		);
	});
});

describe('timelineJson and timelineReportJson', () => {
	it("carries the chat's rows, events, risk and rollbacks; the report adds the store, logs and before-image", () => {
		const doc = timelineJson(atRisk);
		expect(doc).toEqual({
			sessionKey: K,
			now: NOW,
			spanGapSeconds: atRisk.spanGapSeconds,
			rows: atRisk.rows,
			events: atRisk.events,
			restartNow: atRisk.restartNow,
			rollbacks: atRisk.rollbacks,
		});
		const logs = {dir: '/h/logs', files: [], notes: []};
		expect(timelineReportJson(databaseFacts(), logs, null, atRisk)).toEqual({
			database: '/home/u/.hermes/state.db',
			owner: 'default',
			ruleSet: 'v30',
			logs,
			before: null,
			...(doc as object),
		});
	});
});
