#!/usr/bin/env node
/**
 * The `hfx` bin (dist/hfx.js): checks the Node that runs it, turns on Node's module compile cache,
 * then loads the bundle (dist/hfx-bundle.js, scripts/bundle.mjs). Kept apart from the bundle so that
 * the cache is on before the bundle is compiled: `module.enableCompileCache()` only serves modules
 * loaded after it is called, and the bundle is ~0.9 MB of code V8 would otherwise compile at every
 * start (bench/startup.ts measures the start with and without it).
 *
 * Written for any Node that parses ES2022 modules, so that an old Node gets the one line below
 * instead of a crash deep in a dependency (better-sqlite3 13 segfaults on Node 20).
 */
import fs from 'node:fs';
import module from 'node:module';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import v8 from 'node:v8';

/**
 * package.json's engines.node, as numbers (test/cli/bin.test.ts checks that they agree). 22.16: better-sqlite3
 * (13.2.0, this lockfile's) segfaults on Node 22.12 and 22.13 (`npx -p node@22.13.0 node -e "new
 * (require('better-sqlite3'))(':memory:')"`, measured 2026-12-02), and 22.16 is the first 22 whose
 * `node:sqlite` has everything the in-place read of a stopped store needs (store/open/node-sqlite.ts).
 */
export const MINIMUM_NODE: readonly [number, number] = [22, 16];

/** Whether `version` (process.versions.node: "24.21.0") is at least MINIMUM_NODE. */
export function nodeIsSupported(version: string): boolean {
	const [major = 0, minor = 0] = version.split('.').map(Number);
	return major > MINIMUM_NODE[0] || (major === MINIMUM_NODE[0] && minor >= MINIMUM_NODE[1]);
}

/**
 * Where the compile cache lives: NODE_COMPILE_CACHE when the operator set it (Node has then turned
 * the cache on there before any script ran), else hfx's folder in the user's cache dir ($XDG_CACHE_HOME, else
 * ~/.cache). Never
 * beside a store: nothing here depends on the store hfx reads.
 */
export function compileCacheDir(env: NodeJS.ProcessEnv, home: string): string {
	if (env.NODE_COMPILE_CACHE) {
		return env.NODE_COMPILE_CACHE;
	}

	const base =
		env.XDG_CACHE_HOME && path.isAbsolute(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : path.join(home, '.cache');
	return path.join(base, 'hfx', 'compile-cache');
}

/**
 * Makes `dir` one folder at a time, and says whether it is now a folder hfx can write. Node's own
 * recursive mkdir (fs.mkdirSync's and enableCompileCache's) never returns under /proc/self: there
 * mkdir answers ENOENT for a parent that exists, and it climbs and retries forever (seen on Node 20
 * and 24; test/cli/bin.test.ts). Here each step is one mkdir, and any error means no cache.
 */
export function makeCacheDir(dir: string): boolean {
	const missing: string[] = [];
	let at = dir;
	while (!fs.existsSync(at)) {
		missing.unshift(at);
		const parent = path.dirname(at);
		if (parent === at) {
			return false;
		}

		at = parent;
	}

	try {
		for (const folder of missing) {
			fs.mkdirSync(folder, {mode: 0o700});
		}

		fs.accessSync(dir, fs.constants.W_OK);
		// hfx/ and compile-cache/ must be real folders of this user (lstat: a link planted there, e.g.
		// under a shared TMPDIR when there is no home, would have Node write its cache elsewhere).
		return [path.dirname(dir), dir].every(d => {
			const st = fs.lstatSync(d);
			return st.isDirectory() && (process.getuid === undefined || st.uid === process.getuid());
		});
	} catch {
		return false;
	}
}

/**
 * Turns the compile cache on. It is an optimisation only: a folder that cannot be made or written
 * (read-only, full, a file in the way, no home) means a start without it, never a failed or stuck
 * command. HFX_NO_COMPILE_CACHE=1 (or Node's NODE_DISABLE_COMPILE_CACHE=1) turns it off.
 */
function enableCompileCache(): void {
	if (process.env.HFX_NO_COMPILE_CACHE === '1' || typeof module.enableCompileCache !== 'function') {
		return;
	}

	let home: string;
	try {
		home = os.homedir();
	} catch {
		// No home (a user without a passwd entry): the cache folder falls back to the temp dir.
		home = os.tmpdir();
	}

	const dir = compileCacheDir(process.env, home);
	if (makeCacheDir(dir)) {
		module.enableCompileCache(dir);
	}
}

/**
 * V8's young generation kept at its start size, 1 MB per semi-space, for every command (issue #26: the TUI's RSS). Set
 * here, before the bundle loads: loading it grew the semi-spaces to 4 MB (`hfx --help` exits with 4 MB of new space),
 * and the TUI, which set this flag once it ran (ui/heap-flags.ts), kept 8.4 MB of new space for its whole life. Not
 * given on the command line either: `node --semi-space-growth-factor=1` was not honoured (Node 24: a loop allocating
 * 20M objects ended with 134 MB of new space; this call, 2.1 MB, and 2.1 against 33.6 MB on Node 22). Measured with it
 * set here, against the build before (1M-message bench store, this machine): the TUI following 200 commits/s, two
 * interleaved 60 s runs, RSS 136 / 135 MB (peak 140 / 138) against 143 / 143 (peak 148 / 146), CPU 11.0 / 10.4 % of
 * one core against 9.5 / 10.7 %; five interleaved starts, first frame 267 against 322 ms (medians), findings 694
 * against 721 ms; `hfx scan --json`, four runs each, 0.66-0.68 against 0.73-0.77 s, peak RSS 113-114 against
 * 143-145 MB; on the 5 GB scale store, 2.42 / 2.45 against 2.74 / 7.14 s, 225-259 against 353-365 MB.
 */
export function keepYoungGenerationSmall(): void {
	v8.setFlagsFromString('--semi-space-growth-factor=1');
}

if (!nodeIsSupported(process.versions.node)) {
	process.stderr.write(
		`hfx: needs Node.js ${MINIMUM_NODE.join('.')} or newer; ${process.execPath} is ${process.version}. ` +
			('Next: run it from the checkout with `npm start` or `npx hfx` (they use ' +
				'the Node 24 `npm install` put in node_modules), ') +
			'install Node 24 LTS, or use the standalone archive (README: Install)\n',
	);
	process.exitCode = 2;
} else if (import.meta.url.endsWith('/hfx.js')) {
	keepYoungGenerationSmall();
	enableCompileCache();
	try {
		await import('./hfx-bundle.js' as string);
	} catch (error) {
		const {code, path: file} = (error ?? {}) as {code?: unknown; path?: unknown};
		if (code !== 'EMFILE' && code !== 'ENFILE') {
			throw error;
		}

		// No descriptor left to load hfx's own code with: the operator's limit, named, in one line.
		process.stderr.write(
			`hfx: ${typeof file === 'string' ? file : 'hfx'}: too many open files ` +
				`(${code}) while loading hfx itself. Next: raise the open-file limit ` +
				`(ulimit -n) and run again\n`,
		);
		process.exitCode = 2;
	}
}
