/**
 * Bundles the compiled CLI (dist/cli.js and everything it imports, the Ink stack included) into
 * one file, dist/hfx.js: the `hfx` bin. Node's ESM loader resolves, reads and links each of the
 * ~400 modules separately, which cost the TUI about 0.2 s of its start-up; one file does not.
 * Kept out of the bundle: better-sqlite3 (a native addon) and yazl (backup/archive.ts swaps its
 * CRC-32 for zlib's in the module instance it requires). The workers and child processes
 * (backup/check-worker.js, simulator/gateway.js) stay plain files in dist/.
 */
import fs from 'node:fs';
import {build} from 'esbuild';

// Ink imports React DevTools only when DEV=true: not shipped, so not bundled.
const noDevtools = {
	name: 'no-react-devtools',
	setup(b) {
		b.onResolve({filter: /^react-devtools-core$/}, () => ({path: 'react-devtools-core', namespace: 'hfx-stub'}));
		b.onLoad({filter: /.*/, namespace: 'hfx-stub'}, () => ({contents: 'export default {initialize() {}, connectToDevTools() {}};', loader: 'js'}));
	},
};

const outfile = 'dist/hfx.js';
await build({
	entryPoints: ['dist/cli.js'],
	outfile,
	bundle: true,
	platform: 'node',
	format: 'esm',
	target: 'node20',
	external: ['better-sqlite3', 'yazl'],
	// CommonJS dependencies (React) call require() for Node built-ins.
	banner: {js: 'import {createRequire as __hfxCreateRequire} from \'node:module\'; const require = __hfxCreateRequire(import.meta.url);'},
	plugins: [noDevtools],
	legalComments: 'none',
	// Less source to decode and parse at every start (2.1 MB instead of 3 MB); names are kept, so
	// stack traces stay readable.
	minifyWhitespace: true,
	minifySyntax: true,
	logLevel: 'warning',
	// What went in (for test/build/bundle.test.ts: one Ink, the externals kept out).
	metafile: true,
}).then(result => {
	fs.writeFileSync('dist/hfx.meta.json', JSON.stringify(result.metafile));
});
fs.chmodSync(outfile, 0o755);
