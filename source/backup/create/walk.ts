/**
 * What a full backup includes: the whole Hermes root (every profile), excluded exactly as Hermes
 * excludes (docs/hermes-rules.md, backup), plus pid and lock files, sockets and our own temp files.
 * Every `*.db` is marked for the consistent SQLite copy; everything else is copied as bytes.
 *
 * Symbolic links are left out as Hermes leaves them out, except the links the store lookup
 * (store/locate.ts) follows: a home's `state.db`, the root's `profiles` and `profiles/<name>`. What
 * `hfx scan` reads through a link the backup contains, under the link's name (the store copied from
 * its real path, with the -wal beside it); such a link that leads nowhere usable is skipped, which
 * makes the backup incomplete (exit 1), never silently absent.
 *
 * Only lstat/stat/readdir/realpath here: no file is opened.
 */
import fs from 'node:fs';
import path from 'node:path';
import {errorCode} from '../../ground/errors.js';
import {linkText} from '../../store/foreign-file.js';
import {PROFILE_NAME} from '../../store/locate.js';

/** Directory names excluded at any depth. */
export const EXCLUDED_DIRS = new Set([
	'__pycache__',
	'.git',
	'node_modules',
	'backups',
	'state-snapshots',
	'checkpoints',
	'browser-profiles',
	'browser-profile',
	'.venv',
	'venv',
	'site-packages',
	'.cache',
	'.tox',
	'.nox',
	'.pytest_cache',
	'.mypy_cache',
	'.ruff_cache',
]);

/** Excluded at the root only. */
export const ROOT_ONLY_DIRS = new Set(['hermes-agent']);

/** Excluded at the root or in profiles/<name>/ (runtimes and models Hermes re-creates). */
export const HOME_DIRS = new Set(['models', 'runtimes', 'node']);

/** cache/ is excluded at a home level except these subfolders (user media). */
export const CACHE_KEPT = new Set(['images', 'audio', 'videos', 'documents', 'screenshots', 'citations']);

const EXCLUDED_SUFFIXES = ['.pyc', '.pyo', '.db-wal', '.db-shm', '.db-journal', '.pid', '.lock', '.partial'];
const EXCLUDED_NAMES = new Set(['.backup.lock', 'gateway.pid', 'cron.pid']);
const EXCLUDED_PREFIXES = ['state.db.pre-update-emergency-', 'state.db.retired-wal-', '.hfx-'];

/** Files Hermes treats as credentials: restored 0600 and named in the warning. */
export const CREDENTIAL_NAMES = new Set(['.env', 'auth.json', 'vault.key', 'vault.json.enc']);

export type WalkEntry = {
	/** Path inside the root, '/'-separated. */
	rel: string;
	abs: string;
	kind: 'file' | 'db';
	size: number;
	mode: number;
	mtimeMs: number;
};

/** A link the walk followed because the store lookup does: its name in the root and the real path read. */
export type FollowedLink = {rel: string; target: string};

export type Skipped = {rel: string; reason: string};
export type Excluded = {rel: string; why: string};

export type WalkResult = {
	root: string;
	entries: WalkEntry[];
	/** Could not be included (unreadable, vanished): the backup is incomplete. */
	skipped: Skipped[];
	/** Left out by design (caches, sidecars, runtimes...). */
	excluded: Excluded[];
	/** Links followed because the store lookup follows them (their contents are entries). */
	followed: FollowedLink[];
};

export type WalkOptions = {
	/** Absolute paths never to descend into or include (the output folder, our staging dir). */
	skipPaths?: string[];
};

function isHomeLevel(relDir: string): boolean {
	if (relDir === '') {
		return true;
	}

	const parts = relDir.split('/');
	return parts.length === 2 && parts[0] === 'profiles' && PROFILE_NAME.test(parts[1]!);
}

/** Why a directory is excluded, or null to descend into it. */
export function excludedDirReason(relDir: string, name: string): string | null {
	if (EXCLUDED_DIRS.has(name)) {
		return `${name}/ is excluded at any depth (as Hermes does)`;
	}

	if (relDir === '' && ROOT_ONLY_DIRS.has(name)) {
		return `${name}/ at the root is the agent's code`;
	}

	if (isHomeLevel(relDir) && HOME_DIRS.has(name)) {
		return `${name}/ is a runtime or model folder Hermes re-creates`;
	}

	if (name.startsWith('state.db.retired-wal-')) {
		return 'a retired WAL capture (Hermes excludes it)';
	}

	return null;
}

