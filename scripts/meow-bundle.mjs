/**
 * The bin's meow, made at build time (scripts/bundle.mjs resolves `meow` in the bin to the
 * module this returns): meow and its dependencies bundled as one CommonJS script, with
 * scripts/meow-plugin.mjs's rewrites, and V8's code cache for that script, made by running it
 * once in a child Node as the bin runs it (so the functions a start compiles are in the cache).
 * The build fails if the child's Node will not take its own cache. scripts/meow-load.mjs runs
 * the pair; it says why.
 */
import {spawnSync} from 'node:child_process';
import {fileURLToPath} from 'node:url';
import {build} from 'esbuild';
import {meowPlugin} from './meow-plugin.mjs';

const LOADER = fileURLToPath(new URL('meow-load.mjs', import.meta.url));
const CACHE_MAKER = fileURLToPath(new URL('meow-cache.mjs', import.meta.url));

/** meow as one minified CommonJS script (its `default` export is meow). */
export async function meowScript() {
	const result = await build({
		stdin: {contents: 'export {default} from \'meow\';', resolveDir: fileURLToPath(new URL('..', import.meta.url)), loader: 'js'},
		bundle: true,
		write: false,
		platform: 'node',
		format: 'cjs',
		target: 'node20',
		minify: true,
		legalComments: 'none',
		// yargs-parser's createRequire(import.meta.url): the file meow runs as (the bin's, scripts/meow-load.mjs).
		define: {'import.meta.url': '__hfxMeowUrl'},
		banner: {js: 'var __hfxMeowUrl = require("node:url").pathToFileURL(__filename).href;'},
		plugins: [meowPlugin],
		logLevel: 'warning',
	});
	return result.outputFiles[0].text;
}

/** V8's code cache for `source` (sealed: scripts/meow-load.mjs), made and then checked by a child Node (scripts/meow-cache.mjs). */
export function meowCache(source) {
	const run = spawnSync(process.execPath, [CACHE_MAKER], {input: source, encoding: 'utf8', maxBuffer: 64 << 20});
	if (run.status !== 0 || !run.stdout) {
		throw new Error(`making meow's code cache failed (${run.status}): ${run.stderr.trim().slice(0, 500)}`);
	}

	return run.stdout.trim();
}

/** The module the bin imports as `meow`. */
export async function meowModule() {
	const source = await meowScript();
	const cache = meowCache(source);
	return `import {loadMeow} from ${JSON.stringify(LOADER)};\nexport default loadMeow(${JSON.stringify(source)}, ${JSON.stringify(cache)}).meow;\n`;
}

/** The esbuild plugin that gives the bin this meow. */
export const meowCachedPlugin = {
	name: 'hfx-meow-cached',
	setup(b) {
		b.onResolve({filter: /^meow$/}, () => ({path: 'meow', namespace: 'hfx-meow'}));
		b.onLoad({filter: /.*/, namespace: 'hfx-meow'}, async () => ({contents: await meowModule(), loader: 'js', resolveDir: fileURLToPath(new URL('.', import.meta.url))}));
	},
};
