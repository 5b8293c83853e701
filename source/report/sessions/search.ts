/**
 * `hfx search` in words and as JSON: per store, how it was searched (which index, or a scan and
 * why), then each hit: its row, its chat ("keyless: orphan" for the keyless gateway row a restart
 * skipped), its time (UTC), its role and its snippet, each match between » and « (visible without
 * colour). Message text is hostile: every line is wrapped from safe text (text/wrap.ts) and
 * printed through the sinks. Every line fits 80 columns.
 */
import path from 'node:path';
import type {ChatLabel, StoreHit} from '../../forensics/search/search-hits.js';
import type {PlaceHit} from '../../forensics/search/search-places.js';
import type {SnippetPart} from '../../forensics/search/search-snippet.js';
import type {FtsIndex} from '../../store/search/fts-index.js';
import type {PlaceSearch} from '../../store/search/search-places.js';
import type {SearchRoute} from '../../store/search/search.js';
import {grouped, plural} from '../../text/format.js';
import {wrapIndented} from '../../text/wrap.js';

const WIDTH = 80;
export const MATCH_OPEN = '»';
export const MATCH_CLOSE = '«';

export type LabelledHit = StoreHit & {chat: ChatLabel};

export type StoreSearchReport =
	| {
			ok: true;
			profile: string;
			path: string;
			index: FtsIndex;
			route: SearchRoute;
			notes: string[];
			scan: {searchedIds: number; ofIds: number; complete: boolean} | null;
			hits: LabelledHit[];
			places: PlaceSearch;
	  }
	| {ok: false; profile: string; path: string; line: string; kind: string};

export type SearchReport = {
	query: string;
	terms: string[];
	match: string | null;
	limit: number;
	stores: StoreSearchReport[];
};

/**
 * The snippet on one line, each match between » and «; matches only spaces apart read as one (»PR that got merged«).
 */
export function snippetText(parts: readonly SnippetPart[]): string {
	const marked = parts.map(p => (p.match ? `${MATCH_OPEN}${p.text}${MATCH_CLOSE}` : p.text)).join('');
	return marked.replace(/\s+/gu, ' ').replaceAll(`${MATCH_CLOSE} ${MATCH_OPEN}`, ' ').trim();
}

export function indexWords(index: FtsIndex): string {
	if (index.layout === 'none') {
		return 'no full-text index';
	}

	const parts = [
		index.layout === 'external' ? 'messages_fts (v23+, external content)' : 'messages_fts (legacy inline)',
	];
	if (index.trigram) {
		parts.push('trigram');
	}

	if (index.cjk) {
		parts.push('cjk (not read: needs its tokenizer)');
	}

	return `${parts.join(', ')}${index.stale ? ', marked stale' : ''}`;
}

/** A message's time to the second, in UTC, said so. */
export function hitTime(epoch: number | null): string {
	return epoch === null || !Number.isFinite(epoch)
		? 'no time'
		: `${new Date(epoch * 1000).toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

function hitLines(hit: LabelledHit): string[] {
	const head = `  ${hit.sessionId}  ${hit.chat.label}`;
	const when =
		`${hitTime(hit.timestamp)} ` +
		` ${hit.role}${hit.inactive ? ' (rewound)' : ''}  ` +
		`#${hit.messageId}${hit.via === 'fts' || hit.via === 'trigram' ? '' : ` (${hit.via})`}`;
	return [
		...wrapIndented(head, WIDTH, 4),
		...wrapIndented(`    ${when}`, WIDTH, 4),
		...wrapIndented(`    ${snippetText(hit.snippet)}`, WIDTH, 4),
	];
}

function storeLines(s: Extract<StoreSearchReport, {ok: true}>): string[] {
	const lines = wrapIndented(s.profile === s.path ? s.path : `${s.profile}  ${s.path}`, WIDTH, 2);
	lines.push(
		...wrapIndented(
			`  index: ${indexWords(s.index)}; searched ` +
				`by ${s.route === 'scan' ? 'a scan' : s.route === 'fts' ? 'the word index' : 'the trigram index'}`,
			WIDTH,
			4,
		),
	);
	for (const note of s.notes) {
		lines.push(...wrapIndented(`  ${note}`, WIDTH, 4));
	}

	if (s.scan && !s.scan.complete) {
		lines.push(
			...wrapIndented(
				`  the scan stopped after ${grouped(s.scan.searchedIds)} ` +
					`of ${grouped(s.scan.ofIds)} message ids (newest first): ` +
					`older messages were not searched`,
				WIDTH,
				4,
			),
		);
	}

	lines.push(...(s.hits.length === 0 ? ['  no hit'] : s.hits.flatMap(hitLines)));
	lines.push(...placeLines(s.path, s.places));
	return lines;
}

