/**
 * The installed Hermes build when no running gateway states its own (hermes-incidents §3.2 step 2:
 * "the checkout HEAD / `.hermes_build_sha`, flagged installed, maybe not running"). Read as Hermes'
 * own `hermes_cli/build_info.py` reads it: the install's git files directly, no `git` process (a
 * `.git` folder, or a `gitdir:` pointer file and its `commondir`; HEAD detached or a ref, loose or
 * in `packed-refs`), else the Docker image's baked `.hermes_build_sha`; the version from the
 * checkout's `pyproject.toml`. The install is `<root>/hermes-agent` (the installer's default), or
 * `HERMES_INSTALL_DIR` when set.
 *
 * Every file is someone else's: a regular file only, its size capped, its text trusted only when it
 * is what it should be (a 40-hex commit, a `refs/…` name, a plain version). Anything else makes the
 * build unknown, with one phrase saying which file and why; nothing is ever thrown.
 */
import fs from 'node:fs';
import path from 'node:path';
import type {HermesBuild} from '../../forensics/routing/build-rules.js';
import {readForeign} from '../foreign-file.js';
import {SHA, VERSION} from './gateway-build.js';

/** HEAD, a loose ref, `commondir`, a `.git` pointer, `.hermes_build_sha`: one line each. */
const SMALL_BYTES = 4096;
const PACKED_REFS_BYTES = 1024 * 1024;
const PYPROJECT_BYTES = 256 * 1024;
const COMMIT = /^[0-9a-f]{40}$/;
/** A branch name as git allows it, never climbing out of the git folder. */
const REF = /^refs\/[A-Za-z0-9._/-]{1,200}$/;

/** The installed build, or why it is unknown (one phrase; '' when no install was found at all). */
export type InstalledBuild = {build: HermesBuild | null; note: string};

class Unread extends Error {}

/** A file's text, at most `max` bytes; null when it does not exist; Unread when it is anything but a small file. */
function textOf(file: string, max: number): string | null {
	let read: ReturnType<typeof readForeign>;
	try {
		read = readForeign(file, {maxBytes: max, what: "it as a file of Hermes' install"});
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
			return null;
		}

		throw new Unread(`${file} cannot be read as a file`);
	}

	if (read.truncated) {
		throw new Unread(`${file} is larger than ${max} bytes`);
	}

	return read.bytes.toString('utf8').trim();
}

function kindOf(file: string): 'file' | 'dir' | null {
	const st = fs.statSync(file, {throwIfNoEntry: false});
	return st?.isFile() ? 'file' : st?.isDirectory() ? 'dir' : null;
}

/** The git folder of a checkout and the common one its refs live in; null when it has none. */
function gitDirsOf(root: string): {gitDir: string; commonDir: string} | null {
	const dotGit = path.join(root, '.git');
	const st = fs.statSync(dotGit, {throwIfNoEntry: false});
	if (!st) {
		return null;
	}

	let gitDir = dotGit;
	if (st.isFile()) {
		const pointer = textOf(dotGit, SMALL_BYTES) ?? '';
		if (!pointer.startsWith('gitdir:')) {
			throw new Unread(`${dotGit} is a file but no "gitdir:" pointer`);
		}

		gitDir = path.resolve(root, pointer.slice('gitdir:'.length).trim());
	} else if (!st.isDirectory()) {
		throw new Unread(`${dotGit} is neither a folder nor a file`);
	}

	const common =
		kindOf(path.join(gitDir, 'commondir')) === 'file' ? textOf(path.join(gitDir, 'commondir'), SMALL_BYTES) : null;
	return {gitDir, commonDir: common ? path.resolve(gitDir, common) : gitDir};
}

/** The commit a ref names, loose or packed; null when neither holds it. */
function refCommit(commonDir: string, ref: string): string | null {
	const loose = path.join(commonDir, ref);
	if (kindOf(loose) === 'file') {
		return textOf(loose, SMALL_BYTES);
	}

	const packed = textOf(path.join(commonDir, 'packed-refs'), PACKED_REFS_BYTES) ?? '';
	for (const line of packed.split('\n')) {
		const [sha, name] = line.trim().split(' ');
		if (name === ref && sha !== undefined && !sha.startsWith('#') && !sha.startsWith('^')) {
			return sha;
		}
	}

	return null;
}

