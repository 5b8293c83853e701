/**
 * Where the stores are: `--db PATH`, or a Hermes root from `--home DIR` / `HERMES_HOME` /
 * `~/.hermes`, holding `state.db` (the default profile) and `profiles/<name>/state.db`.
 * The owner profile of a store is derived from its path exactly as Hermes derives it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {FailClosed, errorCode} from '../ground/errors.js';
import {linkText} from './foreign-file.js';

export const PROFILE_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;

export type StoreLocation = {
	path: string;
	/** Owner profile as Hermes derives it from the store's path: never unknown (docs/hermes-rules.md, owner). */
	owner: string;
	/** How the owner was derived, in words, for every header and JSON. */
	ownerSource?: string;
	/** Display label: the profile name, or the file path for a loose --db. */
	label: string;
	/** The gateway_routing scope to judge the store by, when the operator names one (a copied store). */
	routingScope?: string;
	/** Set when `path` is a symbolic link: the file SQLite opens, whose -wal and -shm are the live ones. */
	link?: StoreLink;
};

/** A store reached through a symbolic link: the name the lookup found and the file it resolves to. */
export type StoreLink = {path: string; target: string};

/**
 * The store's real path, resolved once: SQLite resolves a symbolic link before it opens a
 * database, so the live `-wal`/`-shm` lie beside the link's target, never beside the link (any
 * beside the link are stale). Every read of the db and its sidecars uses this path. `link` is set
 * when the last component is a link (a folder link above it moves no sidecar). A dangling link, a
 * loop or a name too long is one refusal.
 */
export function realStorePath(p: string): {path: string; link: StoreLink | null} {
	const absolute = path.resolve(p);
	// Its real path is itself: no component is a link, the last one included (nothing else to look at). The system's
	// realpath(3): one call, where Node's own walks and lstats each component in JavaScript (~0.03 ms against ~0.008
	// ms; the live view resolves the store's path before each read, up to 20 a second).
	try {
		if (fs.realpathSync.native(absolute) === absolute) {
			return {path: absolute, link: null};
		}
	} catch {
		// Absent, a dangling link, a loop: looked at below, and worded.
	}

	let isLink = false;
	try {
		isLink = fs.lstatSync(absolute).isSymbolicLink();
	} catch (error) {
		if (errorCode(error) === undefined) {
			throw error;
		}

		// Absent (or an unreadable folder): preflight words it.
		return {path: absolute, link: null};
	}

	try {
		const real = fs.realpathSync.native(absolute);
		return {path: real, link: isLink ? {path: absolute, target: real} : null};
	} catch (error) {
		const code = errorCode(error);
		const reason =
			code === 'ENOENT' && isLink
				? `a symbolic link to ${linkText(absolute)}, which does not exist`
				: code === 'ELOOP'
					? 'a loop of symbolic links'
					: `its real path cannot be resolved (${code ?? 'error'})`;
		throw new FailClosed({
			file: absolute,
			kind: 'bad-link',
			reason,
			next: 'pass the database file itself (--db PATH), or fix the link',
			cause: error,
		});
	}
}

/** A location with its link, if its path is one (resolved once, here at the lookup). */
function withLink(location: StoreLocation): StoreLocation {
	let link: StoreLink | null = null;
	try {
		link = realStorePath(location.path).link;
	} catch {
		// A bad link: the store's preflight refuses it in one line.
		link = null;
	}

	return link ? {...location, link} : location;
}

export type LocateOptions = {
	db?: string;
	home?: string;
	profile?: string;
	/** With db: the sessions folder of the gateway the store came from. */
	routingScope?: string;
	env?: NodeJS.ProcessEnv;
	homedir?: string;
};

function safeRealpath(p: string): string {
	try {
		return fs.realpathSync(p);
	} catch {
		return path.resolve(p);
	}
}

/**
 * Hermes' default root (`get_default_hermes_root`): the native home (~/.hermes) unless
 * HERMES_HOME lies outside it, in which case `<x>` for `<x>/profiles/<name>`, else HERMES_HOME.
 */
export function hermesRoot(env: NodeJS.ProcessEnv = process.env, homedir = os.homedir()): string {
	const native = path.join(homedir, '.hermes');
	const envHome = (env.HERMES_HOME ?? '').trim();
	if (!envHome) {
		return native;
	}

	const expanded = envHome.startsWith('~') ? path.join(homedir, envHome.slice(1)) : envHome;
	const envPath = path.resolve(expanded);
	const rel = path.relative(safeRealpath(native), safeRealpath(envPath));
	if (rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel))) {
		return native;
	}

	return path.basename(path.dirname(envPath)) === 'profiles' ? path.dirname(path.dirname(envPath)) : envPath;
}

/**
 * The owner profile of a store from its own path, as Hermes has it: Hermes opens
 * `HERMES_HOME/state.db`, and a profile's home is `<root>/profiles/<name>`, so
 * `…/profiles/<name>/state.db` belongs to `<name>` and any other store to `default`.
 */
export function ownerOfStore(dbPath: string): {owner: string; how: string} {
	const home = path.dirname(path.resolve(dbPath));
	const name = path.basename(home);
	if (path.basename(path.dirname(home)) === 'profiles' && PROFILE_NAME.test(name)) {
		return {owner: name, how: `from the store's path (…/profiles/${name}/state.db)`};
	}

	return {owner: 'default', how: "from the store's path (not in a profiles/<name>/ folder: the default profile)"};
}

