/**
 * Bundles the compiled CLI (dist/cli.js and everything it imports, the Ink stack included) into
 * one file, dist/hfx.js: the `hfx` bin. Node's ESM loader resolves, reads and links each of the
 * ~400 modules separately, which cost the TUI about 0.2 s of its start-up; one file does not.
 * Kept out of the bundle: better-sqlite3 (a native addon), yazl (backup/archive.ts requires it
 * when it writes its first archive and swaps its CRC-32 for zlib's in that module instance) and
 * yaml (backup/doctor.ts requires it when it reads a config.yaml). The
 * workers and child processes (backup/check-worker.js, simulator/gateway.js) stay plain files in
 * dist/.
 */
import fs from 'node:fs';
import path from 'node:path';
import {build} from 'esbuild';

// Ink imports its DevTools bridge (react-devtools-core, and ws through a window polyfill) only
// when DEV=true: not shipped, so not bundled.
const noDevtools = {
	name: 'no-react-devtools',
	setup(b) {
		b.onLoad({filter: /[\\/]node_modules[\\/]ink[\\/]build[\\/]devtools\.js$/}, () => ({contents: 'export {};', loader: 'js'}));
	},
};

// hfx always runs React's production build (cli.tsx sets NODE_ENV before React loads), so the
// development builds (~650 kB of react-reconciler, react and scheduler) need not be parsed at
// every start: their entry points pick the production file unconditionally here.
const reactProduction = {
	name: 'react-production-only',
	setup(b) {
		b.onLoad({filter: /[\\/]node_modules[\\/](react|react-reconciler|scheduler)[\\/][\w-]+\.js$/}, async args => {
			const text = await fs.promises.readFile(args.path, 'utf8');
			const test = "process.env.NODE_ENV === 'production'";
			return {contents: text.includes(test) ? text.replaceAll(test, 'true') : text, loader: 'js'};
		});
	},
};

// yoga-layout (Ink's layout engine) ships its WebAssembly inline as a data: URI, and its
// Emscripten loader fetch()es that URI whenever a global fetch exists: Node then loads undici and
// decodes the URI through it (~25 ms of every start). Without fetch it decodes the base64 itself.
const yogaWithoutFetch = {
	name: 'yoga-without-fetch',
	setup(b) {
		b.onLoad({filter: /[\\/]node_modules[\\/]yoga-layout[\\/]dist[\\/]binaries[\\/]yoga-wasm-base64-esm\.js$/}, async args => {
			const text = await fs.promises.readFile(args.path, 'utf8');
			const test = '"function"!=typeof fetch';
			const count = text.split(test).length - 1;
			if (count !== 2) {
				throw new Error(`yoga-without-fetch: expected 2 fetch checks in ${args.path}, found ${count} (yoga-layout changed: review this plugin)`);
			}

			return {contents: text.replaceAll(test, 'true'), loader: 'js'};
		});
	},
};

// Four text modules build a grapheme segmenter when they load, and string-width compiles its
// RGI-emoji regex then too: ~35 ms of every start (the first Intl.Segmenter loads ICU's break
// data), though a screen of plain narrow text never needs them (text/width.ts, ui/ink-output.ts).
// Here each module gets dist/text/segmenter.js's lazy segmenter (plain text split without ICU, a
// real segmenter built on first need), and the regex is built on first use. Every use is
// `.segment(text)` / `.containing(i)` / `.test(text)`; a module that changes shape fails the build
// rather than bundling unchanged.
const LAZY_TEXT_MODULES = [
	// (wrap-ansi's own, older string-width first: the pattern below it matches both.)
	{file: /[\\/]node_modules[\\/]wrap-ansi[\\/]node_modules[\\/]string-width[\\/]index\.js$/, segmenters: 1, rgi: 0},
	{file: /[\\/]node_modules[\\/]string-width[\\/]index\.js$/, segmenters: 1, rgi: 1},
	{file: /[\\/]node_modules[\\/]slice-ansi[\\/]tokenize-ansi\.js$/, segmenters: 1, rgi: 0},
	{file: /[\\/]node_modules[\\/]@alcalzone[\\/]ansi-tokenize[\\/]build[\\/]tokenize\.js$/, segmenters: 1, rgi: 0},
];
const RGI_REGEX = 'const rgiEmojiRegex = /^\\p{RGI_Emoji}$/v;';
const lazyText = {
	name: 'lazy-text-tables',
	setup(b) {
		b.onLoad({filter: /[\\/]node_modules[\\/].*\.js$/}, async args => {
			const spec = LAZY_TEXT_MODULES.find(m => m.file.test(args.path));
			if (!spec) {
				return undefined;
			}

			let text = await fs.promises.readFile(args.path, 'utf8');
			const segmenters = text.split('new Intl.Segmenter(').length - 1;
			const rgi = text.split(RGI_REGEX).length - 1;
			if (segmenters !== spec.segmenters || rgi !== spec.rgi) {
				throw new Error(`lazy-text-tables: ${args.path} has ${segmenters} segmenters and ${rgi} RGI regexes, expected ${spec.segmenters} and ${spec.rgi}: review this plugin`);
			}

			// dist/text/segmenter.js: splits plain text without ICU, builds a real segmenter on first need.
			text = `import {lazySegmenter as __hfxLazySegmenter} from ${JSON.stringify(path.resolve('dist/text/segmenter.js'))};\n${text.replaceAll('new Intl.Segmenter(', '__hfxLazySegmenter(')}`;
			text = text.replace(RGI_REGEX, () => 'let rgiEmojiRegexBuilt; const rgiEmojiRegex = {test: text => (rgiEmojiRegexBuilt ??= new RegExp(\'^\\\\p{RGI_Emoji}$\', \'v\')).test(text)};');
			return {contents: text, loader: 'js'};
		});
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
	external: ['better-sqlite3', 'yazl', 'yaml'],
	// CommonJS dependencies (React) call require() for Node built-ins.
	banner: {js: 'import {createRequire as __hfxCreateRequire} from \'node:module\'; const require = __hfxCreateRequire(import.meta.url);'},
	plugins: [noDevtools, reactProduction, yogaWithoutFetch, lazyText],
	legalComments: 'none',
	// Less source to decode and parse at every start: 0.87 MB instead of 3 MB (with names kept it
	// was 1.3 MB, ~25 ms more of every start). Stack traces name the minified identifiers; the
	// linked source map (dist/hfx.js.map, read only under --enable-source-maps) turns them back
	// into our file and function names: hfx's internal-error line says so.
	minifyWhitespace: true,
	minifySyntax: true,
	minifyIdentifiers: true,
	sourcemap: 'linked',
	sourcesContent: false,
	logLevel: 'warning',
	// What went in (for test/build/bundle.test.ts: one Ink, the externals kept out).
	metafile: true,
}).then(result => {
	fs.writeFileSync('dist/hfx.meta.json', JSON.stringify(result.metafile));
});
fs.chmodSync(outfile, 0o755);
