/**
 * The places beside a store as --json carries them (report/files/places-json.ts), on verdicts judgePlaces
 * gives plain values: each file with its verdict, turns and meaning; a transcript's per-line
 * timestamps left out (uncapped); null without places.
 */
import {describe, expect, it} from 'vitest';
import {judgePlaces} from '../../../source/forensics/places/place-verdicts.js';
import {placesJson} from '../../../source/report/files/places-json.js';
import {PLACES_HOME, beforeImage, places} from '../../helpers/places.js';
import {T0, indexById, session} from '../../helpers/records.js';

const ID = '20231114_222000_04c1d6c6';
const verdicts = judgePlaces(places({notes: ['n']}), indexById([session({id: ID, newestMessageAt: T0 + 60})]));

describe('placesJson', () => {
	it('is null without places', () => {
		expect(placesJson(null)).toBeNull();
	});

	it('carries each diverted transcript with its verdict and size, never its per-line timestamps', () => {
		const doc = placesJson(verdicts)!;
		expect(doc.home).toBe(PLACES_HOME);
		expect(doc.diverted).toEqual([
			{
				path: `${PLACES_HOME}/sessions/${ID}.jsonl`,
				sessionId: ID,
				kind: 'diverted',
				why: "3 lines are newer than the row's newest message",
				turns: 3,
				newestAt: T0 + 3720,
				lines: 3,
				invalidLines: 0,
				incompleteLast: false,
				size: 300,
				problem: null,
			},
		]);
		expect(JSON.stringify(doc)).not.toContain('timestamps');
	});

	it('carries each spool payload with whether Hermes replays it, each capture and the before images', () => {
		const doc = placesJson(verdicts)!;
		expect(doc.spool).toEqual([
			{
				path: `${PLACES_HOME}/pending_messages/a.json`,
				shape: 'shutdown',
				reason: 'shutdown',
				sessionKey: 'agent:main:telegram:dm:42',
				sessionId: ID,
				ts: T0 + 100,
				messages: 1,
				newestAt: T0 + 100,
				replay: 'will',
				why: verdicts.spool[0]!.why,
				problem: null,
			},
		]);
		expect(doc.captures).toEqual([
			{
				path: `${PLACES_HOME}/state.db.retired-wal-20231114-230000-77`,
				at: T0 + 2800,
				pid: 77,
				partial: false,
				turns: 2,
				newestAt: T0 + 2700,
				sessions: places().captures[0]!.turns,
				manifest: null,
				manifestProblem: null,
				files: ['state.db', 'state.db-wal'],
				imageProblem: null,
			},
		]);
		expect(doc.before).toEqual([beforeImage()]);
		expect(doc.notes).toEqual(['n']);
	});
});
