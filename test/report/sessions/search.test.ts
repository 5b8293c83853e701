/**
 * `hfx search` in words and as JSON (report/sessions/search.ts): the snippet with each match between » and «,
 * the index in words, a hit's time in UTC, where a hit beside the store is; per store how it was
 * searched, each hit, the places beside it, a store not searched; zero hits said not to be proof;
 * hostile text never printed raw; every line within 80 columns.
 */
import {describe, expect, it} from 'vitest';
import type {PlaceHit} from '../../../source/forensics/search/search-places.js';
import type {FtsIndex} from '../../../source/store/search/fts-index.js';
import {
	type LabelledHit,
	type SearchReport,
	type StoreSearchReport,
	hitTime,
	indexWords,
	placeWhere,
	searchJson,
	searchText,
	snippetText,
} from '../../../source/report/sessions/search.js';
import {T0} from '../../helpers/records.js';

const INDEX: FtsIndex = {layout: 'external', trigram: false, cjk: false, stale: false, rebuildWindow: null};
const HIT: LabelledHit = {
	messageId: 7,
	sessionId: '20231114_222000_04c1d6c6',
	role: 'user',
	timestamp: T0,
	inactive: false,
	snippet: [
		{text: 'the ', match: false},
		{text: 'PR', match: true},
		{text: ' ', match: false},
		{text: 'merged', match: true},
		{text: ' today', match: false},
	],
	via: 'fts',
	chat: {kind: 'orphan', label: 'keyless: orphan', sessionKey: null, belongsTo: null},
};
const PLACE: PlaceHit = {
	place: 'jsonl',
	file: '/h/sessions/abc.jsonl',
	position: 12,
	sessionId: 'abc',
	role: 'assistant',
	timestamp: null,
	snippet: [{text: 'PR', match: true}],
	fate: 'Hermes never reads it back',
};

function store(partial: Partial<Extract<StoreSearchReport, {ok: true}>> = {}): StoreSearchReport {
	return {
		ok: true,
		profile: 'default',
		path: '/h/state.db',
		index: INDEX,
		route: 'fts',
		notes: [],
		scan: null,
		hits: [HIT],
		places: {hits: [], files: 0, mirrors: 0, notes: []},
		...partial,
	};
}

function report(stores: StoreSearchReport[]): SearchReport {
	return {query: 'PR merged', terms: ['PR', 'merged'], match: '"PR" "merged"', limit: 20, stores};
}

describe('snippetText, indexWords, hitTime, placeWhere', () => {
	it('marks each match, joins matches only spaces apart, and folds whitespace', () => {
		expect(snippetText(HIT.snippet)).toBe('the »PR merged« today');
		expect(
			snippetText([
				{text: ' a\n\n b ', match: false},
				{text: 'c', match: true},
			]),
		).toBe('a b »c«');
	});

	it('says the index: external or legacy, trigram, cjk not read, stale; or none', () => {
		expect(indexWords({...INDEX, layout: 'none'})).toBe('no full-text index');
		expect(indexWords(INDEX)).toBe('messages_fts (v23+, external content)');
		expect(indexWords({...INDEX, layout: 'legacy', trigram: true, cjk: true, stale: true})).toBe(
			'messages_fts (legacy inline), trigram, cjk (not read: needs its tokenizer), marked stale',
		);
	});

	it('says a time to the second in UTC, or no time', () => {
		expect(hitTime(T0)).toBe('2023-11-14 22:13:20 UTC');
		expect(hitTime(null)).toBe('no time');
		expect(hitTime(Number.NaN)).toBe('no time');
	});

	it("says where a hit beside the store is, from the store's folder", () => {
		expect(placeWhere('/h/state.db', PLACE)).toBe('sessions/abc.jsonl:12');
		expect(placeWhere('/h/state.db', {...PLACE, place: 'spool', file: '/h/pending_messages/x.json', position: 1})).toBe(
			'pending_messages/x.json message 1',
		);
		expect(
			placeWhere('/h/state.db', {...PLACE, place: 'retired-wal', file: '/h/state.db.retired-wal-1', position: 42}),
		).toBe('state.db.retired-wal-1 id 42');
	});
});

