/**
 * `pending_messages/pending-<uuid4 hex>.json` beside a store (hermes-incidents §2.2): one payload
 * per file, published atomically, so a parse error is damage, not a write in progress. Read
 * once; a file gone meanwhile (a starting gateway replayed and deleted it) is not there.
 */
import path from 'node:path';
import {type SpoolFile, type SpoolShape, epochOf} from '../../forensics/places.js';
import {type Entry, entriesOf, readText} from './home-files.js';

/** A payload is a message or a transcript; beyond this it is not read. */
export const MAX_SPOOL_BYTES = 16 * 1024 * 1024;

export type Payload = Record<string, unknown>;

function objectOr(value: unknown): Payload | null {
	return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Payload) : null;
}

function text(value: unknown): string | null {
	return typeof value === 'string' && value !== '' ? value : null;
}

function shapeOf(reason: string): SpoolShape {
	if (reason === 'transcript_cap_drop') {
		return 'transcript_cap_drop';
	}

	return reason === 'shutdown-with-unpersisted-agent-history' ? 'agent_history' : 'shutdown';
}

/** The newest `timestamp` among the messages, or null. */
function newestOf(messages: unknown[]): number | null {
	let newest: number | null = null;
	for (const m of messages) {
		const at = epochOf(objectOr(m)?.timestamp);
		if (at !== null && (newest === null || at > newest)) {
			newest = at;
		}
	}

	return newest;
}

/** What one payload holds, by its shape. */
export function readPayload(
	payload: Payload,
): Pick<SpoolFile, 'shape' | 'reason' | 'sessionKey' | 'sessionId' | 'ts' | 'messages' | 'newestAt'> {
	const reason = typeof payload.reason === 'string' ? payload.reason : '';
	const shape = shapeOf(reason);
	const ts = epochOf(payload.ts);
	const data = objectOr(payload.data);
	if (shape === 'agent_history') {
		const messages = Array.isArray(payload.messages) ? payload.messages : [];
		return {
			shape,
			reason,
			sessionKey: null,
			sessionId: text(payload.session_id),
			ts,
			messages: messages.length,
			newestAt: newestOf(messages) ?? ts,
		};
	}

	if (shape === 'transcript_cap_drop') {
		const message = objectOr(data?.message);
		return {
			shape,
			reason,
			sessionKey: text(payload.session_key),
			sessionId: text(data?.session_id) ?? text(payload.session_key),
			ts,
			messages: message ? 1 : 0,
			newestAt: epochOf(message?.timestamp) ?? ts,
		};
	}

	return {
		shape,
		reason,
		sessionKey: text(payload.session_key),
		sessionId: text(data?.session_id),
		ts,
		messages: data && typeof data.text === 'string' ? 1 : 0,
		newestAt: ts,
	};
}

/** One spool file read once: what it is, and its payload when it parsed (search reads its messages). */
export function readSpoolEntry(entry: Entry): {file: SpoolFile; payload: Payload | null} | null {
	const base = {path: entry.path, name: entry.name, size: entry.st.size, mtimeMs: entry.st.mtimeMs};
	const unreadable = {
		shape: 'unreadable' as const,
		reason: '',
		sessionKey: null,
		sessionId: null,
		ts: null,
		messages: 0,
		newestAt: null,
	};
	const read = readText(entry, MAX_SPOOL_BYTES);
	if (read.text === null) {
		return read.problem === null
			? null
			: {file: {...base, ...unreadable, problem: read.problem, damaged: false}, payload: null};
	}

	if (read.truncated) {
		return {
			file: {...base, ...unreadable, problem: `larger than ${MAX_SPOOL_BYTES} bytes: not read`, damaged: false},
			payload: null,
		};
	}

	let payload: Payload | null;
	try {
		payload = objectOr(JSON.parse(read.text));
	} catch (error) {
		return {
			file: {
				...base,
				...unreadable,
				problem: `not valid JSON (${(error as Error).message}): damaged (spool files are written whole)`,
				damaged: true,
			},
			payload: null,
		};
	}

	return payload
		? {file: {...base, ...readPayload(payload), problem: null, damaged: false}, payload}
		: {file: {...base, ...unreadable, problem: 'not a JSON object', damaged: true}, payload: null};
}

/** Every `<home>/pending_messages/pending-*.json`. */
export function readSpool(home: string, notes: string[]): SpoolFile[] {
	return entriesOf(
		path.join(home, 'pending_messages'),
		name => name.startsWith('pending-') && name.endsWith('.json'),
		notes,
	).flatMap(entry => {
		const read = readSpoolEntry(entry);
		return read ? [read.file] : [];
	});
}