/** Why a file is excluded, or null to include it. */
export function excludedFileReason(name: string): string | null {
	if (EXCLUDED_NAMES.has(name)) {
		return 'runtime pid or lock file';
	}

	for (const s of EXCLUDED_SUFFIXES) {
		if (name.endsWith(s)) {
			return s.startsWith('.db-')
				? 'SQLite sidecar (the database is copied consistently instead)'
				: s === '.partial'
					? 'temporary file'
					: s === '.pyc' || s === '.pyo'
						? 'compiled Python'
						: 'runtime pid or lock file';
		}
	}

	for (const p of EXCLUDED_PREFIXES) {
		if (name.startsWith(p)) {
			return p === '.hfx-' ? 'temporary file of hfx' : 'Hermes emergency copy or retired WAL capture';
		}
	}

	return null;
}

function typeName(st: fs.Stats): string {
	if (st.isSymbolicLink()) {
		return 'symbolic link (not followed)';
	}

	if (st.isSocket()) {
		return 'socket';
	}

	if (st.isFIFO()) {
		return 'named pipe';
	}

	if (st.isCharacterDevice() || st.isBlockDevice()) {
		return 'device';
	}

	return 'not a regular file';
}

export function walkRoot(root: string, options: WalkOptions = {}): WalkResult {
	const absRoot = path.resolve(root);
	const skipPaths = new Set((options.skipPaths ?? []).map(p => path.resolve(p)));
	const result: WalkResult = {root: absRoot, entries: [], skipped: [], excluded: [], followed: []};
	visitDir({absRoot, skipPaths, result, visited: new Set([realOr(absRoot)])}, '', absRoot);
	return result;
}

/** Real folders already walked: a followed link back into one of them is a loop. */
type Walk = {absRoot: string; skipPaths: Set<string>; result: WalkResult; visited: Set<string>};

function realOr(p: string): string {
	try {
		return fs.realpathSync(p);
	} catch {
		return p;
	}
}

/** Does the store lookup follow a link of this name here? `state.db` of a home, `profiles`, `profiles/<name>`. */
export function lookupFollows(relDir: string, name: string): 'db' | 'dir' | null {
	if (name === 'state.db' && isHomeLevel(relDir)) {
		return 'db';
	}

	return (relDir === '' && name === 'profiles') || (relDir === 'profiles' && PROFILE_NAME.test(name)) ? 'dir' : null;
}

/**
 * A link the lookup follows, resolved: the real path and its stats, or the reason it cannot be
 * backed up (listed as skipped: the backup is then incomplete).
 */
function resolveFollowed(abs: string, want: 'db' | 'dir'): {real: string; st: fs.Stats} | {problem: string} {
	const target = linkText(abs);
	let real: string;
	let st: fs.Stats;
	try {
		real = fs.realpathSync(abs);
		st = fs.statSync(real);
	} catch (error) {
		const code = errorCode(error);
		return {
			problem:
				`a symbolic link to ${target}, ` +
				`which ${code === 'ENOENT' ? 'does not exist' : `cannot be resolved (${code ?? 'error'})`}: ` +
				`nothing to copy`,
		};
	}

	if (want === 'db' ? !st.isFile() : !st.isDirectory()) {
		return {
			problem:
				`a symbolic link to ${real}, which is not ` + `a ${want === 'db' ? 'regular file' : 'folder'}: nothing to copy`,
		};
	}

	return {real, st};
}

/** A link the lookup follows, followed: its target's folder visited, or its database kept, under the link's name. */
function followLink(w: Walk, relDir: string, name: string, abs: string, want: 'db' | 'dir'): void {
	const rel = relDir ? `${relDir}/${name}` : name;
	const resolved = resolveFollowed(abs, want);
	if ('problem' in resolved) {
		w.result.skipped.push({rel, reason: `${resolved.problem} (the store lookup follows this link)`});
		return;
	}

	const {real, st} = resolved;
	if (want === 'dir') {
		if (w.visited.has(real)) {
			w.result.excluded.push({
				rel: `${rel}/`,
				why: `symbolic link to ${real}, a folder already in the backup (a loop)`,
			});
			return;
		}

		w.visited.add(real);
		w.result.followed.push({rel: `${rel}/`, target: real});
		visitDir(w, rel, real);
		return;
	}

	w.result.followed.push({rel, target: real});
	w.result.entries.push({rel, abs: real, kind: 'db', size: st.size, mode: st.mode & 0o7777, mtimeMs: st.mtimeMs});
}

/**
 * lstat, never following a link; a path that vanished is skipped silently, one that cannot be stat'ed is listed as
 * skipped.
 */
function lstatOrSkip(abs: string, rel: string, result: WalkResult): fs.Stats | null {
	try {
		return fs.lstatSync(abs);
	} catch (error) {
		if (errorCode(error) !== 'ENOENT') {
			result.skipped.push({rel, reason: `cannot stat (${errorCode(error) ?? 'error'})`});
		}

		return null;
	}
}

/**
 * One folder (at absDir: its real path when reached through a followed link), its names in sorted order: each file kept
 * or excluded, each kept sub-folder visited in turn.
 */
