/**
 * The places beside a store in words (report/files/places-text.ts), on verdicts judgePlaces gives plain
 * values: each file with its meaning and tone (a retired capture, a diverted transcript, a spool
 * payload, a "before" image, a folder not read), legacy transcripts counted past five, nothing when
 * there is nothing; and the scan's section for the places' findings and each chat's newest message.
 */
import {describe, expect, it} from 'vitest';
import type {Finding} from '../../../source/forensics/finding.js';
import {judgePlaces} from '../../../source/forensics/places/place-verdicts.js';
import {elsewhereScanLines, placeLines} from '../../../source/report/files/places-text.js';
import {PLACES_HOME, jsonlFile, places} from '../../helpers/places.js';
import {T0, indexById, session} from '../../helpers/records.js';

const ID = '20231114_222000_04c1d6c6';
const byId = indexById([session({id: ID, newestMessageAt: T0 + 60})]);
const verdicts = judgePlaces(places({notes: ['sessions/ is a link: not read']}), byId);

describe('placeLines', () => {
	it('lists each place with its meaning, wrapped under its name, its tone by what it means', () => {
		expect(placeLines(verdicts)).toEqual([
			{text: ''},
			{text: `Other places the conversation can be (${PLACES_HOME}):`},
			{text: '  state.db.retired-wal-20231114-230000-77/', tone: 'danger'},
			{text: '    retired WAL of a write halt, captured 2023-11-14 23:00:00Z, pid 77: 2', tone: 'danger'},
			{text: '    committed turns not in the live store, newest 2023-11-14 22:58:20Z (read', tone: 'danger'},
			{text: '    from a private copy); Hermes never replays it', tone: 'danger'},
			{text: `  sessions/${ID}.jsonl`, tone: 'danger'},
			{text: '    diverted transcript: 3 turns not in state.db, newest 2023-11-14 23:15:20Z', tone: 'danger'},
			{text: "    (3 lines are newer than the row's newest message); Hermes never replays it", tone: 'danger'},
			{text: '  pending_messages/a.json', tone: 'warn'},
			{text: `    a message queued at shutdown (shutdown; session ${ID},`, tone: 'warn'},
			{text: '    2023-11-14 22:15:00Z): Hermes will replay it: at the next gateway start,', tone: 'warn'},
			{text: '    as a user message with its original time', tone: 'warn'},
			{text: '  state-snapshots/s1', tone: 'muted'},
			{text: '    quick snapshot of 2023-11-14 22:13:20Z: a "before" image, never replayed', tone: 'muted'},
			{text: '  sessions/ is a link: not read', tone: 'warn'},
		]);
	});

	it('says nothing without places, or with none found', () => {
		expect(placeLines(null)).toEqual([]);
		expect(placeLines(judgePlaces(places({diverted: [], spool: [], captures: [], before: []}), byId))).toEqual([]);
	});

	it('says a damaged transcript, and a capture whose image could not be read', () => {
		const v = judgePlaces(
			places({
				diverted: [jsonlFile({invalidLines: 2, incompleteLast: true})],
				spool: [],
				before: [],
				captures: [{...places().captures[0]!, imageProblem: 'not a database', partial: true, turns: null}],
			}),
			byId,
		);
		const text = placeLines(v)
			.map(l => l.text.trim())
			.join(' ');
		expect(text).toContain('captured 2023-11-14 23:00:00Z, pid 77, never completed: its image: not a database;');
		expect(text).toContain('Hermes never replays it; 2 lines not JSON (the last one cut short)');
	});

	it('counts legacy transcripts past five in one line, and lists five or fewer', () => {
		const legacy = (n: number) =>
			Array.from({length: n}, (_, i) =>
				jsonlFile({path: `${PLACES_HOME}/sessions/s${i}.jsonl`, sessionId: `s${i}`, olderThanRow: true}),
			);
		const rows = indexById(Array.from({length: 6}, (_, i) => session({id: `s${i}`, newestMessageAt: T0 + 99_999})));
		const six = placeLines(judgePlaces(places({diverted: legacy(6), spool: [], captures: [], before: []}), rows));
		expect(six.slice(2)).toEqual([
			{text: '  sessions/ (6 legacy transcripts)', tone: 'muted'},
			{text: '    rows already in the store; Hermes no longer reads them (hfx files --json', tone: 'muted'},
			{text: '    lists each)', tone: 'muted'},
		]);
		const five = placeLines(judgePlaces(places({diverted: legacy(5), spool: [], captures: [], before: []}), rows));
		expect(five.filter(l => /^ {2}sessions\/s\d\.jsonl$/.test(l.text))).toHaveLength(5);
	});
});

describe('elsewhereScanLines', () => {
	const finding: Finding = {
		kind: 'write-halt',
		severity: 'critical',
		subject: ID,
		title: 'a diverted transcript holds turns state.db lacks',
		detail: 'detail words',
		next: 'read it with hfx files',
	};

	it("says each place's finding, then each chat's newest message outside state.db", () => {
		const lines = elsewhereScanLines({
			findings: [finding],
			places: verdicts,
			newestElsewhere: [
				{
					sessionKey: 'agent:main:telegram:dm:42',
					turns: 3,
					files: [`${PLACES_HOME}/sessions/${ID}.jsonl`],
					newestFile: `${PLACES_HOME}/sessions/${ID}.jsonl`,
					newestAt: T0 + 3720,
					newestKind: 'diverted',
					newestSessionId: ID,
					newerThanStore: true,
				},
			],
		});
		expect(lines).toEqual([
			'✗ a diverted transcript holds turns state.db lacks',
			'    detail words',
			'    next: read it with hfx files',
			'',
			'agent:main:telegram:dm:42: 3 turns outside state.db in 1 file; the newest',
			`    message is in sessions/${ID}.jsonl (2023-11-14 23:15:`,
			'    20Z)',
			'',
		]);
	});

	it('says nothing when no finding is about the places', () => {
		expect(
			elsewhereScanLines({findings: [{...finding, kind: 'orphan-adoptable'}], places: null, newestElsewhere: []}),
		).toEqual([]);
	});
});