/** `--profile` / `--home` may confirm the owner derived from a --db path; a conflict is refused. */
function confirmOwner(
	dbPath: string,
	derived: {owner: string; how: string},
	options: LocateOptions,
): {owner: string; how: string} {
	let how = derived.how;
	if (options.home) {
		const home = safeRealpath(path.resolve(options.home));
		const dir = safeRealpath(path.dirname(path.resolve(dbPath)));
		const byHome =
			dir === home ? 'default' : path.dirname(dir) === path.join(home, 'profiles') ? path.basename(dir) : null;
		if (byHome !== derived.owner) {
			throw new FailClosed({
				file: dbPath,
				kind: 'owner-conflict',
				reason:
					byHome === null
						? `this store is not in the Hermes home ${home} that --home names (neither ` +
							`its state.db nor profiles/<name>/state.db)`
						: `--home ${home} makes this store profile "${byHome}", its path says "${derived.owner}"`,
				next: 'drop --home, or pass the store that belongs to that home',
			});
		}

		how += `; confirmed by --home ${home}`;
	}

	if (options.profile) {
		if (options.profile !== derived.owner) {
			throw new FailClosed({
				file: dbPath,
				kind: 'owner-conflict',
				reason:
					`--profile ${options.profile} conflicts with the owner Hermes derives ` +
					`from the store's path ("${derived.owner}")`,
				next:
					`drop --profile (Hermes would treat this store as profile ` +
					`"${derived.owner}"), or copy the store into a ` +
					`profiles/${options.profile}/ folder`,
			});
		}

		how += '; confirmed by --profile';
	}

	return {owner: derived.owner, how};
}

/** Every store under a root: `state.db` first, then `profiles/<name>/state.db` by name. */
export function storesUnderRoot(root: string): StoreLocation[] {
	const found: StoreLocation[] = [];
	const main = path.join(root, 'state.db');
	if (fs.existsSync(main)) {
		found.push(
			withLink({
				path: main,
				owner: 'default',
				ownerSource: "from the store's path (the Hermes root's state.db: the default profile)",
				label: 'default',
			}),
		);
	}

	const profilesDir = path.join(root, 'profiles');
	let names: string[] = [];
	try {
		names = fs
			.readdirSync(profilesDir)
			.filter(n => PROFILE_NAME.test(n))
			.sort();
	} catch {
		names = [];
	}

	for (const name of names) {
		const p = path.join(profilesDir, name, 'state.db');
		if (fs.existsSync(p)) {
			found.push(
				withLink({
					path: p,
					owner: name,
					ownerSource: `from the store's path (…/profiles/${name}/state.db)`,
					label: name,
				}),
			);
		}
	}

	return found;
}

export type Located = {
	root: string | null;
	stores: StoreLocation[];
	/** How the stores were found, for the report header. */
	how: string;
};

export function locateStores(options: LocateOptions): Located {
	const env = options.env ?? process.env;
	const homedir = options.homedir ?? os.homedir();
	if (options.db) {
		const root = options.home ? path.resolve(options.home) : hermesRoot(env, homedir);
		const p = path.resolve(options.db);
		const {owner, how} = confirmOwner(p, ownerOfStore(p), options);
		const routingScope = options.routingScope === undefined ? {} : {routingScope: path.resolve(options.routingScope)};
		return {root, stores: [withLink({path: p, owner, ownerSource: how, label: p, ...routingScope})], how: `--db ${p}`};
	}

	let root: string;
	let how: string;
	if (options.home) {
		root = path.resolve(options.home);
		how = `--home ${root}`;
	} else if ((env.HERMES_HOME ?? '').trim()) {
		root = hermesRoot(env, homedir);
		how = `HERMES_HOME=${env.HERMES_HOME}`;
	} else {
		root = path.join(homedir, '.hermes');
		how = '~/.hermes';
	}

	if (!fs.existsSync(root)) {
		throw new FailClosed({
			file: root,
			kind: 'no-home',
			reason: 'no Hermes home here',
			next: 'pass --db PATH or --home DIR (or set HERMES_HOME); `hfx demo` shows the tool on a simulated store',
		});
	}

	refuseHomeNotAFolder(root);
	if (options.routingScope !== undefined) {
		throw new FailClosed({
			file: root,
			kind: 'usage',
			reason: '--routing-scope names the scope of one copied store',
			next: 'use it with --db PATH',
		});
	}

	let stores = storesUnderRoot(root);
	if (options.profile) {
		stores = stores.filter(s => s.owner === options.profile);
		if (stores.length === 0) {
			throw new FailClosed({
				file: path.join(root, options.profile === 'default' ? 'state.db' : `profiles/${options.profile}/state.db`),
				kind: 'no-profile',
				reason: `no store for profile "${options.profile}"`,
				next: `list the profiles with ls ${path.join(root, 'profiles')}`,
			});
		}
	}

	if (stores.length === 0) {
		throw new FailClosed({
			file: path.join(root, 'state.db'),
			kind: 'not-found',
			reason: 'no state.db in this Hermes home (nor under profiles/)',
			next: 'check the path; if the store was lost, look for backups (hfx backups)',
		});
	}

	return {root, stores, how};
}

/** A home that is a file (or a FIFO, a device) is named so: never as `<file>/state.db` missing. */
function refuseHomeNotAFolder(root: string): void {
	const st = fs.statSync(root, {throwIfNoEntry: false});
	if (st && !st.isDirectory()) {
		throw new FailClosed({
			file: root,
			kind: 'home-not-a-folder',
			reason: `a Hermes home must be a folder, and this is ${st.isFile() ? 'a file' : 'not a folder'}`,
			next: `pass the folder that holds state.db (--home ${path.dirname(root)}?), or --db for one store file`,
		});
	}
}
