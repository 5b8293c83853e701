/**
 * Bundles the compiled CLI (dist/cli/main.js and everything it imports, the Ink stack included) into
 * dist/hfx-bundle.js and the chunks it loads on demand (dist/hfx-chunk-*.js), and puts the bin
 * beside them: dist/hfx.js, the compiled source/cli/bin.ts, which checks the Node version, turns on
 * Node's compile cache and imports the bundle. Node's ESM loader resolves, reads and links each of
 * the ~400 modules separately, which cost the TUI about 0.2 s of its start-up; a bundle does not.
 * It is split where hfx already loads lazily (each command, the TUI): measured on Node 24 with the
 * compile cache warm (31 paired rounds against `node -e 0`, 2026-12-01), `hfx --version` took 176 ms
 * as one 1.1 MB file and 138 ms split (`node -e 0`: 84 ms), since V8 no longer reads and
 * deserialises the TUI's code to print a version; the TUI's first frame stayed within the noise
 * (median 341 ms one file, 362 ms split, 5 runs each). Chunks sit beside the bundle, in dist/
 * itself, because source/ground/paths.ts finds dist/ as the folder of the module that asks.
 * Kept out of the bundle: better-sqlite3 (a native addon), yazl (backup/create/zip-writer.ts requires it
 * when it writes its first archive and swaps its CRC-32 for zlib's in that module instance) and
 * yaml (backup/ops/doctor.ts requires it when it reads a config.yaml), and prom-client
 * (report/metrics/prometheus-text.ts requires it when `hfx metrics` or `hfx watch` writes). The
 * workers and child processes (backup/check/check-worker.js, simulator/gateway.js) stay plain files in
 * dist/. What the bundle rewrites in Ink's stack lives with the rest of hfx's Ink coupling in
 * source/ui/ink/ (bundle.mjs there).
 */
import fs from 'node:fs';
import {build} from 'esbuild';
import {inkPlugins} from '../source/ui/ink/bundle.mjs';

/** The bin's build options (the bench builds a variant of the same bin: bench/startup.ts). */
export function binOptions(outdir, extraPlugins = []) {
	return {
		entryPoints: ['dist/cli/main.js'],
		outdir,
		splitting: true,
		entryNames: 'hfx-bundle',
		chunkNames: 'hfx-chunk-[hash]',
		bundle: true,
		platform: 'node',
		format: 'esm',
		target: 'node22',
		external: ['better-sqlite3', 'yazl', 'yaml', 'prom-client'],
		// CommonJS dependencies (React) call require() for Node built-ins.
		banner: {
			js:
				"import {createRequire as __hfxCreateRequire} from 'node:module'; const " +
				'require = __hfxCreateRequire(import.meta.url);',
		},
		// Ink's stack, rewritten (source/ui/ink/bundle.mjs: each plugin says what and why).
		plugins: [...extraPlugins, ...inkPlugins],
		legalComments: 'none',
		// Less source to decode and parse at every start: 0.87 MB instead of 3 MB (with names kept it
		// was 1.3 MB, ~25 ms more of every start). Stack traces name the minified identifiers; the
		// linked source map (dist/hfx-bundle.js.map, read only under --enable-source-maps) turns them back
		// into our file and function names: hfx's internal-error line says so.
		minifyWhitespace: true,
		minifySyntax: true,
		minifyIdentifiers: true,
		sourcemap: 'linked',
		sourcesContent: false,
		logLevel: 'warning',
		// What went in (for test/build/bundle.system.test.ts: one Ink, the externals kept out).
		metafile: true,
	};
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop())) {
	// The last build's chunks: their names are hashes of their content, so new ones never replace them.
	for (const name of fs.readdirSync('dist').filter(n => /^hfx-(chunk-\w+|bundle)\.js(\.map)?$/.test(n))) {
		fs.rmSync(`dist/${name}`);
	}

	await build(binOptions('dist')).then(result => {
		fs.writeFileSync('dist/hfx.meta.json', JSON.stringify(result.metafile));
	});
	// The bin: tsc's dist/cli/bin.js (source/cli/bin.ts) under the name package.json's bin gives.
	fs.copyFileSync('dist/cli/bin.js', 'dist/hfx.js');
	fs.chmodSync('dist/hfx.js', 0o755);
}
