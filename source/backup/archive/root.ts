/**
 * Where the Hermes root is inside an archive that carries no hfx manifest (a tar of a Docker
 * volume, of ~/.hermes, one made from inside it, one with a deeper prefix an operator stripped or
 * not; a `hermes backup` zip): the folder holding state.db and/or profiles/<name>/state.db. Pure:
 * it sees the archive's normalized file names only.
 *
 * A candidate inside another one is part of that root (its profiles/<name>, a quick snapshot in its
 * state-snapshots/, a pre-restore copy in its backups/), not a root. Two candidates apart is ambiguous; none is no
 * Hermes root. Hermes' own import accepts a zip whose
 * every member is under `.hermes/` or `hermes/` (hermes_cli/backup_restore.py _detect_prefix): with
 * no database at all, that prefix is the root, else the archive's top.
 */
import path from 'node:path';

export type RootFound = {ok: true; root: string} | {ok: false; why: 'none' | 'ambiguous'; candidates: string[]};

/** The folder part of a root ('' for the archive's top), as a prefix of member names. */
export function rootPrefix(root: string): string {
	return root === '' ? '' : `${root}/`;
}

/** Candidate roots: every folder with a state.db, and every folder X with X/profiles/<name>/state.db. */
function candidates(names: readonly string[]): Set<string> {
	const found = new Set<string>();
	for (const name of names) {
		if (path.posix.basename(name) !== 'state.db') {
			continue;
		}

		const dir = path.posix.dirname(name) === '.' ? '' : path.posix.dirname(name);
		found.add(dir);
		const parts = dir.split('/');
		if (parts.length >= 2 && parts.at(-2) === 'profiles') {
			found.add(parts.slice(0, -2).join('/'));
		}
	}

	return found;
}

/** True when `dir` lies inside `root` (a proper descendant). */
function isInside(dir: string, root: string): boolean {
	return root === '' ? dir !== '' : dir.startsWith(`${root}/`);
}

export function findHermesRoot(names: readonly string[], options: {hermesPrefix?: boolean} = {}): RootFound {
	const all = candidates(names);
	const roots = [...all].filter(dir => ![...all].some(other => isInside(dir, other))).sort();
	if (roots.length === 1) {
		return {ok: true, root: roots[0]!};
	}

	if (roots.length > 1) {
		return {ok: false, why: 'ambiguous', candidates: roots};
	}

	if (options.hermesPrefix) {
		const firsts = new Set(names.filter(n => n.includes('/')).map(n => n.split('/')[0]!));
		const only = firsts.size === 1 && names.every(n => n.includes('/')) ? [...firsts][0]! : null;
		return {ok: true, root: only === '.hermes' || only === 'hermes' ? only : ''};
	}

	return {ok: false, why: 'none', candidates: []};
}

/** A member's path under the target: its name without the root's prefix; null when outside the root. */
export function underRoot(name: string, root: string): string | null {
	const prefix = rootPrefix(root);
	return name.startsWith(prefix) && name.length > prefix.length ? name.slice(prefix.length) : null;
}

/**
 * True when no name is a Hermes store (no state.db, no profiles/<name>/state.db anywhere): an empty or config-only tree
 * is no backup of a Hermes home.
 */
export function holdsNoStore(names: readonly string[]): boolean {
	const found = findHermesRoot(names);
	return !found.ok && found.why === 'none';
}