describe('searchText', () => {
	it('says the count, how each store was searched, each hit and the places beside it', () => {
		const lines = [...searchText(report([store({places: {hits: [PLACE], files: 3, mirrors: 2, notes: ['n']}})]))];
		expect(lines).toEqual([
			'search "PR merged": 2 hits in 1 store (at most 20 per store)',
			'',
			'default  /h/state.db',
			'  index: messages_fts (v23+, external content); searched by the word index',
			'  20231114_222000_04c1d6c6  keyless: orphan',
			'    2023-11-14 22:13:20 UTC  user  #7',
			'    the »PR merged« today',
			'  beside the store: 1 hit in 3 files (sessions/*.jsonl, pending_messages/,',
			'    retired-WAL captures); 2 older transcripts mirroring rows the store holds',
			'    not read',
			'  n',
			'  sessions/abc.jsonl:12  abc',
			'    no time  assistant',
			'    »PR«',
			'    Hermes never reads it back',
		]);
	});

	it('says a scan that stopped, a rewound hit, a hit not found by the index, and a store not searched', () => {
		const lines = [
			...searchText(
				report([
					store({
						profile: '/h/state.db',
						route: 'scan',
						scan: {searchedIds: 100_000, ofIds: 250_000, complete: false},
						hits: [{...HIT, inactive: true, via: 'scan'}],
					}),
					{ok: false, profile: 'work', path: '/w/state.db', line: 'hfx: …', kind: 'zero-byte-main-file'},
				]),
			),
		];
		expect(lines).toContain('/h/state.db');
		expect(lines).toContain('  index: messages_fts (v23+, external content); searched by a scan');
		expect(lines).toContain('  the scan stopped after 100,000 of 250,000 message ids (newest first): older');
		expect(lines).toContain('    2023-11-14 22:13:20 UTC  user (rewound)  #7 (scan)');
		expect(lines.at(-1)).toBe('work  /w/state.db: not searched (zero-byte-main-file; its line is on stderr)');
		const whole = [...searchText(report([store({route: 'scan', scan: {searchedIds: 5, ofIds: 5, complete: true}})]))];
		expect(whole.join('\n')).not.toContain('the scan stopped');
	});

	it('says zero hits are not proof of zero messages', () => {
		const lines = [...searchText(report([store({hits: []})]))];
		expect(lines[0]).toBe('search "PR merged": 0 hits in 1 store (at most 20 per store)');
		expect(lines).toContain('  no hit');
		expect(lines.slice(-4)).toEqual([
			'',
			'No hit, in the stores or beside them. Zero hits are not proof of zero messages:',
			'backups, quick snapshots and plugin stores are not searched (hfx diff reads a',
			'backup; hermes-incidents.md §2.4–2.6).',
		]);
	});

	it('never prints a control character from a message, and keeps every line within 80 columns', () => {
		const hostile: LabelledHit = {
			...HIT,
			snippet: [{text: `\u001b]0;owned\u0007 ${'x'.repeat(200)} \u001b[2J`, match: false}],
		};
		const lines = [...searchText(report([store({hits: [hostile]})]))];
		for (const line of lines) {
			expect(line.length, line).toBeLessThanOrEqual(80);
			expect(line).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
		}
	});
});

describe('searchJson', () => {
	it('carries the query, each store with its hits and places, a store not searched, the total, the exit code', () => {
		const doc = searchJson(
			report([
				store({places: {hits: [PLACE], files: 1, mirrors: 0, notes: []}}),
				{ok: false, profile: 'work', path: '/w/state.db', line: 'hfx: x', kind: 'zero-byte-main-file'},
			]),
			1,
		);
		expect(doc).toMatchObject({query: 'PR merged', terms: ['PR', 'merged'], ftsMatch: '"PR" "merged"', limit: 20});
		expect(doc.hits).toBe(2);
		expect(doc.exitCode).toBe(1);
		expect(doc.stores[0]).toMatchObject({
			ok: true,
			route: 'fts',
			hits: [
				{
					messageId: 7,
					sessionId: HIT.sessionId,
					at: T0,
					atUtc: '2023-11-14 22:13:20 UTC',
					inactive: false,
					via: 'fts',
					snippet: 'the »PR merged« today',
					snippetParts: HIT.snippet,
				},
			],
			places: {files: 1, mirrorsNotRead: 0, hits: [{where: 'sessions/abc.jsonl:12', at: null, atUtc: null}]},
		});
		expect(doc.stores[1]).toEqual({
			profile: 'work',
			path: '/w/state.db',
			ok: false,
			kind: 'zero-byte-main-file',
			error: 'hfx: x',
		});
	});
});