function visitDir(w: Walk, relDir: string, absDir: string): void {
	const {result} = w;
	let names: string[];
	try {
		names = fs.readdirSync(absDir).sort();
	} catch (error) {
		result.skipped.push({rel: relDir || '.', reason: `folder not readable (${errorCode(error) ?? 'error'})`});
		return;
	}

	const inCache = isCacheDir(relDir);
	for (const name of names) {
		const rel = relDir ? `${relDir}/${name}` : name;
		const abs = path.join(absDir, name);
		if (w.skipPaths.has(abs)) {
			continue;
		}

		const st = lstatOrSkip(abs, rel, result);
		if (!st) {
			continue;
		}

		const follows = st.isSymbolicLink() ? lookupFollows(relDir, name) : null;
		if (follows) {
			followLink(w, relDir, name, abs, follows);
			continue;
		}

		if (st.isDirectory()) {
			const why =
				inCache === 'top' && !CACHE_KEPT.has(name)
					? 'cache (only images, audio, videos, documents, screenshots, citations are kept)'
					: excludedDirReason(relDir, name);
			if (why) {
				result.excluded.push({rel: `${rel}/`, why});
				continue;
			}

			visitDir(w, rel, abs);
			continue;
		}

		addFile(result, name, rel, abs, st, inCache);
	}
}

/** A non-folder: excluded (not a regular file, top-level cache, an excluded name) or kept as an entry. */
function addFile(
	result: WalkResult,
	name: string,
	rel: string,
	abs: string,
	st: fs.Stats,
	inCache: 'top' | null,
): void {
	if (!st.isFile()) {
		result.excluded.push({rel, why: typeName(st)});
		return;
	}

	if (inCache === 'top') {
		result.excluded.push({rel, why: 'cache (only images, audio, videos, documents, screenshots, citations are kept)'});
		return;
	}

	const why = excludedFileReason(name);
	if (why) {
		result.excluded.push({rel, why});
		return;
	}

	result.entries.push({
		rel,
		abs,
		kind: name.endsWith('.db') ? 'db' : 'file',
		size: st.size,
		mode: st.mode & 0o7777,
		mtimeMs: st.mtimeMs,
	});
}

/** 'top' for <home>/cache itself (only some subfolders are kept). */
function isCacheDir(relDir: string): 'top' | null {
	if (!relDir.endsWith('cache')) {
		return null;
	}

	const parent = relDir === 'cache' ? '' : relDir.slice(0, -'/cache'.length);
	return path.posix.basename(relDir) === 'cache' && isHomeLevel(parent) ? 'top' : null;
}

/**
 * Hermes' quick-snapshot file list (docs/hermes-rules.md, backup), relative to a profile home. Folders are taken whole.
 */
export const QUICK_PATHS = [
	'state.db',
	'config.yaml',
	'.env',
	'auth.json',
	'cron/jobs.json',
	'cron/executions.db',
	'gateway_state.json',
	'channel_directory.json',
	'channel_aliases.json',
	'processes.json',
	'gateway/discord_message_recovery.db',
	'projects.db',
	'response_store.db',
	'memory_store.db',
	'verification_evidence.db',
	'kanban.db',
	'kanban/boards',
	'pairing',
	'platforms/pairing',
	'feishu_comment_pairing.json',
];

/** The quick-snapshot members that exist in a home. */
export function walkQuick(home: string): WalkResult {
	const absHome = path.resolve(home);
	const result: WalkResult = {root: absHome, entries: [], skipped: [], excluded: [], followed: []};
	const walk: Walk = {absRoot: absHome, skipPaths: new Set(), result, visited: new Set([realOr(absHome)])};
	const add = (rel: string): void => {
		const abs = path.join(absHome, rel);
		const st = lstatOrSkip(abs, rel, result);
		if (!st) {
			return;
		}

		if (st.isSymbolicLink() && rel === 'state.db') {
			// The home's store, as the lookup reads it (through the link).
			followLink(walk, '', rel, abs, 'db');
			return;
		}

		if (st.isDirectory()) {
			let names: string[];
			try {
				names = fs.readdirSync(abs).sort();
			} catch (error) {
				result.skipped.push({rel, reason: `folder not readable (${errorCode(error) ?? 'error'})`});
				return;
			}

			for (const n of names) {
				add(`${rel}/${n}`);
			}

			return;
		}

		if (!st.isFile()) {
			result.excluded.push({rel, why: typeName(st)});
			return;
		}

		const why = excludedFileReason(path.basename(rel));
		if (why) {
			result.excluded.push({rel, why});
			return;
		}

		result.entries.push({
			rel,
			abs,
			kind: rel.endsWith('.db') ? 'db' : 'file',
			size: st.size,
			mode: st.mode & 0o7777,
			mtimeMs: st.mtimeMs,
		});
	};

	for (const rel of QUICK_PATHS) {
		add(rel);
	}

	return result;
}
