/**
 * One moment of a store, as `hfx diff` reads it (hermes-incidents.md §2.3–2.5, §2.7): a live store
 * (a state.db or a home), a pre-update emergency snapshot (`state.db.pre-update-emergency-*.bak`, a
 * single-file SQLite image), a retired-WAL capture (`state.db.retired-wal-<time>-<pid>/`: its copied state.db
 * and state.db-wal), or an archive or quick snapshot (read by the backup readers into a private
 * copy, backup/image-extract.ts). What this file does:
 *
 *   - tells the kinds apart by what they are (a folder's name and contents, a file's first bytes);
 *   - copies an image that lies inside a home into a private temp folder before SQLite sees it
 *     (SQLite never opens a file inside a home but the live store, and that one only through
 *     readStore: in place, a stopped or crashed store too, never a copy of it, issue #26);
 *   - reads one snapshot of it with the message count of every session.
 */
import fs from 'node:fs';
import path from 'node:path';
import {FailClosed, errorCode} from '../../ground/errors.js';
import {ownTempDir} from '../../ground/temps.js';
import {copyForeign, fileTypeName, readForeign} from '../foreign-file.js';
import {type DatabaseFacts, describe} from './load.js';
import type {StoreLocation} from '../locate.js';
import {sqliteFailure} from '../open/open.js';
import {readStore} from '../open/immutable-read.js';
import {routingHomeOf} from './routing-home.js';
import {detectSchema} from '../open/schema.js';
import {readSnapshot} from './read-snapshot.js';
import type {Snapshot} from '../../forensics/types.js';

export type ImageKind = 'store' | 'archive' | 'quick-snapshot' | 'emergency-snapshot' | 'retired-capture';

/** What a path given to `hfx diff` is; `backup` is an archive or snapshot folder the backup readers take. */
export type ImageSource =
	| {kind: 'store'; db: string}
	| {kind: 'emergency-snapshot'; file: string; home: string}
	| {kind: 'retired-capture'; dir: string; home: string}
	| {kind: 'backup'; path: string};

const SQLITE_MAGIC = 'SQLite format 3\u0000';
const RETIRED = /^state\.db\.retired-wal-/;
const EMERGENCY = /^state\.db\.pre-update-emergency-.*\.bak$/;

function statOrRefuse(p: string): fs.Stats {
	try {
		return fs.statSync(p);
	} catch (error) {
		const absent = errorCode(error) === 'ENOENT';
		throw new FailClosed({
			file: p,
			kind: absent ? 'not-found' : 'unreadable',
			reason: absent ? 'no such file or folder' : `cannot be read (${errorCode(error) ?? 'error'})`,
			next:
				'pass a state.db, a Hermes home, an archive, a quick snapshot, an ' +
				'emergency snapshot or a retired-WAL capture',
			cause: error,
		});
	}
}

/** A retired-WAL capture folder: its copied main image must be there (a header-only capture cannot be read). */
function capture(dir: string): ImageSource {
	if (dir.endsWith('.partial')) {
		throw new FailClosed({
			file: dir,
			kind: 'no-main-image',
			reason: 'an unfinished retired-WAL capture (Hermes renames it when complete): its files may be partial',
			next: 'diff a complete capture (without .partial), or copy this one aside and inspect it with sqlite3',
		});
	}

	if (!fs.existsSync(path.join(dir, 'state.db'))) {
		const headerOnly = fs.existsSync(path.join(dir, 'state.db.header'));
		throw new FailClosed({
			file: dir,
			kind: 'no-main-image',
			reason: headerOnly
				? "a retired-WAL capture that kept only the main file's header (the store " +
					"was over Hermes' size cap): its WAL frames apply to an image that is " +
					'not there'
				: 'a retired-WAL capture without its copied state.db',
			next: 'diff the live store against a backup or quick snapshot instead (hfx backups lists them)',
		});
	}

	return {kind: 'retired-capture', dir, home: path.dirname(dir)};
}

