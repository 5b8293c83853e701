/**
 * Plain values of what store/places reads beside a store (forensics/places.ts): a diverted
 * transcript, a spool payload, a retired-WAL capture and a "before" image under one home, for the
 * pure tests of the places' verdicts and words. Each builder takes what a test changes.
 */
import type {BeforeImage, JsonlFile, Places, RetiredCapture, SpoolFile} from '../../source/forensics/places.js';
import {T0} from './records.js';

export const PLACES_HOME = '/home/u/.hermes';

export function jsonlFile(partial: Partial<JsonlFile> = {}): JsonlFile {
	return {
		path: `${PLACES_HOME}/sessions/20231114_222000_04c1d6c6.jsonl`,
		sessionId: '20231114_222000_04c1d6c6',
		size: 300,
		mtimeMs: (T0 + 7200) * 1000,
		lines: 3,
		invalidLines: 0,
		incompleteLast: false,
		timestamps: [T0 + 3600, T0 + 3660, T0 + 3720],
		problem: null,
		olderThanRow: false,
		...partial,
	};
}

export function spoolFile(partial: Partial<SpoolFile> = {}): SpoolFile {
	return {
		path: `${PLACES_HOME}/pending_messages/a.json`,
		name: 'a.json',
		size: 100,
		mtimeMs: (T0 + 100) * 1000,
		shape: 'shutdown',
		reason: 'shutdown',
		sessionKey: 'agent:main:telegram:dm:42',
		sessionId: '20231114_222000_04c1d6c6',
		ts: T0 + 100,
		messages: 1,
		newestAt: T0 + 100,
		problem: null,
		damaged: false,
		...partial,
	};
}

export function retiredCapture(partial: Partial<RetiredCapture> = {}): RetiredCapture {
	return {
		path: `${PLACES_HOME}/state.db.retired-wal-20231114-230000-77`,
		name: 'state.db.retired-wal-20231114-230000-77',
		partial: false,
		nameAt: T0 + 2800,
		namePid: 77,
		manifest: null,
		manifestProblem: null,
		files: ['state.db', 'state.db-wal'],
		turns: [{sessionId: '20231114_222000_04c1d6c6', turns: 2, newestAt: T0 + 2700, inLiveStore: true}],
		imageProblem: null,
		...partial,
	};
}

export function beforeImage(partial: Partial<BeforeImage> = {}): BeforeImage {
	return {
		path: `${PLACES_HOME}/state-snapshots/s1`,
		name: 's1',
		kind: 'quick-snapshot',
		at: T0,
		pid: null,
		size: 4096,
		problem: null,
		...partial,
	};
}

export function places(partial: Partial<Places> = {}): Places {
	return {
		home: PLACES_HOME,
		gatewayStart: null,
		diverted: [jsonlFile()],
		spool: [spoolFile()],
		captures: [retiredCapture()],
		before: [beforeImage()],
		notes: [],
		...partial,
	};
}
