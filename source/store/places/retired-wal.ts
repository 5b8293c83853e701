/**
 * `state.db.retired-wal-<UTC YYYYmmdd-HHMMSS>-<pid>[-N]/` beside a store (hermes-incidents §2.3):
 * the WAL generation a halted process held when another generation took the path over, with the
 * main image and a manifest. The folder is never changed: its `state.db` and `state.db-wal` are
 * copied into a private temp folder and only that copy is opened (read-only), never a retired WAL
 * next to its original name.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import {errorCode, errorMessage} from '../../ground/errors.js';
import {type CaptureSessionTurns, type RetiredCapture, epochOf, parseCaptureName} from '../../forensics/places.js';
import {freeBytes, ownTempDir, removeTemp} from '../../ground/temps.js';
import {copyForeign} from '../foreign-file.js';
import {type Entry, entriesOf, readText} from './home-files.js';

/** Each live session's newest message time by id (read-places.ts liveNewestOf). */
type LiveNewest = Pick<ReadonlyMap<string, number | null>, 'get' | 'has'>;

/** Beyond this the copied image is not read (Hermes keeps only a header above 512 MiB). */
const MAX_IMAGE_BYTES = 1024 * 1024 * 1024;

function num(value: unknown): number | null {
	return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

function str(value: unknown): string | null {
	return typeof value === 'string' ? value : null;
}

function readManifest(entry: Entry): Pick<RetiredCapture, 'manifest' | 'manifestProblem'> {
	const file = path.join(entry.path, 'manifest.json');
	let st: fs.Stats;
	try {
		st = fs.lstatSync(file);
	} catch {
		return {manifest: null, manifestProblem: 'no manifest.json'};
	}

	const read = readText({name: 'manifest.json', path: file, st}, 1024 * 1024);
	if (read.text === null || read.truncated) {
		return {manifest: null, manifestProblem: read.problem ?? 'manifest.json over 1 MiB: not read'};
	}

	try {
		const m = JSON.parse(read.text) as Record<string, unknown>;
		const main = (m.main ?? {}) as Record<string, unknown>;
		const wal = (m.wal ?? {}) as Record<string, unknown>;
		return {
			manifest: {
				pid: num(m.pid),
				capturedAt: epochOf(m.captured_at),
				trigger: str(m.trigger),
				database: str(m.database),
				mainMode: str(main.mode),
				walBytes: num(wal.size) ?? num((wal.copy as Record<string, unknown> | undefined)?.size),
			},
			manifestProblem: null,
		};
	} catch (error) {
		return {manifest: null, manifestProblem: `manifest.json is not valid JSON (${errorMessage(error)})`};
	}
}

/** Per session in the image: its messages newer than the live store's newest for it. */
function turnsOf(db: Database.Database, liveNewest: LiveNewest): CaptureSessionTurns[] {
	const read = (sql: string) => {
		const stmt = db.prepare(sql);
		if (!stmt.readonly) {
			throw new Error('not read-only');
		}

		return stmt;
	};

	const newest = read(
		'SELECT session_id AS id, MAX(timestamp) AS at FROM messages GROUP BY session_id',
	).all() as Array<{id: string; at: number | null}>;
	const newer = read('SELECT COUNT(*) AS n, MAX(timestamp) AS at FROM messages WHERE session_id = ? AND timestamp > ?');
	const out: CaptureSessionTurns[] = [];
	for (const row of newest) {
		const inLiveStore = liveNewest.has(row.id);
		const live = liveNewest.get(row.id) ?? null;
		if (typeof row.at !== 'number' || (live !== null && row.at <= live)) {
			continue;
		}

		const r = newer.get(row.id, live ?? Number.NEGATIVE_INFINITY) as {n: number; at: number | null};
		out.push({sessionId: row.id, turns: r.n, newestAt: r.at, inLiveStore});
	}

	return out.sort((a, b) => (b.newestAt ?? 0) - (a.newestAt ?? 0));
}

/** Copies the pair into a private folder, opens the copy read-only and reads its newer turns. */
function readImage(
	entry: Entry,
	files: string[],
	liveNewest: LiveNewest,
): Pick<RetiredCapture, 'turns' | 'imageProblem'> {
	const read = withCapturedImage(entry, files, db => turnsOf(db, liveNewest));
	return read.ok ? {turns: read.value, imageProblem: null} : {turns: null, imageProblem: read.problem};
}

/**
 * Runs `use` on a read-only connection to a private copy of the capture's image (its state.db and
 * state.db-wal, never opened in the capture folder), or says why it cannot: no image, only a header,
 * too large for the temp folder, unreadable. The copy is removed after.
 */
export function withCapturedImage<T>(
	entry: Entry,
	files: string[],
	use: (db: Database.Database) => T,
): {ok: true; value: T} | {ok: false; problem: string} {
	if (!files.includes('state.db')) {
		return {
			ok: false,
			problem: files.includes('state.db.header')
				? "only the main file's header was kept (over the size cap): its frames cannot be read onto any image safely"
				: 'no state.db image in it: its frames cannot be read',
		};
	}

	const main = fs.lstatSync(path.join(entry.path, 'state.db'));
	const wal = files.includes('state.db-wal') ? fs.lstatSync(path.join(entry.path, 'state.db-wal')) : null;
	const needed = main.size + (wal?.size ?? 0);
	const free = freeBytes(os.tmpdir());
	if (needed > MAX_IMAGE_BYTES || (free !== null && free < needed + 1_048_576)) {
		return {
			ok: false,
			problem:
				`its image (${needed} bytes) is larger than hfx copies here ` +
				`(${free ?? '?'} bytes free in ${os.tmpdir()}): not read`,
		};
	}

	const dir = ownTempDir('capture');
	try {
		const target = path.join(dir, 'state.db');
		copyForeign(path.join(entry.path, 'state.db'), target, {noFollow: true, what: 'it as a captured image'});
		if (wal) {
			copyForeign(path.join(entry.path, 'state.db-wal'), `${target}-wal`, {
				noFollow: true,
				what: 'it as a captured WAL',
			});
		}

		const db = new Database(target, {readonly: true, fileMustExist: true});
		try {
			return {ok: true, value: use(db)};
		} finally {
			db.close();
		}
	} catch (error) {
		return {
			ok: false,
			problem: `its copied image cannot be read (${errorCode(error) ?? 'error'}: ${errorMessage(error)})`,
		};
	} finally {
		removeTemp(dir);
	}
}

/**
 * A capture folder's names and its regular files (a link or a FIFO inside is never read), or why it cannot be listed.
 */
export function captureFiles(entry: Entry): {files: string[]; regular: string[]} | {problem: string} {
	if (entry.st.isSymbolicLink() || !entry.st.isDirectory()) {
		return {problem: entry.st.isSymbolicLink() ? 'a symbolic link: not followed' : 'not a folder: not read'};
	}

	try {
		const files = fs.readdirSync(entry.path).sort();
		return {
			files,
			regular: files.filter(f => fs.lstatSync(path.join(entry.path, f), {throwIfNoEntry: false})?.isFile()),
		};
	} catch (error) {
		return {problem: `cannot be listed (${errorCode(error) ?? 'error'})`};
	}
}

function readCapture(entry: Entry, liveNewest: LiveNewest): RetiredCapture {
	const parsed = parseCaptureName(entry.name)!;
	const base = {path: entry.path, name: entry.name, partial: parsed.partial, nameAt: parsed.at, namePid: parsed.pid};
	const listed = captureFiles(entry);
	if ('problem' in listed) {
		return {
			...base,
			manifest: null,
			manifestProblem: listed.problem,
			files: [],
			turns: null,
			imageProblem: listed.problem,
		};
	}

	return {...base, ...readManifest(entry), files: listed.files, ...readImage(entry, listed.regular, liveNewest)};
}

/** The retired-WAL capture folders beside the store. */
export function captureEntries(storePath: string, notes: string[]): Entry[] {
	const base = path.basename(storePath);
	return entriesOf(path.dirname(storePath), name => name.startsWith(`${base}.retired-wal-`), notes);
}

/** Every retired-WAL capture beside the store; `liveNewest` = each live session's newest message time. */
export function readCaptures(storePath: string, liveNewest: LiveNewest, notes: string[]): RetiredCapture[] {
	return captureEntries(storePath, notes).map(entry => readCapture(entry, liveNewest));
}
