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
import module from 'node:module';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';

/** package.json's engines.node, as numbers (test/bin.test.ts checks that they agree). */
export const MINIMUM_NODE: readonly [number, number] = [22, 12];

/** Whether `version` (process.versions.node: "24.21.0") is at least MINIMUM_NODE. */
export function nodeIsSupported(version: string): boolean {
	const [major = 0, minor = 0] = version.split('.').map(Number);
	return major > MINIMUM_NODE[0] || (major === MINIMUM_NODE[0] && minor >= MINIMUM_NODE[1]);
}

/**
 * Where the compile cache lives: NODE_COMPILE_CACHE when the operator set it (undefined: Node reads
 * it itself), else hfx's folder in the user's cache dir ($XDG_CACHE_HOME, else ~/.cache). Never
 * beside a store: nothing here depends on the store hfx reads.
 */
export function compileCacheDir(env: NodeJS.ProcessEnv, home: string): string | undefined {
	if (env.NODE_COMPILE_CACHE) {
		return undefined;
	}

	const base = env.XDG_CACHE_HOME && path.isAbsolute(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : path.join(home, '.cache');
	return path.join(base, 'hfx', 'compile-cache');
}

/**
 * Turns the compile cache on. It is an optimisation only: Node reports a folder it cannot create or
 * write (read-only, full, no home) in the status it returns and never throws for it, and the start
 * goes on uncached. HFX_NO_COMPILE_CACHE=1 (or Node's NODE_DISABLE_COMPILE_CACHE=1) turns it off.
 */
function enableCompileCache(): void {
	if (process.env.HFX_NO_COMPILE_CACHE === '1' || typeof module.enableCompileCache !== 'function') {
		return;
	}

	let home = '';
	try {
		home = os.homedir();
	} catch {
		// No home (a user without a passwd entry): the cache folder falls back to the temp dir.
		home = os.tmpdir();
	}

	module.enableCompileCache(compileCacheDir(process.env, home));
}

if (!nodeIsSupported(process.versions.node)) {
	process.stderr.write(`hfx: needs Node.js ${MINIMUM_NODE.join('.')} or newer; ${process.execPath} is ${process.version}. `
		+ 'Next: run it from the checkout with `npm start` or `npx hfx` (they use the Node 24 `npm install` put in node_modules), '
		+ 'install Node 24 LTS, or use the standalone archive (README: Install)\n');
	process.exitCode = 2;
} else if (import.meta.url.endsWith('/hfx.js')) {
	enableCompileCache();
	await import('./hfx-bundle.js' as string);
}
