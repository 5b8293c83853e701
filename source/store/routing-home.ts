/**
 * The gateway's routing home beside a store (docs/hermes-rules.md, routing-scope): its routing
 * scope, the resolved path of `<HERMES_HOME>/sessions` (only `gateway_routing` rows of that scope
 * are loaded), and the legacy mirror `sessions/sessions.json`, still imported for keys the table
 * lacks. Read only; the mirror is a plain file beside the store, never the store or its -shm.
 */
import fs from 'node:fs';
import path from 'node:path';
import type {RoutingEntry} from '../forensics/types.js';
import type {SchemaInfo} from './schema.js';

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
		return {path: file, present: true, entries: [], skipped: 0, problem: `not valid JSON (${(error as Error).message}): the gateway imports nothing from it`};
	}

	if (data === null || typeof data !== 'object' || Array.isArray(data)) {
		return {path: file, present: true, entries: [], skipped: 0, problem: 'not a JSON object: the gateway imports nothing from it'};
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

/** Reads `<home>/sessions/sessions.json` beside the store; a missing file is no mirror. */
export function readLegacyMirror(storePath: string): LegacyMirror {
	const file = path.join(path.dirname(path.resolve(storePath)), 'sessions', 'sessions.json');
	let stat: fs.Stats;
	try {
		stat = fs.statSync(file);
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code;
		return code === 'ENOENT' || code === 'ENOTDIR'
			? {path: file, present: false, entries: [], skipped: 0, problem: null}
			: {path: file, present: true, entries: [], skipped: 0, problem: `cannot be read (${code ?? 'error'})`};
	}

	if (!stat.isFile()) {
		return {path: file, present: true, entries: [], skipped: 0, problem: 'not a regular file'};
	}

	if (stat.size > MAX_MIRROR_BYTES) {
		return {path: file, present: true, entries: [], skipped: 0, problem: `${stat.size} bytes: larger than hfx reads (${MAX_MIRROR_BYTES}); its entries are not considered`};
	}

	try {
		return parseMirror(file, fs.readFileSync(file, 'utf8'));
	} catch (error) {
		return {path: file, present: true, entries: [], skipped: 0, problem: `cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`};
	}
}

/**
 * The snapshot context of a store: its owner, its gateway's scope (null where gateway_routing has
 * no scope column: every row counts) and the legacy mirror's entries.
 */
export function routingHomeOf(location: {path: string; owner: string; routingScope?: string}, schema: Pick<SchemaInfo, 'routingColumns'>): {context: {owner: string; routingScope: string | null; legacyRouting: RoutingEntry[]}; mirror: LegacyMirror} {
	const mirror = readLegacyMirror(location.path);
	const routingScope = schema.routingColumns.has('scope') ? (location.routingScope ?? routingScopeOf(location.path)) : null;
	return {context: {owner: location.owner, routingScope, legacyRouting: mirror.entries}, mirror};
}
