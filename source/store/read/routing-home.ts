/**
 * The gateway's routing home beside a store (docs/hermes-rules.md, routing-scope): its routing
 * scope, the resolved path of `<HERMES_HOME>/sessions` (only `gateway_routing` rows of that scope
 * are loaded), and the legacy mirror `sessions/sessions.json`, still imported for keys the table
 * lacks. Read only; the mirror is a plain file beside the store, never the store or its -shm.
 */
import fs from 'node:fs';
import path from 'node:path';
import {FailClosed} from '../../ground/errors.js';
import type {RoutingEntry} from '../../forensics/types.js';
import {readForeign} from '../foreign-file.js';
import type {SchemaInfo} from '../open/schema.js';

/** Python's non-strict `Path.resolve()`: the existing prefix through realpath, the rest appended. */
export function resolveLikePython(p: string): string {
	const absolute = path.resolve(p);
	const tail: string[] = [];
	let head = absolute;
	for (;;) {
		try {
			return path.join(fs.realpathSync(head), ...tail.reverse());
		} catch {
			const parent = path.dirname(head);
			if (parent === head) {
				return absolute;
			}

			tail.push(path.basename(head));
			head = parent;
		}
	}
}

/** The routing scope of the gateway whose home holds this store: `resolve(<home>/sessions)`. */
export function routingScopeOf(storePath: string): string {
	return resolveLikePython(path.join(path.dirname(path.resolve(storePath)), 'sessions'));
}

export type LegacyMirror = {
	path: string;
	/** The file exists. */
	present: boolean;
	entries: RoutingEntry[];
	/** Why the gateway would import nothing from it (unreadable, not JSON, not an object). */
	problem: string | null;
	/** Entries the gateway skips (not an object, no session_id). */
	skipped: number;
};

/** Beyond this the mirror is not read (a real one is a few hundred kB at a thousand keys). */
const MAX_MIRROR_BYTES = 64 * 1024 * 1024;

function entryOf(key: string, value: unknown, file: string): RoutingEntry | null {
	if (value === null || typeof value !== 'object' || Array.isArray(value)) {
		return null;
	}

	const id = (value as Record<string, unknown>).session_id;
	if (typeof id !== 'string' || id === '') {
		return null;
	}

	return {scope: file, sessionKey: key, sessionId: id, updatedAt: null, problem: null};
}

function parseMirror(file: string, text: string): LegacyMirror {
	let data: unknown;
	try {
		data = JSON.parse(text);
	} catch (error) {
		return {
			path: file,
			present: true,
			entries: [],
			skipped: 0,
			problem: `not valid JSON (${(error as Error).message}): the gateway imports nothing from it`,
		};
	}

	if (data === null || typeof data !== 'object' || Array.isArray(data)) {
		return {
			path: file,
			present: true,
			entries: [],
			skipped: 0,
			problem: 'not a JSON object: the gateway imports nothing from it',
		};
	}

	const entries: RoutingEntry[] = [];
	let skipped = 0;
	for (const [key, value] of Object.entries(data)) {
		// `_` keys are the README/metadata sentinels the gateway writes and skips.
		if (key.startsWith('_')) {
			continue;
		}

		const entry = entryOf(key, value, file);
		if (entry) {
			entries.push(entry);
		} else {
			skipped++;
		}
	}

	return {path: file, present: true, entries, skipped, problem: null};
}

/**
 * Reads `<home>/sessions/sessions.json` beside the store (the home is the folder the store was
 * found in, a linked store's too: the gateway's sessions folder is `<HERMES_HOME>/sessions`); a
 * missing file is no mirror. A regular file only (type checked on the open descriptor: a FIFO
 * never blocks the read), at most MAX_MIRROR_BYTES.
 */
export function readLegacyMirror(storePath: string): LegacyMirror {
	const file = path.join(path.dirname(path.resolve(storePath)), 'sessions', 'sessions.json');
	const problem = (text: string): LegacyMirror => ({path: file, present: true, entries: [], skipped: 0, problem: text});
	let read: ReturnType<typeof readForeign>;
	try {
		read = readForeign(file, {maxBytes: MAX_MIRROR_BYTES, what: 'it as the sessions mirror'});
	} catch (error) {
		if (error instanceof FailClosed) {
			return problem(`${error.reason}; its entries are not considered`);
		}

		const code = (error as NodeJS.ErrnoException).code;
		return code === 'ENOENT' || code === 'ENOTDIR'
			? {path: file, present: false, entries: [], skipped: 0, problem: null}
			: problem(`cannot be read (${code ?? 'error'})`);
	}

	if (read.truncated) {
		return problem(`more than ${MAX_MIRROR_BYTES} bytes: larger than hfx reads; its entries are not considered`);
	}

	return parseMirror(file, read.bytes.toString('utf8'));
}

/**
 * The snapshot context of a store: its owner, its gateway's scope (null where gateway_routing has
 * no scope column: every row counts) and the legacy mirror's entries.
 */
export function routingHomeOf(
	location: {path: string; owner: string; routingScope?: string},
	schema: Pick<SchemaInfo, 'routingColumns'>,
): {context: {owner: string; routingScope: string | null; legacyRouting: RoutingEntry[]}; mirror: LegacyMirror} {
	const mirror = readLegacyMirror(location.path);
	const routingScope = schema.routingColumns.has('scope')
		? (location.routingScope ?? routingScopeOf(location.path))
		: null;
	return {context: {owner: location.owner, routingScope, legacyRouting: mirror.entries}, mirror};
}
