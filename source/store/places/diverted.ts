/**
 * `sessions/<id>.jsonl` beside a store (hermes-incidents §2.1): diverted transcripts (written when
 * state.db refused writes) and legacy transcripts share the name. Read line by line, every key
 * optional; only the last line can be incomplete (the file is appended). Never changed.
 */
import path from 'node:path';
import {type JsonlFile, epochOf} from '../../forensics/places.js';
import {type Entry, entriesOf, readText} from './home-files.js';

/** Each live session's newest message time by id (read-places.ts liveNewestOf). */
type LiveNewest = Pick<ReadonlyMap<string, number | null>, 'get' | 'has'>;

/** Beyond this a transcript is read only in part (a diverted one is uncapped: #110605). */
export const MAX_JSONL_BYTES = 64 * 1024 * 1024;

function parseLine(line: string): Record<string, unknown> | null {
	try {
		const value: unknown = JSON.parse(line);
		return value !== null && typeof value === 'object' && !Array.isArray(value)
			? (value as Record<string, unknown>)
			: null;
	} catch {
		return null;
	}
}

export function parseJsonl(text: string): Pick<JsonlFile, 'lines' | 'invalidLines' | 'incompleteLast' | 'timestamps'> {
	const rows = text.split('\n');
	const last = rows.at(-1) ?? '';
	const out = {lines: 0, invalidLines: 0, incompleteLast: false, timestamps: [] as Array<number | null>};
	for (const [i, row] of rows.entries()) {
		if (row.trim() === '') {
			continue;
		}

		const value = parseLine(row);
		if (value === null) {
			out.invalidLines++;
			out.incompleteLast ||= i === rows.length - 1 && last !== '';
			continue;
		}

		out.lines++;
		out.timestamps.push(epochOf(value.timestamp));
	}

	return out;
}

function readJsonl(entry: Entry, liveNewest: LiveNewest): JsonlFile {
	const sessionId = entry.name.slice(0, -'.jsonl'.length);
	const base = {path: entry.path, sessionId, size: entry.st.size, mtimeMs: entry.st.mtimeMs, olderThanRow: false};
	const empty = {lines: 0, invalidLines: 0, incompleteLast: false, timestamps: []};
	const newest = liveNewest.get(sessionId) ?? null;
	// Appended to last before the row's newest message: nothing in it can be newer (a copy without -p is newer, and
	// read).
	if (entry.st.isFile() && newest !== null && entry.st.mtimeMs / 1000 < newest) {
		return {...base, ...empty, olderThanRow: true, problem: null};
	}

	const read = readText(entry, MAX_JSONL_BYTES);
	if (read.text === null) {
		return {...base, ...empty, problem: read.problem ?? 'gone while read'};
	}

	// Read in part: the cut line is not counted as damage.
	const text = read.truncated ? read.text.slice(0, read.text.lastIndexOf('\n') + 1) : read.text;
	return {
		...base,
		...parseJsonl(text),
		problem: read.truncated
			? `larger than ${MAX_JSONL_BYTES} bytes: only the lines in its first ${MAX_JSONL_BYTES} bytes are read`
			: null,
	};
}

/** Every `<home>/sessions/*.jsonl` (not sessions.json, not saved/). */
export function readDiverted(home: string, liveNewest: LiveNewest, notes: string[]): JsonlFile[] {
	return entriesOf(path.join(home, 'sessions'), name => name.endsWith('.jsonl') && name.length > 6, notes).map(entry =>
		readJsonl(entry, liveNewest),
	);
}
