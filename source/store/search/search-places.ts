/**
 * `hfx search` in the places beside one store where Hermes keeps the conversation when state.db
 * did not take it (hermes-incidents.md §2.1–2.3, issue #24 point 3): every line of
 * `sessions/*.jsonl`, every message of each `pending_messages/` payload, and the messages of each
 * retired-WAL capture's image, read from a private copy (never in its folder). The same readers
 * as the inventory (no link followed, bounded reads); nothing is changed. Run after the store's
 * read is over: nothing here touches state.db, its -wal or its -shm.
 */
import path from 'node:path';
import {judgeSpool} from '../../forensics/places/place-verdicts.js';
import {epochOf} from '../../forensics/places.js';
import {
	type PlaceHit,
	type PlaceMessage,
	byNewest,
	messageOf,
	payloadMessages,
	placeHit,
} from '../../forensics/search/search-places.js';
import type {SearchQuery} from '../../forensics/search/search-query.js';
import {decodeContent} from '../read/detail.js';
import {likePattern} from './search-scan.js';
import {MAX_JSONL_BYTES} from '../places/diverted.js';
import {gatewayStart} from '../places/gateway-start.js';
import {type Entry, entriesOf, readText} from '../places/home-files.js';
import {captureEntries, captureFiles, withCapturedImage} from '../places/retired-wal.js';
import {readSpoolEntry} from '../places/spool.js';

export type PlaceSearch = {
	hits: PlaceHit[];
	/** Files read (a capture counts once). */
	files: number;
	/** Transcripts not read: last written before their row's newest message, so they mirror rows the store holds. */
	mirrors: number;
	notes: string[];
};

const JSONL_FATE =
	'a transcript beside the store: Hermes never replays a diverted one (hfx ' +
	'scan tells a diverted transcript from a legacy one)';
const CAPTURE_FATE =
	'a turn the halted process wrote after its WAL was retired: not in ' +
	'state.db, never replayed (inspect with hermes sessions recover ' +
	'--inspect-only)';

/** The session ids `sessions/*.jsonl` name: the store says how new each row is before the files are read. */
export function transcriptIds(storePath: string): string[] {
	return entriesOf(
		path.join(path.dirname(storePath), 'sessions'),
		name => name.endsWith('.jsonl') && name.length > 6,
		[],
	).map(e => e.name.slice(0, -'.jsonl'.length));
}

/** Whether the store has retired-WAL captures beside it (their turns are compared with every row's newest). */
export function hasCaptures(storePath: string): boolean {
	return captureEntries(storePath, []).length > 0;
}

function jsonlHits(entry: Entry, query: SearchQuery): PlaceHit[] {
	const sessionId = entry.name.slice(0, -'.jsonl'.length);
	const read = readText(entry, MAX_JSONL_BYTES);
	const hits: PlaceHit[] = [];
	for (const [i, line] of (read.text ?? '').split('\n').entries()) {
		let value: unknown;
		try {
			value = line.trim() === '' ? null : JSON.parse(line);
		} catch {
			continue;
		}

		const m =
			typeof value === 'string' ? {role: '?', text: value, timestamp: null, sessionId} : messageOf(value, sessionId);
		const hit = m
			? placeHit(m, query.terms, {place: 'jsonl', file: entry.path, position: i + 1, fate: JSONL_FATE}, epochOf)
			: null;
		if (hit) {
			hits.push(hit);
		}
	}

	return hits;
}

function spoolHits(home: string, query: SearchQuery, notes: string[]): {hits: PlaceHit[]; files: number} {
	const start = gatewayStart(home);
	const entries = entriesOf(
		path.join(home, 'pending_messages'),
		name => name.startsWith('pending-') && name.endsWith('.json'),
		notes,
	);
	const hits = entries.flatMap(entry => {
		const read = readSpoolEntry(entry);
		if (!read?.payload) {
			return [];
		}

		const verdict = judgeSpool(read.file, start);
		const replay =
			verdict.replay === 'will'
				? 'Hermes will replay it'
				: verdict.replay === 'will-not'
					? 'Hermes will NOT replay it'
					: 'replay unknown';
		const fate = `${replay}: ${verdict.why}`;
		return payloadMessages(read.payload).flatMap(
			(m, i) => placeHit(m, query.terms, {place: 'spool', file: entry.path, position: i + 1, fate}, epochOf) ?? [],
		);
	});
	return {hits, files: entries.length};
}

/**
 * The capture image's messages holding every term, newer than the live store's newest of their row (older ones are the
 * store's own).
 */
function captureHits(
	storePath: string,
	query: SearchQuery,
	liveNewest: ReadonlyMap<string, number | null>,
	limit: number,
	notes: string[],
): {hits: PlaceHit[]; files: number} {
	const entries = captureEntries(storePath, notes);
	const hits = entries.flatMap(entry => {
		const listed = captureFiles(entry);
		const read =
			'problem' in listed
				? {ok: false as const, problem: listed.problem}
				: withCapturedImage(entry, listed.regular, db => {
						const where = query.terms.map(() => "content LIKE ? ESCAPE '\\'").join(' AND ');
						return db
							.prepare(
								`SELECT id, session_id, role, content, timestamp FROM messages WHERE ${where} ORDER BY id DESC LIMIT ?`,
							)
							.all(...query.terms.map(likePattern), limit * 10) as Array<Record<string, unknown>>;
					});
		if (!read.ok) {
			notes.push(`${entry.name} not searched: ${read.problem}`);
			return [];
		}

		return read.value.flatMap(r => {
			const sessionId = String(r.session_id);
			const at = epochOf(r.timestamp);
			const live = liveNewest.get(sessionId) ?? null;
			const m: PlaceMessage = {
				role: typeof r.role === 'string' ? r.role : '?',
				text: decodeContent(r.content),
				timestamp: r.timestamp,
				sessionId,
			};
			return at !== null && live !== null && at <= live
				? []
				: (placeHit(
						m,
						query.terms,
						{place: 'retired-wal', file: entry.path, position: Number(r.id), fate: CAPTURE_FATE},
						epochOf,
					) ?? []);
		});
	});
	return {hits, files: entries.length};
}

/**
 * Every place's hits, newest first, at most `limit`. `liveNewest`: the store's newest message
 * time of each row the transcripts name (and of every row when captures are there).
 */
export function searchPlaces(
	storePath: string,
	query: SearchQuery,
	limit: number,
	liveNewest: ReadonlyMap<string, number | null>,
): PlaceSearch {
	const home = path.dirname(storePath);
	const notes: string[] = [];
	const transcripts = entriesOf(path.join(home, 'sessions'), name => name.endsWith('.jsonl') && name.length > 6, notes);
	// Appended to last before its row's newest message: a legacy mirror of rows the store holds (the inventory's rule).
	const read = transcripts.filter(
		e =>
			!(
				e.st.isFile() &&
				(liveNewest.get(e.name.slice(0, -6)) ?? null) !== null &&
				e.st.mtimeMs / 1000 < liveNewest.get(e.name.slice(0, -6))!
			),
	);
	const spool = spoolHits(home, query, notes);
	const captures = captureHits(storePath, query, liveNewest, limit, notes);
	const hits = [...read.flatMap(e => jsonlHits(e, query)), ...spool.hits, ...captures.hits].sort(byNewest);
	return {
		hits: hits.slice(0, limit),
		files: read.length + spool.files + captures.files,
		mirrors: transcripts.length - read.length,
		notes,
	};
}
