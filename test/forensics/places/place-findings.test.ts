/**
 * The findings of the places beside the store (forensics/places/place-findings.ts): a write halt
 * (when, which process, how many turns diverted, where the newest message is) and the spool
 * files Hermes will not replay, at most 20 of them one by one.
 */
import {describe, expect, it} from 'vitest';
import type {SpoolFile} from '../../../source/forensics/places.js';
import type {ChatElsewhere} from '../../../source/forensics/places/newest-elsewhere.js';
import {
	homeRelative,
	placeFindings,
	unreplayedFindings,
	utcWords,
	writeHaltFinding,
} from '../../../source/forensics/places/place-findings.js';
import type {PlaceVerdicts, SpoolVerdict} from '../../../source/forensics/places/place-verdicts.js';
import {T0, dmKey} from '../../helpers/records.js';

function verdicts(partial: Partial<PlaceVerdicts> = {}): PlaceVerdicts {
	return {home: '/h', diverted: [], spool: [], captures: [], before: [], notes: [], elsewhere: [], ...partial};
}

const spooled = (partial: Partial<SpoolFile>, replay: SpoolVerdict['replay'] = 'will-not'): SpoolVerdict => ({
	file: {
		path: '/h/pending_messages/pending-1.json',
		name: 'pending-1.json',
		size: 10,
		mtimeMs: 0,
		shape: 'agent_history',
		reason: '',
		sessionKey: null,
		sessionId: 's1',
		ts: T0,
		messages: 3,
		newestAt: T0,
		problem: null,
		damaged: false,
		...partial,
	},
	replay,
	why: 'Hermes skips agent-history snapshots at start',
});

const capture = {
	capture: {
		path: '/h/state.db.retired-wal-20231114-221320-77',
		name: 'state.db.retired-wal-20231114-221320-77',
		partial: false,
		nameAt: T0,
		namePid: 77,
		manifest: {pid: 77, capturedAt: T0, trigger: 'disk full', database: null, mainMode: null, walBytes: null},
		manifestProblem: null,
		files: [],
		turns: [],
		imageProblem: null,
	},
	at: T0,
	pid: 77,
	turns: 5,
	newestAt: T0 + 60,
	sessions: 1,
};

describe('words', () => {
	it('an instant in UTC to the second, or an unknown time', () => {
		expect(utcWords(T0 + 0.9)).toBe('2023-11-14 22:13:20Z');
		expect(utcWords(null)).toBe('an unknown time');
		expect(utcWords(Number.NaN)).toBe('an unknown time');
	});

	it('a file under the home as read there; one elsewhere (or a sibling named like it) whole', () => {
		expect(homeRelative('/h', '/h/sessions/a.jsonl')).toBe('sessions/a.jsonl');
		expect(homeRelative('/h', '/h2/sessions/a.jsonl')).toBe('/h2/sessions/a.jsonl');
	});
});

describe('writeHaltFinding', () => {
	it('is none without a capture, a diverted transcript or a dropped spool message', () => {
		expect(writeHaltFinding(verdicts({spool: [spooled({})]}), [])).toBeNull();
	});

	it('names the capture, its pid and trigger, the turns, and the newest message that is not in state.db', () => {
		const chats = [
			{sessionKey: dmKey(), newerThanStore: true, newestFile: '/h/sessions/k.jsonl', newestAt: T0 + 90},
			{sessionKey: dmKey('7'), newerThanStore: false, newestFile: '/h/x', newestAt: T0},
		] as ChatElsewhere[];
		const f = writeHaltFinding(verdicts({captures: [capture]}), chats)!;
		expect(f).toMatchObject({
			severity: 'critical',
			kind: 'write-halt',
			subject: 'state.db.retired-wal-20231114-221320-77',
			title: 'WRITE HALT at 2023-11-14 22:13:20Z by pid 77: 5 turns diverted out of state.db',
		});
		expect(f.detail).toContain(
			'Hermes retired its WAL to state.db.retired-wal-20231114-221320-77 at 2023-11-14 22:13:20Z ' +
				'(pid 77, disk full): ' +
				'5 turns committed there are not in the live store (newest 2023-11-14 22:14:20Z)',
		);
		expect(f.detail).toContain(
			`the newest message of ${dmKey()} is in sessions/k.jsonl (2023-11-14 22:14:50Z), not in state.db`,
		);
		expect(f.detail).not.toContain(dmKey('7'));
	});

	it('a capture whose image cannot be read and no turns: a warning, dated by the earliest evidence', () => {
		const unread = {...capture, turns: 0, capture: {...capture.capture, imageProblem: 'EIO', partial: true}};
		const drop = spooled({shape: 'transcript_cap_drop', messages: 0, ts: T0 - 60});
		const f = writeHaltFinding(verdicts({captures: [unread], spool: [drop]}), [])!;
		expect(f.severity).toBe('warning');
		expect(f.title).toBe('WRITE HALT at 2023-11-14 22:12:20Z by pid 77: 0 turns diverted out of state.db');
		expect(f.detail).toContain(', a capture that never completed: its image cannot be read (EIO)');
		expect(f.detail).toContain('1 spool file in pending_messages/ holds a message the transcript queue dropped');
	});
});

describe('unreplayedFindings', () => {
	it('one warning per spool file Hermes will not replay, none for one it will', () => {
		const found = unreplayedFindings(verdicts({spool: [spooled({}), spooled({sessionId: null}, 'will')]}));
		expect(found).toEqual([
			{
				severity: 'warning',
				kind: 'unreplayed-turns',
				subject: 'pending_messages/pending-1.json',
				title: 'turns Hermes will not replay: pending_messages/pending-1.json',
				detail:
					"an agent's unpersisted transcript, saved at shutdown (3 messages of session s1, " +
					'2023-11-14 22:13:20Z): Hermes skips agent-history snapshots at start',
				next: expect.stringContaining('copy it aside (cp -a)'),
			},
		]);
	});

	it('at most 20 one by one, the rest counted in one', () => {
		const found = unreplayedFindings(verdicts({spool: Array.from({length: 23}, () => spooled({}))}));
		expect(found).toHaveLength(21);
		expect(found[20]).toMatchObject({subject: 'pending_messages', title: '3 more spool files Hermes will not replay'});
	});

	it('placeFindings puts the halt first', () => {
		const found = placeFindings(verdicts({captures: [capture], spool: [spooled({})]}), []);
		expect(found.map(f => f.kind)).toEqual(['write-halt', 'unreplayed-turns']);
	});
});
