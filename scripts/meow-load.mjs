/**
 * Runs the bin's meow: its code, bundled as one CommonJS script (scripts/meow-bundle.mjs), with
 * V8's code cache for it made when the bin was built. Only dist/hfx.js loads meow this way; the
 * unbundled build imports it from node_modules.
 *
 * Why (measured, callgrind on `hfx --version` against the same bin without meow): compiling
 * meow's ~44 KB of JavaScript was most of what it added to every start. With the bytecode V8
 * cached at build time, meow adds 22–27 M instructions instead of 37–43 M, and
 * `npm run bench -- --only startup` shows the share in ms.
 *
 * The cache and the code are made by one build step and carried side by side in the bin, so they
 * cannot drift apart. V8 checks a cache against its own version and flags, and rejects it on any
 * difference (another Node, say); meow is then compiled from its code as without a cache, with
 * the same result, only slower. V8 does not check the cache's bytes themselves, and a damaged
 * cache crashed Node (SIGSEGV, tried): the cache carries its CRC-32, and one that does not match
 * is not given to V8 at all.
 */
import {createRequire} from 'node:module';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import vm from 'node:vm';
import {crc32} from 'node:zlib';

/** The name meow's code runs under (stack traces say it). */
export const MEOW_FILENAME = 'hfx:meow.cjs';

/** meow's code, wrapped as Node wraps a CommonJS module. */
export function wrapped(source) {
	return `(function (exports, require, module, __filename, __dirname) {${source}\n})`;
}

/**
 * meow's export from its bundled code and, when V8 takes it, its code cache (`sealed`); with the
 * script (its cache can be made from it) and whether V8 rejected the cache (null: none given).
 * The code's __filename is this file's (the bin's), as it was when meow was bundled into it.
 */
export function loadMeow(source, cacheBase64) {
	const cache = cacheBase64 ? unsealed(cacheBase64) : undefined;
	const cachedData = cache ?? undefined;
	const script = new vm.Script(wrapped(source), {filename: MEOW_FILENAME, cachedData});
	const module = {exports: {}};
	const file = fileURLToPath(import.meta.url);
	script.runInThisContext()(module.exports, createRequire(import.meta.url), module, file, path.dirname(file));
	return {meow: module.exports.default, script, cacheRejected: cache === undefined ? null : cache === null || script.cachedDataRejected === true};
}

/** A cache as the build seals it: `CRC-32 (hex):base64 of the bytes`. */
export function sealed(bytes) {
	return `${crc32(bytes).toString(16)}:${bytes.toString('base64')}`;
}

/** The cache's bytes, or null when they are not the bytes the build sealed. */
function unsealed(text) {
	const at = text.indexOf(':');
	const bytes = Buffer.from(text.slice(at + 1), 'base64');
	return at > 0 && crc32(bytes).toString(16) === text.slice(0, at) ? bytes : null;
}
