/**
 * A long chat in a screenful (forensics/timeline/timeline-fold.ts): runs of FOLD_FROM or more
 * ordinary events (message spans, compression rotations, row ends) and of plain chain links fold
 * to a count, keeping their ends; anything inferred stands alone and ends the run.
 */
import {describe, expect, it} from 'vitest';
import {analyze} from '../../../source/forensics/analysis/analyze.js';
import {FOLD_FROM, foldEvents, foldRows} from '../../../source/forensics/timeline/timeline-fold.js';
import {chatNamed, timelineOfChat} from '../../../source/forensics/timeline/timeline-of-chat.js';
import type {
	MessageSpan,
	Timeline,
	TimelineEvent,
	TimelineRow,
} from '../../../source/forensics/timeline/timeline-types.js';
import type {SessionRecord, Snapshot} from '../../../source/forensics/types.js';
import {T0, dmKey, session, snapshot} from '../../helpers/records.js';

const K = dmKey('42');
const keyed = (id: string, partial: Partial<SessionRecord> = {}) =>
	session({id, sessionKey: K, userId: 'u1', chatId: '42', chatType: 'dm', ...partial});
const span = (sessionId: string, firstAt: number, lastAt: number, messages: number): MessageSpan => ({
	sessionId,
	firstAt,
	lastAt,
	messages,
});

function timelineOf(snap: Snapshot, name: string, spans: MessageSpan[]): Timeline {
	const a = analyze(snap);
	const named = chatNamed(a, name);
	if (!named.ok) {
		throw new Error(named.reason);
	}

	return timelineOfChat(a, named, spans, [], T0 + 30 * 86_400);
}

const messages = (i: number): TimelineEvent => ({
	at: T0 + i,
	kind: 'messages',
	sessionId: `s${i}`,
	text: `${i}`,
	certainty: 'certain',
	evidence: [],
	messages: 2,
});

const link = (i: number, partial: Partial<TimelineRow> = {}): TimelineRow =>
	({
		id: `r${i}`,
		via: ['key'],
		keyed: true,
		endReason: 'compression',
		routedNow: false,
		messages: 3,
		...partial,
	}) as TimelineRow;

describe('foldEvents on plain events', () => {
	it('leaves a run shorter than FOLD_FROM as it is', () => {
		const run = Array.from({length: FOLD_FROM - 1}, (_, i) => messages(i));
		expect(foldEvents(run)).toEqual(run);
	});

	it('folds a run of FOLD_FROM to its first and last three around one count of the middle', () => {
		const run = Array.from({length: FOLD_FROM}, (_, i) => messages(i));
		const folded = foldEvents(run);
		expect(folded).toHaveLength(7);
		expect(folded[3]).toEqual({
			kind: 'fold',
			at: T0 + 3,
			lastAt: T0 + FOLD_FROM - 4,
			events: FOLD_FROM - 6,
			rotations: 0,
			spans: FOLD_FROM - 6,
			messages: 2 * (FOLD_FROM - 6),
			rows: FOLD_FROM - 6,
		});
	});

	it('a fork, an uncertain rotation or a /new rotation ends the run and stands on its own line', () => {
		const fork: TimelineEvent = {...messages(100), kind: 'fork', messages: undefined};
		const weak: TimelineEvent = {
			...messages(101),
			kind: 'rotation',
			certainty: 'strong',
			text: 'compression rotation',
		};
		const half = Array.from({length: 8}, (_, i) => messages(i));
		expect(foldEvents([...half, fork, ...half])).toHaveLength(17);
		expect(foldEvents([...half, weak, ...half])).toHaveLength(17);
	});
});

describe('foldRows on plain rows', () => {
	it('folds a run of plain compression links to its first and last two around a count', () => {
		const rows = Array.from({length: FOLD_FROM}, (_, i) => link(i));
		expect(foldRows(rows)[2]).toEqual({
			kind: 'rows',
			rows: FOLD_FROM - 4,
			messages: 3 * (FOLD_FROM - 4),
			firstId: 'r2',
			lastId: `r${FOLD_FROM - 3}`,
		});
	});

	it('a routed row, a row found by its chat id or one ended otherwise is no plain link', () => {
		for (const odd of [{routedNow: true}, {via: ['key', 'peer-tuple']}, {endReason: 'new_session'}]) {
			const rows = Array.from({length: FOLD_FROM}, (_, i) => link(i, i === 6 ? (odd as Partial<TimelineRow>) : {}));
			expect(foldRows(rows)).toHaveLength(FOLD_FROM);
		}
	});
});

describe('a long chat in a screenful', () => {
	it(
		'folds a run of ordinary events (spans, compression rotations) to its ' +
			'ends and a count; a fork or a resume stands alone',
		() => {
			const chain: SessionRecord[] = [];
			const spans: MessageSpan[] = [];
			for (let i = 0; i < 30; i++) {
				chain.push(
					keyed(`r${String(i).padStart(2, '0')}`, {
						parentSessionId: i === 0 ? null : `r${String(i - 1).padStart(2, '0')}`,
						startedAtRaw: T0 + i * 1000,
						endReason: i === 29 ? null : 'compression',
						endedAtRaw: i === 29 ? null : T0 + i * 1000 + 900,
						newestMessageAt: T0 + i * 1000 + 500,
					}),
				);
				spans.push(span(chain[i]!.id, T0 + i * 1000 + 10, T0 + i * 1000 + 500, 5));
			}

			const t = timelineOf(snapshot(chain), K, spans);
			const folded = foldEvents(t.events);
			const fold = folded.find(e => e.kind === 'fold');
			expect(fold).toMatchObject({kind: 'fold', rotations: expect.any(Number), messages: expect.any(Number)});
			expect(folded.length).toBeLessThan(12);
			// Everything folded is counted: the messages of the kept spans plus the fold's are all 150.
			const kept = folded.flatMap(e => (e.kind === 'messages' ? [e.messages ?? 0] : []));
			expect(kept.reduce((a, b) => a + b, 0) + (fold && fold.kind === 'fold' ? fold.messages : 0)).toBe(150);
			expect(foldRows(t.rows).find(r => 'kind' in r)).toMatchObject({kind: 'rows', rows: 25});
		},
	);
});