/**
 * Where a place hit is, from the store's folder (`sessions/<id>.jsonl:12`, `pending_messages/…json #1`,
 * `state.db.retired-wal-…/ #42`).
 */
export function placeWhere(storePath: string, hit: PlaceHit): string {
	const rel = path.relative(path.dirname(storePath), hit.file);
	return hit.place === 'jsonl'
		? `${rel}:${hit.position}`
		: `${rel} ${hit.place === 'spool' ? 'message' : 'id'} ${hit.position}`;
}

/**
 * The hits beside the store: in the transcripts, the spool and the retired-WAL captures, each with what Hermes does
 * with it.
 */
function placeLines(storePath: string, places: PlaceSearch): string[] {
	const mirrors =
		places.mirrors > 0 ? `; ${plural(places.mirrors, 'older transcript')} mirroring rows the store holds not read` : '';
	const lines = wrapIndented(
		`  beside the store: ${plural(places.hits.length, 'hit')} ` +
			`in ${plural(places.files, 'file')} (sessions/*.jsonl, ` +
			`pending_messages/, retired-WAL captures)${mirrors}`,
		WIDTH,
		4,
	);
	for (const note of places.notes) {
		lines.push(...wrapIndented(`  ${note}`, WIDTH, 4));
	}

	for (const hit of places.hits) {
		lines.push(
			...wrapIndented(`  ${placeWhere(storePath, hit)}  ${hit.sessionId ?? 'no session id'}`, WIDTH, 4),
			...wrapIndented(`    ${hitTime(hit.timestamp)}  ${hit.role}`, WIDTH, 4),
			...wrapIndented(`    ${snippetText(hit.snippet)}`, WIDTH, 4),
			...wrapIndented(`    ${hit.fate}`, WIDTH, 4),
		);
	}

	return lines;
}

/** Hits in the stores and beside them. */
function totalHits(report: SearchReport): number {
	return report.stores.reduce((n, s) => n + (s.ok ? s.hits.length + s.places.hits.length : 0), 0);
}

export function* searchText(report: SearchReport): Iterable<string> {
	const total = totalHits(report);
	yield* wrapIndented(
		`search ${JSON.stringify(report.query)}: ${plural(total, 'hit')} ` +
			`in ${plural(report.stores.length, 'store')} (at most ${report.limit} ` +
			`per store)`,
		WIDTH,
		2,
	);
	for (const s of report.stores) {
		yield '';
		yield* s.ok
			? storeLines(s)
			: wrapIndented(`${s.profile}  ${s.path}: not searched (${s.kind}; its line is on stderr)`, WIDTH, 2);
	}

	if (total === 0) {
		yield '';
		yield* wrapIndented(
			'No hit, in the stores or beside them. Zero hits are not proof of zero ' +
				'messages: backups, quick snapshots and plugin stores are not searched ' +
				'(hfx diff reads a backup; hermes-incidents.md §2.4–2.6).',
			WIDTH,
			0,
		);
	}
}

function hitJson(hit: LabelledHit) {
	return {
		messageId: hit.messageId,
		sessionId: hit.sessionId,
		chat: hit.chat,
		at: hit.timestamp,
		atUtc: hit.timestamp === null ? null : hitTime(hit.timestamp),
		role: hit.role,
		inactive: hit.inactive,
		via: hit.via,
		snippet: snippetText(hit.snippet),
		snippetParts: hit.snippet,
	};
}

function placesJson(storePath: string, places: PlaceSearch) {
	return {
		files: places.files,
		mirrorsNotRead: places.mirrors,
		notes: places.notes,
		hits: places.hits.map(h => ({
			place: h.place,
			file: h.file,
			where: placeWhere(storePath, h),
			position: h.position,
			sessionId: h.sessionId,
			at: h.timestamp,
			atUtc: h.timestamp === null ? null : hitTime(h.timestamp),
			role: h.role,
			snippet: snippetText(h.snippet),
			snippetParts: h.snippet,
			fate: h.fate,
		})),
	};
}

export function searchJson(report: SearchReport, exitCode: number) {
	return {
		query: report.query,
		terms: report.terms,
		ftsMatch: report.match,
		limit: report.limit,
		stores: report.stores.map(s =>
			s.ok
				? {
						profile: s.profile,
						path: s.path,
						ok: true,
						index: s.index,
						route: s.route,
						notes: s.notes,
						scan: s.scan,
						hits: s.hits.map(hitJson),
						places: placesJson(s.path, s.places),
					}
				: {profile: s.profile, path: s.path, ok: false, kind: s.kind, error: s.line},
		),
		hits: totalHits(report),
		exitCode,
	};
}