/** A folder: a retired-WAL capture, a snapshot folder (it has a manifest), or a Hermes home. */
function folderSource(dir: string, profile: string | undefined): ImageSource {
	if (RETIRED.test(path.basename(dir))) {
		return capture(dir);
	}

	if (fs.existsSync(path.join(dir, 'manifest.json'))) {
		return {kind: 'backup', path: dir};
	}

	const db = profile ? path.join(dir, 'profiles', profile, 'state.db') : path.join(dir, 'state.db');
	if (!fs.existsSync(db)) {
		throw new FailClosed({
			file: dir,
			kind: profile ? 'no-profile' : 'no-home',
			reason: profile
				? `no profiles/${profile}/state.db in this home`
				: 'a folder with no state.db, no manifest.json and not a retired-WAL capture',
			next:
				'pass a state.db, a Hermes home, an archive, a quick snapshot ' +
				'(state-snapshots/<id>/) or a retired-WAL capture',
		});
	}

	return {kind: 'store', db};
}

/** What `input` is, by its name and first bytes; never opened as SQLite here. */
export function classifyImage(input: string, profile?: string): ImageSource {
	const p = path.resolve(input);
	const st = statOrRefuse(p);
	if (st.isDirectory()) {
		return folderSource(p, profile);
	}

	if (!st.isFile()) {
		throw new FailClosed({
			file: p,
			kind: 'not-a-file',
			reason:
				`${fileTypeName(st)}, not a file or folder: hfx never opens it (a FIFO ` +
				`or a device could block the read forever)`,
			next: 'pass a state.db, a home, an archive or a snapshot',
		});
	}

	const name = path.basename(p);
	const head = readForeign(p, {maxBytes: 16, what: 'it as a store or archive'}).bytes.toString('latin1');
	if (head === SQLITE_MAGIC && (EMERGENCY.test(name) || name.endsWith('.bak'))) {
		return {kind: 'emergency-snapshot', file: p, home: path.dirname(p)};
	}

	// A store by its bytes or its name (a damaged state.db gets the store's own refusal words).
	if (head === SQLITE_MAGIC || /\.(db|sqlite3?)$/.test(name)) {
		return {kind: 'store', db: p};
	}

	return {kind: 'backup', path: p};
}

/**
 * An emergency snapshot or a retired capture, copied into a new private folder (0700, removed on
 * exit and on signals): the main image, and a capture's -wal beside it (never its -shm: the copy's
 * readers build their own). Returns the copy of state.db.
 */
export function privateImageCopy(
	src: Extract<ImageSource, {kind: 'emergency-snapshot' | 'retired-capture'}>,
	tmpParent?: string,
): string {
	const dir = ownTempDir('diff', tmpParent);
	const db = path.join(dir, 'state.db');
	if (src.kind === 'emergency-snapshot') {
		copyForeign(src.file, db, {noFollow: true, what: 'it as an emergency snapshot'});
		return db;
	}

	copyForeign(path.join(src.dir, 'state.db'), db, {noFollow: true, what: "it as the capture's main image"});
	const wal = path.join(src.dir, 'state.db-wal');
	if (fs.existsSync(wal)) {
		copyForeign(wal, `${db}-wal`, {noFollow: true, what: "it as the capture's retired -wal"});
	}

	return db;
}

export type LoadedImage = {facts: DatabaseFacts; snapshot: Snapshot; messageCounts: Map<string, number>};

const COUNTS_SQL = 'SELECT session_id, count(*) FROM messages GROUP BY session_id';

/**
 * One read-only snapshot of the store at `location`, and each session's message count, in one open (readStore's: a
 * stopped or crashed store read in place, read again if it changed meanwhile, so this may run twice).
 */
export function readImage(location: StoreLocation): LoadedImage {
	return readStore(location.path, store => {
		try {
			const schema = detectSchema(store);
			const {context, mirror} = routingHomeOf(location, schema);
			const {snapshot, meta} = readSnapshot(store, schema, context, {columns: 'lean'});
			const rows = store.read(() => store.prepare(COUNTS_SQL).raw(true).all() as Array<[unknown, number]>);
			const messageCounts = new Map(rows.map(([id, n]) => [String(id), n]));
			return {facts: describe(store, location, schema, snapshot, meta, mirror), snapshot, messageCounts};
		} catch (error) {
			throw sqliteFailure(location.path, error);
		}
	});
}
