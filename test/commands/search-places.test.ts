/**
 * Issue #24 point 3, "hfx search finds messages across every store and the files of point 1",
 * through the real binary on a home after a deleted-WAL write halt (test/helpers/write-halt.ts:
 * a retired capture copied out from under a real writer, diverted .jsonl lines, legacy
 * transcripts, a spool file of each shape). Text only beside the store is found there, with the
 * file, the line or message, the time and what Hermes does with it; a legacy transcript that
 * mirrors the store is not read; a capture's turn the store also holds is not repeated; not one
 * evidence byte changes.
 */
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {hfx, hfxJson} from '../helpers/cli.js';
import {folderHashes} from '../helpers/folder-hashes.js';
import {CAPTURE_AT, type HaltHome, JSONL_NEWEST, haltHome} from '../helpers/write-halt.js';

let h: HaltHome;
let before: Record<string, string>;

type PlaceHitJson = {
	place: string;
	file: string;
	where: string;
	position: number;
	sessionId: string | null;
	at: number | null;
	role: string;
	snippet: string;
	fate: string;
};

function placeHits(args: string[]): {
	code: number | null;
	hits: PlaceHitJson[];
	storeHits: number;
	json: Record<string, unknown>;
} {
	const {json, code} = hfxJson(['search', ...args, '--db', h.db]);
	const store = (json.stores as Array<{hits: unknown[]; places: {hits: PlaceHitJson[]}}>)[0]!;
	return {code, hits: store.places.hits, storeHits: store.hits.length, json};
}

beforeAll(async () => {
	h = await haltHome();
	before = folderHashes(h.dir);
}, 60_000);

afterAll(() => h?.remove());

describe('hfx search beside the store', () => {
	it('finds a diverted transcript line: its file and line, its time, and that Hermes never replays it', () => {
		const {code, hits, storeHits, json} = placeHits(['deploy finish']);
		expect(code).toBe(0);
		expect(storeHits).toBe(0);
		expect(json.hits).toBe(1);
		expect(hits).toEqual([
			expect.objectContaining({
				place: 'jsonl',
				file: path.join(h.home, 'sessions', `${h.k}.jsonl`),
				where: `sessions/${h.k}.jsonl:1`,
				sessionId: h.k,
				role: 'user',
				at: JSONL_NEWEST - 30,
				snippet: 'did the »deploy finish«?',
			}),
		]);
		expect(hits[0]!.fate).toMatch(/never replays a diverted one/);
	});

	it("finds a message of each spool shape, with Hermes' replay verdict for its file", () => {
		const dropped = placeHits(['dropped from the queue']).hits;
		expect(dropped).toEqual([
			expect.objectContaining({place: 'spool', sessionId: h.k, role: 'user', at: CAPTURE_AT + 120}),
		]);
		expect(dropped[0]!.fate).toMatch(/^Hermes will replay it/);
		const shutdown = placeHits(['are you there']).hits;
		expect(shutdown).toEqual([
			expect.objectContaining({place: 'spool', sessionId: h.k, role: 'user', at: CAPTURE_AT + 200}),
		]);
		const noSession = placeHits(['hello?']).hits;
		expect(noSession).toEqual([expect.objectContaining({place: 'spool', sessionId: null})]);
		expect(noSession[0]!.fate).toMatch(/^Hermes will NOT replay it: it names no session id/);
		const history = placeHits(['agent history']).hits;
		expect(history.map(x => [x.place, x.position, x.role])).toEqual([
			['spool', 2, 'assistant'],
			['spool', 1, 'user'],
		]);
		expect(history[0]!.fate).toMatch(/NOT replay it: Hermes skips agent-history snapshots/);
	});

	it('finds the turns only a retired-WAL capture holds, from a private copy, and not what the store also holds', () => {
		const {hits, storeHits} = placeHits(['committed in the retired WAL']);
		expect(storeHits).toBe(0);
		expect(hits).toHaveLength(3);
		expect(
			hits.every(x => x.place === 'retired-wal' && x.sessionId === h.k && x.file === path.join(h.home, h.captureName)),
		).toBe(true);
		// The baseline is in the capture's image and in the store: found once, in the store.
		const baseline = placeHits(['baseline']);
		expect(baseline.storeHits).toBe(4);
		expect(baseline.hits).toEqual([]);
	});

	it('leaves a legacy transcript that mirrors the store unread, and says so', () => {
		const {hits, json} = placeHits(['new generation']);
		expect(hits).toEqual([]);
		expect((json.stores as Array<{places: {mirrorsNotRead: number}}>)[0]!.places.mirrorsNotRead).toBe(1);
	});

	it('prints each hit beside the store in 80 columns, and no hit anywhere exits 1', () => {
		const r = hfx(['search', 'deploy finish', '--db', h.db]);
		expect(r.code).toBe(0);
		expect(r.stdout).toContain('beside the store: 1 hit in');
		expect(r.stdout).toContain(`sessions/${h.k}.jsonl:1`);
		expect(r.stdout.split('\n').filter(l => [...l].length > 80)).toEqual([]);
		const none = hfx(['search', 'zebra crossing', '--db', h.db]);
		expect(none.code).toBe(1);
		expect(none.stdout).toContain('No hit, in the stores or beside them');
	});

	it('changes no evidence byte', () => {
		expect(folderHashes(h.dir)).toEqual(before);
	});
});