/** The checkout's HEAD commit; null when it is no git checkout; Unread when its files are not what git writes. */
function headCommit(root: string): string | null {
	const dirs = gitDirsOf(root);
	if (dirs === null) {
		return null;
	}

	const head = textOf(path.join(dirs.gitDir, 'HEAD'), SMALL_BYTES);
	if (head === null) {
		throw new Unread(`${path.join(root, '.git')} has no HEAD`);
	}

	const ref = head.startsWith('ref:') ? head.slice('ref:'.length).trim() : null;
	if (ref !== null && (!REF.test(ref) || ref.split('/').includes('..'))) {
		throw new Unread(`the HEAD of ${root} names no branch git would write`);
	}

	const sha = ref === null ? head : refCommit(dirs.commonDir, ref);
	if (sha === null || !COMMIT.test(sha)) {
		throw new Unread(`the HEAD of ${root} resolves to no 40-hex commit`);
	}

	return sha;
}

/** `[project] version` of the checkout's pyproject.toml, when it is a plain version. */
function projectVersion(root: string): string | null {
	const text = textOf(path.join(root, 'pyproject.toml'), PYPROJECT_BYTES);
	const project = text === null ? null : /^\[project\][ \t]*$([\s\S]*?)(?=^\[|(?![\s\S]))/m.exec(text)?.[1];
	const version = project ? /^version[ \t]*=[ \t]*["']([^"'\n]*)["']/m.exec(project)?.[1] : undefined;
	return version !== undefined && VERSION.test(version) ? version : null;
}

/** The install Hermes' files are in: HERMES_INSTALL_DIR, else the installer's default under the root. */
export function installDirOf(root: string, env: NodeJS.ProcessEnv): string {
	const explicit = (env.HERMES_INSTALL_DIR ?? '').trim();
	return explicit !== '' && path.isAbsolute(explicit) ? explicit : path.join(root, 'hermes-agent');
}

/** The build installed at `dir`: its checkout's HEAD, else its `.hermes_build_sha`; never throws. */
export function installedHermesBuild(dir: string): InstalledBuild {
	const maybe = 'installed, maybe not running';
	try {
		if (kindOf(dir) !== 'dir') {
			return {build: null, note: ''};
		}

		const version = projectVersion(dir);
		const head = headCommit(dir);
		if (head !== null) {
			return {build: {version, sha: head, from: `the checkout HEAD of ${dir} (${maybe})`, trust: 'medium'}, note: ''};
		}

		const baked = textOf(path.join(dir, '.hermes_build_sha'), SMALL_BYTES);
		if (baked !== null && !(SHA.test(baked) && baked.length === 40)) {
			throw new Unread(`${path.join(dir, '.hermes_build_sha')} holds no 40-hex commit`);
		}

		return baked === null && version === null
			? {build: null, note: ''}
			: {
					build: {
						version,
						sha: baked,
						from: baked === null ? `the pyproject.toml of ${dir} (${maybe})` : `${dir}/.hermes_build_sha (${maybe})`,
						trust: 'medium',
					},
					note: '',
				};
	} catch (error) {
		const why = error instanceof Unread ? error.message : `${dir} cannot be read`;
		return {build: null, note: `the installed build is unknown: ${why}`};
	}
}

/** The Hermes root of a store: `<root>` for `<root>/profiles/<name>/state.db`, else the store's own folder. */
function rootOfStore(dbPath: string): string {
	const home = path.dirname(path.resolve(dbPath));
	return path.basename(path.dirname(home)) === 'profiles' ? path.dirname(path.dirname(home)) : home;
}

/** The build installed for the Hermes root of this store (the install its gateway's next start runs). */
export function installedBuildOfStore(dbPath: string, env: NodeJS.ProcessEnv): InstalledBuild {
	return installedHermesBuild(installDirOf(rootOfStore(dbPath), env));
}
