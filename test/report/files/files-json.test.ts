/**
 * `hfx files --json` (report/files/files-json.ts): the store's path, link and journal mode, the probe's
 * report as read, each state judged, the places beside the store (null when not read), the chats
 * whose newest turn is elsewhere, and whether any of it needs attention.
 */
import {describe, expect, it} from 'vitest';
import {judgePlaces} from '../../../source/forensics/places/place-verdicts.js';
import {filesJson} from '../../../source/report/files/files-json.js';
import {placesJson} from '../../../source/report/files/places-json.js';
import type {FilesReport} from '../../../source/store/files/files-probe.js';
import {fileStates} from '../../../source/store/files/files-states.js';
import {places} from '../../helpers/places.js';

const REPORT: FilesReport = {
	dbPath: '/h/state.db',
	sizes: {db: 4096, wal: null, shm: null, journal: null},
	journalHeader: null,
	wal: null,
	walReset: null,
	walNewCommits: 0,
	shm: null,
	shmError: null,
	dbHeader: null,
	holders: {holders: [], complete: true, unreadablePids: 0, method: 'proc'},
	readAt: 1_700_000_000,
};
const PRE = {
	path: '/h/state.db',
	link: {path: '/home/u/.hermes/state.db', target: '/h/state.db'},
	journalMode: 'wal' as const,
};

describe('filesJson', () => {
	it("names the store and its mode first, spreads the probe's report, and carries the states judged", () => {
		const states = fileStates(REPORT);
		const doc = filesJson(PRE, REPORT, states, null, false);
		expect(doc).toEqual({
			database: {path: '/h/state.db', link: PRE.link, journalMode: 'wal'},
			...REPORT,
			states,
			places: null,
			newestElsewhere: [],
			attention: false,
		});
		expect(Object.keys(doc)[0]).toBe('database');
	});

	it('carries the places beside the store as scan --json has them, and the attention flag', () => {
		const verdicts = judgePlaces(places(), new Map());
		const doc = filesJson(PRE, REPORT, [], {places: verdicts, newestElsewhere: []}, true);
		expect(doc.places).toEqual(placesJson(verdicts));
		expect(doc.attention).toBe(true);
	});
});
